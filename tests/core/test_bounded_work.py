"""Work per call does not grow with what is stored: enqueue at any queue length, headers per message."""

from __future__ import annotations

import asyncio

import pytest

from fabricd.core.errors import InvalidArgument
from fabricd.core.model import Address, Message
from fabricd.core.rendezvous import TicketRequest
from tests.core.conftest import Fabric

EMBEDDED_ONLY = {
    "test_enqueue_reads_the_same_records_at_5000_queued_tickets_as_at_none":
        "counts the records a record script reads (RecordTx); PostgreSQL's enqueue is one statement, not a script",
}

class CountingTx:
    """A RecordTx that counts the records a script reads in bulk (tickets of a FIFO, directory entries)."""

    def __init__(self, tx, counts: dict[str, int]) -> None:
        self._tx = tx
        self._counts = counts

    def __getattr__(self, name: str):  # noqa: ANN204
        attr = getattr(self._tx, name)
        if name not in ("queue", "entries", "entries_named", "queue_length"):
            return attr

        def counted(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
            out = attr(*args, **kwargs)
            if name == "queue_length":
                self._counts["records"] += 1
                return out
            out = list(out)
            self._counts["records"] += len(out)
            return out

        return counted


def count_reads(fabric: Fabric) -> dict[str, int]:
    """Count, from now on, the bulk records every write script reads."""
    counts = {"records": 0}
    engine = fabric.store.engine  # type: ignore[attr-defined]
    write = engine.write

    async def counting(fn, weight: int = 1):  # noqa: ANN202
        return await write(lambda tx: fn(CountingTx(tx, counts)), weight)

    engine.write = counting
    return counts


async def test_enqueue_reads_the_same_records_at_5000_queued_tickets_as_at_none(fabric: Fabric) -> None:
    await fabric.directory.register("bob")
    await fabric.directory.register("carol")
    counts = count_reads(fabric)
    first, position = await fabric.rendezvous.enqueue(TicketRequest("carol", "the only one"))
    assert position == 0
    on_empty = counts["records"]
    await asyncio.gather(*(fabric.rendezvous.enqueue(TicketRequest("bob", f"task {i}")) for i in range(5000)))
    counts["records"] = 0
    ticket, position = await fabric.rendezvous.enqueue(TicketRequest("bob", "one more"))
    assert position == 5000
    assert counts["records"] == on_empty  # a counter, not a scan of the 5,000 ahead


async def test_the_queued_counter_follows_answers_cancels_closes_and_unregister(fabric: Fabric) -> None:
    await fabric.directory.register("bob")
    tickets = [(await fabric.rendezvous.enqueue(TicketRequest("bob", f"t{i}")))[0] for i in range(5)]
    await fabric.rendezvous.reply("bob", "done")  # the head
    await fabric.rendezvous.cancel_head("bob", tickets[1].ticket_id)
    await fabric.rendezvous.retire(tickets[3].ticket_id, "gone")
    _, position = await fabric.rendezvous.enqueue(TicketRequest("bob", "next"))
    assert position == 2  # t2 and t4 are ahead
    assert await fabric.rendezvous.close_queue("bob") == 3
    _, position = await fabric.rendezvous.enqueue(TicketRequest("bob", "after the close"))
    assert position == 0
    assert (await fabric.directory.unregister("bob", purge=True))[1] == 1
    await fabric.directory.register("bob")
    assert (await fabric.rendezvous.enqueue(TicketRequest("bob", "a new life")))[1] == 0


async def test_a_message_with_more_headers_than_the_limit_is_refused_before_it_is_stored(fabric: Fabric) -> None:
    await fabric.directory.register("bob")
    limit = fabric.mailboxes.limits.max_headers
    fine = Message(recipient=Address("bob"), text="ok", headers={f"h{i}": "v" for i in range(limit)})
    await fabric.mailboxes.send(fine)
    with pytest.raises(InvalidArgument) as err:
        await fabric.mailboxes.send(Message(recipient=Address("bob"), text="too many",
                                            headers={f"h{i}": "" for i in range(limit + 1)}))
    assert err.value.reason == "TOO_MANY_ITEMS" and err.value.metadata["field"] == "message.headers"
    assert (await fabric.mailboxes.peek("bob", 10))[1] == 1


