"""Messages on PostgreSQL: gap-free seqs across nodes, idempotent appends, drains, acks, re-runs after a break.

Each asyncpg pool stands for one fabricd node; every test gets a fresh database.
"""

from __future__ import annotations

import asyncio
import time

import asyncpg
import pytest

from fabricd.core.model import Address, Message
from fabricd.store.postgres import directory, retry, statements
from fabricd.store.postgres.errors import CONNECTION_LOST, Unreachable
from fabricd.v1 import types_pb2 as pb


def body(text: str, recipient: str = "bob") -> bytes:
    return statements.encode(Message(id="x", sender=Address("alice"), recipient=Address(recipient), text=text,
                                      seq=99))


async def make_boxes(pool: asyncpg.Pool, *names: str) -> None:
    async with pool.acquire() as conn:
        for name in names:
            assert await directory.create_mailbox(conn, name)


async def all_seqs(pool: asyncpg.Pool, agent_id: str) -> list[int]:
    return [r["seq"] for r in await pool.fetch("SELECT seq FROM messages WHERE agent_id = $1 ORDER BY seq", agent_id)]


async def test_three_nodes_times_64_appenders_to_one_mailbox_get_gap_free_increasing_seqs(pg_url: str) -> None:
    nodes = [await asyncpg.create_pool(pg_url, min_size=4, max_size=8) for _ in range(3)]
    try:
        await make_boxes(nodes[0], "bob")
        per_appender = 4
        got: dict[tuple[int, int], list[int]] = {}

        async def appender(node: int, k: int) -> None:
            seqs = got.setdefault((node, k), [])
            for i in range(per_appender):
                done = await retry.run(nodes[node], statements.append, "bob", f"m-{node}-{k}-{i}", body("hi"),
                                       time.time_ns())
                seqs.append(done.seq)

        await asyncio.gather(*(appender(n, k) for n in range(3) for k in range(64)))
        total = 3 * 64 * per_appender
        assert sorted(s for seqs in got.values() for s in seqs) == list(range(1, total + 1))
        assert all(seqs == sorted(seqs) for seqs in got.values())  # each producer's own sends in order
        assert await all_seqs(nodes[0], "bob") == list(range(1, total + 1))
        box = await nodes[1].fetchrow("SELECT last_seq, unread_count FROM mailboxes WHERE agent_id = 'bob'")
        assert (box["last_seq"], box["unread_count"]) == (total, total)
    finally:
        for node in nodes:
            await node.close()


async def test_an_append_with_a_used_id_answers_the_original_and_stores_nothing(pg_pool: asyncpg.Pool) -> None:
    await make_boxes(pg_pool, "bob")
    first = await retry.run(pg_pool, statements.append, "bob", "client-1", body("a"), 111, b"digest")
    again = await retry.run(pg_pool, statements.append, "bob", "client-1", body("a"), 222, b"digest")
    assert first.seq == 1 and first.prior is None
    assert again.seq is None
    assert (again.prior.recipient, again.prior.seq, again.prior.send_time_ns, again.prior.digest) == \
        ("bob", 1, 111, b"digest")
    assert await all_seqs(pg_pool, "bob") == [1]


async def test_racing_first_appends_of_one_client_id_store_it_once(pg_url: str) -> None:
    nodes = [await asyncpg.create_pool(pg_url, min_size=2, max_size=4) for _ in range(3)]
    try:
        await make_boxes(nodes[0], "bob")
        done = await asyncio.gather(*(retry.run(nodes[i % 3], statements.append, "bob", "same-id", body("a"), 5,
                                                b"d") for i in range(12)))
        assert sum(d.prior is None for d in done) == 1
        assert {d.seq or d.prior.seq for d in done} == {1}
        assert await all_seqs(nodes[0], "bob") == [1]
    finally:
        for node in nodes:
            await node.close()


async def test_an_append_to_a_missing_or_full_mailbox_stores_nothing_and_says_which(pg_pool: asyncpg.Pool) -> None:
    await make_boxes(pg_pool, "bob")
    async with pg_pool.acquire() as conn:
        missing = await statements.append(conn, "nobody", "m0", body("a"), 1)
        assert (missing.seq, missing.prior, missing.unread) == (None, None, None)
        for i in range(2):
            assert (await statements.append(conn, "bob", f"m{i + 1}", body("a"), 1, max_unread=2)).seq == i + 1
        full = await statements.append(conn, "bob", "m3", body("a"), 1, max_unread=2)
        assert (full.seq, full.unread) == (None, 2)
    assert await all_seqs(pg_pool, "bob") == [1, 2]
    assert await pg_pool.fetchval("SELECT count(*) FROM message_ids") == 2


async def test_agents_sending_to_each_other_at_once_never_deadlock(pg_pool: asyncpg.Pool) -> None:
    await make_boxes(pg_pool, "ann", "bob")

    async def send(sender: str, recipient: str, i: int) -> None:
        async with pg_pool.acquire() as conn:  # no retry: a deadlock would raise here
            assert (await statements.append(conn, recipient, f"{sender}-{i}", body("x", recipient), time.time_ns(),
                                            sender=sender)).seq is not None

    started = time.monotonic()
    await asyncio.gather(*(send(*pair, i) for i in range(40) for pair in (("ann", "bob"), ("bob", "ann"))))
    assert time.monotonic() - started < 10  # a deadlock waits deadlock_timeout (1 s) before it is even seen
    assert await all_seqs(pg_pool, "ann") == list(range(1, 41))
    activity = await pg_pool.fetchval("SELECT min(last_activity) FROM mailboxes")
    assert activity > 0  # each sender's send is its activity


async def test_the_stored_message_reads_back_with_its_seq(pg_pool: asyncpg.Pool) -> None:
    await make_boxes(pg_pool, "bob")
    async with pg_pool.acquire() as conn:
        for i in range(300):
            await statements.append(conn, "bob", f"m{i}", body(f"text {i}"), 1)
        envelopes = await statements.unread(conn, "bob", 0, 1000)
    assert [e.seq for e in envelopes] == list(range(1, 301))
    decoded = pb.Message.FromString(envelopes[-1].encoded)
    assert (decoded.seq, decoded.text, decoded.recipient.agent_id) == (300, "text 299", "bob")


async def test_a_batch_takes_consecutive_seqs_and_answers_used_ids_with_the_original(pg_pool: asyncpg.Pool) -> None:
    await make_boxes(pg_pool, "ann", "bob")
    await retry.run(pg_pool, statements.append, "bob", "old", body("a"), 1)
    items = [statements.Item("ann" if i % 3 == 0 else "bob", f"b{i}", body(str(i))) for i in range(100)]
    items += [statements.Item("bob", "old", body("a")), statements.Item("bob", "b1", body("1")),
              statements.Item("nobody", "lost", body("x"))]
    async with pg_pool.acquire() as conn, conn.transaction():
        done = await statements.append_many(conn, items, 7)
    assert [d.seq for d, i in zip(done[:100], items) if i.agent_id == "bob"] == list(range(2, 68))
    assert [d.seq for d, i in zip(done, items) if i.agent_id == "ann" and d.seq] == list(range(1, 35))
    assert done[100].prior.seq == 1 and done[101].prior.seq == 2  # "b1" came earlier in this batch
    assert done[102].seq is None and done[102].unread is None
    assert await all_seqs(pg_pool, "bob") == list(range(1, 68))
    boxes = {r["agent_id"]: (r["last_seq"], r["unread_count"]) for r in await pg_pool.fetch(
        "SELECT agent_id, last_seq, unread_count FROM mailboxes")}
    assert boxes == {"ann": (34, 34), "bob": (67, 67)}


async def test_concurrent_drains_take_disjoint_messages_oldest_first(pg_url: str) -> None:
    nodes = [await asyncpg.create_pool(pg_url, min_size=2, max_size=4) for _ in range(3)]
    try:
        await make_boxes(nodes[0], "bob")
        async with nodes[0].acquire() as conn:
            for i in range(90):
                await statements.append(conn, "bob", f"m{i}", body("x"), 1)

        async def drainer(pool: asyncpg.Pool) -> list[int]:
            taken = []
            while True:
                async with pool.acquire() as conn:
                    envelopes, _left = await statements.drain(conn, "bob", 7, 0, time.time_ns())
                if not envelopes:
                    return taken
                assert [e.seq for e in envelopes] == sorted(e.seq for e in envelopes)
                taken.extend(e.seq for e in envelopes)

        taken = await asyncio.gather(*(drainer(n) for n in nodes for _ in range(2)))
        assert sorted(s for t in taken for s in t) == list(range(1, 91))
        assert await nodes[0].fetchval("SELECT unread_count FROM mailboxes WHERE agent_id = 'bob'") == 0
    finally:
        for node in nodes:
            await node.close()


async def test_a_drain_stops_at_the_byte_budget_but_always_takes_one(pg_pool: asyncpg.Pool) -> None:
    await make_boxes(pg_pool, "bob")
    async with pg_pool.acquire() as conn:
        for i in range(5):
            await statements.append(conn, "bob", f"m{i}", body("x" * 1000), 1)
        one, left = await statements.drain(conn, "bob", 10, 10, 1)
        assert ([e.seq for e in one], left) == ([1], 4)
        two, left = await statements.drain(conn, "bob", 10, 2 * len(one[0].encoded) + 30, 1)
        assert ([e.seq for e in two], left) == ([2, 3], 2)


async def test_unread_and_peek_read_from_the_database_only_what_fits_the_byte_budget(pg_pool: asyncpg.Pool) -> None:
    from fabricd.store.postgres import hot

    await make_boxes(pg_pool, "bob")
    async with pg_pool.acquire() as conn:
        for i in range(6):
            await statements.append(conn, "bob", f"m{i}", body("x" * 1000), 1)
        size = len((await statements.unread(conn, "bob", 0, 1))[0].encoded)
        budget = 2 * size + 5
        # The rows the database sends, not only what the reader keeps: a never-reading stream must not hold
        # a whole page of large messages (512 of them) to keep one.
        sent = await conn.fetch(statements._UNREAD, "bob", 0, 512, budget)  # noqa: SLF001
        assert [r["seq"] for r in sent] == [1, 2]
        assert [r["seq"] for r in await conn.fetch(statements._UNREAD, "bob", 2, 512, 10)] == [3]  # noqa: SLF001
        assert [e.seq for e in await statements.unread(conn, "bob", 0, 512, budget)] == [1, 2]
        assert [e.seq for e in await statements.unread(conn, "bob", 0, 512)] == [1, 2, 3, 4, 5, 6]  # no budget
        peeked = await conn.fetch(hot._PEEK, "bob", 512, budget)  # noqa: SLF001
        assert [r["seq"] for r in peeked] == [1, 2] and peeked[0]["unread_count"] == 6
        envelopes, unread = await hot.peek(conn, "bob", 512, budget)
        assert ([e.seq for e in envelopes], unread) == ([1, 2], 6)


async def test_acks_consume_only_unread_messages_of_that_mailbox_once(pg_pool: asyncpg.Pool) -> None:
    await make_boxes(pg_pool, "ann", "bob")
    async with pg_pool.acquire() as conn:
        for i in range(4):
            await statements.append(conn, "bob", f"b{i}", body("x"), 1)
        await statements.append(conn, "ann", "a0", body("x", "ann"), 1)
        assert await statements.ack(conn, "bob", ["b0", "b2", "a0", "nope"], 9) == 2
        assert await statements.ack(conn, "bob", ["b0", "b2"], 9) == 0  # a second run changes nothing
    assert await all_seqs(pg_pool, "bob") == [2, 4]
    counts = {r["agent_id"]: r["unread_count"] for r in await pg_pool.fetch("SELECT * FROM mailboxes")}
    assert counts == {"ann": 1, "bob": 2}


async def test_an_append_rerun_after_the_connection_broke_before_commit_stores_once(pg_pool: asyncpg.Pool) -> None:
    await make_boxes(pg_pool, "bob")
    victim = await pg_pool.acquire()
    try:
        transaction = victim.transaction()
        await transaction.start()
        await statements.append(victim, "bob", "m1", body("x"), 1)
        await pg_pool.fetchval("SELECT pg_terminate_backend($1)", victim.get_server_pid())
        with pytest.raises(CONNECTION_LOST):
            await transaction.commit()
    finally:
        await pg_pool.release(victim)
    assert await all_seqs(pg_pool, "bob") == []  # nothing committed
    stored = await retry.run(pg_pool, statements.append, "bob", "m1", body("x"), 1)
    assert stored.seq == 1
    # Committed, but say the answer was lost on the way back: the re-run answers the original.
    again = await retry.run(pg_pool, statements.append, "bob", "m1", body("x"), 2)
    assert again.prior.seq == 1
    assert await all_seqs(pg_pool, "bob") == [1]
    assert await pg_pool.fetchval("SELECT unread_count FROM mailboxes") == 1


async def test_consumed_ids_older_than_the_window_are_forgotten_and_unread_ones_kept(pg_pool: asyncpg.Pool) -> None:
    await make_boxes(pg_pool, "bob")
    async with pg_pool.acquire() as conn:
        for i in range(6):
            await statements.append(conn, "bob", f"m{i}", body("x"), 100 + i)
        await statements.ack(conn, "bob", ["m0", "m1", "m4"], 1)
        assert await statements.forget_ids(conn, 104, 1000) == 2  # m4 is consumed but inside the window
        assert await statements.forget_ids(conn, 104, 1000) == 0
    left = {r["id"] for r in await pg_pool.fetch("SELECT id FROM message_ids")}
    assert left == {"m2", "m3", "m4", "m5"}


async def test_run_reruns_an_idempotent_operation_whose_connection_broke_and_it_takes_effect_once(
        pg_pool: asyncpg.Pool) -> None:
    await make_boxes(pg_pool, "bob")
    attempts = 0

    async def send_then_lose_the_connection_once(conn: asyncpg.Connection) -> statements.Appended:
        nonlocal attempts
        attempts += 1
        async with conn.transaction():
            done = await statements.append(conn, "bob", "m1", body("x"), 1)
            if attempts == 1:
                await pg_pool.fetchval("SELECT pg_terminate_backend($1)", conn.get_server_pid())
                await conn.fetchval("SELECT 1")
        return done

    done = await retry.run(pg_pool, send_then_lose_the_connection_once)
    assert (attempts, done.seq) == (2, 1)
    assert await all_seqs(pg_pool, "bob") == [1]


async def test_run_does_not_rerun_an_operation_that_is_not_idempotent(pg_pool: asyncpg.Pool) -> None:
    await make_boxes(pg_pool, "bob")
    attempts = 0

    async def drain_and_lose_the_connection(conn: asyncpg.Connection) -> None:
        nonlocal attempts
        attempts += 1
        await pg_pool.fetchval("SELECT pg_terminate_backend($1)", conn.get_server_pid())
        await statements.drain(conn, "bob", 10, 0, 1)

    with pytest.raises(Unreachable, match="connection broke"):
        await retry.run(pg_pool, drain_and_lose_the_connection, idempotent=False)
    assert attempts == 1
