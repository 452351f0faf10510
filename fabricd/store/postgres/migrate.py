"""`fabricd migrate --store URL`: bring a database's fabricd schema up to this fabricd's version."""

from __future__ import annotations

import asyncpg

from fabricd.store.postgres import schema
from fabricd.store.postgres.errors import CONNECTION_LOST, PostgresError, Unreachable


def safe(url: str) -> str:
    """The URL without its password (for logs, errors and GetStatus)."""
    head, sep, tail = url.partition("@")
    if not sep or "://" not in head:
        return url
    scheme, _, userinfo = head.partition("://")
    return f"{scheme}://{userinfo.split(':', 1)[0]}@{tail}"


async def connect(url: str) -> asyncpg.Connection:
    """A connection, or Unreachable/PostgresError saying in one line why not."""
    try:
        return await asyncpg.connect(url)
    except CONNECTION_LOST as exc:
        raise Unreachable(f"cannot reach {safe(url)}: {exc}") from exc
    except (asyncpg.PostgresError, ValueError) as exc:
        raise PostgresError(f"cannot open {safe(url)}: {exc}") from exc


async def migrate_url(url: str) -> str:
    """Migrate the database at `url`; one line saying what was done. SchemaAhead when it is newer."""
    if not url.startswith(("postgresql://", "postgres://")):
        raise PostgresError("fabricd migrate needs --store postgresql://USER@HOST:PORT/DB (LMDB data folders "
                            "are upgraded by `fabricd serve` itself)")
    conn = await connect(url)
    try:
        before = await schema.version(conn)
        applied = await schema.migrate(conn)
        refreshed = await schema.refresh_looks(conn)
    finally:
        await conn.close()
    if not applied and refreshed:
        return (f"{safe(url)} is at fabricd schema version {before}, the latest; computed the look-alike keys "
                "of its agents' names again (other confusables data)")
    if not applied:
        return f"{safe(url)} is at fabricd schema version {before}, the latest: nothing to do"
    return f"migrated {safe(url)} from schema version {before} to {applied[-1]}"
