"""Ticket outcomes, follow-ups of INPUT_REQUIRED tickets, task data and headers, and lists by asker."""

from __future__ import annotations

import pytest

from fabricd.core.errors import FailedPrecondition, InvalidArgument, NotFound
from fabricd.core.model import TicketOutcome, TicketSourceKind, TicketState
from fabricd.core.rendezvous import Answer, TicketQuery, TicketRequest
from tests.core.conftest import Fabric, decoded

AGENT = TicketSourceKind.AGENT


async def test_a_reply_says_its_outcome_and_carries_data_and_headers(fabric: Fabric) -> None:
    await fabric.directory.register("alice")
    ticket, _ = await fabric.rendezvous.enqueue(TicketRequest("alice", "a"))
    await fabric.rendezvous.reply("alice", Answer("no", TicketOutcome.REJECTED, b"\x00\xff", {"content-type": "x/y"}))
    answered = await fabric.rendezvous.await_answer(ticket.ticket_id, 1)
    assert (answered.state, answered.outcome, answered.result) == (TicketState.ANSWERED, TicketOutcome.REJECTED, "no")
    assert (answered.result_data, answered.result_headers) == (b"\x00\xff", {"content-type": "x/y"})
    plain, _ = await fabric.rendezvous.enqueue(TicketRequest("alice", "b"))
    await fabric.rendezvous.reply("alice", "yes")
    assert (await fabric.rendezvous.await_answer(plain.ticket_id, 1)).outcome == TicketOutcome.COMPLETED


async def test_task_data_and_headers_reach_the_task_message_and_daemon_headers_are_refused(fabric: Fabric) -> None:
    await fabric.directory.register("alice")
    ticket, _ = await fabric.rendezvous.enqueue(TicketRequest("alice", "look", data=b"\x01\x02",
                                                              headers={"content-type": "image/png"}))
    (message,) = decoded((await fabric.mailboxes.peek("alice", 10))[0])
    assert message.data == b"\x01\x02"
    assert message.headers["content-type"] == "image/png"
    assert message.headers["fabricd-ticket-id"] == ticket.ticket_id
    with pytest.raises(InvalidArgument) as caught:
        await fabric.rendezvous.enqueue(TicketRequest("alice", "x", headers={"fabricd-ticket-id": "forged"}))
    assert caught.value.reason == "RESERVED_FIELD"


async def test_a_follow_up_continues_an_input_required_ticket_as_its_next_turn(fabric: Fabric) -> None:
    await fabric.directory.register("alice")
    await fabric.directory.register("bob")
    ticket, _ = await fabric.rendezvous.enqueue(TicketRequest("alice", "book a table", source_kind=AGENT,
                                                              source_agent="bob", conversation_id="c1"))
    await fabric.rendezvous.reply("alice", Answer("for how many?", TicketOutcome.INPUT_REQUIRED))
    again, position = await fabric.rendezvous.enqueue(TicketRequest(
        "alice", "four", source_kind=AGENT, source_agent="bob", continues=ticket.ticket_id, idempotency_key="m2"))
    assert (again.ticket_id, again.state, again.conversation_id, position) == (ticket.ticket_id, TicketState.QUEUED,
                                                                                "c1", 0)
    assert [(t.task, t.result) for t in again.earlier] == [("book a table", "for how many?")]
    (message,) = decoded((await fabric.mailboxes.peek("alice", 10))[0])
    assert message.id == f"{ticket.ticket_id}/2" and message.ticket_id == ticket.ticket_id
    assert message.headers["fabricd-ticket-turn"] == "2" and message.text.endswith("four")
    resent, _ = await fabric.rendezvous.enqueue(TicketRequest(
        "alice", "four", source_kind=AGENT, source_agent="bob", continues=ticket.ticket_id, idempotency_key="m2"))
    assert len(resent.earlier) == 1  # a resend of the follow-up adds no turn
    assert await fabric.rendezvous.reply("alice", "booked") == ticket.ticket_id
    done = await fabric.rendezvous.await_answer(ticket.ticket_id, 1)
    assert (done.outcome, done.result, len(done.earlier)) == (TicketOutcome.COMPLETED, "booked", 1)
    assert (await fabric.mailboxes.peek("alice", 10))[0] == []  # the follow-up's task message was consumed


async def test_only_an_input_required_ticket_of_the_same_asker_can_be_continued(fabric: Fabric) -> None:
    await fabric.directory.register("alice")
    await fabric.directory.register("bob")
    await fabric.directory.register("carol")
    ticket, _ = await fabric.rendezvous.enqueue(TicketRequest("alice", "a", source_kind=AGENT, source_agent="bob"))
    with pytest.raises(FailedPrecondition) as caught:  # still queued
        await fabric.rendezvous.enqueue(TicketRequest("alice", "b", continues=ticket.ticket_id))
    assert caught.value.reason == "TICKET_NOT_CONTINUABLE"
    await fabric.rendezvous.reply("alice", Answer("which?", TicketOutcome.INPUT_REQUIRED))
    with pytest.raises(NotFound):
        await fabric.rendezvous.enqueue(TicketRequest("alice", "b", source_kind=AGENT, source_agent="carol",
                                                      continues=ticket.ticket_id))
    with pytest.raises(NotFound):
        await fabric.rendezvous.enqueue(TicketRequest("alice", "b", continues="no-such-ticket"))
    assert (await fabric.rendezvous.view(ticket.ticket_id)).ticket.outcome == TicketOutcome.INPUT_REQUIRED


async def test_list_by_asker_shows_only_the_tickets_that_agent_asked(fabric: Fabric) -> None:
    await fabric.directory.register("alice")
    mine, _ = await fabric.rendezvous.enqueue(TicketRequest("alice", "a", source_kind=AGENT, source_agent="bob"))
    await fabric.rendezvous.enqueue(TicketRequest("alice", "b"))
    listed = await fabric.rendezvous.list("alice", TicketQuery(source_agent="bob"))
    assert [t.ticket_id for t in listed] == [mine.ticket_id]
    assert len(await fabric.rendezvous.list("alice", TicketQuery())) == 2


async def test_a_follow_up_that_names_a_turn_the_ticket_left_is_refused_and_writes_nothing(fabric: Fabric) -> None:
    await fabric.directory.register("alice")
    ticket, _ = await fabric.rendezvous.enqueue(TicketRequest("alice", "which?"))
    await fabric.rendezvous.reply("alice", Answer("red or blue?", TicketOutcome.INPUT_REQUIRED))
    await fabric.rendezvous.enqueue(TicketRequest("alice", "red", continues=ticket.ticket_id, continues_turn=1))
    await fabric.rendezvous.reply("alice", Answer("light or dark?", TicketOutcome.INPUT_REQUIRED))
    with pytest.raises(FailedPrecondition) as caught:  # read at turn 1, but another follow-up made it turn 2
        await fabric.rendezvous.enqueue(TicketRequest("alice", "blue", continues=ticket.ticket_id, continues_turn=1))
    assert (caught.value.reason, caught.value.metadata["turn"]) == ("TICKET_TURN_MOVED", "2")
    stored = (await fabric.rendezvous.view(ticket.ticket_id)).ticket
    assert (stored.outcome, len(stored.earlier)) == (TicketOutcome.INPUT_REQUIRED, 1)
    assert (await fabric.mailboxes.peek("alice", 10))[0] == []
    await fabric.rendezvous.enqueue(TicketRequest("alice", "dark", continues=ticket.ticket_id, continues_turn=2))
    assert len((await fabric.rendezvous.view(ticket.ticket_id)).ticket.earlier) == 2
