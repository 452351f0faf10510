"""Quotas per agent (fabricd.core.quota): counted in the store, refused before anything is written."""

from __future__ import annotations

import pytest

from fabricd.core.errors import ResourceExhausted
from fabricd.core.limits import Limits
from fabricd.core.model import Address, JobOutcome, Mail, RowState, SettledJob, TicketSourceKind
from fabricd.core.rendezvous import TicketRequest
from tests.core.conftest import Fabric, MakeFabric, mail


@pytest.fixture
async def tight(make_fabric: MakeFabric) -> Fabric:
    return await make_fabric(Limits(quota_mailboxes=2, quota_unread_bytes=4000, quota_queued_tickets=2,
                                    quota_outbox_rows=3))


async def test_mailboxes_created_by_mail_are_counted_and_refused_past_the_quota(tight) -> None:
    for name in ("n1", "n2"):
        await tight.mailboxes.send(mail(name, sender="mallory"), create_mailbox=True, agent_token=True)
    with pytest.raises(ResourceExhausted) as refused:
        await tight.mailboxes.send(mail("n3", sender="mallory"), create_mailbox=True, agent_token=True)
    assert refused.value.reason == "QUOTA_MAILBOXES"
    assert refused.value.metadata == {"agent_id": "mallory", "quota": "mailboxes", "limit": "2", "usage": "2"}
    assert await tight.store.directory.get("n3") is None  # nothing written
    assert (await tight.store.mailboxes.usage("mallory")).mailboxes == 2


async def test_registering_or_removing_a_created_mailbox_gives_it_back(tight) -> None:
    for name in ("n1", "n2"):
        await tight.mailboxes.send(mail(name, sender="mallory"), create_mailbox=True, agent_token=True)
    await tight.directory.register("n1", "", (), "", {})
    await tight.store.directory.unregister("n2", purge=True)
    assert (await tight.store.mailboxes.usage("mallory")).mailboxes == 0
    await tight.mailboxes.send(mail("n3", sender="mallory"), create_mailbox=True, agent_token=True)


async def test_unread_bytes_are_charged_to_the_sender_wherever_they_wait_and_freed_when_read(tight) -> None:
    for name in ("a", "b"):
        await tight.directory.register(name, "", (), "", {})
    await tight.mailboxes.send(mail("a", "x" * 1500, sender="mallory"), agent_token=True)
    await tight.mailboxes.send(mail("b", "x" * 1500, sender="mallory"), agent_token=True)
    with pytest.raises(ResourceExhausted) as refused:  # spreading mail over mailboxes does not dodge it
        await tight.mailboxes.send(mail("a", "x" * 1500, sender="mallory"), agent_token=True)
    assert refused.value.reason == "QUOTA_UNREAD_BYTES"
    assert refused.value.metadata["limit"] == "4000"
    before = (await tight.store.mailboxes.usage("mallory")).unread_bytes
    assert 3000 < before <= 4000
    await tight.mailboxes.send(mail("a", "x" * 1500, sender="alice"), agent_token=True)  # others unaffected
    drained, _ = await tight.mailboxes.drain("a", 10)
    assert len(drained) == 2
    assert (await tight.store.mailboxes.usage("mallory")).unread_bytes == before // 2
    assert (await tight.store.mailboxes.usage("alice")).unread_bytes == 0
    await tight.mailboxes.send(mail("a", "x" * 1500, sender="mallory"), agent_token=True)


async def test_admin_and_local_callers_are_counted_but_not_refused(tight) -> None:
    for i in range(4):
        await tight.mailboxes.send(mail(f"n{i}", "x" * 1500, sender="root"), create_mailbox=True)
    usage = await tight.store.mailboxes.usage("root")
    assert usage.mailboxes == 4 and usage.unread_bytes > 4000


async def test_quota_all_callers_holds_trusted_callers_too(make_fabric: MakeFabric) -> None:
    f = await make_fabric(Limits(quota_mailboxes=1, quota_all_callers=True))
    await f.mailboxes.send(mail("n1", sender="root"), create_mailbox=True)
    with pytest.raises(ResourceExhausted):
        await f.mailboxes.send(mail("n2", sender="root"), create_mailbox=True)


def ask(target: str, by: str = "mallory") -> TicketRequest:
    return TicketRequest(target=target, task="do it", source_kind=TicketSourceKind.AGENT, source_agent=by,
                         agent_token=True)


async def test_queued_tickets_are_counted_per_asker_and_freed_when_answered(tight) -> None:
    await tight.directory.register("bob", "", (), "", {})
    first, _ = await tight.rendezvous.enqueue(ask("bob"))
    await tight.rendezvous.enqueue(ask("bob"))
    with pytest.raises(ResourceExhausted) as refused:
        await tight.rendezvous.enqueue(ask("bob"))
    assert refused.value.reason == "QUOTA_QUEUED_TICKETS"
    assert len(await tight.store.rendezvous.queue("bob")) == 2  # nothing written on refusal
    await tight.rendezvous.enqueue(ask("bob", by="alice"))  # another asker has its own quota
    await tight.rendezvous.reply("bob", "done", first.ticket_id)
    assert (await tight.store.mailboxes.usage("mallory")).queued_tickets == 1
    await tight.rendezvous.enqueue(ask("bob"))


def settled(key: str, replies: int, agent: str = "mallory") -> SettledJob:
    return SettledJob(job_id=key, outcome=JobOutcome.COMPLETED, agent=Address(agent, "s"),
                      mail=Mail(key=key, reply_to=tuple(Address(f"to-{i}", "s") for i in range(replies))))


async def test_outbox_rows_are_counted_per_settling_agent_and_freed_when_delivered(tight) -> None:
    outbox = tight.outbox
    await outbox.fan_out(settled("k1", 2), "done", agent_token=True)
    with pytest.raises(ResourceExhausted) as refused:
        await outbox.fan_out(settled("k2", 2), "done", agent_token=True)
    assert refused.value.reason == "QUOTA_OUTBOX_ROWS"
    assert refused.value.metadata == {"agent_id": "mallory", "quota": "outbox_rows", "limit": "3", "usage": "2"}
    assert "limits.quota_outbox_rows" in refused.value.message
    assert len(await tight.store.outbox.rows("", 100, RowState.UNSPECIFIED)) == 2  # nothing written on refusal
    assert (await outbox.fan_out(settled("k1", 2), "done", agent_token=True))[1] == 0  # a replay adds nothing
    await outbox.fan_out(settled("k3", 2, agent="alice"), "done", agent_token=True)  # alice has her own quota
    await outbox.fan_out(settled("k4", 2), "done")  # a local caller is counted, not refused
    assert (await tight.store.mailboxes.usage("mallory")).outbox_rows == 4
    await outbox.drain_once()  # delivered: the rows become receipts
    assert (await tight.store.mailboxes.usage("mallory")).outbox_rows == 0
    await outbox.fan_out(settled("k2", 2), "done", agent_token=True)
