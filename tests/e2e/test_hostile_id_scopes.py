"""Issue 17 #4, as agent tokens on both stores: message ids and outbox mail keys are each agent's own.

A client-chosen message id is idempotent per sender, an outbox mail key per settling agent: no agent can
take another's ids or keys, and the same sender keeps exactly the idempotency it had.
"""

from __future__ import annotations

import pytest

from fabricd.client import AlreadyExists, Client
from fabricd.v1 import outbox_service_pb2 as ob
from fabricd.v1 import types_pb2 as pb
from tests.e2e.test_security import ALICE, BOB, secured  # noqa: F401 - fixtures

BACKENDS = ["lmdb", "postgres"]
CAROL = "carol"


async def mail(client: Client, agent: str) -> list[pb.Message]:
    """An agent's unread mail, without the ticket the `secured` fixture queued for bob."""
    return [m for m in (await client.peek(agent)).messages if not m.ticket_id]


def settled(agent: str, key: str, reply_to: str, job_id: str) -> ob.SettledJob:
    job = ob.SettledJob(job_id=job_id, outcome=ob.JOB_OUTCOME_COMPLETED,
                        agent=pb.Address(agent_id=agent, session_id=f"{agent}-s"))
    job.mail.CopyFrom(pb.Mail(key=key, reply_to=[pb.Address(agent_id=reply_to, session_id="s")], content="asked"))
    return job


async def test_a_message_id_alice_used_does_not_refuse_carols(secured) -> None:  # noqa: F811
    daemon, tcp, local, state = secured
    await local.register(ALICE)
    carol_token = (await local.issue_token(agent_id=CAROL)).token
    async with Client(tcp, token=state["alice"]) as alice, Client(tcp, token=carol_token) as carol:
        await alice.send(ALICE, "my own note", id="task-12")
        sent = await carol.send(BOB, "the real task", id="task-12")
        assert not sent.duplicate and sent.message.id == "task-12"
    (message,) = await mail(local, BOB)
    assert (message.id, message.text, message.sender.agent_id) == ("task-12", "the real task", CAROL)


async def test_the_same_sender_keeps_its_idempotency(secured) -> None:  # noqa: F811
    daemon, tcp, local, state = secured
    async with Client(tcp, token=state["alice"]) as alice:
        first = await alice.send(BOB, "once", id="req-1")
        again = await alice.send(BOB, "once", id="req-1")
        assert again.duplicate and again.message.seq == first.message.seq
        assert again.message.send_time.ToNanoseconds() == first.message.send_time.ToNanoseconds()
        with pytest.raises(AlreadyExists) as err:
            await alice.send(BOB, "something else", id="req-1")
        assert err.value.reason == "MESSAGE_ID_REUSED"
        await local.register(CAROL)
        with pytest.raises(AlreadyExists):  # the same text to another recipient is another message
            await alice.send(CAROL, "once", id="req-1")
    assert [m.text for m in await mail(local, BOB)] == ["once"]


async def test_a_minted_id_is_its_senders_own_as_a_chosen_one_is(secured) -> None:  # noqa: F811
    daemon, tcp, local, state = secured
    carol_token = (await local.issue_token(agent_id=CAROL)).token
    async with Client(tcp, token=state["alice"]) as alice, Client(tcp, token=carol_token) as carol:
        minted = (await alice.send(BOB, "minted for me")).message.id
        for text in ("minted for me", "another text"):  # a retry that learnt the minted id never stores twice
            with pytest.raises(AlreadyExists) as err:
                await alice.send(BOB, text, id=minted)
            assert err.value.reason == "MESSAGE_ID_REUSED"
        assert not (await carol.send(BOB, "carol chose it", id=minted)).duplicate  # not carol's to be refused
        assert [(m.sender.agent_id, m.text) for m in await mail(local, BOB)] == [(ALICE, "minted for me"),
                                                                                 (CAROL, "carol chose it")]
        assert await local.ack(BOB, [minted]) == 1  # the oldest: alice's
        assert [m.sender.agent_id for m in await mail(local, BOB)] == [CAROL]
        with pytest.raises(AlreadyExists):  # consumed, the id is still alice's within the dedupe window
            await alice.send(BOB, "minted for me", id=minted)


async def test_an_ack_by_id_takes_the_oldest_of_two_senders_messages_first(secured) -> None:  # noqa: F811
    daemon, tcp, local, state = secured
    carol_token = (await local.issue_token(agent_id=CAROL)).token
    bob_token = (await local.issue_token(agent_id=BOB)).token
    async with Client(tcp, token=state["alice"]) as alice, Client(tcp, token=carol_token) as carol:
        await alice.send(BOB, "from alice", id="job-9")
        await carol.send(BOB, "from carol", id="job-9")
    async with Client(tcp, token=bob_token) as bob:
        assert [m.text for m in await mail(bob, BOB)] == ["from alice", "from carol"]
        assert await bob.ack(BOB, ["job-9"]) == 1
        assert [m.text for m in await mail(bob, BOB)] == ["from carol"]
        assert await bob.ack(BOB, ["job-9"]) == 1
        assert await bob.ack(BOB, ["job-9"]) == 0
        assert await mail(bob, BOB) == []


async def test_alices_mail_key_does_not_swallow_bobs_fan_out(secured) -> None:  # noqa: F811
    daemon, tcp, local, state = secured
    await local.register(ALICE)
    await local.register(CAROL)
    bob_token = (await local.issue_token(agent_id=BOB)).token
    async with Client(tcp, token=state["alice"]) as alice, Client(tcp, token=bob_token) as bob:
        first = await alice.fan_out(settled(ALICE, "req-7", ALICE, "alice-job"), "alice's own")
        assert first.written == 1
        real = await bob.fan_out(settled(BOB, "req-7", CAROL, "bob-job"), "bob's result")
        assert real.written == 1 and list(real.reply_keys) == ["outbox:req-7:reply:0"]
        assert (await bob.fan_out(settled(BOB, "req-7", CAROL, "bob-job"), "bob's result")).written == 0  # a replay
    assert (await local.drain_outbox()).posted == 2
    (reply,) = (await local.peek(CAROL)).messages
    assert reply.id == "outbox:req-7:reply:0" and reply.sender.agent_id == BOB and "bob's result" in reply.text
    (own,) = (await local.peek(ALICE)).messages
    assert own.sender.agent_id == ALICE and "alice's own" in own.text


async def test_alices_message_with_an_outbox_id_does_not_dead_letter_bobs_row(make_daemon) -> None:
    daemon = make_daemon("--outbox-max-attempts", "1", "--no-outbox-loop").start()
    async with Client(daemon.target) as local:
        for name in (ALICE, BOB, CAROL):
            await local.register(name)
        await local.send(CAROL, "squatting", sender=ALICE, id="outbox:req-8:reply:0")
        await local.fan_out(settled(BOB, "req-8", CAROL, "bob-job"), "bob's result")
        assert (await local.drain_outbox()).posted == 1
        texts = {m.sender.agent_id: m.text for m in (await local.peek(CAROL)).messages}
        assert texts[ALICE] == "squatting" and "bob's result" in texts[BOB]
        dead = await local.list_outbox(state=ob.OUTBOX_ROW_STATE_DEAD_LETTER)
        assert list(dead.rows) == []
