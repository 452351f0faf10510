"""The answer rule (fabricd.core.tickets.answer) on every store: a reply answers only a queued ticket of the
replier's own, refuses any other without writing, and takes the ticket's task as an ack of its id would."""

from __future__ import annotations

import pytest

from fabricd.core.errors import FailedPrecondition
from fabricd.core.model import TicketState
from fabricd.core.quota import Usage
from fabricd.core.rendezvous import TicketRequest
from tests.core.conftest import Fabric, decoded, mail


async def test_a_reply_naming_a_ticket_not_queued_for_the_replier_is_refused_and_writes_nothing(
        fabric: Fabric) -> None:
    for name in ("bob", "carol"):
        await fabric.directory.register(name)
    bobs, _ = await fabric.rendezvous.enqueue(TicketRequest("bob", "for bob", source_agent="alice"))
    carols, _ = await fabric.rendezvous.enqueue(TicketRequest("carol", "for carol", source_agent="alice"))
    done, _ = await fabric.rendezvous.enqueue(TicketRequest("bob", "done already", source_agent="alice"))
    assert await fabric.rendezvous.reply("bob", "finished", ticket_id=done.ticket_id) == done.ticket_id
    fabric.clock.advance(60)
    for ticket_id in (carols.ticket_id, done.ticket_id, "no-such-ticket"):
        with pytest.raises(FailedPrecondition) as refused:
            await fabric.rendezvous.reply("bob", "not this one", ticket_id=ticket_id)
        assert refused.value.reason == "NO_PENDING_REQUEST" and ticket_id in str(refused.value)
    carol_ticket = await fabric.rendezvous.ticket(carols.ticket_id)
    assert carol_ticket is not None and carol_ticket.state == TicketState.QUEUED
    finished = await fabric.rendezvous.ticket(done.ticket_id)
    assert finished is not None and finished.result == "finished"
    assert (await fabric.mailboxes.peek("carol", 10))[1] == 1 and (await fabric.mailboxes.peek("bob", 10))[1] == 1
    entry = await fabric.store.directory.get("bob")
    assert entry is not None and entry.last_activity_ns < fabric.clock.now  # a refusal is not activity
    assert await fabric.rendezvous.reply("bob", "now this") == bobs.ticket_id  # its own head is answered


async def test_answering_takes_the_oldest_copy_of_the_tasks_id_and_gives_the_askers_usage_back(
        fabric: Fabric) -> None:
    await fabric.directory.register("bob")
    ticket, _ = await fabric.rendezvous.enqueue(TicketRequest("bob", "the task", source_agent="alice"))
    await fabric.mailboxes.send(mail("bob", "same id, later", id=ticket.message_id, sender="carol"))
    assert await fabric.rendezvous.reply("bob", "done") == ticket.ticket_id
    assert [m.text for m in decoded((await fabric.mailboxes.peek("bob", 10))[0])] == ["same id, later"]
    assert await fabric.store.mailboxes.usage("alice") == Usage()
    assert (await fabric.store.mailboxes.usage("carol")).unread_messages == 1
