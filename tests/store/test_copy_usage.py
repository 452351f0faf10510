"""`fabricd copy` carries the quota usage counters (fabricd.core.quota): each load counts them again from the records."""

from __future__ import annotations

import asyncio
import time

import lmdb

from fabricd.core.model import Address, Message
from fabricd.core.notify import LocalWakeups
from fabricd.core.quota import Usage
from fabricd.core.rendezvous import TicketRequest
from fabricd.store import open_store, transfer
from fabricd.store.lmdb import dump as lmdb_dump
from fabricd.store.lmdb import keys
from fabricd.store.lmdb.schema import SCHEMA_VERSION

AGENTS = ("alice", "mallory", "bob")


async def usages(location: str) -> dict[str, Usage]:
    store = open_store(location, wakeups=LocalWakeups(), clock=time.time_ns, map_size=1 << 26)
    await store.start()
    try:
        return {a: await store.mailboxes.usage(a) for a in AGENTS}
    finally:
        await store.close()


async def fill(location: str) -> None:
    store = open_store(location, wakeups=LocalWakeups(), clock=time.time_ns, map_size=1 << 26)
    await store.start()
    try:
        await store.directory.register("bob", "", (), "", {})
        for i, sender in enumerate(("alice", "alice", "mallory")):
            message = Message(id="", sender=Address(sender), recipient=Address("bob"), text="x" * (10 + i))
            await store.mailboxes.append([(message, b"")], create=False, atomic=False, max_unread=0)
        new = Message(id="", sender=Address("mallory"), recipient=Address("made-by-mallory"), text="hi")
        await store.mailboxes.append([(new, b"")], create=True, atomic=False, max_unread=0)
        await store.rendezvous.enqueue(TicketRequest(target="bob", task="t", source_agent="alice", source_kind=1), 0)
        await store.mailboxes.drain("bob", 1, 0)  # alice's first message read: given back
    finally:
        await store.close()


async def test_usage_counters_survive_lmdb_to_postgresql_to_lmdb(tmp_path, pg_url: str) -> None:
    original, back = str(tmp_path / "original"), str(tmp_path / "back")
    await fill(original)
    counted = await usages(original)
    assert counted["alice"].queued_tickets == 1 and counted["alice"].unread_bytes > 0
    assert counted["mallory"].mailboxes == 1 and counted["mallory"].unread_bytes > 0

    await transfer.copy(transfer.open_source(original), transfer.open_target(pg_url, map_size=1 << 26))
    in_db = await usages(pg_url)
    # Each backend counts the bytes of its own stored encoding (PostgreSQL keeps no seq in a body): the load
    # counts them anew, so reading the mail gives back exactly what was charged.
    assert {a: (u.mailboxes, u.queued_tickets) for a, u in in_db.items()} == \
        {a: (u.mailboxes, u.queued_tickets) for a, u in counted.items()}
    assert all(0 < in_db[a].unread_bytes <= counted[a].unread_bytes for a in ("alice", "mallory"))
    await transfer.copy(transfer.open_source(pg_url), transfer.open_target(back, map_size=1 << 26))
    assert await usages(back) == counted

    store = open_store(pg_url, wakeups=LocalWakeups(), clock=time.time_ns)
    await store.start()
    try:
        for agent_id in ("bob", "made-by-mallory"):
            await store.mailboxes.drain(agent_id, 100, 0)
        assert [(await store.mailboxes.usage(a)).unread_bytes for a in AGENTS] == [0, 0, 0]
    finally:
        await store.close()


def test_a_copy_target_gets_this_fabricds_lmdb_schema_and_checksums(tmp_path) -> None:
    original, back = str(tmp_path / "original"), str(tmp_path / "back")
    asyncio.run(fill(original))
    asyncio.run(transfer.copy(transfer.open_source(original), transfer.open_target(back, map_size=1 << 26)))
    env = lmdb.open(back, max_dbs=64, readonly=True)
    try:
        with env.begin() as txn:
            meta = env.open_db(b"meta", txn=txn, create=False)
            assert keys.read_u64(txn.get(keys.SCHEMA, db=meta)) == SCHEMA_VERSION
    finally:
        env.close()
    source = lmdb_dump.LmdbSource(back)
    records = asyncio.run(transfer.dump_all(source))
    assert records and not source.skipped  # every record of the copy passes its checksum
