"""What a PostgreSQL store reports of itself for GetStatus and `fabric doctor`: server, database, schema, pool.

Read-only catalogue queries on one pooled connection; pg_stat_replication lists only what the role may see
(a role without pg_read_all_stats still counts the rows).
"""

from __future__ import annotations

import asyncpg

from fabricd.core.model import PostgresInfo
from fabricd.store.postgres import schema
from fabricd.store.postgres.migrate import safe

_QUERY = """
SELECT current_setting('server_version') AS server_version, current_database() AS database,
       pg_is_in_recovery() AS in_recovery, (SELECT count(*) FROM pg_stat_replication) AS replicas,
       pg_database_size(current_database()) AS database_bytes
"""


async def describe(pool: asyncpg.Pool, url: str) -> PostgresInfo:
    async with pool.acquire() as conn:
        rows = await conn.fetch(_QUERY)  # one row: a SELECT without FROM
        version = await schema.version(conn)
    (row,) = rows
    return PostgresInfo(url=safe(url), server_version=row["server_version"], database=row["database"],
                        schema_version=version, pool_size=pool.get_size(), pool_max_size=pool.get_max_size(),
                        pool_idle=pool.get_idle_size(), in_recovery=row["in_recovery"], replicas=row["replicas"],
                        database_bytes=row["database_bytes"])
