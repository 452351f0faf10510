"""Domain errors. Every error the core raises is one of these.

    FabricError                 root; carries a stable `reason` and `metadata`
    ├── InvalidArgument         the request itself is wrong
    ├── NotFound                a named thing does not exist
    ├── AlreadyExists           the id is taken by something different
    ├── FailedPrecondition      the request is fine but the state forbids it
    ├── ResourceExhausted       a limit or the store is full; retry later
    ├── Aborted                 the operation ended before it could finish
    ├── DeadlineExceeded        a wait ran out of time
    ├── Unavailable             the daemon is shutting down; retry elsewhere
    ├── Unauthenticated         no token, or an unknown or revoked one
    └── PermissionDenied        the caller may not do this (another agent's mailbox, an admin call)

The rpc layer maps each class to one gRPC status code in one table; clients
choose their exception from `reason`, never from the message text.

An error echoes what the caller sent, clipped (`clip`): a metadata value or a
word of the message longer than ECHO_CHARS keeps its first ECHO_CHARS characters
and says its length, so an error always fits gRPC's headers.
"""

from __future__ import annotations

import re

ECHO_CHARS = 200
"""The most characters of one echoed value an error carries (its metadata values, each word of its message)."""
MESSAGE_CHARS = 2000
"""The most characters of an error's message."""
_LONG_WORD = re.compile(rf"\S{{{ECHO_CHARS + 1},}}")


def clip(value: str, limit: int = ECHO_CHARS) -> str:
    """`value` as an error may echo it: whole when short, else its start and its length."""
    if len(value) <= limit:
        return value
    return f"{value[:limit]}… ({len(value)} characters)"


def _clip_message(message: str) -> str:
    if len(message) <= ECHO_CHARS:
        return message
    return clip(_LONG_WORD.sub(lambda m: clip(m.group()), message), MESSAGE_CHARS)


class FabricError(Exception):
    """Root of the domain errors."""

    default_reason = "FABRIC_ERROR"

    def __init__(self, message: str, *, reason: str | None = None, **metadata: object) -> None:
        message = _clip_message(message)
        super().__init__(message)
        self.message = message
        self.reason = reason or self.default_reason
        self.metadata = {k: clip(str(v)) for k, v in metadata.items()}


class InvalidArgument(FabricError):
    default_reason = "INVALID_ARGUMENT"


class NotFound(FabricError):
    default_reason = "NOT_FOUND"


class AlreadyExists(FabricError):
    default_reason = "ALREADY_EXISTS"


class FailedPrecondition(FabricError):
    default_reason = "FAILED_PRECONDITION"


class ResourceExhausted(FabricError):
    default_reason = "RESOURCE_EXHAUSTED"


class Aborted(FabricError):
    default_reason = "ABORTED"


class DeadlineExceeded(FabricError):
    default_reason = "DEADLINE_EXCEEDED"


class Unavailable(FabricError):
    default_reason = "UNAVAILABLE"


class Unauthenticated(FabricError):
    default_reason = "UNAUTHENTICATED"


class PermissionDenied(FabricError):
    default_reason = "PERMISSION_DENIED"
