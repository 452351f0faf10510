"""How `fabric` shows what users stored (message text, names, ids, headers, tasks): as stored, never as markup.

Invariants (docs/cli-output.md says the same for users):
- User data is never read as rich markup or emoji codes: `[/note]`, `[bold]`, `:smile:` print as written.
- Through a pipe or into a file (stdout is no terminal), a message's text is written byte for byte (UTF-8).
- On a terminal, control characters other than newline and tab (ESC, CR, BEL, DEL, C1) are shown as visible
  escapes (`\\x1b`, `\\r`), so mail cannot move the cursor, retitle the terminal or hide text behind a CR;
  everything else (brackets, backslashes, right-to-left marks, very long lines) is shown as stored.
- A table cell is one line: there newline and tab are shown as `\\n` and `\\t` too, on a terminal and through a
  pipe alike (a preview); `--json` always carries the exact value.
"""

from __future__ import annotations

import re
import sys
from typing import IO

import click
from rich.text import Text

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_CONTROL_OR_BREAK = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def _escape(match: re.Match[str]) -> str:
    return match.group().encode("unicode_escape").decode("ascii")


def visible(text: str) -> str:
    """`text` with its control characters, except newline and tab, as visible escapes (for a terminal)."""
    return _CONTROL.sub(_escape, text)


def one_line(text: str) -> str:
    """`text` as one line: every control character, newline and tab included, as a visible escape."""
    return _CONTROL_OR_BREAK.sub(_escape, text)


def cell(text: str, style: str = "") -> Text:
    """A table cell holding `text` as stored (never markup), on one line."""
    return Text(one_line(text), style=style)


def preview(text: str, width: int = 60) -> str:
    """The first `width` characters of `text` on one line, with … when there is more."""
    flat = one_line(text)
    return flat[:width] + ("…" if len(flat) > width else "")


def is_terminal(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def write(parts: list[tuple[str, str]], *, err: bool = False, raw: bool = False) -> None:
    """Write one line made of (text, style) parts, then flush: exact through a pipe, styled and escaped on a terminal.

    Styles are click style names (dim, bold, magenta); they apply only on a terminal. A write to a closed pipe
    raises BrokenPipeError here, before the caller counts the line as shown. `raw`: exact even on a terminal (JSON).
    """
    stream = sys.stderr if err else sys.stdout
    if is_terminal(stream) and not raw:
        line = "".join(click.style(visible(text), **_STYLES[style]) if style else visible(text)
                       for text, style in parts)
    else:
        line = "".join(text for text, _ in parts)
    data = (line + "\n").encode("utf-8", "surrogateescape")
    stream.flush()
    buffer = getattr(stream, "buffer", None)
    if buffer is None:  # a test's StringIO: no bytes layer
        stream.write(line + "\n")
        stream.flush()
        return
    buffer.write(data)
    buffer.flush()


_STYLES: dict[str, dict[str, object]] = {
    "dim": {"dim": True}, "bold": {"bold": True}, "magenta": {"fg": "magenta"}, "green": {"fg": "green"},
    "yellow": {"fg": "yellow"}, "red": {"fg": "red"},
}
