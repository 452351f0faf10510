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
