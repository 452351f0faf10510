"""Every configuration key: its type, default and help, and how a value is found.

A value comes from the TOML file (--config or $FABRICD_CONFIG), then the
environment ($FABRICD_<KEY>, dots as underscores: FABRICD_LIMITS_MAX_UNREAD),
then a command-line flag; the last one found wins. Unknown keys and bad values
stop the daemon with a message naming the key and where the value came from.
"""

from __future__ import annotations

import argparse
import os
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from fabricd import paths


class ConfigError(Exception):
    """A configuration key is unknown or its value is bad."""


def parse_size(value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    if not isinstance(value, str):
        raise ValueError("expected a size like 512M, 32G or 1048576")
    text = value.strip().lower().removesuffix("ib").removesuffix("b")
    units = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
    try:
        number = float(text[:-1]) * units[text[-1]] if text and text[-1] in units else int(text)
    except (ValueError, KeyError):
        raise ValueError(f"{value!r} is not a size like 512M, 32G or 1048576") from None
    if number < 0:
        raise ValueError("a size may not be negative")
    return int(number)


def parse_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in {"1", "true", "yes", "on"}:
        return True
    if text in {"0", "false", "no", "off"}:
        return False
    raise ValueError(f"{value!r} is not true or false")


def parse_int(minimum: int = 0) -> Callable[[Any], int]:
    def parse(value: Any) -> int:
        if isinstance(value, bool):
            raise ValueError("expected a whole number")
        try:
            number = int(value)
        except (TypeError, ValueError):
            raise ValueError(f"{value!r} is not a whole number") from None
        if number < minimum:
            raise ValueError(f"{number} is below the minimum of {minimum}")
        return number

    return parse


def parse_float(value: Any) -> float:
    if isinstance(value, bool):
        raise ValueError("expected a number of seconds")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{value!r} is not a number") from None
    if number < 0:
        raise ValueError("may not be negative")
    return number


def parse_str(value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{value!r} is not a string")
    return value


def parse_list(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(v.strip() for v in value.split(",") if v.strip())
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise ValueError(f"{value!r} is not a list of strings")


def parse_choice(*choices: str) -> Callable[[Any], str]:
    def parse(value: Any) -> str:
        text = str(value).strip().lower()
        if text not in choices:
            raise ValueError(f"{value!r} is not one of {', '.join(choices)}")
        return text

    return parse


def parse_mode(value: Any) -> int:
    try:
        mode = int(str(value), 8)
    except ValueError:
        raise ValueError(f"{value!r} is not an octal file mode like 0660") from None
    if mode & 0o002:
        raise ValueError("the socket may not be world-writable")
    return mode


def parse_level(value: Any) -> str:
    text = str(value).strip().upper()
    if text not in {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"}:
        raise ValueError(f"{value!r} is not a log level (DEBUG, INFO, WARNING, ERROR)")
    return text


@dataclass(frozen=True, slots=True)
class Setting:
    key: str
    parse: Callable[[Any], Any]
    default: Callable[[], Any]
    help: str
    flag: str | None = None
    reloadable: bool = False
    show: Callable[[Any], str] = repr


def _const(value: Any) -> Callable[[], Any]:
    return lambda: value


SETTINGS: tuple[Setting, ...] = (
    Setting("data_dir", parse_str, paths.default_data_dir, "folder of the LMDB store and its lock file", "--data-dir"),
    Setting("listen", parse_list, lambda: (f"unix:{paths.default_socket()}",),
            "addresses to serve on: unix:PATH or HOST:PORT", "--listen"),
    Setting("map_size", parse_size, _const(32 << 30), "the most the store may hold (sparse)", "--map-size"),
    Setting("sync", parse_bool, _const(True), "fsync every commit; off only for benchmarks", "--sync"),
    Setting("log_level", parse_level, _const("INFO"), "DEBUG logs one line per call", "--log-level", reloadable=True),
    Setting("log_format", parse_choice("auto", "json", "text"), _const("auto"),
            "auto: JSON when stderr is not a terminal", "--log-format"),
    Setting("grace", parse_float, _const(10.0), "seconds shutdown waits for calls in flight", "--grace"),
    Setting("keepalive", parse_float, _const(15.0), "seconds between keepalives on idle streams", "--keepalive"),
    Setting("ticket_retention", parse_float, _const(86400.0), "seconds answered tickets are kept",
            "--ticket-retention"),
    Setting("max_causal_depth", parse_int(0), _const(8), "deeper admissions are refused", "--max-causal-depth",
            reloadable=True),
    Setting("limits.max_message_bytes", parse_size, _const(1 << 20), "text + data + headers of one message",
            "--max-message-bytes", reloadable=True),
    Setting("limits.max_unread", parse_int(0), _const(0), "unread messages per mailbox; 0 is no quota",
            "--max-unread", reloadable=True),
    Setting("limits.live_window", parse_float, _const(900.0), "seconds after a heartbeat an agent is live",
            "--live-window", reloadable=True),
    Setting("limits.dedupe_window", parse_float, _const(7 * 86400.0),
            "seconds a consumed message's id is remembered (a resend within it is a duplicate)", "--dedupe-window",
            reloadable=True),
    Setting("housekeeping_interval", parse_float, _const(60.0),
            "seconds between passes that forget expired tickets and old consumed ids", "--housekeeping-interval"),
    Setting("outbox.max_attempts", parse_int(0), _const(0),
            "failed posts before a row is dead-lettered; 0 retries forever with the capped back-off",
            "--outbox-max-attempts"),
    Setting("outbox.backoff", parse_float, _const(1.0), "seconds before the first retry; doubles each time",
            "--outbox-backoff"),
    Setting("outbox.backoff_cap", parse_float, _const(300.0), "longest wait between retries", "--outbox-backoff-cap"),
    Setting("outbox.loop", parse_bool, _const(True), "deliver outbox rows by themselves", "--outbox-loop"),
    Setting("metrics.listen", parse_str, _const(""), "HOST:PORT for Prometheus metrics; empty is off",
            "--metrics-listen"),
    Setting("socket.mode", parse_mode, _const(0o660), "file mode of unix sockets", "--socket-mode", show=oct),
    Setting("socket.group", parse_str, _const(""), "group owning unix sockets (empty: the daemon's)",
            "--socket-group"),
    Setting("auth.tokens", parse_choice("auto", "on", "off"), _const("auto"),
            "require tokens: auto means on TCP listeners, not on unix sockets", "--auth"),
    Setting("auth.rate_limit", parse_float, _const(0.0), "calls per second per token; 0 is unlimited",
            "--rate-limit", reloadable=True),
    Setting("auth.rate_burst", parse_int(1), _const(100), "calls a token may make at once above the rate",
            "--rate-burst", reloadable=True),
    Setting("testing.failpoint", parse_choice("", "before-commit", "after-commit", "stall"), _const(""),
            "reliability tests only: crash at the first batch storing a message", "--failpoint"),
    Setting("tls.cert", parse_str, _const(""), "PEM certificate for TCP listeners", "--tls-cert"),
    Setting("tls.key", parse_str, _const(""), "PEM private key for TCP listeners", "--tls-key"),
    Setting("tls.client_ca", parse_str, _const(""), "PEM CA that signs client certificates (mutual TLS)",
            "--tls-client-ca"),
    Setting("tls.require_client_cert", parse_bool, _const(False), "refuse clients without a certificate",
            "--tls-require-client-cert"),
    Setting("tls.admin_names", parse_list, _const(()), "client certificate names that act as admin",
            "--tls-admin-names"),
)
BY_KEY = {s.key: s for s in SETTINGS}


def env_name(key: str) -> str:
    return "FABRICD_" + key.upper().replace(".", "_")


def flag_dest(key: str) -> str:
    return "cfg_" + key.replace(".", "__")


def add_flags(parser: argparse.ArgumentParser) -> None:
    """One flag per setting; unset flags stay None so the file and environment show through."""
    parser.add_argument("--config", metavar="PATH", help="TOML configuration file (default $FABRICD_CONFIG)")
    for s in SETTINGS:
        if s.flag is None:
            continue
        dest = flag_dest(s.key)
        default = s.default()
        shown = (oct(default) if s.show is oct else ", ".join(default) if isinstance(default, tuple)
                 else ("on" if default else "off") if isinstance(default, bool) else (default if default != "" else "none"))
        text = f"{s.help} [{s.key}; default {shown}]".replace("%", "%%")
        if s.parse is parse_bool:
            parser.add_argument(s.flag, dest=dest, action=argparse.BooleanOptionalAction, default=None, help=text)
        elif s.parse is parse_list:
            parser.add_argument(s.flag, dest=dest, action="append", default=None, metavar="VALUE",
                                help=text + " (repeatable)")
        else:
            parser.add_argument(s.flag, dest=dest, default=None, metavar="VALUE", help=text)


def _flatten(table: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in table.items():
        full = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(_flatten(value, full + "."))
        else:
            out[full] = value
    return out


@dataclass(frozen=True, slots=True)
class Resolved:
    values: dict[str, Any]
    sources: dict[str, str]


def resolve(args: argparse.Namespace | None, environ: Mapping[str, str] = os.environ) -> Resolved:
    """Defaults, then the file, then the environment, then flags; each value parsed and checked."""
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    raw: list[tuple[str, Any, str]] = []
    path = (getattr(args, "config", None) if args is not None else None) or environ.get("FABRICD_CONFIG")
    if path:
        try:
            with open(path, "rb") as f:
                table = tomllib.load(f)
        except OSError as exc:
            raise ConfigError(f"cannot read the configuration file {path}: {exc.strerror}") from None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path} is not valid TOML: {exc}") from None
        for key, value in _flatten(table).items():
            if key not in BY_KEY:
                known = ", ".join(sorted(BY_KEY))
                raise ConfigError(f"unknown key {key!r} in {path}; known keys: {known}")
            raw.append((key, value, f"file {path}"))
    for s in SETTINGS:
        name = env_name(s.key)
        if name in environ:
            raw.append((s.key, environ[name], f"env {name}"))
    if args is not None:
        for s in SETTINGS:
            value = getattr(args, flag_dest(s.key), None)
            if value is not None:
                raw.append((s.key, value, f"flag {s.flag}"))
    for s in SETTINGS:
        values[s.key] = s.default()
        sources[s.key] = "default"
    for key, value, source in raw:
        try:
            values[key] = BY_KEY[key].parse(value)
        except ValueError as exc:
            raise ConfigError(f"{key} = {value!r} ({source}): {exc}") from None
        sources[key] = source
    return Resolved(values, sources)


def describe(resolved: Resolved) -> str:
    """The effective configuration as TOML, each value with where it came from."""
    lines = []
    table = ""
    for s in SETTINGS:
        section, _, name = s.key.rpartition(".")
        if section != table:
            lines.append(f"\n[{section}]")
            table = section
        value = resolved.values[s.key]
        if s.show is oct:
            text = f'"{value:04o}"'
        elif isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, tuple):
            text = "[" + ", ".join(f'"{v}"' for v in value) + "]"
        elif isinstance(value, str):
            text = f'"{value}"'
        else:
            text = repr(value)
        lines.append(f"{name} = {text}  # {resolved.sources[s.key]}: {s.help}")
    return "\n".join(lines).strip() + "\n"
