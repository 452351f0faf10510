"""Advisory locks: housekeeping and migrations on one node at a time.

Keys are fixed 64-bit numbers in one table, so no two uses collide:

    MIGRATE       1  schema migrations (transaction-scoped)
    HOUSEKEEPING  2  pruning ids, tickets and receipts (session-scoped, held while a node does it)

and, in the two-key form (a space apart from the 64-bit keys), (LOOKS, hashtext(key)): a look-alike key
(fabricd.core.lookalike) while a write that makes a name reads who looks like it (transaction-scoped); a
channel's look-alike keys are taken as `channel:` and the key, a directory agent's name's as `agent-name:` and
the key, apart from mailbox agents' names (the bare key).

`try_hold` never waits: a node that does not get the lock skips this round, and
another node's round does the work. A session lock dies with its connection, so
a node that crashes mid-round frees the lock for the others.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fabricd.store.postgres.conn import Conn

NAMESPACE = 0x66616272 << 32  # "fabr": keeps our keys away from other applications' small integers
MIGRATE = NAMESPACE | 1
HOUSEKEEPING = NAMESPACE | 2
LOOKS = NAMESPACE >> 32  # "fabr" as the first of two 32-bit keys


async def xact_lock(conn: Conn, key: int) -> None:
    """Wait for `key` until the end of the current transaction."""
    await conn.execute("SELECT pg_advisory_xact_lock($1)", key)


@contextlib.asynccontextmanager
async def try_hold(conn: Conn, key: int) -> AsyncIterator[bool]:
    """Yield True while this connection holds `key`, or False at once when another session does."""
    held = await conn.fetchval("SELECT pg_try_advisory_lock($1)", key)
    try:
        yield held
    finally:
        if held and not conn.is_closed():
            await conn.execute("SELECT pg_advisory_unlock($1)", key)
