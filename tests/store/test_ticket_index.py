"""The LMDB ticket index and ticket records: lists read one target's tickets only, old stores are indexed at
open, and records written before outcomes and data read with their defaults."""

from __future__ import annotations

import struct

from fabricd.core.directory import Directory
from fabricd.core.limits import Limits
from fabricd.core.model import Ticket, TicketOutcome, TicketSourceKind, TicketState, Turn
from fabricd.core.notify import LocalWakeups
from fabricd.core.rendezvous import Rendezvous, TicketQuery, TicketRequest
from fabricd.store import open_store
from fabricd.store.lmdb import keys, records

AGENT = TicketSourceKind.AGENT


async def _fabric(path: str):  # noqa: ANN202
    wakeups = LocalWakeups()
    store = open_store(path, wakeups=wakeups, clock=lambda: 1, sync=False)
    await store.start()
    return wakeups, store, Rendezvous(store, Limits(), lambda: 1)


async def test_listing_a_target_reads_its_tickets_only_not_the_whole_table(tmp_path, monkeypatch) -> None:
    wakeups, store, rv = await _fabric(str(tmp_path / "data"))
    try:
        for name in ("alice", "bob"):
            await Directory(store, Limits(), lambda: 1).register(name)
        for i in range(200):
            await rv.enqueue(TicketRequest("bob", f"b{i}"))
        mine = [(await rv.enqueue(TicketRequest("alice", f"a{i}", source_kind=AGENT, source_agent="carol")))[0]
                for i in range(3)]
        decoded = []
        real = records.decode_ticket
        monkeypatch.setattr(records, "decode_ticket", lambda raw: decoded.append(1) or real(raw))
        listed = await rv.list("alice", TicketQuery(limit=10))
        assert [t.ticket_id for t in listed] == [t.ticket_id for t in reversed(mine)]
        assert len(decoded) == 3  # bob's 200 tickets were never read
        decoded.clear()
        by_carol = await rv.list("alice", TicketQuery(limit=10, source_agent="carol", before_seq=mine[-1].seq))
        assert [t.ticket_id for t in by_carol] == [mine[1].ticket_id, mine[0].ticket_id] and len(decoded) == 2
    finally:
        wakeups.close()
        await store.close()


async def test_a_store_written_before_the_index_is_indexed_when_opened(tmp_path) -> None:
    path = str(tmp_path / "data")
    wakeups, store, rv = await _fabric(path)
    await Directory(store, Limits(), lambda: 1).register("alice")
    ids = [(await rv.enqueue(TicketRequest("alice", f"t{i}")))[0].ticket_id for i in range(3)]
    engine = store.engine  # type: ignore[attr-defined]

    def forget_index(tx) -> None:  # as a store written by a fabricd without ticket_index
        tx._txn.drop(tx._dbs.ticket_index, delete=False)
        tx._txn.delete(keys.TICKET_INDEX_BUILT, db=tx._dbs.meta)

    await engine.write(forget_index)
    assert await rv.list("alice", TicketQuery()) == []
    wakeups.close()
    await store.close()
    wakeups, store, rv = await _fabric(path)
    try:
        assert [t.ticket_id for t in await rv.list("alice", TicketQuery())] == ids[::-1]
    finally:
        wakeups.close()
        await store.close()


def test_a_ticket_record_round_trips_and_a_version_1_record_reads_with_the_defaults() -> None:
    ticket = Ticket(ticket_id="t", target="alice", task="four", source_kind=AGENT, source_agent="bob", seq=7,
                    enqueue_ns=5, state=TicketState.ANSWERED, result="booked", finish_ns=9, data=b"\x00\xff",
                    headers={"content-type": "image/png"}, outcome=TicketOutcome.INPUT_REQUIRED,
                    result_data=b"{}", result_headers={"a": "b"},
                    earlier=[Turn("book", b"\x01", {"h": "v"}, "how many?", b"", {}, followup_key="m2")])
    assert records.decode_ticket(records.encode_ticket(ticket)) == ticket
    strings = ("t", "alice", "task", "", "human", "", "", "")
    old = struct.pack(">BBBQQQ", 1, int(TicketState.QUEUED), int(TicketSourceKind.HUMAN), 3, 4, 0) + b"".join(
        struct.pack(">I", len(s)) + s.encode() for s in strings)
    read = records.decode_ticket(old)
    assert (read.ticket_id, read.task, read.seq, read.outcome, read.data, read.headers, read.earlier) == (
        "t", "task", 3, TicketOutcome.UNSPECIFIED, b"", {}, [])
