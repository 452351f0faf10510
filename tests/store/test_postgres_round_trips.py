"""PgStore's hot paths cost one statement or one short transaction: round trips counted per operation.

Each operation runs twice on one database: through the shared record scripts
(KvStore's parts over PgEngine, the path before hot.py) and through PgStore's hot
paths; asyncpg calls are counted (each is one round trip once its statement is
prepared, which a warm-up run does). A count is a fair measure on a loaded machine
where timings are not. `pytest -s` prints the table.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager

import asyncpg
import pytest

from fabricd.core.kv.store import KvMailboxes, KvOutbox, KvRendezvous
from fabricd.core.model import Address, Message, OutboxRow, RowState
from fabricd.core.notify import LocalWakeups
from fabricd.core.outbox import RetryPolicy
from fabricd.core.rendezvous import Answer, TicketRequest
from fabricd.store.postgres.store import PgStore

CALLS = ("fetch", "fetchrow", "fetchval", "execute", "executemany")


@contextmanager
def counted() -> Iterator[list[str]]:
    """Every asyncpg call made inside, by name (one round trip each for a prepared statement)."""
    seen: list[str] = []
    saved = {name: getattr(asyncpg.Connection, name) for name in CALLS}

    def wrap(name: str, fn: Callable[..., Awaitable[object]]) -> Callable[..., Awaitable[object]]:
        async def call(self: asyncpg.Connection, *args: object, **kwargs: object) -> object:
            if "pg_notify" not in str(args[:1]):  # the wake-up after the commit is counted apart
                seen.append(name)
            return await fn(self, *args, **kwargs)
        return call

    for name, fn in saved.items():
        setattr(asyncpg.Connection, name, wrap(name, fn))
    try:
        yield seen
    finally:
        for name, fn in saved.items():
            setattr(asyncpg.Connection, name, fn)


def message(to: str, i: int, sender: str = "alice") -> tuple[Message, bytes]:
    return Message(sender=Address(sender), recipient=Address(to), text=f"m{i}"), b""


EXPECTED_HOT = {"send": 2, "send_batch_10": 4, "peek": 1, "unread": 1, "drain": 4, "ack": 1,
                "ack_one_of_two_copies": 2, "enqueue": 4,
                "reply": 1, "get_ticket": 1, "deliver_due_10": 7}
"""Round trips of each hot path (BEGIN and COMMIT count as one each); the outbox's includes its due check
(due check, BEGIN, claim, the page's append facts and write, the rows' new states, COMMIT). An ack is one
guarded statement, and one more when an id it names has more unread copies than it is named (the guard
returns the facts, fabricd.core.mailbox_acks decides, the second statement applies the decision)."""


@pytest.fixture
async def store(pg_url: str):  # noqa: ANN201
    s = PgStore(pg_url, LocalWakeups(), time.time_ns, pool_size=2)
    await s.start()
    for agent in ("alice", "bob", "carol"):
        await s.directory.register(agent, "", (), "", {})
    yield s
    await s.close()


async def operations(store: PgStore, mailboxes: KvMailboxes, rendezvous: KvRendezvous, outbox: KvOutbox,
                     tag: str) -> dict[str, list[str]]:
    """Each operation once (after a warm-up of the same), with the calls it made."""
    out: dict[str, list[str]] = {}
    policy = RetryPolicy()

    async def measure(name: str, op: Callable[[int], Awaitable[object]]) -> None:
        await op(0)  # prepares the statements
        with counted() as seen:
            await op(1)
        out[name] = seen

    await measure("send", lambda i: mailboxes.append([message("bob", i)], create=False, atomic=False, max_unread=0))
    await measure("send_batch_10", lambda i: mailboxes.append([message("bob", j) for j in range(10)], create=False,
                                                              atomic=True, max_unread=0))
    await measure("peek", lambda i: mailboxes.peek("bob", 10, 0))
    await measure("unread", lambda i: mailboxes.unread("bob", 0, 10, 0))
    await measure("drain", lambda i: mailboxes.drain("bob", 5, 0))
    sent = [r.message.id for r in await mailboxes.append([message("carol", j) for j in range(2)], create=False,
                                                         atomic=False, max_unread=0)]
    await measure("ack", lambda i: mailboxes.ack("carol", [sent[i]]))
    for i in range(2):  # an id two senders chose: the ack of one copy is decided on the facts the guard returns
        await mailboxes.append([(Message(id=f"{tag}-twice-{i}", sender=Address(sender), recipient=Address("carol"),
                                         text="x"), b"") for sender in ("alice", "bob")], create=False, atomic=False,
                               max_unread=0)
    await measure("ack_one_of_two_copies", lambda i: mailboxes.ack("carol", [f"{tag}-twice-{i}"]))
    tickets: list[str] = []

    async def enqueue(i: int) -> None:
        ticket, _ = await rendezvous.enqueue(TicketRequest(target="bob", task=f"t{i}", source_agent="alice",
                                                           source_kind=1), 0)
        tickets.append(ticket.ticket_id)

    await measure("enqueue", enqueue)
    await measure("reply", lambda i: rendezvous.answer("bob", Answer("done"), tickets[i]))
    await measure("get_ticket", lambda i: rendezvous.get(tickets[i]))

    async def deliver(i: int) -> None:
        await outbox.add([OutboxRow(key=f"{tag}-{i}-{j}", state=RowState.PENDING, recipient=Address("carol"),
                                    content="x", create_ns=1) for j in range(10)])

    async def deliver_due(i: int) -> None:
        result = await outbox.deliver_due(10, policy, 0)
        assert result.posted == 10

    await deliver(0)
    await deliver_due(0)
    await deliver(1)
    with counted() as seen:
        await deliver_due(1)
    out["deliver_due_10"] = seen
    return out


async def test_each_hot_path_costs_one_statement_or_one_short_transaction(store: PgStore) -> None:
    clock, mint, engine = time.time_ns, store._mint_id, store.engine
    record = await operations(store, KvMailboxes(engine, clock, mint), KvRendezvous(engine, clock, mint),
                              KvOutbox(engine, clock, mint), "record")
    hot = await operations(store, store.mailboxes, store.rendezvous, store.outbox, "hot")
    print("\nround trips per operation: record scripts -> hot path")
    for name, calls in hot.items():
        print(f"  {name:16} {len(record[name]):3} -> {len(calls)}")
    assert {name: len(calls) for name, calls in hot.items()} == EXPECTED_HOT
    assert all(len(hot[name]) < len(record[name]) for name in hot if name != "get_ticket")


async def test_nodes_sending_to_each_other_never_deadlock(pg_url: str) -> None:
    """Alice's node sends to bob and bob's to alice, singly and in batches to both: each send locks both
    mailboxes (the recipient's seq, the sender's activity), always in agent id order, so none waits for
    PostgreSQL's deadlock detector (a second each) and nothing is rolled back and run again."""
    import asyncio

    nodes = [PgStore(pg_url, LocalWakeups(), time.time_ns, pool_size=4) for _ in range(2)]
    for node in nodes:
        await node.start()
    try:
        for agent in ("alice", "bob"):
            await nodes[0].directory.register(agent, "", (), "", {})

        async def send(node: PgStore, sender: str, to: str, i: int) -> None:
            batch = [message(to, i, sender), message(sender, i, to), message(to, i + 1, sender)]
            await node.mailboxes.append(batch if i % 2 else batch[:1], create=False, atomic=True, max_unread=0)

        await asyncio.gather(*(send(nodes[i % 2], *(("alice", "bob") if i % 2 else ("bob", "alice")), i)
                               for i in range(200)))
        assert [n.engine.rolled_back for n in nodes] == [0, 0]
        unread = {a: n for a, n in await nodes[1].mailboxes.unread_counts()}
        assert unread["alice"] + unread["bob"] == 100 * 1 + 100 * 3
    finally:
        for node in nodes:
            await node.close()


async def test_concurrent_sends_and_a_batch_share_one_facts_statement_and_one_write_statement(store: PgStore) -> None:
    """64 concurrent single sends: the first runs alone (its facts, its write), the 63 that arrived meanwhile
    go as one group; a batch of 100 is one group too. A group is one short transaction: BEGIN, the facts of
    all its sends in one statement, their writes in one, COMMIT."""
    import asyncio

    async def sends(n: int) -> None:
        await asyncio.gather(*(store.mailboxes.append([message("bob", i)], create=False, atomic=False, max_unread=0)
                               for i in range(n)))

    await sends(8)  # prepares the statements
    with counted() as seen:
        await sends(64)
    assert seen == ["fetch", "fetchrow"] + ["execute", "fetch", "fetchrow", "execute"]
    batch = [message("carol", i) for i in range(100)]
    await store.mailboxes.append(batch, create=False, atomic=False, max_unread=0)
    with counted() as seen:
        out = await store.mailboxes.append(batch, create=False, atomic=False, max_unread=0)
    assert len(out) == 100 and seen == ["execute", "fetch", "fetchrow", "execute"]
