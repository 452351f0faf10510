"""A flooding token against the others, on both backends: its unread messages are counted, not only their bytes.

Tiny messages cost the store per record whatever their size, so beside the unread bytes each sender is held to
a count of its messages still unread (limits.quota_unread_messages), charged when stored and given back when
read, on every path: a single send, a batch, a drain, an ack by id.
"""

from __future__ import annotations

import pytest

from fabricd.client import Client, ResourceExhausted
from fabricd.v1 import types_pb2 as pb
from tests.e2e.test_security import ALICE, BOB

BACKENDS = ("lmdb", "postgres")


def mail(to: str, *texts: str) -> list[pb.Message]:
    return [pb.Message(recipient=pb.Address(agent_id=to), text=text) for text in texts]


@pytest.fixture
async def counted(make_daemon):  # noqa: ANN201
    """A daemon holding each agent token to 4 unread messages; a trusted unix socket for setup."""
    daemon = make_daemon("--listen", "127.0.0.1:0", "--no-outbox-loop", "--quota-unread-messages", "4")
    daemon.start()
    port = int(daemon.wait_for("127.0.0.1:").strip().rsplit(":", 1)[1])
    async with Client(daemon.target) as local:
        await local.register(BOB)
        await local.register(ALICE)
        tokens = {name: (await local.issue_token(agent_id=name)).token for name in ("mallory", ALICE)}
        yield f"127.0.0.1:{port}", local, tokens


async def test_unread_messages_are_counted_per_sender_until_read(counted) -> None:
    tcp, local, tokens = counted
    async with Client(tcp, token=tokens["mallory"]) as mallory, Client(tcp, token=tokens[ALICE]) as alice:
        await mallory.send(BOB, "1")
        await mallory.send(BOB, "2")
        assert not any(isinstance(r, Exception) for r in await mallory.send_many(mail(ALICE, "3", "4")))
        with pytest.raises(ResourceExhausted) as err:
            await mallory.send(BOB, "5")
        assert err.value.reason == "QUOTA_UNREAD_MESSAGES"
        assert (err.value.metadata["quota"], err.value.metadata["limit"], err.value.metadata["usage"]) == (
            "unread_messages", "4", "4")
        assert "quota_unread_messages" in str(err.value)
        (refused,) = await mallory.send_many(mail(BOB, "5"))
        assert refused.reason == "QUOTA_UNREAD_MESSAGES"
        assert [m.text for m in (await local.peek(BOB)).messages] == ["1", "2"]  # nothing written
        await alice.send(BOB, "alice is not held by mallory's count")
        assert [m.text for m in (await local.drain(BOB, limit=2)).messages] == ["1", "2"]  # a drain gives back
        await mallory.send(BOB, "5")
        await mallory.send_many(mail(BOB, "6"))
        with pytest.raises(ResourceExhausted):
            await mallory.send(BOB, "7")
        three = next(m for m in (await local.peek(ALICE)).messages if m.text == "3")
        assert await local.ack(ALICE, [three.id]) == 1  # an ack by id gives back
        await mallory.send(BOB, "7")
    assert [m.text for m in (await local.peek(BOB)).messages] == [
        "alice is not held by mallory's count", "5", "6", "7"]


async def test_an_asked_tasks_message_counts_against_the_asker_until_answered(counted) -> None:
    tcp, local, tokens = counted
    async with Client(tcp, token=tokens["mallory"]) as mallory:
        await mallory.send_many(mail(BOB, "1", "2", "3"))
        first = await mallory.enqueue(BOB, "the fourth unread message", source_agent="mallory")
        with pytest.raises(ResourceExhausted) as err:
            await mallory.enqueue(BOB, "a fifth", source_agent="mallory")
        assert err.value.reason == "QUOTA_UNREAD_MESSAGES"
        assert [t.ticket_id for t in await local.get_queue(BOB)] == [first.ticket_id]  # nothing queued
        await local.reply(BOB, "done")  # the answer consumes the task's message: it is given back
        await mallory.enqueue(BOB, "a fifth", source_agent="mallory")
