"""Answers written under flow control, and what happens when one never reaches its caller.

The answers of the methods in WRITTEN (peek and drain: up to 16 MiB) are written by the
interceptor as a stream's response is (fabricd.rpc.streams): they count toward the daemon's
bytes in flight, and a caller that stops reading is ended after the stall timeout instead of
holding its answer in memory for as long as it likes. When the transport never takes the answer
(the caller left, refused it as larger than its receive limit, or stalled), the callbacks its
servicer registered with `on_lost` run: a drain puts its messages back (Mailboxes.put_back_later).
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable

WRITTEN = frozenset({"PeekMessages", "DrainMessages"})

_LOST: contextvars.ContextVar[list[Callable[[], None]] | None] = contextvars.ContextVar("fabricd_lost",
                                                                                        default=None)


def on_lost(callback: Callable[[], None]) -> None:
    """Run `callback` if this call's answer never reaches its caller (outside WRITTEN methods: never)."""
    lost = _LOST.get()
    if lost is not None:
        lost.append(callback)


def watch() -> list[Callable[[], None]]:
    """A fresh list of the running call's `on_lost` callbacks (the interceptor's, before the servicer runs)."""
    lost: list[Callable[[], None]] = []
    _LOST.set(lost)
    return lost
