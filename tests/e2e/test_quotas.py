"""Quotas per agent token, on both backends: a flooding agent is refused with the quota named, others go on."""

from __future__ import annotations

import pytest

from fabricd.client import Client, NotFound, ResourceExhausted
from fabricd.v1 import outbox_service_pb2 as ob
from fabricd.v1 import types_pb2 as pb
from tests.e2e.test_security import ALICE, BOB

BACKENDS = ["lmdb", "postgres"]


@pytest.fixture
async def quota_daemon(make_daemon):  # noqa: ANN201
    """A daemon with small quotas, a trusted unix socket for setup and a TCP listener that requires tokens."""
    daemon = make_daemon("--listen", "127.0.0.1:0", "--no-outbox-loop", "--quota-mailboxes", "3",
                         "--quota-unread-bytes", "20000", "--quota-queued-tickets", "2", "--quota-outbox-rows", "3")
    daemon.start()
    port = int(daemon.wait_for("127.0.0.1:").strip().rsplit(":", 1)[1])
    async with Client(daemon.target) as local:
        await local.register(BOB)
        await local.register(ALICE)
        tokens = {name: (await local.issue_token(agent_id=name)).token for name in ("mallory", ALICE)}
        yield f"127.0.0.1:{port}", local, tokens


async def test_an_agent_token_cannot_create_mailboxes_past_its_quota(quota_daemon) -> None:
    tcp, local, tokens = quota_daemon
    async with Client(tcp, token=tokens["mallory"]) as mallory:
        for i in range(3):
            await mallory.send(f"junk-{i}", "x", create_mailbox=True)
        before = await local.get_status()
        with pytest.raises(ResourceExhausted) as err:
            await mallory.send("junk-3", "x", create_mailbox=True)
        assert err.value.reason == "QUOTA_MAILBOXES"
        assert err.value.metadata["limit"] == "3" and err.value.metadata["usage"] == "3"
        assert "quota_mailboxes" in str(err.value)
        assert (await local.get_status()).mailboxes == before.mailboxes  # nothing written
        with pytest.raises(NotFound):
            await local.resolve("junk-3")
        await mallory.send(BOB, "existing mailboxes still take its mail")
    await local.send("junk-9", "local callers are not held", create_mailbox=True)
    await local.unregister("junk-0", purge=True)  # a created mailbox removed gives one back
    async with Client(tcp, token=tokens["mallory"]) as mallory:
        await mallory.send("junk-3", "x", create_mailbox=True)


async def test_unread_bytes_are_charged_to_the_sending_agent_token_until_read(quota_daemon) -> None:
    tcp, local, tokens = quota_daemon
    async with Client(tcp, token=tokens["mallory"]) as mallory, Client(tcp, token=tokens[ALICE]) as alice:
        await mallory.send(BOB, "x" * 8000)
        await mallory.send(ALICE, "x" * 8000)  # spread over mailboxes: still one quota
        with pytest.raises(ResourceExhausted) as err:
            await mallory.send(ALICE, "x" * 8000)
        assert err.value.reason == "QUOTA_UNREAD_BYTES"
        assert err.value.metadata["quota"] == "unread_bytes" and err.value.metadata["limit"] == "20000"
        await alice.send(BOB, "x" * 8000)  # another agent is not held by mallory's mail
        assert len((await alice.drain(ALICE)).messages) == 1
        await mallory.send(ALICE, "x" * 8000)


async def test_an_agent_token_cannot_queue_tickets_past_its_quota(quota_daemon) -> None:
    tcp, local, tokens = quota_daemon
    async with Client(tcp, token=tokens["mallory"]) as mallory:
        first = await mallory.enqueue(BOB, "one", source_agent="mallory")
        await mallory.enqueue(BOB, "two", source_agent="mallory")
        with pytest.raises(ResourceExhausted) as err:
            await mallory.enqueue(BOB, "three", source_agent="mallory")
        assert err.value.reason == "QUOTA_QUEUED_TICKETS" and err.value.metadata["usage"] == "2"
        assert [t.task for t in await local.get_queue(BOB)] == ["one", "two"]
        await local.reply(BOB, "done", ticket_id=first.ticket_id)
        await mallory.enqueue(BOB, "three", source_agent="mallory")


def settled(key: str, replies: int) -> ob.SettledJob:
    return ob.SettledJob(job_id=key, outcome=ob.JOB_OUTCOME_COMPLETED, agent=pb.Address(agent_id="mallory", session_id="s"),
                         mail=pb.Mail(key=key, reply_to=[pb.Address(agent_id=BOB, session_id="s")] * replies))


async def test_an_agent_token_cannot_hold_outbox_rows_past_its_quota(quota_daemon) -> None:
    tcp, local, tokens = quota_daemon
    async with Client(tcp, token=tokens["mallory"]) as mallory:
        await mallory.fan_out(settled("k1", 2), "done")
        with pytest.raises(ResourceExhausted) as err:
            await mallory.fan_out(settled("k2", 2), "done")
        assert err.value.reason == "QUOTA_OUTBOX_ROWS"
        assert err.value.metadata["quota"] == "outbox_rows" and err.value.metadata["usage"] == "2"
        assert "quota_outbox_rows" in str(err.value)
        assert [r.key for r in (await local.list_outbox()).rows] == ["outbox:k1:reply:0", "outbox:k1:reply:1"]
        assert (await local.drain_outbox()).posted == 2  # delivered: the quota is given back
        await mallory.fan_out(settled("k2", 2), "done")
