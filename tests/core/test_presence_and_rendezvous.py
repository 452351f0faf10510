"""The directory (presence, unregister) and rendezvous contracts on every store."""

from __future__ import annotations

import asyncio

import pytest

from fabricd.core.errors import Aborted, DeadlineExceeded, FailedPrecondition, NotFound
from fabricd.core.model import Change, Presence, TicketState
from fabricd.core.rendezvous import TicketRequest
from tests.core.conftest import Fabric, mail

EMBEDDED_ONLY = {
    "test_the_woken_asker_has_its_answer_before_the_reply_returns":
        "a loop-turn ordering: the embedded stores hand the woken asker its ticket synchronously (ticket_now); on "
        "PostgreSQL the asker reads it from the database after the wake-up (its answer is tested above)",
}


async def test_presence_is_live_after_register_and_offline_after_goodbye(fabric: Fabric) -> None:
    registered = await fabric.directory.register("alice", session_name="builder")
    assert fabric.directory.presence_of(registered.entry) == Presence.LIVE
    touched = await fabric.directory.touch("alice", busy=True)
    assert fabric.directory.presence_of(touched.entry) == Presence.BUSY and not touched.created
    gone = await fabric.directory.touch("alice", busy=False, offline=True)
    assert fabric.directory.presence_of(gone.entry) == Presence.OFFLINE
    fabric.clock.advance(24 * 3600)
    assert fabric.directory.presence_of(await fabric.directory.resolve("builder")) == Presence.OFFLINE


async def test_registering_a_shared_session_name_names_the_other_live_agents(fabric: Fabric) -> None:
    await fabric.directory.register("a-1", session_name="builder")
    second = await fabric.directory.register("a-2", session_name="builder")
    assert second.name_shared_with == ["a-1"]
    with pytest.raises(FailedPrecondition) as ambiguous:
        await fabric.directory.resolve("builder")
    assert ambiguous.value.reason == "AMBIGUOUS_NAME"


async def test_unregister_is_refused_while_mail_waits_unless_purged(fabric: Fabric) -> None:
    await fabric.directory.register("alice")
    await fabric.mailboxes.send(mail("alice"))
    ticket, _ = await fabric.rendezvous.enqueue(TicketRequest("alice", "do it"))
    with pytest.raises(FailedPrecondition) as refused:
        await fabric.directory.unregister("alice", purge=False)
    assert refused.value.reason == "MAILBOX_NOT_EMPTY"
    assert await fabric.directory.unregister("alice", purge=True) == (1, 1)  # the mail (the task went with its ticket)
    assert (await fabric.rendezvous.ticket(ticket.ticket_id)).state == TicketState.ABORTED
    with pytest.raises(NotFound):
        await fabric.directory.resolve("alice")


async def test_the_directory_watch_sends_a_snapshot_then_each_change(fabric: Fabric) -> None:
    await fabric.directory.register("alice")
    watch = fabric.directory.watch()
    first = await anext(watch)
    assert [(c, e.agent_id) for c, e in first.changes] == [(Change.SNAPSHOT, "alice")] and first.snapshot_complete
    await fabric.directory.register("bob")
    await fabric.directory.unregister("alice", purge=False)
    seen = []
    while len(seen) < 2:
        seen += [(c, e.agent_id) for c, e in (await anext(watch)).changes]
    assert seen == [(Change.REGISTERED, "bob"), (Change.UNREGISTERED, "alice")]


async def test_tickets_queue_in_fifo_order_with_their_positions(fabric: Fabric) -> None:
    await fabric.directory.register("alice")
    positions = [(await fabric.rendezvous.enqueue(TicketRequest("alice", f"task {i}")))[1] for i in range(3)]
    assert positions == [0, 1, 2]
    assert [t.task for t in (await fabric.rendezvous.queue("alice")).items] == ["task 0", "task 1", "task 2"]


async def test_reply_answers_the_head_or_the_named_ticket(fabric: Fabric) -> None:
    await fabric.directory.register("alice")
    first, _ = await fabric.rendezvous.enqueue(TicketRequest("alice", "one"))
    second, _ = await fabric.rendezvous.enqueue(TicketRequest("alice", "two"))
    assert await fabric.rendezvous.reply("alice", "second done", ticket_id=second.ticket_id) == second.ticket_id
    assert await fabric.rendezvous.reply("alice", "first done") == first.ticket_id
    assert await fabric.rendezvous.await_reply(first.ticket_id, 1) == "first done"
    assert await fabric.rendezvous.await_reply(second.ticket_id, 1) == "second done"
    with pytest.raises(FailedPrecondition) as nothing:
        await fabric.rendezvous.reply("alice", "again")
    assert nothing.value.reason == "NO_PENDING_REQUEST"
    assert (await fabric.mailboxes.peek("alice", 10))[1] == 0  # answered tasks are no longer unread


async def test_asking_an_unknown_target_is_refused(fabric: Fabric) -> None:
    with pytest.raises(NotFound) as refused:
        await fabric.rendezvous.enqueue(TicketRequest("nobody", "task"))
    assert refused.value.reason == "UNKNOWN_TARGET"


async def test_an_answer_wakes_the_waiting_asker(fabric: Fabric) -> None:
    await fabric.directory.register("alice")
    asking = asyncio.ensure_future(fabric.rendezvous.ask(TicketRequest("alice", "task"), 5))
    while not fabric.rendezvous.open_waits:  # queued, and the asker waiting for its answer
        await asyncio.sleep(0)
    await fabric.rendezvous.reply("alice", "done")
    assert (await asking)[1] == "done"


async def test_the_woken_asker_has_its_answer_before_the_reply_returns(fabric: Fabric) -> None:
    await fabric.directory.register("alice")
    asking = asyncio.ensure_future(fabric.rendezvous.ask(TicketRequest("alice", "task"), 5))
    while not fabric.rendezvous.open_waits:  # queued, and the asker waiting for its answer
        await asyncio.sleep(0)
    await fabric.rendezvous.reply("alice", "done")
    assert asking.done() and asking.result()[1] == "done"  # the asker answers its caller first: it is waiting


async def test_an_ask_that_times_out_retires_its_ticket(fabric: Fabric) -> None:
    await fabric.directory.register("alice")
    with pytest.raises(DeadlineExceeded):
        await fabric.rendezvous.ask(TicketRequest("alice", "task"), 0.01)
    assert (await fabric.rendezvous.queue("alice")).items == []


async def test_cancel_head_retires_only_the_head_and_close_queue_retires_all(fabric: Fabric) -> None:
    await fabric.directory.register("alice")
    tickets = [(await fabric.rendezvous.enqueue(TicketRequest("alice", f"t{i}")))[0] for i in range(3)]
    assert not await fabric.rendezvous.cancel_head("alice", tickets[1].ticket_id)
    assert await fabric.rendezvous.cancel_head("alice", tickets[0].ticket_id)
    with pytest.raises(Aborted) as aborted:
        await fabric.rendezvous.await_reply(tickets[0].ticket_id, 1)
    assert aborted.value.reason == "TICKET_ABORTED"
    assert await fabric.rendezvous.close_queue("alice") == 2
    assert (await fabric.rendezvous.queue("alice")).items == []


async def test_finished_tickets_are_forgotten_after_the_retention(fabric: Fabric) -> None:
    await fabric.directory.register("alice")
    ticket, _ = await fabric.rendezvous.enqueue(TicketRequest("alice", "task"))
    await fabric.rendezvous.reply("alice", "done")
    assert await fabric.rendezvous.prune() == 0
    fabric.clock.advance(2 * 24 * 3600)
    assert await fabric.rendezvous.prune() == 1
    assert await fabric.rendezvous.ticket(ticket.ticket_id) is None


async def test_a_request_key_asked_again_once_its_ticket_was_forgotten_delivers_its_task(fabric: Fabric) -> None:
    # tickets are kept a day, consumed ids a week: the new ticket has the old one's id, so its task that id too
    await fabric.directory.register("alice")
    first, _ = await fabric.rendezvous.enqueue(TicketRequest("alice", "monday", idempotency_key="daily"))
    await fabric.rendezvous.reply("alice", "done")
    fabric.clock.advance(2 * 24 * 3600)
    assert await fabric.rendezvous.prune() == 1
    again, _ = await fabric.rendezvous.enqueue(TicketRequest("alice", "tuesday", idempotency_key="daily"))
    assert again.ticket_id == first.ticket_id
    messages, unread = await fabric.mailboxes.peek("alice", 10)
    assert unread == 1 and messages[0].seq > first.seq
    assert await fabric.mailboxes.ack("alice", [again.message_id]) == 1


def lose_wake_ups(fabric: Fabric) -> None:
    """From now on every wake-up is lost, as a NOTIFY is when its node dies between its commit and the NOTIFY."""
    fabric.wakeups.notify = lambda key: None  # type: ignore[method-assign]


async def next_change(stream):  # noqa: ANN201
    """The stream's next response that is not a keepalive (None)."""
    while (item := await anext(stream)) is None:
        pass
    return item


async def test_an_answer_whose_wake_up_was_lost_reaches_the_asker_by_its_keepalive_re_read(fabric: Fabric) -> None:
    await fabric.directory.register("alice")
    ticket, _ = await fabric.rendezvous.enqueue(TicketRequest("alice", "task"))
    waiting = asyncio.ensure_future(fabric.rendezvous.await_reply(ticket.ticket_id, None))  # no deadline
    while not fabric.rendezvous.open_waits:
        await asyncio.sleep(0)
    lose_wake_ups(fabric)
    await fabric.rendezvous.reply("alice", "done")
    assert await asyncio.wait_for(waiting, 5) == "done"


async def test_a_queue_change_whose_wake_up_was_lost_reaches_the_watch_by_its_keepalive_re_read(
        fabric: Fabric) -> None:
    await fabric.directory.register("alice")
    watch = fabric.rendezvous.watch_queue("alice")
    assert (await anext(watch)).tickets == []
    lose_wake_ups(fabric)
    await fabric.rendezvous.enqueue(TicketRequest("alice", "task"))
    head = await asyncio.wait_for(next_change(watch), 5)
    assert [t.task for t in head.tickets] == ["task"]


async def test_a_ticket_change_whose_wake_up_was_lost_reaches_its_watch_by_its_keepalive_re_read(
        fabric: Fabric) -> None:
    await fabric.directory.register("alice")
    ticket, _ = await fabric.rendezvous.enqueue(TicketRequest("alice", "task"))
    watch = fabric.rendezvous.watch(ticket.ticket_id)
    assert (await anext(watch)).ticket.state == TicketState.QUEUED
    lose_wake_ups(fabric)
    await fabric.rendezvous.reply("alice", "done")
    view = await asyncio.wait_for(next_change(watch), 5)
    assert view.ticket.state == TicketState.ANSWERED


async def test_an_ask_by_session_name_queues_for_its_agent_and_an_ambiguous_name_is_refused(fabric: Fabric) -> None:
    await fabric.directory.register("sess1/main", session_name="builder")
    ticket, position = await fabric.rendezvous.enqueue(TicketRequest("builder", "build it"))
    assert (ticket.target, position) == ("sess1/main", 0)
    again, _ = await fabric.rendezvous.enqueue(TicketRequest("builder/main", "and test it"))
    assert again.target == "sess1/main"
    assert [t.ticket_id for t in (await fabric.rendezvous.queue("sess1/main")).items] == [ticket.ticket_id, again.ticket_id]
    await fabric.directory.register("sess2/main", session_name="builder")
    with pytest.raises(FailedPrecondition) as ambiguous:
        await fabric.rendezvous.enqueue(TicketRequest("builder", "which one?"))
    assert ambiguous.value.reason == "AMBIGUOUS_NAME"
    assert len((await fabric.rendezvous.queue("sess1/main")).items) == 2  # nothing queued by the refused ask


async def test_a_reply_by_session_name_answers_its_agents_ticket_and_an_ambiguous_name_is_refused(
        fabric: Fabric) -> None:
    await fabric.directory.register("sess1/main", session_name="builder")
    first, _ = await fabric.rendezvous.enqueue(TicketRequest("sess1/main", "build it"))
    second, _ = await fabric.rendezvous.enqueue(TicketRequest("sess1/main", "test it"))
    assert await fabric.rendezvous.reply("builder", "built") == first.ticket_id  # the session's agent's head
    assert await fabric.rendezvous.reply("builder/main", "tested", ticket_id=second.ticket_id) == second.ticket_id
    assert await fabric.rendezvous.await_reply(first.ticket_id, 1) == "built"
    assert await fabric.rendezvous.await_reply(second.ticket_id, 1) == "tested"
    third, _ = await fabric.rendezvous.enqueue(TicketRequest("sess1/main", "ship it"))
    await fabric.directory.register("sess2/main", session_name="builder")
    with pytest.raises(FailedPrecondition) as ambiguous:
        await fabric.rendezvous.reply("builder", "which one?")
    assert ambiguous.value.reason == "AMBIGUOUS_NAME"
    with pytest.raises(FailedPrecondition) as not_its:
        await fabric.rendezvous.reply("sess2/main", "not mine", ticket_id=third.ticket_id)
    assert not_its.value.reason == "NO_PENDING_REQUEST"
    assert [t.ticket_id for t in (await fabric.rendezvous.queue("sess1/main")).items] == [third.ticket_id]
