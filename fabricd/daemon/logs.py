"""Logging: one JSON object per line when stderr is not a terminal, plain text when it is (setting `log_format`).

The daemon's announcements (serving on ADDR, metrics on URL, stopped) go to stdout at any log level, for whoever
started it, in the same format: under JSON every line the daemon writes, on stdout and stderr, is one JSON object
(a journal reading both streams sees one format), with the address in its own field.
"""

from __future__ import annotations

import json
import logging
import sys
import time

_STANDARD = set(logging.LogRecord("", 0, "", 0, "", (), None).__dict__) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    """`{"time", "level", "logger", "message", ...extra fields}`; exceptions as "error"."""

    def format(self, record: logging.LogRecord) -> str:
        out = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        out.update({k: v for k, v in record.__dict__.items() if k not in _STANDARD})
        if record.exc_info:
            out["error"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str, ensure_ascii=False)


class TextFormatter(logging.Formatter):
    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        extra = {k: v for k, v in record.__dict__.items() if k not in _STANDARD}
        return text + ("".join(f" {k}={v}" for k, v in extra.items()) if extra else "")


_announcer: logging.Formatter | None = None
"""The formatter of announcements under JSON; None: plain lines."""


def setup(level: str, fmt: str = "auto") -> None:
    global _announcer
    handler = logging.StreamHandler(sys.stderr)
    use_json = fmt == "json" or (fmt == "auto" and not sys.stderr.isatty())
    handler.setFormatter(JsonFormatter() if use_json else TextFormatter())
    _announcer = JsonFormatter() if use_json else None
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)


def announce(message: str, **fields: object) -> None:
    """One line on stdout, whatever the log level: `message` as it is, or under JSON a log object with `fields`."""
    if _announcer is None:
        print(message, flush=True)
        return
    record = logging.LogRecord("fabricd", logging.INFO, "", 0, message, (), None)
    record.__dict__.update(fields)
    print(_announcer.format(record), flush=True)
