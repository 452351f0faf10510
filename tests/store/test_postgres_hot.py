"""PgStore's hot paths decide as the record scripts do: new mailboxes for outbox replies, one FIFO for tickets."""

from __future__ import annotations

import asyncio
import time

import asyncpg

from fabricd.core.kv.store import KvRendezvous
from fabricd.core.model import Address, Change, OutboxRow, RowState
from fabricd.core.notify import LocalWakeups
from fabricd.core.outbox import RetryPolicy
from fabricd.core.rendezvous import Answer, TicketRequest
from fabricd.store.postgres.store import PgStore


async def start(url: str) -> PgStore:
    store = PgStore(url, LocalWakeups(), time.time_ns, pool_size=2)
    await store.start()
    return store


async def waiting_on_a_lock(conn: asyncpg.Connection) -> int:
    """Backends of this database, other than `conn`'s, waiting on a lock now. `conn` may be inside a transaction,
    where pg_stat_activity answers from one snapshot taken at its first read: the snapshot is dropped first."""
    await conn.execute("SELECT pg_stat_clear_snapshot()")
    return await conn.fetchval("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                               "AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'")


async def test_an_outbox_reply_to_a_new_name_makes_its_mailbox_and_one_to_a_session_name_finds_the_agent(
        pg_url: str) -> None:
    store = await start(pg_url)
    try:
        await store.directory.register("agent-7", "builder", (), "", {})
        revision, _ = await store.directory.snapshot()
        await store.outbox.add([OutboxRow(key=f"k{i}", state=RowState.PENDING, recipient=Address(name),
                                          content="done", create_ns=1)
                                for i, name in enumerate(["zed", "amy", "zed"])])
        result = await store.outbox.deliver_due(64, RetryPolicy(), 0)
        assert (result.posted, result.failed) == (3, 0)
        made = {e.agent_id: e for e in await store.directory.changes_since(revision, 10)}
        assert sorted(made) == ["amy", "zed"]  # each made once, each with its own revision
        assert {e.change for e in made.values()} == {Change.CREATED}
        assert len({e.revision for e in made.values()}) == 2
        assert [e.unread_count for e in (made["amy"], made["zed"])] == [1, 2]

        await store.outbox.add([OutboxRow(key="s1", state=RowState.PENDING, recipient=Address("builder"),
                                          content="done", create_ns=1)])
        assert (await store.outbox.deliver_due(64, RetryPolicy(), 0)).posted == 1  # via the record script
        assert (await store.directory.get("agent-7")).unread_count == 1
        assert await store.directory.get("builder") is None
    finally:
        await store.close()


async def test_tickets_queued_by_the_hot_path_and_the_record_script_keep_one_fifo(pg_url: str) -> None:
    store = await start(pg_url)
    try:
        await store.directory.register("bob", "", (), "", {})
        record = KvRendezvous(store.engine, time.time_ns, store._mint_id)
        order = []
        for i, path in enumerate([store.rendezvous, record, store.rendezvous, record]):
            ticket, position = await path.enqueue(TicketRequest(target="bob", task=f"t{i}"), 0)
            assert position == i
            order.append(ticket.ticket_id)
        assert [t.ticket_id for t in await store.rendezvous.queue("bob")] == order
        assert await store.rendezvous.answer("bob", Answer("ok"), "") == order[0]  # the head, through the hot path
        assert await record.answer("bob", Answer("ok"), "") == order[1]
        assert [t.ticket_id for t in await store.rendezvous.queue("bob")] == order[2:]
        assert (await store.directory.get("bob")).unread_count == 2
    finally:
        await store.close()


async def test_a_fan_out_racing_the_same_rows_on_another_node_writes_nothing_and_leaves_them_alone(
        pg_url: str) -> None:
    """Two nodes fan out one settlement at once: the one that loses the race (it read no row, then met the
    other's insert) writes nothing, says so, and leaves the winner's row as it was (a receipt stays one)."""
    store = await start(pg_url)
    first = OutboxRow(key="outbox:req-1:reply:0", state=RowState.PENDING, recipient=Address("parent", "s"),
                      sender=Address("child", "c"), job_id="job-1", content="first", create_ns=1)
    other = await asyncpg.connect(pg_url)
    try:
        tr = other.transaction()
        await tr.start()
        await other.execute(  # the other node's fan-out, not committed
            "INSERT INTO outbox (key, state, recipient_agent, recipient_session, sender_agent, sender_session, "
            "job_id, content, create_ns) VALUES ($1, 1, 'parent', 's', 'child', 'c', 'job-1', 'first', 1)", first.key)
        replay = OutboxRow(key=first.key, state=RowState.PENDING, recipient=Address("parent", "s"),
                           sender=Address("child", "c"), job_id="job-1", content="replayed", create_ns=2)
        adding = asyncio.ensure_future(store.outbox.add([replay]))
        while not await waiting_on_a_lock(other) and not adding.done():  # this node has read no row and waits on the other's insert
            await asyncio.sleep(0.01)
        await tr.commit()
        assert await adding == 0
        (row,) = await store.outbox.rows("", 10, RowState.UNSPECIFIED)
        assert (row.content, row.create_ns) == ("first", 1)
    finally:
        await other.close()
        await store.close()


async def test_retrying_every_dead_letter_leaves_a_row_another_node_changed_meanwhile_alone(pg_url: str) -> None:
    """RetryDeadLetters with no keys reads the dead letters, then puts each back: a row another node turned
    into something else since (retried there and delivered: a receipt) stays what it became, not counted."""
    store = await start(pg_url)
    dead = OutboxRow(key="outbox:req-1:reply:0", state=RowState.PENDING, recipient=Address("parent", "s"),
                     sender=Address("child", "c"), job_id="job-1", content="done", create_ns=1)
    other = await asyncpg.connect(pg_url)
    try:
        await store.outbox.add([dead])
        await other.execute("UPDATE outbox SET state = 2, attempts = 3")
        tr = other.transaction()
        await tr.start()
        await other.execute("UPDATE outbox SET state = 3, seq = 7, content = '' WHERE key = $1", dead.key)
        retrying = asyncio.ensure_future(store.outbox.retry_dead_letters([]))
        while not await waiting_on_a_lock(other) and not retrying.done():  # this node has read the dead letter and waits on the other's change
            await asyncio.sleep(0.01)
        await tr.commit()
        assert await retrying == 0
        (row,) = await store.outbox.rows("", 10, RowState.UNSPECIFIED)
        assert (row.state, row.seq) == (RowState.DELIVERED, 7)
    finally:
        await other.close()
        await store.close()


async def test_pruning_receipts_another_node_pruned_meanwhile_counts_none(pg_url: str) -> None:
    """Two operators prune at once on two nodes: each receipt is counted by the one that deleted it."""
    store = await start(pg_url)
    receipt = OutboxRow(key="outbox:req-1:reply:0", state=RowState.PENDING, recipient=Address("parent", "s"),
                        sender=Address("child", "c"), job_id="job-1", content="done", create_ns=1)
    other = await asyncpg.connect(pg_url)
    try:
        await store.outbox.add([receipt])
        assert (await store.outbox.deliver_due(64, RetryPolicy(), 0)).posted == 1
        tr = other.transaction()
        await tr.start()
        assert await other.execute("DELETE FROM outbox WHERE state = 3") == "DELETE 1"  # the other node's prune
        pruning = asyncio.ensure_future(store.outbox.prune_receipts(time.time_ns() + 1))
        while not await waiting_on_a_lock(other) and not pruning.done():  # this node has read the receipt and waits on the other's delete
            await asyncio.sleep(0.01)
        await tr.commit()
        assert await pruning == 0
        assert await store.outbox.rows("", 10, RowState.UNSPECIFIED) == []
    finally:
        await other.close()
        await store.close()


async def test_the_pools_connections_run_without_jit(pg_url: str) -> None:
    """An ack of 1,000 ids is estimated past jit_above_cost, and compiling it cost more than running it."""
    store = await start(pg_url)
    try:
        async def show(conn: asyncpg.Connection, _attempt: object) -> str:
            return str(await conn.fetchval("SHOW jit"))

        assert await store.engine.op(show, rerun_safe=True) == "off"
        other = await asyncpg.connect(pg_url)  # the server's own default is left alone
        try:
            assert await other.fetchval("SHOW jit") == "on"
        finally:
            await other.close()
    finally:
        await store.close()
