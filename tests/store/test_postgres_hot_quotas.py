"""PgStore's one-statement hot paths keep the quota counters exactly as the record scripts do (fabricd.core.quota)."""

from __future__ import annotations

from fabricd.core.errors import ResourceExhausted
from fabricd.core.kv.store import KvMailboxes
from fabricd.core.model import Address, Message
from fabricd.core.notify import LocalWakeups
from fabricd.core.paging import approx_size
from fabricd.core.quota import Quotas, Usage
from fabricd.core.rendezvous import Answer, TicketRequest
from fabricd.store.postgres.store import PgStore
from fabricd.v1 import types_pb2 as pb


def clock() -> int:
    """One moment: a stored message's size does not depend on when it was sent (its timestamp's varints)."""
    return 1_700_000_000_123_456_789


async def start(url: str) -> PgStore:
    store = PgStore(url, LocalWakeups(), clock, pool_size=2)
    await store.start()
    return store


def mail(sender: str, text: str) -> Message:
    return Message(id="", sender=Address(sender), recipient=Address("bob"), text=text)


async def test_a_hot_send_charges_the_sender_what_the_record_script_charges_and_reading_gives_it_back(
        pg_url: str) -> None:
    store: PgStore = await start(pg_url)
    try:
        await store.directory.register("bob", "", (), "", {})
        record = KvMailboxes(store.engine, clock, store._mint_id)
        await store.mailboxes.append([(mail("alice", "hot!"), b"")], create=False, atomic=False, max_unread=0)
        one = (await store.mailboxes.usage("alice")).unread_bytes
        assert one > 0
        await record.append([(mail("alice", "rec!"), b"")], create=False, atomic=False, max_unread=0)
        assert (await store.mailboxes.usage("alice")).unread_bytes == 2 * one  # same size, same charge
        drained, _, _ = await store.mailboxes.drain("bob", 1, 0)
        assert len(drained) == 1
        assert (await store.mailboxes.usage("alice")).unread_bytes == one
        (left,), _ = await store.mailboxes.peek("bob", 10, 0)
        assert await store.mailboxes.ack("bob", [pb.Message.FromString(left.encoded).id]) == 1
        assert await store.mailboxes.usage("alice") == Usage()
    finally:
        await store.close()


async def test_a_sender_with_a_long_agent_id_is_credited_when_its_mail_is_read(pg_url: str) -> None:
    store = await start(pg_url)
    try:
        await store.directory.register("bob", "", (), "", {})
        sender = "s" * 300  # its length and its address's need two-byte varints in the stored body
        await store.mailboxes.append([(mail(sender, "x" * 1000), b"")], create=False, atomic=False, max_unread=0)
        assert (await store.mailboxes.usage(sender)).unread_bytes > 1300
        await store.mailboxes.drain("bob", 10, 0)
        assert await store.mailboxes.usage(sender) == Usage()
    finally:
        await store.close()


async def test_a_hot_send_over_the_quota_is_refused_and_writes_nothing(pg_url: str) -> None:
    store = await start(pg_url)
    try:
        await store.directory.register("bob", "", (), "", {})
        await store.mailboxes.append([(mail("alice", "a" * 100), b"")], create=False, atomic=False, max_unread=0)
        before = await store.mailboxes.usage("alice")
        (refused,) = await store.mailboxes.append([(mail("alice", "b" * 100), b"")], create=False, atomic=False,
                                                  max_unread=0, quota=Quotas(unread_bytes=before.unread_bytes + 50))
        assert isinstance(refused, ResourceExhausted) and refused.reason == "QUOTA_UNREAD_BYTES"
        assert await store.mailboxes.usage("alice") == before
        assert (await store.directory.get("bob")).unread_count == 1
        (sent,) = await store.mailboxes.append([(mail("alice", "c"), b"")], create=False, atomic=False, max_unread=0,
                                               quota=Quotas(unread_bytes=before.unread_bytes * 3))
        assert sent.message.seq == 2  # under the quota: stored
    finally:
        await store.close()


async def test_a_hot_ask_counts_a_queued_ticket_and_its_task_until_the_hot_reply(pg_url: str) -> None:
    store = await start(pg_url)
    try:
        await store.directory.register("bob", "", (), "", {})
        ticket, _ = await store.rendezvous.enqueue(TicketRequest(target="bob", task="do it", source_agent="alice",
                                                                 source_kind=1), 0)
        asked = await store.mailboxes.usage("alice")
        assert asked.queued_tickets == 1 and asked.unread_bytes > 0
        assert await store.rendezvous.answer("bob", Answer("done"), ticket.ticket_id) == ticket.ticket_id
        assert await store.mailboxes.usage("alice") == Usage()  # the task consumed, the ticket answered
    finally:
        await store.close()


async def test_a_batch_is_held_to_the_quota_message_by_message(pg_url: str) -> None:
    store = await start(pg_url)
    try:
        await store.directory.register("bob", "", (), "", {})
        await store.mailboxes.append([(mail("alice", "a" * 100), b"")], create=False, atomic=False, max_unread=0)
        one = (await store.mailboxes.usage("alice")).unread_bytes
        batch = [(mail("alice", "b" * 100), b""), (mail("alice", "c" * 100), b""), (mail("carol", "d"), b"")]
        limit = one + approx_size(batch[0][0]) + one // 2  # room for b, not for c as well
        stored, refused, other = await store.mailboxes.append(batch, create=False, atomic=False, max_unread=0,
                                                               quota=Quotas(unread_bytes=limit))
        assert stored.message.seq == 2 and other.message.seq == 3
        assert isinstance(refused, ResourceExhausted) and refused.reason == "QUOTA_UNREAD_BYTES"
        assert (await store.mailboxes.usage("alice")).unread_bytes == 2 * one
        assert (await store.directory.get("bob")).unread_count == 3
    finally:
        await store.close()
