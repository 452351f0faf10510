"""`fabricd copy`: a whole fabric from one store to another, as records every backend shares.

    copied = await copy(open_source("/var/lib/fabricd"), open_target("postgresql://..."), progress=print)

Each backend dumps every record of a fabric from one consistent snapshot (an
LMDB read transaction; a PostgreSQL REPEATABLE READ transaction) and loads
records in one transaction into a store that holds no fabric
(fabricd.store.lmdb.dump, fabricd.store.postgres.dump). They meet in the kinds
below, one per thing a fabric keeps; indexes (LMDB's `names`, `queues`, `due`,
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

import enum
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from typing import Any, Protocol

from fabricd.store.errors import StoreError, require_postgres_driver

BATCH = 1000
"""Records handed to a load at a time: bounded memory whatever the size of the fabric."""


class Kind(str, enum.Enum):
    """A kind of record, and what its payload is."""

    COUNTER = "counter"  # (name, value): named counters, 'revision' (mailbox directory) included
    MAILBOX = "mailbox"  # MailboxEntry: presence, session name, capabilities, revision, seq counter, unread count
    REMOVAL = "removal"  # (revision, agent_id): an unregistered mailbox, for watchers resuming before it
    MESSAGE = "message"  # Message (unread, seq set)
    MESSAGE_ID = "message_id"  # (message id, sender, minted, IdRecord): every id still remembered (unread or in the
    # dedupe window), its sender's idempotency key ("" for a consumed id from before schema 4 / migration 5);
    # `minted`: the store minted it (LMDB keys those alone, in time order)
    TICKET = "ticket"  # Ticket: queued (FIFO by seq), answered or aborted (until pruned)
    OUTBOX = "outbox"  # OutboxRow: pending (with its due time), dead letter, or receipt
    DIRECTORY = "directory"  # agentdir.DirectoryData: the agent directory's data and sequence
    HISTORY = "history"  # agentdir.DirectoryData: the data as of a recent sequence
    AGENT = "agent"  # agentdir.Agent
    THREAD = "thread"  # (ordinal, agentdir.Thread): ordinal = its place in its agent's list
    REQUEST = "request"  # agentdir.WorkRequest (seq = admission order)
    REPAIR = "repair"  # (key, generation, request_id)
    REQUEST_KEY = "request_key"  # (scope, key, digest, created_id): idempotency keys of Admit and CreateThread
    TOKEN = "token"  # (SHA-256 digest, Token): the token itself is never stored
    WAKE_HOOK = "wake_hook"  # core.wake.WakeHook: an agent's hook (URL or command, secret) and its firing state


Record = tuple[Kind, Any]


class Source(Protocol):
    """One consistent snapshot of a fabric."""

    skipped: Counter[str]
    """Records the dump could not carry, by what they were (say why in the key)."""

    def records(self) -> AsyncIterator[list[Record]]:
        """Every record of the fabric, in batches of at most BATCH."""

    async def close(self) -> None: ...


class Target(Protocol):
    """A store being filled: nothing is visible until `commit`."""

    async def begin(self) -> None:
        """Open the load; StoreError (nothing written) when the store already holds a fabric."""

    async def load(self, batch: list[Record]) -> None: ...

    async def commit(self) -> None: ...

    async def abort(self) -> None: ...


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
    batches = aiter(source.records())
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
