"""PostgreSQL fixtures for every test: one throwaway cluster per session, a fresh database per test.

`pg_cluster` starts a cluster of our own (tests/pg.py), never the system's
service, and migrates a template database once; `pg_url` copies that template
into a new database for each test (CREATE DATABASE ... TEMPLATE: a file copy,
milliseconds), and `pg_empty_url` gives a database with no fabricd schema.
PostgreSQL's server missing is a failure that says what to install, not a skip.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Iterator

import pytest

from tests import pg

TEMPLATE = "fabricd_template"
_names = itertools.count(1)


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[pg.Cluster]:
    if not pg.available():
        pytest.fail("PostgreSQL's server is not installed: run `python3 scripts/dev test` as root, "
                    "or apt-get install postgresql", pytrace=False)
    import asyncpg

    from fabricd.store.postgres import schema

    with pg.Cluster.start() as cluster:
        url = cluster.create_database(TEMPLATE)

        async def migrate() -> None:
            conn = await asyncpg.connect(url)
            try:
                await schema.migrate(conn)
            finally:
                await conn.close()

        asyncio.run(migrate())
        yield cluster


@pytest.fixture
def pg_url(pg_cluster: pg.Cluster) -> str:
    """A new database holding fabricd's current schema."""
    return pg_cluster.create_database(f"t{next(_names)}", template=TEMPLATE)


@pytest.fixture
def pg_empty_url(pg_cluster: pg.Cluster) -> str:
    """A new database with no fabricd schema."""
    return pg_cluster.create_database(f"e{next(_names)}", template="template1")


