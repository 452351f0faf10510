"""How the hooks echo what they were given on stderr: clipped, with its length (the input is a coding agent's,
of any size, as are the errors that quote it)."""

from __future__ import annotations

ECHO_CHARS = 200
"""The most characters of one input value a note on stderr echoes."""
MESSAGE_CHARS = 2000
"""The most characters of one reason a note on stderr gives."""


def echoed(value: object, limit: int = ECHO_CHARS) -> str:
    """A value from the hook's input as stderr may echo it: whole when short, else its start and its length
    (as the daemon's errors echo values)."""
    text = str(value)
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters)"
