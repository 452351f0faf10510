"""Run one operation on a pooled connection, again when the database says it may.

    made = await run(pool, directory.create_mailbox, agent_id)

Serialization failures and deadlocks are always re-run (the server rolled the
transaction back). A unique violation is re-run when the operation says a racing
writer may cause it (the loser of two first appends of one client id). A lost
connection is re-run only for `idempotent` operations, since the commit may have
happened; others raise Unreachable and the caller answers UNAVAILABLE.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from typing import TypeVar

import asyncpg

from fabricd.store.postgres.errors import CONNECTION_LOST, ROLLED_BACK, Unreachable

T = TypeVar("T")
ATTEMPTS = 8


async def run(pool: asyncpg.Pool, op: Callable[..., Awaitable[T]], *args: object, idempotent: bool = True,
              unique_retry: bool = True, attempts: int = ATTEMPTS) -> T:
    """`op(conn, *args)` on a connection from `pool`, re-run as the module docstring says."""
    delay = 0.002
    for attempt in range(1, attempts + 1):
        try:
            async with pool.acquire() as conn:
                return await op(conn, *args)
        except ROLLED_BACK:
            pass
        except asyncpg.UniqueViolationError:
            if not unique_retry or attempt == attempts:
                raise
        except CONNECTION_LOST as exc:
            if not idempotent or attempt == attempts:
                raise Unreachable(f"the database connection broke: {exc}") from exc
        if attempt == attempts:
            break
        await asyncio.sleep(delay * random.uniform(0.5, 1.5))  # jitter, not security
        delay = min(delay * 2, 0.5)
    raise Unreachable(f"{getattr(op, '__name__', 'the operation')} did not succeed in {attempts} attempts")
