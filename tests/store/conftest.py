"""Fixtures for the PostgreSQL backend's tests: a pool on a fresh database (the cluster fixtures are in
tests/pgfixtures.py, shared with the daemon tests)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest


@pytest.fixture
async def pg_pool(pg_url: str) -> AsyncIterator[object]:
    """An asyncpg pool on a fresh migrated database (one "node")."""
    import asyncpg

    pool = await asyncpg.create_pool(pg_url, min_size=1, max_size=16)
    try:
        yield pool
    finally:
        await pool.close()


async def append(conn, agent_id: str, message_id: str, text: str = "") -> int:
    """Store one message with its own id through the append's decider on a bare connection (no node), in
    its own transaction (a savepoint inside the caller's); its seq (the earlier one's for a resend)."""
    from fabricd.core.model import Address, Message, Sent
    from fabricd.store.postgres import hot_append

    group = hot_append.prepare([(Message(id=message_id, recipient=Address(agent_id), text=text), b"")], str, 1,
                               create=False, atomic=False, max_unread=0, quota=None)
    async with conn.transaction():
        (sent,) = (await hot_append.append_in(conn, group)).results
    assert isinstance(sent, Sent), sent
    return sent.message.seq
