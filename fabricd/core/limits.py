"""Limits every request is checked against. One frozen value, passed down from the config."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Limits:
    max_id_chars: int = 256
    """Agent ids, session ids, session names and client message ids: 1 to this many characters."""
    max_message_bytes: int = 1 << 20
    """Text, data and headers of one message, in bytes."""
    max_response_bytes: int = 16 << 20
    """Peek, drain and each Subscribe batch return at most this many bytes of messages (always at least one),
    well inside gRPC's frame limit; a drain never consumes what it cannot return."""
    max_batch: int = 1000
    """Messages in one SendMessages call, ids in one AckMessages call."""
    default_limit: int = 100
    """What `limit = 0` means for peek and drain."""
    max_limit: int = 1000
    """The largest `limit` peek and drain accept."""
    max_capabilities: int = 64
    max_metadata_bytes: int = 64 << 10
    """Keys and values of a mailbox's metadata, in bytes."""
    max_unread: int = 0
    """Unread messages per mailbox before sends are refused; 0 means no quota."""
    live_window_s: float = 15 * 60
    """How long after its last heartbeat an agent still counts as live."""
    dedupe_window_s: float = 7 * 24 * 3600
    """How long the id of a consumed message is remembered, so a resend is still a duplicate."""
