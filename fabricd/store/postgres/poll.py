"""Wake-ups without LISTEN/NOTIFY, for PostgreSQL-compatible databases that lack it (CockroachDB, YugabyteDB).

Every waiter already treats a wake-up as a hint and re-reads storage (core/notify.py),
so a node that cannot hear other nodes' NOTIFYs stays correct by waking all of its
own waiters every interval: a send committed on another node reaches a Subscribe
here within one interval instead of milliseconds. A node's own commits still wake
its waiters at once. The cost is one storage read per waiting stream per interval,
whether anything changed or not: pick the interval for the latency you need.

Polling is chosen by the `poll_interval` setting, or at start when the database
refuses LISTEN as unsupported (then every AUTO_INTERVAL_S, with a warning).
"""

from __future__ import annotations

import asyncio

import asyncpg

from fabricd.core.ports import Wakeups
from fabricd.store.postgres.listen import CHANNEL

AUTO_INTERVAL_S = 0.2
UNSUPPORTED = frozenset({"0A000", "42601"})
"""SQLSTATEs of a LISTEN the database does not do: feature_not_supported (YugabyteDB, CockroachDB's
"unimplemented"), and syntax_error from a parser that does not know the statement."""


async def listen_supported(conn: asyncpg.Connection, *, pretend_unsupported: bool = False) -> bool:
    """Whether the database accepts LISTEN (tried, then undone); other errors are raised.

    `pretend_unsupported` (tests only: FABRICD_TEST_FAILPOINT=listen-unsupported) answers as CockroachDB
    would, so the fallback is tested on a real PostgreSQL."""
    if pretend_unsupported:
        return False
    try:
        await conn.execute(f"LISTEN {CHANNEL}")
        await conn.execute(f"UNLISTEN {CHANNEL}")
    except asyncpg.PostgresError as exc:
        if exc.sqlstate in UNSUPPORTED:
            return False
        raise
    return True


async def poll(wakeups: Wakeups, interval_s: float) -> None:
    """Wake every local waiter every `interval_s` until cancelled (each re-reads storage)."""
    while True:
        await asyncio.sleep(interval_s)
        wakeups.wake_all()
