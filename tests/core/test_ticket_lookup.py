"""The rendezvous additions A2A tasks stand on: idempotent enqueue, view, cancel anywhere, list, watch."""

from __future__ import annotations

import asyncio

import pytest

from fabricd.core.errors import NotFound
from fabricd.core.model import TicketState
from fabricd.core.rendezvous import CANCELLED, TicketQuery, TicketRequest
from tests.core.conftest import Fabric


async def test_the_same_idempotency_key_to_the_same_target_returns_the_same_ticket(fabric: Fabric) -> None:
    await fabric.directory.register("alice")
    first, _ = await fabric.rendezvous.enqueue(TicketRequest("alice", "once", idempotency_key="k"))
    again, position = await fabric.rendezvous.enqueue(TicketRequest("alice", "once", idempotency_key="k"))
    other, _ = await fabric.rendezvous.enqueue(TicketRequest("alice", "once", idempotency_key="k2"))
    assert again.ticket_id == first.ticket_id and position == 0 and other.ticket_id != first.ticket_id
    assert len((await fabric.rendezvous.queue("alice")).items) == 2


async def test_a_resent_key_reattaches_and_a_dropped_asks_retire_then_spares_the_ticket(fabric: Fabric) -> None:
    await fabric.directory.register("alice")
    first, _ = await fabric.rendezvous.enqueue(TicketRequest("alice", "once", idempotency_key="k"))
    assert first.reattached == 0
    again, _ = await fabric.rendezvous.enqueue(TicketRequest("alice", "once", idempotency_key="k"))
    assert again.reattached == 1  # the resend waits on it now
    rendezvous = fabric.store.rendezvous
    assert not await rendezvous.retire(first.ticket_id, "the first asker left", first.reattached)
    assert (await rendezvous.get(first.ticket_id)).state == TicketState.QUEUED
    assert await rendezvous.retire(first.ticket_id, "the resend left too", again.reattached)
    assert (await rendezvous.get(first.ticket_id)).state == TicketState.ABORTED
    finished, _ = await fabric.rendezvous.enqueue(TicketRequest("alice", "once", idempotency_key="k"))
    assert finished.reattached == 1  # a resend that finds it finished moves nothing


@pytest.mark.parametrize("cancelled_in", ["enqueue", "retire"])
async def test_an_ask_whose_call_ends_mid_write_leaves_no_ticket_queued(fabric: Fabric, monkeypatch,
                                                                        cancelled_in: str) -> None:
    """The call ends (its deadline, a disconnect) while its enqueue has committed but not answered yet, or
    while the retire after its timeout runs: the write goes on and the ticket ends retired."""
    await fabric.directory.register("alice")
    part = type(fabric.store.rendezvous)
    original = getattr(part, cancelled_in)
    entered, gate = asyncio.Event(), asyncio.Event()

    async def late(self, *args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        if cancelled_in == "enqueue":
            done = await original(self, *args, **kwargs)  # committed; the answer comes late
            entered.set()
            await gate.wait()
            return done
        entered.set()
        await gate.wait()
        return await original(self, *args, **kwargs)

    monkeypatch.setattr(part, cancelled_in, late)
    call = asyncio.ensure_future(fabric.rendezvous.ask_answer(TicketRequest("alice", "t"), 0))
    await entered.wait()
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    gate.set()
    await asyncio.gather(*fabric.rendezvous._background)  # the writes that outlive the call
    assert [t.state for t in await fabric.rendezvous.list("alice", TicketQuery())] == [TicketState.ABORTED]


async def test_view_gives_the_position_and_minus_one_once_finished(fabric: Fabric) -> None:
    await fabric.directory.register("alice")
    head, _ = await fabric.rendezvous.enqueue(TicketRequest("alice", "a"))
    behind, _ = await fabric.rendezvous.enqueue(TicketRequest("alice", "b"))
    assert (await fabric.rendezvous.view(behind.ticket_id)).position == 1
    await fabric.rendezvous.reply("alice", "done")
    assert (await fabric.rendezvous.view(behind.ticket_id)).position == 0
    assert (await fabric.rendezvous.view(head.ticket_id)).position == -1
    with pytest.raises(NotFound):
        await fabric.rendezvous.view("nope")


async def test_cancel_withdraws_a_ticket_behind_the_head_and_leaves_a_finished_one_alone(fabric: Fabric) -> None:
    await fabric.directory.register("alice")
    head, _ = await fabric.rendezvous.enqueue(TicketRequest("alice", "a"))
    behind, _ = await fabric.rendezvous.enqueue(TicketRequest("alice", "b"))
    cancelled = await fabric.rendezvous.cancel(behind.ticket_id)
    assert (cancelled.state, cancelled.reason) == (TicketState.ABORTED, CANCELLED)
    assert [t.ticket_id for t in (await fabric.rendezvous.queue("alice")).items] == [head.ticket_id]
    unread, _ = await fabric.mailboxes.peek("alice", 10)
    assert len(unread) == 1  # the cancelled ticket's task message was withdrawn
    await fabric.rendezvous.reply("alice", "done")
    assert (await fabric.rendezvous.cancel(head.ticket_id)).state == TicketState.ANSWERED
    with pytest.raises(NotFound):
        await fabric.rendezvous.cancel("nope")


async def test_list_pages_newest_first_filtered_by_conversation_and_state(fabric: Fabric) -> None:
    await fabric.directory.register("alice")
    ids = [(await fabric.rendezvous.enqueue(TicketRequest("alice", f"t{i}", conversation_id="c" if i % 2 else "")))[
        0].ticket_id for i in range(5)]
    await fabric.rendezvous.reply("alice", "done")  # answers t0
    page = await fabric.rendezvous.list("alice", TicketQuery(limit=2))
    assert [t.ticket_id for t in page] == [ids[4], ids[3]]
    rest = await fabric.rendezvous.list("alice", TicketQuery(before_seq=page[-1].seq, limit=10))
    assert [t.ticket_id for t in rest] == [ids[2], ids[1], ids[0]]
    assert [t.ticket_id for t in await fabric.rendezvous.list("alice", TicketQuery(conversation_id="c"))] == [
        ids[3], ids[1]]
    answered = await fabric.rendezvous.list("alice", TicketQuery(states=(TicketState.ANSWERED,)))
    assert [t.ticket_id for t in answered] == [ids[0]]


async def test_watch_sees_the_position_change_then_the_answer_and_ends(fabric: Fabric) -> None:
    await fabric.directory.register("alice")
    await fabric.rendezvous.enqueue(TicketRequest("alice", "a"))
    behind, _ = await fabric.rendezvous.enqueue(TicketRequest("alice", "b"))
    seen = []
    async for view in fabric.rendezvous.watch(behind.ticket_id):
        if view is None:
            continue
        seen.append((view.ticket.state, view.position))
        if len(seen) == 1:
            await fabric.rendezvous.reply("alice", "first")
        elif len(seen) == 2:
            await fabric.rendezvous.reply("alice", "second")
    assert seen == [(TicketState.QUEUED, 1), (TicketState.QUEUED, 0), (TicketState.ANSWERED, -1)]
