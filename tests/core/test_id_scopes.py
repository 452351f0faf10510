"""On every store: message ids are each sender's idempotency keys, outbox mail keys
each settling agent's; an ack by id takes the oldest unread message carrying it."""

from __future__ import annotations

import pytest

from fabricd.core.errors import AlreadyExists
from fabricd.core.limits import Limits
from fabricd.core.model import Address, JobOutcome, Mail, RowState, SettledJob
from fabricd.core.outbox import RetryPolicy
from tests.core.conftest import Fabric, MakeFabric, decoded, mail


def senders_and_texts(fabric_peek: tuple) -> list[tuple[str, str]]:  # (envelopes, unread)
    return [(m.sender.agent_id, m.text) for m in decoded(fabric_peek[0])]


def job(agent: str, key: str, *reply_to: str) -> SettledJob:
    return SettledJob(f"{agent}-job", int(JobOutcome.COMPLETED), Address(agent, "s-1"),
                      Mail(key, reply_to=tuple(Address(a, "s") for a in reply_to)))


async def test_one_id_chosen_by_two_senders_is_two_messages(fabric: Fabric) -> None:
    await fabric.directory.register("bob")
    first = await fabric.mailboxes.send(mail("bob", "from alice", id="task-12", sender="alice"))
    second = await fabric.mailboxes.send(mail("bob", "from carol", id="task-12", sender="carol"))
    assert not first.duplicate and not second.duplicate and second.message.seq == first.message.seq + 1
    assert senders_and_texts(await fabric.mailboxes.peek("bob", 10)) == [("alice", "from alice"),
                                                                         ("carol", "from carol")]


async def test_one_sender_resending_the_same_message_gets_the_duplicate(fabric: Fabric) -> None:
    await fabric.directory.register("bob")
    await fabric.mailboxes.send(mail("bob", "other sender first", id="m-1", sender="carol"))
    first = await fabric.mailboxes.send(mail("bob", "once", id="m-1", sender="alice"))
    again = await fabric.mailboxes.send(mail("bob", "once", id="m-1", sender="alice"))
    assert again.duplicate and (again.message.seq, again.message.send_time_ns) == (
        first.message.seq, first.message.send_time_ns)
    assert (await fabric.mailboxes.peek("bob", 10))[1] == 2


async def test_one_sender_reusing_its_id_for_other_content_or_another_recipient_is_refused(fabric: Fabric) -> None:
    for name in ("bob", "dave"):
        await fabric.directory.register(name)
    await fabric.mailboxes.send(mail("bob", "once", id="m-1", sender="alice"))
    for other in (mail("bob", "twice", id="m-1", sender="alice"), mail("dave", "once", id="m-1", sender="alice")):
        with pytest.raises(AlreadyExists) as refused:
            await fabric.mailboxes.send(other)
        assert refused.value.reason == "MESSAGE_ID_REUSED" and refused.value.metadata["message_id"] == "m-1"
    assert senders_and_texts(await fabric.mailboxes.peek("bob", 10)) == [("alice", "once")]
    assert (await fabric.mailboxes.peek("dave", 10))[1] == 0


async def test_a_minted_id_is_its_senders_own(fabric: Fabric) -> None:
    await fabric.directory.register("bob")
    minted = (await fabric.mailboxes.send(mail("bob", "minted", sender="alice"))).message.id
    with pytest.raises(AlreadyExists) as refused:
        await fabric.mailboxes.send(mail("bob", "minted", id=minted, sender="alice"))
    assert refused.value.reason == "MESSAGE_ID_REUSED"
    assert not (await fabric.mailboxes.send(mail("bob", "chosen", id=minted, sender="carol"))).duplicate
    assert senders_and_texts(await fabric.mailboxes.peek("bob", 10)) == [("alice", "minted"), ("carol", "chosen")]


async def test_an_ack_by_id_takes_the_oldest_and_an_id_listed_k_times_the_k_oldest(fabric: Fabric) -> None:
    await fabric.directory.register("bob")
    for sender in ("alice", "carol", "dave", "erin"):
        await fabric.mailboxes.send(mail("bob", f"from {sender}", id="job-9", sender=sender))
    await fabric.mailboxes.send(mail("bob", "another id", id="job-10", sender="alice"))
    assert await fabric.mailboxes.ack("bob", ["job-9"]) == 1
    assert [s for s, _ in senders_and_texts(await fabric.mailboxes.peek("bob", 10))] == ["carol", "dave", "erin",
                                                                                         "alice"]
    assert await fabric.mailboxes.ack("bob", ["job-9", "job-9"]) == 2
    assert senders_and_texts(await fabric.mailboxes.peek("bob", 10)) == [("erin", "from erin"),
                                                                         ("alice", "another id")]
    assert await fabric.mailboxes.ack("bob", ["job-9", "job-9", "job-9"]) == 1  # only one was left
    assert await fabric.mailboxes.ack("bob", ["job-9"]) == 0
    assert senders_and_texts(await fabric.mailboxes.peek("bob", 10)) == [("alice", "another id")]


async def test_an_ack_by_id_never_takes_another_mailboxs_message(fabric: Fabric) -> None:
    for name in ("bob", "dave"):
        await fabric.directory.register(name)
    await fabric.mailboxes.send(mail("dave", "dave's", id="job-9", sender="alice"))
    await fabric.mailboxes.send(mail("bob", "bob's", id="job-9", sender="carol"))
    assert await fabric.mailboxes.ack("bob", ["job-9", "job-9"]) == 1
    assert senders_and_texts(await fabric.mailboxes.peek("dave", 10)) == [("alice", "dave's")]


async def test_two_settling_agents_rows_with_one_mail_key_are_both_kept_and_delivered(fabric: Fabric) -> None:
    await fabric.directory.register("carol")
    keys_a, added_a = await fabric.outbox.fan_out(job("alice", "req-7", "carol"), "alice's result")
    keys_b, added_b = await fabric.outbox.fan_out(job("bob", "req-7", "carol"), "bob's result")
    assert (added_a, added_b) == (1, 1) and keys_a == keys_b == ["outbox:req-7:reply:0"]
    assert (await fabric.outbox.fan_out(job("bob", "req-7", "carol"), "bob's result"))[1] == 0  # a replay
    assert len((await fabric.outbox.list(10, "", RowState.PENDING)).items) == 2
    assert (await fabric.outbox.drain_once()).posted == 2
    assert (await fabric.outbox.drain_once()).posted == 0
    got = decoded((await fabric.mailboxes.peek("carol", 10))[0])
    assert sorted((m.id, m.sender.agent_id, m.text.rsplit("\n", 1)[-1]) for m in got) == [
        ("outbox:req-7:reply:0", "alice", "alice's result"), ("outbox:req-7:reply:0", "bob", "bob's result")]
    delivered = (await fabric.outbox.list(10, "", RowState.DELIVERED)).items
    assert sorted((r.key, r.sender.agent_id) for r in delivered) == [("outbox:req-7:reply:0", "alice"),
                                                                     ("outbox:req-7:reply:0", "bob")]
    # the receipts answer each agent's replay
    for agent in ("alice", "bob"):
        assert (await fabric.outbox.fan_out(job(agent, "req-7", "carol"), "again"))[1] == 0


async def test_retry_dead_letters_by_key_retries_every_agents_row_with_that_key(make_fabric: MakeFabric) -> None:
    fabric = await make_fabric(Limits(max_unread=1), RetryPolicy(jitter=0, max_attempts=1))
    await fabric.directory.register("carol")
    await fabric.mailboxes.send(mail("carol", "fills the mailbox"))
    for agent, key in (("alice", "req-7"), ("bob", "req-7"), ("bob", "req-8")):
        await fabric.outbox.fan_out(job(agent, key, "carol"), f"{agent} {key}")
    assert (await fabric.outbox.drain_once()).failed == 3
    assert len((await fabric.outbox.list(10, "", RowState.DEAD_LETTER)).items) == 3
    await fabric.mailboxes.drain("carol", 10)
    assert await fabric.outbox.retry_dead_letters(["outbox:req-7:reply:0"]) == 2
    pending = (await fabric.outbox.list(10, "", RowState.PENDING)).items
    assert sorted((r.key, r.sender.agent_id) for r in pending) == [("outbox:req-7:reply:0", "alice"),
                                                                   ("outbox:req-7:reply:0", "bob")]
    (left,) = (await fabric.outbox.list(10, "", RowState.DEAD_LETTER)).items
    assert (left.key, left.sender.agent_id) == ("outbox:req-8:reply:0", "bob")
