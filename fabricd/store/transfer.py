"""`fabricd copy`: a whole fabric from one store to another, as records every backend shares.

    copied = await copy(open_source("/var/lib/fabricd"), open_target("postgresql://..."), progress=print)

Each backend dumps every record of a fabric from one consistent snapshot (an
LMDB read transaction; a PostgreSQL REPEATABLE READ transaction) and loads
records in one transaction into a store that holds no fabric
(fabricd.store.lmdb.dump, fabricd.store.postgres.dump). They meet in the kinds
of fabricd.store.records, one per thing a fabric keeps; indexes (LMDB's `names`, `queues`, `due`,
... ; PostgreSQL's partial indexes) are not records: each load rebuilds them.

Complete by construction: each dump module declares, for every LMDB
sub-database and every PostgreSQL table, the kinds it holds (`COVERS`); a dump
refuses a record it does not know (an LMDB meta key, a table), and the tests
check that every sub-database and table of a real store is declared, so a new
one cannot be added without being copied.

A refusal (bad location, a target that already holds a fabric, a source of
another schema) is a StoreError raised before anything is written.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable

from fabricd.store.errors import StoreError, require_postgres_driver
from fabricd.store.records import BATCH as BATCH
from fabricd.store.records import Kind as Kind
from fabricd.store.records import Record as Record
from fabricd.store.records import Source, Target


def is_postgres(location: str) -> bool:
    return location.startswith(("postgresql://", "postgres://"))


def open_source(location: str) -> Source:
    if is_postgres(location):
        require_postgres_driver()
        from fabricd.store.postgres.dump import PgSource

        return PgSource(location)
    from fabricd.store.lmdb.dump import LmdbSource

    return LmdbSource(location)


def open_target(location: str, *, map_size: int, group: str = "") -> Target:
    if is_postgres(location):
        require_postgres_driver()
        from fabricd.store.postgres.dump import PgTarget

        return PgTarget(location)
    from fabricd.store.lmdb.dump import LmdbTarget

    return LmdbTarget(location, map_size=map_size, group=group)


async def dump_all(source: Source) -> list[Record]:
    """Every record of `source` in one list (for tests and small fabrics)."""
    out: list[Record] = []
    try:
        async for batch in source.records():
            out.extend(batch)
    finally:
        await source.close()
    return out


async def copy(source: Source, target: Target, progress: Callable[[str], None] = lambda _: None,
               every_s: float = 2.0) -> Counter[str]:
    """Copy every record of `source` into `target` in one load; the records copied, by kind."""
    counts: Counter[str] = Counter()
    batches = source.records()
    try:
        first = await anext(batches, None)  # the source is opened and checked before the target is touched
        await target.begin()
        try:
            last = time.monotonic()
            batch = first
            while batch is not None:
                await target.load(batch)
                counts.update(kind.value for kind, _ in batch)
                if time.monotonic() - last >= every_s:
                    last = time.monotonic()
                    progress(f"copied {sum(counts.values())} records so far")
                batch = await anext(batches, None)
            progress(f"committing {sum(counts.values())} records")
            await target.commit()
        except BaseException:
            await target.abort()
            raise
    finally:
        await batches.aclose()  # ends the source's snapshot (its read transaction) before closing it
        await source.close()
    return counts


def summary(counts: Counter[str], skipped: Counter[str]) -> list[str]:
    """Lines for the operator: every kind with its count (zeros included: nothing was silently left out)."""
    lines = [f"  {kind.value:<12} {counts.get(kind.value, 0)}" for kind in Kind]
    for what, n in sorted(skipped.items()):
        lines.append(f"  not copied: {n} {what}")
    return lines


__all__ = ["BATCH", "Kind", "Record", "Source", "StoreError", "Target", "copy", "dump_all", "is_postgres",
           "open_source", "open_target", "summary"]
