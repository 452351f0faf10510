"""Backends behind the core's store port (fabricd.core.ports.Store).

- lmdb/: the embedded default, one data folder, one process (group-committed single writer).
- memory/: the reference backend for unit tests of the core; nothing survives the process.
- postgres/: PostgreSQL, shared by any number of fabricd nodes (`postgresql://...`).

`open_store` is the daemon's only way in: it picks a backend from the location.
"""

from __future__ import annotations

from collections.abc import Callable

from fabricd.core.kv.store import KvStore
from fabricd.core.ports import Store, Wakeups
from fabricd.store.errors import require_postgres_driver


def open_store(location: str, *, wakeups: Wakeups, clock: Callable[[], int], map_size: int = 1 << 30,
               sync: bool = True, failpoint: str = "", group: str = "", poll_interval: float = 0.0) -> Store:
    """The store at `location`: `memory:` for the in-memory backend, a `postgresql://` (or `postgres://`)
    URL for PostgreSQL (migrated at start when behind, refused when ahead), otherwise an LMDB data folder.

    Raises fabricd.store.lmdb.folder.StoreError (one line, for people) when the folder cannot be opened.
    """
    if location == "memory:":
        from fabricd.store.memory import MemoryEngine

        return KvStore(MemoryEngine(wakeups), wakeups, clock)
    if location.startswith(("postgresql://", "postgres://")):
        require_postgres_driver()
        from fabricd.store.postgres.store import PgStore

        return PgStore(location, wakeups, clock, poll_interval=poll_interval, failpoint=failpoint)
    if "://" in location:
        raise ValueError(f"store {location!r}: use a postgresql://USER@HOST:PORT/DB URL or a data folder")
    from fabricd.store.lmdb.channel_index import SqliteIndex
    from fabricd.store.lmdb.engine import LmdbEngine

    engine = LmdbEngine(location, map_size=map_size, wakeups=wakeups, sync=sync, failpoint=failpoint, group=group)
    # one process owns the folder (it holds the lock); channels' search index lives beside the store
    return KvStore(engine, wakeups, clock, node_id=0, search_index=SqliteIndex(location))
