"""Tickets, the outbox and the directories on PostgreSQL: FIFO positions, claims delivered once, revisions."""

from __future__ import annotations

import asyncio
import time

import asyncpg

from fabricd.core.model import Address, Change, MailboxEntry, OutboxRow, RowState, Ticket, TicketState
from fabricd.store.postgres import directory, outbox, retry, statements, tickets
from tests.store.conftest import append


def ticket(ticket_id: str, target: str = "bob") -> Ticket:
    return Ticket(ticket_id=ticket_id, target=target, task="do it", requester="human", enqueue_ns=time.time_ns())


async def test_enqueued_tickets_from_three_nodes_get_exact_fifo_positions(pg_url: str) -> None:
    nodes = [await asyncpg.create_pool(pg_url, min_size=2, max_size=8) for _ in range(3)]
    try:
        async with nodes[0].acquire() as conn:
            await directory.create_mailbox(conn, "bob")
        done = await asyncio.gather(*(retry.run(nodes[i % 3], tickets.enqueue_ticket, ticket(f"t{i}"), b"")
                                      for i in range(30)))
        assert sorted(position for _seq, position in done) == list(range(30))
        by_seq = sorted(done)
        assert [position for _seq, position in by_seq] == list(range(30))  # FIFO order is seq order
        async with nodes[1].acquire() as conn:
            fifo = await tickets.queue(conn, "bob", 100)
        assert [t.seq for t in fifo] == [seq for seq, _ in by_seq]
        assert await nodes[2].fetchval("SELECT unread_count FROM mailboxes") == 30
    finally:
        for node in nodes:
            await node.close()


async def test_an_enqueue_rerun_answers_the_same_place_and_queues_once(pg_pool: asyncpg.Pool) -> None:
    async with pg_pool.acquire() as conn:
        await directory.create_mailbox(conn, "bob")
        assert await tickets.enqueue_ticket(conn, ticket("t0"), b"") == (1, 0)
        assert await tickets.enqueue_ticket(conn, ticket("t1"), b"") == (2, 1)
        assert await tickets.enqueue_ticket(conn, ticket("t1"), b"") == (2, 1)
        assert await tickets.enqueue_ticket(conn, ticket("t2", "nobody"), b"") is None
        assert await tickets.enqueue_ticket(conn, ticket("t3"), b"", max_unread=2) == 2
    assert await pg_pool.fetchval("SELECT count(*) FROM tickets") == 2


async def test_answering_a_ticket_retires_it_and_consumes_its_message_once(pg_pool: asyncpg.Pool) -> None:
    async with pg_pool.acquire() as conn:
        await directory.create_mailbox(conn, "bob")
        for i in range(3):
            await tickets.enqueue_ticket(conn, ticket(f"t{i}"), b"")
        assert await tickets.finish_ticket(conn, "t0", TicketState.ANSWERED, "42", "", 5) == "bob"
        assert await tickets.finish_ticket(conn, "t0", TicketState.ANSWERED, "43", "", 6) is None
        answered = await tickets.get_ticket(conn, "t0")
        assert (answered.state, answered.result, answered.finish_ns) == (TicketState.ANSWERED, "42", 5)
        assert [t.ticket_id for t in await tickets.queue(conn, "bob", 10)] == ["t1", "t2"]
        assert [e.seq for e in await statements.unread(conn, "bob", 0, 10)] == [2, 3]
        assert await tickets.prune_tickets(conn, 6, 10) == 1
        assert await tickets.get_ticket(conn, "t0") is None
    assert await pg_pool.fetchval("SELECT unread_count FROM mailboxes") == 2


def row(key: str, recipient: str = "bob") -> OutboxRow:
    return OutboxRow(key=key, state=RowState.PENDING, recipient=Address(recipient), sender=Address("worker"),
                     job_id="job", content=f"reply {key}", next_attempt_ns=0, create_ns=1)


async def post(conn: asyncpg.Connection, claimed: OutboxRow, now: int) -> None:
    """The delivery rule: post the row's message under its key, and its receipt, in the caller's transaction."""
    seq = await append(conn, claimed.recipient.agent_id, claimed.key, claimed.content)
    assert await outbox.record_receipt(conn, "worker", claimed.key, seq, now)


async def test_three_nodes_claiming_with_skip_locked_deliver_each_row_once(pg_url: str) -> None:
    nodes = [await asyncpg.create_pool(pg_url, min_size=2, max_size=4) for _ in range(3)]
    try:
        async with nodes[0].acquire() as conn:
            await directory.create_mailbox(conn, "bob")
            keys = await outbox.enqueue_rows(conn, [row(f"outbox:m{i}:reply:0") for i in range(300)])
            assert len(keys) == 300
            assert await outbox.enqueue_rows(conn, [row("outbox:m0:reply:0")]) == []  # a replay queues nothing
        claims: list[list[str]] = []
        claimers: set[int] = set()

        async def loop(node: int, pool: asyncpg.Pool) -> None:
            while True:
                async with pool.acquire() as conn, conn.transaction():
                    rows = await outbox.claim_due(conn, time.time_ns(), 16)
                    for claimed in rows:
                        await post(conn, claimed, time.time_ns())
                if not rows:
                    return
                claims.append([r.key for r in rows])
                claimers.add(node)

        await asyncio.gather(*(loop(i, n) for i, n in enumerate(nodes) for _ in range(2)))
        claimed = [k for batch in claims for k in batch]
        assert sorted(claimed) == sorted(keys)  # every row once, none twice
        assert len(claimers) > 1  # the nodes shared the work
        assert await nodes[0].fetchval("SELECT count(*) FROM messages WHERE agent_id = 'bob'") == 300
        assert await nodes[0].fetchval("SELECT count(*) FROM outbox WHERE state = 3 AND seq > 0") == 300
        async with nodes[1].acquire() as conn:
            assert await outbox.next_due(conn) is None
            assert await outbox.prune_receipts(conn, time.time_ns() + 1, 1000) == 300
    finally:
        for node in nodes:
            await node.close()


async def test_a_failed_post_is_retried_later_then_dead_lettered_and_retried_by_an_operator(
        pg_pool: asyncpg.Pool) -> None:
    async with pg_pool.acquire() as conn:
        await outbox.enqueue_rows(conn, [row("k1", recipient="nobody")])
        async with conn.transaction():
            (claimed,) = await outbox.claim_due(conn, 10, 16)
            assert await outbox.record_failure(conn, "worker", claimed.key, "UNKNOWN_RECIPIENT", 500, dead=False)
        assert await outbox.claim_due(conn, 499, 16) == []
        assert await outbox.next_due(conn) == 500
        assert await outbox.record_failure(conn, "worker", "k1", "UNKNOWN_RECIPIENT", 900, dead=True)
        dead = await outbox.get_row(conn, "worker", "k1")
        assert (dead.state, dead.attempts, dead.last_error) == (RowState.DEAD_LETTER, 2, "UNKNOWN_RECIPIENT")
        assert [r.key for r in await outbox.rows(conn, "", 10, RowState.DEAD_LETTER)] == ["k1"]
        assert await outbox.retry_dead_letters(conn, [], 1000) == 1
        assert [r.key for r in await outbox.claim_due(conn, 1000, 16)] == ["k1"]


async def test_directory_changes_take_revisions_in_order_and_removals_leave_tombstones(pg_pool: asyncpg.Pool) -> None:
    async with pg_pool.acquire() as conn:
        assert await directory.create_mailbox(conn, "ann")
        assert not await directory.create_mailbox(conn, "ann")
        bob = MailboxEntry("bob", session_name="s1", metadata={"k": "v"}, registered=True, last_activity_ns=5)
        assert await directory.put_entry(conn, bob, Change.REGISTERED) == 2
        bob.busy = True
        assert await directory.put_entry(conn, bob, None) == 2  # no change: the revision stays
        assert await directory.put_entry(conn, bob, Change.BUSY_CHANGED, expect_revision=1) is None  # moved on
        assert await directory.put_entry(conn, bob, Change.BUSY_CHANGED, expect_revision=2) == 3
        await append(conn, "ann", "m1")
        assert await directory.remove_mailbox(conn, "ann", "gone", 9, purge=False) is None  # holds mail
        assert await directory.remove_mailbox(conn, "ann", "gone", 9, purge=True) == (1, 0)
        changed = await directory.entries_since(conn, 0, 10)
        assert [(e.agent_id, e.revision, e.change) for e in changed] == [
            ("bob", 3, Change.BUSY_CHANGED), ("ann", 4, Change.UNREGISTERED)]
        stored = await directory.get_entry(conn, "bob")
        assert (stored.session_name, stored.metadata, stored.busy) == ("s1", {"k": "v"}, True)
        assert [e.agent_id for e in await directory.entries_named(conn, "s1")] == ["bob"]
        assert await pg_pool.fetchval("SELECT count(*) FROM message_ids") == 0


async def test_listing_a_targets_or_an_askers_tickets_reads_an_index_not_the_table(pg_pool: asyncpg.Pool) -> None:
    await pg_pool.execute("""
        INSERT INTO tickets (ticket_id, target, queue_seq, state, source_kind, source_agent, task, enqueue_ns)
        SELECT 't' || n, 'agent-' || (n % 100), n, 2, 2, 'asker-' || (n % 50), 'task', 1
        FROM generate_series(1, 20000) AS n""")
    await pg_pool.execute("ANALYZE tickets")
    for column, value in (("target", "agent-7"), ("source_agent", "asker-7")):
        sql = (f"EXPLAIN SELECT {tickets._TICKET_COLUMNS} FROM tickets WHERE queue_seq < $1 AND {column} = $2 "
               "AND target = $3 ORDER BY queue_seq DESC LIMIT $4")
        plan = "\n".join(r[0] for r in await pg_pool.fetch(sql, 2**62, value, "agent-7", 200))
        assert "tickets_by_" in plan and "Seq Scan" not in plan, plan  # either index narrows it: the planner picks
