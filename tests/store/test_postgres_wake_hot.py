"""PgStore's hot paths arm wake hooks as the record scripts do, in the same statement as the arrival."""

from __future__ import annotations

import asyncpg
import pytest

from fabricd.core import wake
from fabricd.core.errors import FabricError
from fabricd.core.kv.store import KvMailboxes, KvOutbox, KvRendezvous
from fabricd.core.model import Address, Message, OutboxRow, RowState, Sent
from fabricd.core.notify import LocalWakeups
from fabricd.core.outbox import RetryPolicy
from fabricd.core.rendezvous import TicketRequest
from fabricd.core.wake import WakeHook
from fabricd.store.postgres.store import PgStore


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000_000

    def __call__(self) -> int:
        return self.now


def mail(to: str, text: str) -> tuple[Message, bytes]:
    return Message(sender=Address("alice"), recipient=Address(to), text=text), b""


async def arrivals(store: PgStore, clock: Clock, mailboxes: KvMailboxes, rendezvous: KvRendezvous, outbox: KvOutbox,
                   agent: str) -> list[tuple[object, ...]]:
    """The same arrivals for `agent` (hooked) through one path: the hook after each, ids named by their role."""
    seen: list[tuple[object, ...]] = []
    ids: dict[str, str] = {}

    async def snap(step: str) -> None:
        hook = await store.wake.get(agent)
        assert hook is not None
        names = {v: k for k, v in ids.items()}
        seen.append((step, hook.armed_ns, hook.reason, names.get(hook.first_message_id, hook.first_message_id),
                     names.get(hook.ticket_id, hook.ticket_id), hook.fires, hook.url))

    clock.now += 1_000
    sent = await mailboxes.append([mail(agent, "one")], create=False, atomic=False, max_unread=0)
    ids["first"] = sent[0].message.id
    await snap("a send arms")
    clock.now += 1_000
    await mailboxes.append([mail(agent, "two")], create=False, atomic=False, max_unread=0)
    await snap("an armed hook stays as it is")
    clock.now += 1_000
    ticket, _ = await rendezvous.enqueue(TicketRequest(target=agent, task="do it", source_agent="alice",
                                                       source_kind=1), 0)
    ids["ticket"] = ticket.ticket_id
    await snap("a ticket names itself on a hook armed by mail")
    clock.now += 1_000
    await rendezvous.enqueue(TicketRequest(target=agent, task="again", source_agent="alice", source_kind=1), 0)
    await snap("a second ticket leaves the first")

    assert await store.wake.fire(agent, lambda _: False, 0)  # disarmed: the next arrivals arm it again
    clock.now += 1_000
    batch = await mailboxes.append([mail("alice", "x"), mail(agent, "b1"), mail(agent, "b2")], create=False,
                                   atomic=True, max_unread=0)
    ids["batch"] = batch[1].message.id
    await snap("a batch arms with its first message to the agent")

    assert await store.wake.fire(agent, lambda _: False, 0)
    clock.now += 1_000
    await outbox.add([OutboxRow(key=f"{agent}-r{i}", state=RowState.PENDING, recipient=Address(agent),
                                content=f"reply {i}", create_ns=1) for i in range(2)])
    assert (await outbox.deliver_due(10, RetryPolicy(), 0)).posted == 2
    ids["row"] = f"{agent}-r0"
    await snap("an outbox delivery arms with its first row")

    assert await store.wake.fire(agent, lambda _: False, 0)
    clock.now += 1_000
    ticket, _ = await rendezvous.enqueue(TicketRequest(target=agent, task="fresh", source_agent="alice",
                                                       source_kind=1), 0)
    ids["fresh"] = ticket.ticket_id
    await snap("a ticket arms an unarmed hook for itself")
    return seen


async def test_hot_sends_tickets_and_deliveries_arm_hooks_exactly_as_the_record_scripts(pg_url: str) -> None:
    clock = Clock()
    store = PgStore(pg_url, LocalWakeups(), clock, pool_size=2)
    await store.start()
    try:
        for agent in ("alice", "bob", "carol"):
            await store.directory.register(agent, "", (), "", {})
        for agent in ("bob", "carol"):
            await store.wake.set(WakeHook(agent, url="https://example.test/wake", quiet_ns=0))
        e, mint = store.engine, store._mint_id
        hot = await arrivals(store, clock, store.mailboxes, store.rendezvous, store.outbox, "bob")
        record = await arrivals(store, clock, KvMailboxes(e, clock, mint), KvRendezvous(e, clock, mint),
                                KvOutbox(e, clock, mint), "carol")
        assert [h[0] for h in hot if h[2]] == [h[0] for h in record]  # every step armed on both paths
        start = 1_000_000_000
        # armed_ns differs only by the clock's steps the other path took first
        shift = record[0][1] - hot[0][1]
        assert [(h[0], h[1] + shift, *h[2:]) for h in hot] == record
        assert hot[0][1:5] == (start + 1_000, "mail", "first", "")
        assert hot[2][2:5] == ("ticket", "first", "ticket")
        assert hot[3][2:5] == ("ticket", "first", "ticket")
        assert hot[4][2:4] == ("mail", "batch")
        assert hot[5][2:4] == ("mail", "row")
        assert hot[6][2:5] == ("ticket", "fresh", "fresh")
        assert await store.wake.get("alice") is None  # unhooked recipients get no row
    finally:
        await store.close()


async def test_a_refused_or_repeated_send_arms_nothing(pg_url: str) -> None:
    clock = Clock()
    store = PgStore(pg_url, LocalWakeups(), clock, pool_size=2)
    await store.start()
    try:
        for agent in ("alice", "bob"):
            await store.directory.register(agent, "", (), "", {})
        await store.wake.set(WakeHook("bob", url="https://example.test/wake"))
        once = (Message(id="m1", sender=Address("alice"), recipient=Address("bob"), text="fill"), b"")
        await store.mailboxes.append([once], create=False, atomic=False, max_unread=0)
        assert await store.wake.fire("bob", lambda _: False, 0)
        again = await store.mailboxes.append([once], create=False, atomic=False, max_unread=0)
        assert isinstance(again[0], Sent) and again[0].duplicate
        full = await store.mailboxes.append([mail("bob", "over")], create=False, atomic=False, max_unread=1)
        assert isinstance(full[0], FabricError)  # refused: the mailbox is at its quota
        hook = await store.wake.get("bob")
        assert hook is not None and not hook.armed and hook.fires == 1
    finally:
        await store.close()


async def test_arming_a_hook_costs_no_round_trip(pg_url: str) -> None:
    """A send, a batch and a ticket to a hooked agent cost what they cost to an unhooked one (the counts
    tests/store/test_postgres_round_trips.py pins): the arming is a part of the storing statement."""
    from tests.store.test_postgres_round_trips import EXPECTED_HOT, counted

    clock = Clock()
    store = PgStore(pg_url, LocalWakeups(), clock, pool_size=2)
    await store.start()
    try:
        for agent in ("alice", "bob"):
            await store.directory.register(agent, "", (), "", {})
        await store.wake.set(WakeHook("bob", url="https://example.test/wake", quiet_ns=0))
        calls = {}
        for name, op in (
                ("send", lambda: store.mailboxes.append([mail("bob", "m")], create=False, atomic=False,
                                                        max_unread=0)),
                ("send_batch_10", lambda: store.mailboxes.append([mail("bob", f"b{j}") for j in range(10)],
                                                                 create=False, atomic=True, max_unread=0)),
                ("enqueue", lambda: store.rendezvous.enqueue(TicketRequest(target="bob", task="t",
                                                                           source_agent="alice", source_kind=1), 0))):
            await op()  # prepares the statements
            assert await store.wake.fire("bob", lambda _: False, 0)  # disarmed: the counted run arms it
            with counted() as seen:
                await op()
            calls[name] = len(seen)
            hook = await store.wake.get("bob")
            assert hook is not None and hook.armed, name
        assert calls == {name: EXPECTED_HOT[name] for name in calls}
    finally:
        await store.close()


async def test_a_hook_armed_elsewhere_between_a_sends_facts_and_its_write_keeps_that_arming(
        pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A lone send reads the hook without a lock: when another node arms it before the send writes, the
    send's write holds nothing (its guard), the send decides again on the hook as now stored, and the other
    node's arming stays (an armed hook is armed once per burst)."""
    store = PgStore(pg_url, LocalWakeups(), Clock(), pool_size=2)
    await store.start()
    other = await asyncpg.connect(pg_url)
    try:
        for agent in ("alice", "bob"):
            await store.directory.register(agent, "", (), "", {})
        await store.wake.set(WakeHook("bob", url="https://example.test/wake"))
        armed_elsewhere = wake.encode(WakeHook("bob", url="https://example.test/wake", armed_ns=7, reason="mail",
                                               first_message_id="elsewhere"))
        fetch = asyncpg.Connection.fetch
        moved = [1]

        async def facts_then_another_node_arms(self, query: str, *args: object, **kwargs: object) -> object:
            rows = await fetch(self, query, *args, **kwargs)
            if "FROM wake_hooks" in query and "UNION ALL" in query and moved:
                moved.pop()
                await other.execute("UPDATE wake_hooks SET body = $1 WHERE agent_id = 'bob'", armed_elsewhere)
            return rows

        monkeypatch.setattr(asyncpg.Connection, "fetch", facts_then_another_node_arms)
        (sent,) = await store.mailboxes.append([mail("bob", "hi")], create=False, atomic=True, max_unread=0)
        monkeypatch.undo()
        assert not moved and isinstance(sent, Sent) and sent.message.seq
        hook = await store.wake.get("bob")
        assert (hook.armed_ns, hook.first_message_id) == (7, "elsewhere")
    finally:
        await other.close()
        await store.close()
