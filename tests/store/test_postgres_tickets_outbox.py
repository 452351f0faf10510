"""Tickets, the outbox and the directories on PostgreSQL: FIFO positions, claims delivered once, revisions."""

from __future__ import annotations

import asyncio
import time

import asyncpg
import pytest

from fabricd.core.errors import FailedPrecondition, NotFound, ResourceExhausted
from fabricd.core.model import Address, Change, MailboxEntry, Message, OutboxRow, RowState, TicketState
from fabricd.core.notify import LocalWakeups
from fabricd.core.outbox import RetryPolicy
from fabricd.core.quota import Quotas
from fabricd.core.rendezvous import Answer, TicketRequest
from fabricd.store.postgres import directory, tickets
from fabricd.store.postgres.store import PgStore


def ask(task: str) -> TicketRequest:
    return TicketRequest(target="bob", task=task)


async def test_enqueued_tickets_from_three_nodes_get_exact_fifo_positions(pg_url: str) -> None:
    nodes = [PgStore(pg_url, LocalWakeups(), time.time_ns, pool_size=4) for _ in range(3)]
    try:
        for node in nodes:
            await node.start()
        await nodes[0].directory.register("bob", "", (), "", {})
        done = await asyncio.gather(*(nodes[i % 3].rendezvous.enqueue(ask(f"t{i}"), 0) for i in range(30)))
        assert sorted(position for _ticket, position in done) == list(range(30))
        by_seq = sorted(done, key=lambda d: d[0].seq)
        assert [position for _ticket, position in by_seq] == list(range(30))  # FIFO order is seq order
        fifo = await nodes[1].rendezvous.queue("bob")
        assert [t.seq for t in fifo] == [t.seq for t, _ in by_seq]
        conn = await asyncpg.connect(pg_url)
        assert await conn.fetchval("SELECT unread_count FROM mailboxes WHERE agent_id = 'bob'") == 30
        await conn.close()
    finally:
        for node in nodes:
            await node.close()


async def test_an_enqueue_under_a_request_key_again_answers_the_same_place_and_queues_once(pg_url: str) -> None:
    store = PgStore(pg_url, LocalWakeups(), time.time_ns, pool_size=2)
    await store.start()
    try:
        await store.directory.register("bob", "", (), "", {})
        first, at = await store.rendezvous.enqueue(ask("t0"), 0)
        keyed = TicketRequest(target="bob", task="t1", idempotency_key="k")
        second, then = await store.rendezvous.enqueue(keyed, 0)
        again, still = await store.rendezvous.enqueue(keyed, 0)
        assert (at, then, still) == (0, 1, 1)
        assert (again.ticket_id, again.seq, again.reattached) == (second.ticket_id, second.seq, 1)
        with pytest.raises(NotFound):
            await store.rendezvous.enqueue(TicketRequest(target="nobody", task="t2"), 0)
        with pytest.raises(ResourceExhausted):
            await store.rendezvous.enqueue(ask("t3"), 2)
        assert [t.ticket_id for t in await store.rendezvous.queue("bob")] == [first.ticket_id, second.ticket_id]
    finally:
        await store.close()


async def test_answering_a_ticket_retires_it_and_consumes_its_message_once(pg_url: str) -> None:
    store = PgStore(pg_url, LocalWakeups(), time.time_ns, pool_size=2)
    await store.start()
    try:
        await store.directory.register("bob", "", (), "", {})
        asked = [(await store.rendezvous.enqueue(ask(f"t{i}"), 0))[0] for i in range(3)]
        assert await store.rendezvous.answer("bob", Answer("42"), asked[0].ticket_id) == asked[0].ticket_id
        with pytest.raises(FailedPrecondition):
            await store.rendezvous.answer("bob", Answer("43"), asked[0].ticket_id)
        answered = await store.rendezvous.get(asked[0].ticket_id)
        assert (answered.state, answered.result) == (TicketState.ANSWERED, "42")
        assert [t.ticket_id for t in await store.rendezvous.queue("bob")] == [t.ticket_id for t in asked[1:]]
        assert [e.seq for e in await store.mailboxes.unread("bob", 0, 10, 0)] == [t.seq for t in asked[1:]]
        conn = await asyncpg.connect(pg_url)
        assert await tickets.prune_tickets(conn, answered.finish_ns + 1, 10) == 1
        assert await tickets.get_ticket(conn, asked[0].ticket_id) is None
        assert await conn.fetchval("SELECT unread_count FROM mailboxes WHERE agent_id = 'bob'") == 2
        await conn.close()
    finally:
        await store.close()


def row(key: str, recipient: str = "bob") -> OutboxRow:
    return OutboxRow(key=key, state=RowState.PENDING, recipient=Address(recipient), sender=Address("worker"),
                     job_id="job", content=f"reply {key}", next_attempt_ns=0, create_ns=1)


async def test_three_nodes_claiming_with_skip_locked_deliver_each_row_once(pg_url: str) -> None:
    nodes = [PgStore(pg_url, LocalWakeups(), time.time_ns, pool_size=4) for _ in range(3)]
    try:
        for node in nodes:
            await node.start()
        await nodes[0].directory.register("bob", "", (), "", {})
        assert await nodes[0].outbox.add([row(f"outbox:m{i}:reply:0") for i in range(300)]) == 300
        assert await nodes[1].outbox.add([row("outbox:m0:reply:0")]) == 0  # a replay queues nothing
        posted = [0, 0, 0]

        async def loop(node: int) -> None:
            while True:
                result = await nodes[node].outbox.deliver_due(16, RetryPolicy(), 0)
                posted[node] += result.posted
                if not result.posted and not result.more:
                    return

        await asyncio.gather(*(loop(i) for i in range(3) for _ in range(2)))
        assert sum(posted) == 300  # every row once, none twice
        assert sorted(posted)[1] > 0  # the nodes shared the work
        assert len(await nodes[2].mailboxes.unread("bob", 0, 1000, 0)) == 300
        receipts = await nodes[2].outbox.rows("", 1000, RowState.DELIVERED)
        assert len(receipts) == 300 and all(r.seq > 0 and not r.content for r in receipts)
        assert await nodes[1].outbox.next_due() is None
        assert await nodes[1].outbox.prune_receipts(time.time_ns() + 1) == 300
    finally:
        for node in nodes:
            await node.close()


async def test_a_failed_post_is_retried_later_then_dead_lettered_and_retried_by_an_operator(pg_url: str) -> None:
    now = [10**18]
    store = PgStore(pg_url, LocalWakeups(), lambda: now[0], pool_size=2)
    await store.start()
    policy = RetryPolicy(base_s=1.0, jitter=0.0, max_attempts=2)
    try:
        await store.directory.register("bob", "", (), "", {})
        await store.mailboxes.append([(Message(sender=Address("alice"), recipient=Address("bob"), text="x"), b"")],
                                     create=False, atomic=True, max_unread=0)
        await store.outbox.add([row("k1")])
        assert (await store.outbox.deliver_due(16, policy, 1)).failed == 1  # bob's mailbox is full
        (retry,) = await store.outbox.rows("", 10, RowState.PENDING)
        assert (retry.attempts, retry.next_attempt_ns) == (1, now[0] + 10**9)
        assert retry.last_error.startswith("MAILBOX_FULL")
        assert (await store.outbox.deliver_due(16, policy, 1)).failed == 0  # not due yet
        assert await store.outbox.next_due() == now[0] + 10**9
        now[0] += 10**9
        assert (await store.outbox.deliver_due(16, policy, 1)).failed == 1
        (dead,) = await store.outbox.rows("", 10, RowState.DEAD_LETTER)
        assert (dead.key, dead.attempts) == ("k1", 2)
        assert await store.outbox.retry_dead_letters([]) == 1
        assert (await store.outbox.deliver_due(16, policy, 0)).posted == 1
        (receipt,) = await store.outbox.rows("", 10, RowState.DELIVERED)
        assert (receipt.key, receipt.attempts) == ("k1", 1)
    finally:
        await store.close()


async def test_directory_changes_take_revisions_in_order(pg_pool: asyncpg.Pool) -> None:
    async with pg_pool.acquire() as conn:
        assert await directory.create_mailbox(conn, "ann")
        assert not await directory.create_mailbox(conn, "ann")
        bob = MailboxEntry("bob", session_name="s1", metadata={"k": "v"}, registered=True, last_activity_ns=5)
        assert await directory.put_entry(conn, bob, Change.REGISTERED) == 2
        bob.busy = True
        assert await directory.put_entry(conn, bob, None) == 2  # no change: the revision stays
        assert await directory.put_entry(conn, bob, Change.BUSY_CHANGED, expect_revision=1) is None  # moved on
        assert await directory.put_entry(conn, bob, Change.BUSY_CHANGED, expect_revision=2) == 3
        changed = await directory.entries_since(conn, 0, 10)
        assert [(e.agent_id, e.revision, e.change) for e in changed] == [
            ("ann", 1, Change.CREATED), ("bob", 3, Change.BUSY_CHANGED)]
        stored = await directory.get_entry(conn, "bob")
        assert (stored.session_name, stored.metadata, stored.busy) == ("s1", {"k": "v"}, True)
        assert [e.agent_id for e in await directory.entries_named(conn, "s1")] == ["bob"]


async def test_listing_a_targets_or_an_askers_tickets_reads_an_index_not_the_table(pg_pool: asyncpg.Pool) -> None:
    await pg_pool.execute("""
        INSERT INTO tickets (ticket_id, target, queue_seq, state, source_kind, source_agent, task, enqueue_ns)
        SELECT 't' || n, 'agent-' || (n % 100), n, 2, 2, 'asker-' || (n % 50), 'task', 1
        FROM generate_series(1, 20000) AS n""")
    await pg_pool.execute("ANALYZE tickets")
    for column, value in (("target", "agent-7"), ("source_agent", "asker-7")):
        sql = (f"EXPLAIN SELECT {tickets.TICKET_COLUMNS} FROM tickets WHERE queue_seq < $1 AND {column} = $2 "
               "AND target = $3 ORDER BY queue_seq DESC LIMIT $4")
        plan = "\n".join(r[0] for r in await pg_pool.fetch(sql, 2**62, value, "agent-7", 200))
        assert "tickets_by_" in plan and "Seq Scan" not in plan, plan  # either index narrows it: the planner picks


async def test_an_enqueue_whose_commit_answer_was_lost_runs_again_and_queues_one_ticket(
        pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    store = PgStore(pg_url, LocalWakeups(), time.time_ns, pool_size=2)
    await store.start()
    try:
        await store.directory.register("bob", "", (), "", {})
        commit = asyncpg.transaction.Transaction.__aexit__
        lost = [1]

        async def commit_then_lose_the_answer(self, *exc_info):  # noqa: ANN002, ANN202 - a monkeypatched asyncpg method
            await commit(self, *exc_info)
            if exc_info[0] is None and lost:
                lost.pop()
                raise asyncpg.ConnectionDoesNotExistError("connection lost after the commit")

        monkeypatch.setattr(asyncpg.transaction.Transaction, "__aexit__", commit_then_lose_the_answer)
        ticket, position = await store.rendezvous.enqueue(ask("once"), 0)
        monkeypatch.undo()
        assert not lost and position == 0
        assert [t.ticket_id for t in await store.rendezvous.queue("bob")] == [ticket.ticket_id]
        assert len(await store.mailboxes.unread("bob", 0, 10, 0)) == 1
    finally:
        await store.close()


async def test_an_asker_charged_elsewhere_between_an_enqueues_facts_and_its_write_is_decided_again(
        pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The asker's usage is not pinned by a row lock: a change committed after the enqueue read it makes the
    write a no-op, and the enqueue decides again on what is now stored (here: the asker is at its quota)."""
    store = PgStore(pg_url, LocalWakeups(), time.time_ns, pool_size=2)
    await store.start()
    other = await asyncpg.connect(pg_url)
    try:
        for agent in ("bob", "carol"):
            await store.directory.register(agent, "", (), "", {})
        await store.rendezvous.enqueue(TicketRequest(target="bob", task="first", source_agent="carol",
                                                     source_kind=2), 0)
        fetchrow = asyncpg.Connection.fetchrow
        moved = [1]

        async def facts_then_another_node_queues(self, query, *args, **kwargs):  # noqa: ANN002, ANN003, ANN202 - a monkeypatched asyncpg method
            row = await fetchrow(self, query, *args, **kwargs)
            if query == tickets.ENQUEUE_FACTS and moved:
                moved.pop()
                await other.execute("UPDATE counters SET value = value + 1 WHERE name = $1",
                                    tickets.usage_names("carol")[1])
            return row

        monkeypatch.setattr(asyncpg.Connection, "fetchrow", facts_then_another_node_queues)
        with pytest.raises(ResourceExhausted) as refused:
            await store.rendezvous.enqueue(TicketRequest(target="bob", task="second", source_agent="carol",
                                                         source_kind=2), 0, Quotas(queued_tickets=2))
        monkeypatch.undo()
        assert not moved and refused.value.reason == "QUOTA_QUEUED_TICKETS"
        assert len(await store.rendezvous.queue("bob")) == 1
    finally:
        await other.close()
        await store.close()
