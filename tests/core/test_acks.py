"""The ack rule (fabricd.core.mailbox_acks) on every store, and the decider alone: an id named k times takes
its k oldest unread copies in the acking agent's own mailbox, ids not found are passed over, and what an ack
consumes gives its senders' quota usage back to the byte."""

from __future__ import annotations

from fabricd.core import mailbox_acks as acks
from fabricd.core.model import Envelope
from fabricd.core.quota import Usage
from fabricd.core.rendezvous import TicketRequest
from tests.core.conftest import Fabric, decoded, mail


def texts(peeked: tuple) -> list[str]:  # (envelopes, unread)
    return [m.text for m in decoded(peeked[0])]


def envelopes(*seqs: int) -> list[Envelope]:
    return [Envelope(seq, b"") for seq in seqs]


def test_the_decider_takes_the_k_oldest_copies_of_an_id_named_k_times() -> None:
    want = acks.wanted(["a", "b", "a", "nope"])
    assert want == {"a": 2, "b": 1, "nope": 1}
    decided = acks.ack(want, acks.AckFacts(6, {"a": envelopes(9, 3, 5), "b": envelopes(4)}))
    assert [e.seq for e in decided.taken] == [3, 4, 5] and decided.unread == 3 and decided.active
    assert acks.ack(want, acks.AckFacts(0, {})) == acks.Ack((), 0, True)  # nothing found: still activity
    assert acks.ack(want, acks.AckFacts(None, {})) == acks.Ack((), 0, False)  # no mailbox: nothing at all


def test_the_decider_takes_every_copy_when_no_id_has_more_than_it_is_named() -> None:
    want = acks.wanted(["a", "a", "b"])
    copies = {"a": envelopes(2, 7), "b": envelopes(5)}
    assert acks.takes_every_copy(want, {mid: len(found) for mid, found in copies.items()})
    assert [e.seq for e in acks.ack(want, acks.AckFacts(3, copies)).taken] == [2, 5, 7]
    more = {"a": envelopes(2, 7, 8), "b": envelopes(5)}
    assert not acks.takes_every_copy(want, {mid: len(found) for mid, found in more.items()})


async def test_an_id_named_k_times_takes_its_k_oldest_copies_whichever_sender_chose_them(fabric: Fabric) -> None:
    await fabric.directory.register("bob")
    minted = (await fabric.mailboxes.send(mail("bob", "minted by alice", sender="alice"))).message.id
    for sender in ("carol", "dave", "erin"):  # a minted id chosen again by other senders
        await fabric.mailboxes.send(mail("bob", f"{minted} from {sender}", id=minted, sender=sender))
    await fabric.mailboxes.send(mail("bob", "other", id="other", sender="carol"))
    assert await fabric.mailboxes.ack("bob", [minted, "other", minted]) == 3
    assert texts(await fabric.mailboxes.peek("bob", 10)) == [f"{minted} from dave", f"{minted} from erin"]
    assert await fabric.mailboxes.ack("bob", [minted] * 5) == 2
    assert await fabric.mailboxes.peek("bob", 10) == ([], 0)


async def test_ids_not_found_are_passed_over_and_change_nothing(fabric: Fabric) -> None:
    for name in ("bob", "carol"):
        await fabric.directory.register(name)
    mine = (await fabric.mailboxes.send(mail("bob", "for bob", id="m-1", sender="alice"))).message.id
    theirs = (await fabric.mailboxes.send(mail("carol", "for carol", id="m-2", sender="alice"))).message.id
    assert await fabric.mailboxes.ack("bob", ["never-sent", theirs, theirs]) == 0
    assert await fabric.mailboxes.ack("nobody", [mine, theirs]) == 0  # no mailbox: nothing written
    assert await fabric.store.directory.get("nobody") is None
    assert (await fabric.mailboxes.peek("bob", 10))[1] == 1 and (await fabric.mailboxes.peek("carol", 10))[1] == 1
    assert await fabric.mailboxes.ack("bob", ["never-sent", mine, mine]) == 1


async def test_an_ack_is_its_agents_activity_even_when_it_takes_nothing(fabric: Fabric) -> None:
    await fabric.directory.register("bob")
    fabric.clock.advance(60)
    assert await fabric.mailboxes.ack("bob", ["never-sent"]) == 0
    entry = await fabric.store.directory.get("bob")
    assert entry is not None and entry.last_activity_ns == fabric.clock.now


async def test_a_tickets_task_is_acked_by_its_ticket_id(fabric: Fabric) -> None:
    await fabric.directory.register("bob")
    first, _ = await fabric.rendezvous.enqueue(TicketRequest("bob", "first task", source_agent="alice"))
    second, _ = await fabric.rendezvous.enqueue(TicketRequest("bob", "second task", source_agent="alice"))
    assert first.message_id == first.ticket_id
    assert await fabric.mailboxes.ack("bob", [second.ticket_id, second.ticket_id]) == 1
    assert [t.endswith("first task") for t in texts(await fabric.mailboxes.peek("bob", 10))] == [True]
    assert (await fabric.store.mailboxes.usage("alice")).unread_messages == 1


async def test_acks_drains_and_purges_give_the_senders_usage_back_to_exactly_zero(fabric: Fabric) -> None:
    for name in ("bob", "carol", "dave"):
        await fabric.directory.register(name)
    ids = []
    for i in range(6):
        for sender in ("alice", "erin"):
            sent = await fabric.mailboxes.send(mail("bob", "x" * (100 * i + 1), id=f"job-{i}", sender=sender))
            ids.append(sent.message.id)
        await fabric.mailboxes.send(mail("carol", "y" * (7 * i + 3), sender="alice"))
        await fabric.mailboxes.send(mail("dave", "z" * (13 * i), sender="erin"))
    await fabric.rendezvous.enqueue(TicketRequest("bob", "a task", source_agent="alice"))
    assert (await fabric.store.mailboxes.usage("alice")).unread_messages == 13
    assert await fabric.mailboxes.ack("bob", ["job-0", "job-0", "job-1", "job-5", "job-5", "job-5"]) == 5
    drained, _ = await fabric.mailboxes.drain("carol", 4)
    assert len(drained) == 4
    await fabric.store.directory.unregister("dave", purge=True)
    assert await fabric.mailboxes.ack("bob", ids) == 7
    drained, _ = await fabric.mailboxes.drain("carol", 10)
    assert len(drained) == 2
    await fabric.rendezvous.reply("bob", "done")
    for sender in ("alice", "erin"):
        assert await fabric.store.mailboxes.usage(sender) == Usage()
