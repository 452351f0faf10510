"""Whose work a write is: the lane of the running call, so the store can share its writer fairly.

The guard sets the lane of each call to its token (or mTLS identity); calls without one (local callers,
the daemon's own loops) share the lane "". A backend that queues work (the LMDB writer, the PostgreSQL
pool) keeps one FIFO per lane and serves the lanes in turn (fabricd.store.fair), so one token's flood
delays another token's write by about one turn, not by the whole flood. Order within a lane is kept.
"""

from __future__ import annotations

import contextvars

LANE: contextvars.ContextVar[str] = contextvars.ContextVar("fabricd_lane", default="")


def current() -> str:
    """The lane of the running call ("" outside a token's call)."""
    return LANE.get()
