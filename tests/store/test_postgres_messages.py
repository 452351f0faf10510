"""Messages on PostgreSQL: gap-free seqs across nodes, idempotent appends, drains, acks, re-runs after a break.

Each PgStore stands for one fabricd node (and each asyncpg pool for one in the statement-level tests);
every test gets a fresh database.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable

import asyncpg
import pytest

from fabricd.core.errors import AlreadyExists, NotFound, ResourceExhausted
from fabricd.core.mailbox import digest_of
from fabricd.core.model import Address, Message, Sent
from fabricd.core.notify import LocalWakeups
from fabricd.store.postgres import append_sql, directory, retry, statements
from fabricd.store.postgres.errors import Unreachable
from fabricd.store.postgres.store import PgStore
from fabricd.v1 import types_pb2 as pb


async def start(url: str, clock: Callable[[], int] = time.time_ns) -> PgStore:
    node = PgStore(url, LocalWakeups(), clock, pool_size=4)
    await node.start()
    return node


@pytest.fixture
async def store(pg_url: str) -> AsyncIterator[PgStore]:
    node = await start(pg_url)
    for name in ("ann", "bob"):
        await node.directory.register(name, "", (), "", {})
    yield node
    await node.close()


def item(to: str, text: str = "x", id: str = "", sender: str = "alice") -> tuple[Message, bytes]:
    msg = Message(id=id, sender=Address(sender), recipient=Address(to), text=text)
    return msg, digest_of(msg) if id else b""


async def send(node: PgStore, to: str, text: str = "x", id: str = "", sender: str = "alice",
               max_unread: int = 0) -> Sent | Exception:
    (result,) = await node.mailboxes.append([item(to, text, id, sender)], create=False, atomic=False,
                                            max_unread=max_unread)
    return result


def body(text: str, recipient: str = "bob") -> bytes:
    return statements.encode(Message(id="x", sender=Address("alice"), recipient=Address(recipient), text=text,
                                      seq=99))


async def make_boxes(pool: asyncpg.Pool, *names: str) -> None:
    async with pool.acquire() as conn:
        for name in names:
            assert await directory.create_mailbox(conn, name)


async def all_seqs(pool: asyncpg.Pool | PgStore, agent_id: str) -> list[int]:
    if isinstance(pool, PgStore):
        return [e.seq for e in await pool.mailboxes.unread(agent_id, 0, 100_000, 0)]
    return [r["seq"] for r in await pool.fetch("SELECT seq FROM messages WHERE agent_id = $1 ORDER BY seq", agent_id)]


async def test_three_nodes_times_64_appenders_to_one_mailbox_get_gap_free_increasing_seqs(pg_url: str) -> None:
    nodes = [await start(pg_url) for _ in range(3)]
    try:
        await nodes[0].directory.register("bob", "", (), "", {})
        per_appender = 4
        got: dict[tuple[int, int], list[int]] = {}

        async def appender(node: int, k: int) -> None:
            seqs = got.setdefault((node, k), [])
            for i in range(per_appender):
                done = await send(nodes[node], "bob", id=f"m-{node}-{k}-{i}")
                assert isinstance(done, Sent) and not done.duplicate
                seqs.append(done.message.seq)

        await asyncio.gather(*(appender(n, k) for n in range(3) for k in range(64)))
        total = 3 * 64 * per_appender
        assert sorted(s for seqs in got.values() for s in seqs) == list(range(1, total + 1))
        assert all(seqs == sorted(seqs) for seqs in got.values())  # each producer's own sends in order
        assert await all_seqs(nodes[1], "bob") == list(range(1, total + 1))
        entry = await nodes[2].directory.get("bob")
        assert entry is not None and (entry.last_seq, entry.unread_count) == (total, total)
    finally:
        for node in nodes:
            await node.close()


async def test_an_append_with_a_used_id_answers_the_original_and_stores_nothing(store: PgStore) -> None:
    first = await send(store, "bob", "a", id="client-1")
    again = await send(store, "bob", "a", id="client-1")
    assert isinstance(first, Sent) and isinstance(again, Sent)
    assert (first.message.seq, first.duplicate) == (1, False)
    assert (again.message.seq, again.duplicate, again.message.send_time_ns) == (1, True, first.message.send_time_ns)
    assert await all_seqs(store, "bob") == [1]


async def test_racing_first_appends_of_one_client_id_store_it_once(pg_url: str) -> None:
    nodes = [await start(pg_url) for _ in range(3)]
    try:
        await nodes[0].directory.register("bob", "", (), "", {})
        done = await asyncio.gather(*(send(nodes[i % 3], "bob", "a", id="same-id") for i in range(12)))
        assert all(isinstance(d, Sent) for d in done)
        assert sum(not d.duplicate for d in done) == 1  # type: ignore[union-attr]
        assert {d.message.seq for d in done} == {1}  # type: ignore[union-attr]
        assert await all_seqs(nodes[0], "bob") == [1]
    finally:
        for node in nodes:
            await node.close()


async def test_an_append_to_a_missing_or_full_mailbox_stores_nothing_and_says_which(store: PgStore) -> None:
    missing = await send(store, "nobody", id="m0")
    assert isinstance(missing, NotFound) and missing.reason == "UNKNOWN_RECIPIENT"
    for i in range(2):
        stored = await send(store, "bob", id=f"m{i + 1}", max_unread=2)
        assert isinstance(stored, Sent) and stored.message.seq == i + 1
    full = await send(store, "bob", id="m3", max_unread=2)
    assert isinstance(full, ResourceExhausted) and full.reason == "MAILBOX_FULL"
    assert await all_seqs(store, "bob") == [1, 2]
    assert await store.directory.get("nobody") is None


async def test_agents_sending_to_each_other_at_once_never_deadlock(store: PgStore) -> None:
    async def one(sender: str, recipient: str, i: int) -> None:
        batch = [item(recipient, id=f"{sender}-{i}", sender=sender), item(sender, id=f"{sender}-{i}-self",
                                                                          sender=recipient)]
        out = await store.mailboxes.append(batch if i % 2 else batch[:1], create=False, atomic=True, max_unread=0)
        assert all(isinstance(r, Sent) for r in out)

    await asyncio.gather(*(one(*pair, i) for i in range(40) for pair in (("ann", "bob"), ("bob", "ann"))))
    assert store.engine.rolled_back == 0  # no deadlock was broken by rolling one back
    assert len(await all_seqs(store, "ann")) == 40 + 20
    entry = await store.directory.get("ann")
    assert entry is not None and entry.last_activity_ns > 0  # each sender's send is its activity


async def test_the_stored_message_reads_back_with_its_seq(store: PgStore) -> None:
    for start_at in range(0, 300, 100):
        await store.mailboxes.append([item("bob", f"text {i}", id=f"m{i}") for i in range(start_at, start_at + 100)],
                                     create=False, atomic=True, max_unread=0)
    envelopes = await store.mailboxes.unread("bob", 0, 1000, 0)
    assert [e.seq for e in envelopes] == list(range(1, 301))
    decoded = pb.Message.FromString(envelopes[-1].encoded)
    assert (decoded.seq, decoded.text, decoded.recipient.agent_id) == (300, "text 299", "bob")


async def test_a_batch_takes_consecutive_seqs_and_answers_used_ids_with_the_original(store: PgStore) -> None:
    await send(store, "bob", "a", id="old")
    items = [item("ann" if i % 3 == 0 else "bob", str(i), id=f"b{i}") for i in range(100)]
    items += [item("bob", "a", id="old"), item("bob", "1", id="b1"), item("nobody", "x", id="lost"),
              item("bob", "changed", id="b2")]
    done = await store.mailboxes.append(items, create=False, atomic=False, max_unread=0)
    sent = [d for d in done[:100] if isinstance(d, Sent)]
    assert [d.message.seq for d in sent if d.message.recipient.agent_id == "bob"] == list(range(2, 68))
    assert [d.message.seq for d in sent if d.message.recipient.agent_id == "ann"] == list(range(1, 35))
    old, b1, lost, changed = done[100:]
    assert isinstance(old, Sent) and old.duplicate and old.message.seq == 1
    assert isinstance(b1, Sent) and b1.duplicate and b1.message.seq == 2  # "b1" came earlier in this batch
    assert isinstance(lost, NotFound) and isinstance(changed, AlreadyExists)
    assert await all_seqs(store, "bob") == list(range(1, 68))
    boxes = {e.agent_id: (e.last_seq, e.unread_count) for e in await store.directory.entries()}
    assert boxes == {"ann": (34, 34), "bob": (67, 67)}


async def test_concurrent_drains_take_disjoint_messages_oldest_first(pg_url: str) -> None:
    nodes = [await start(pg_url) for _ in range(3)]
    try:
        await nodes[0].directory.register("bob", "", (), "", {})
        await nodes[0].mailboxes.append([item("bob", id=f"m{i}") for i in range(90)], create=False, atomic=True,
                                        max_unread=0)

        async def drainer(node: PgStore) -> list[int]:
            taken = []
            while True:
                envelopes, _left, _ = await node.mailboxes.drain("bob", 7, 0)
                if not envelopes:
                    return taken
                assert [e.seq for e in envelopes] == sorted(e.seq for e in envelopes)
                taken.extend(e.seq for e in envelopes)

        taken = await asyncio.gather(*(drainer(n) for n in nodes for _ in range(2)))
        assert sorted(s for t in taken for s in t) == list(range(1, 91))
        assert (await nodes[1].directory.get("bob")).unread_count == 0  # type: ignore[union-attr]
    finally:
        for node in nodes:
            await node.close()


async def test_a_drain_stops_at_the_byte_budget_but_always_takes_one(store: PgStore) -> None:
    for i in range(5):
        await send(store, "bob", "x" * 1000, id=f"m{i}")
    one, left, _ = await store.mailboxes.drain("bob", 10, 10)
    assert ([e.seq for e in one], left) == ([1], 4)
    two, left, _ = await store.mailboxes.drain("bob", 10, 2 * len(one[0].encoded) + 30)
    assert ([e.seq for e in two], left) == ([2, 3], 2)


async def test_unread_and_peek_read_from_the_database_only_what_fits_the_byte_budget(store: PgStore) -> None:
    from fabricd.store.postgres import hot

    for i in range(6):
        await send(store, "bob", "x" * 1000, id=f"m{i}")
    async with store.engine._pool.acquire() as conn:
        size = len((await statements.unread(conn, "bob", 0, 1))[0].encoded)
        budget = 2 * size + 5
        # The rows the database sends, not only what the reader keeps: a never-reading stream must not hold
        # a whole page of large messages (512 of them) to keep one.
        sent = await conn.fetch(statements._UNREAD, "bob", 0, 512, budget)
        assert [r["seq"] for r in sent] == [1, 2]
        assert [r["seq"] for r in await conn.fetch(statements._UNREAD, "bob", 2, 512, 10)] == [3]
        assert [e.seq for e in await statements.unread(conn, "bob", 0, 512, budget)] == [1, 2]
        assert [e.seq for e in await statements.unread(conn, "bob", 0, 512)] == [1, 2, 3, 4, 5, 6]  # no budget
        peeked = await conn.fetch(hot._PEEK, "bob", 512, budget)
        assert [r["seq"] for r in peeked] == [1, 2] and peeked[0]["unread_count"] == 6
        envelopes, unread = await hot.peek(conn, "bob", 512, budget)
        assert ([e.seq for e in envelopes], unread) == ([1, 2], 6)


async def test_acks_consume_only_unread_messages_of_that_mailbox_once(store: PgStore) -> None:
    for i in range(4):
        await send(store, "bob", id=f"b{i}")
    await send(store, "ann", id="a0")
    assert await store.mailboxes.ack("bob", ["b0", "b2", "a0", "nope"]) == 2
    assert await store.mailboxes.ack("bob", ["b0", "b2"]) == 0  # a second run changes nothing
    assert await all_seqs(store, "bob") == [2, 4]
    assert {e.agent_id: e.unread_count for e in await store.directory.entries()} == {"ann": 1, "bob": 2}


@pytest.mark.parametrize("lost", ["before the write", "after the commit"])
async def test_an_append_whose_connection_breaks_runs_again_and_stores_once(store: PgStore, monkeypatch,
                                                                            lost: str) -> None:
    """The connection breaks just before the write statement, or after its commit (the answer lost on the
    way back): the append runs again from its facts, with the id minted before the first run, so the
    message is stored once and answered as stored."""
    write = append_sql.write
    calls = 0

    async def breaking(conn: asyncpg.Connection, w: append_sql.Write, now: int) -> tuple[bool, list[str]]:
        nonlocal calls
        calls += 1
        if calls == 1 and lost == "before the write":
            await conn.close()
        out = await write(conn, w, now)
        if calls == 1:
            raise asyncpg.ConnectionDoesNotExistError("the answer was lost")
        return out

    monkeypatch.setattr(append_sql, "write", breaking)
    done = await send(store, "bob")  # a minted id
    assert isinstance(done, Sent) and done.message.seq == 1 and not done.duplicate
    assert calls == (2 if lost == "before the write" else 1)
    assert await all_seqs(store, "bob") == [1]
    assert (await store.directory.get("bob")).unread_count == 1  # type: ignore[union-attr]


async def test_consumed_ids_older_than_the_window_are_forgotten_and_unread_ones_kept(pg_url: str) -> None:
    now = [100]
    node = await start(pg_url, lambda: now[0])
    try:
        await node.directory.register("bob", "", (), "", {})
        for i in range(6):
            now[0] = 100 + i
            await send(node, "bob", id=f"m{i}")
        await node.mailboxes.ack("bob", ["m0", "m1", "m4"])
        assert (await node.mailboxes.forget_ids(104, b"", 1000))[0] == 2  # m4 is consumed but inside the window
        assert (await node.mailboxes.forget_ids(104, b"", 1000))[0] == 0
        left = {r["id"] for r in await node.engine._pool.fetch("SELECT id FROM message_ids")}
        assert left == {"m2", "m3", "m4", "m5"}
    finally:
        await node.close()


async def test_run_reruns_an_idempotent_operation_whose_connection_broke_and_it_takes_effect_once(
        pg_pool: asyncpg.Pool) -> None:
    attempts = 0

    async def create_then_lose_the_connection_once(conn: asyncpg.Connection) -> bool:
        nonlocal attempts
        attempts += 1
        async with conn.transaction():
            made = await directory.create_mailbox(conn, "bob")
            if attempts == 1:
                await pg_pool.fetchval("SELECT pg_terminate_backend($1)", conn.get_server_pid())
                await conn.fetchval("SELECT 1")
        return made

    assert await retry.run(pg_pool, create_then_lose_the_connection_once)
    assert attempts == 2
    assert await pg_pool.fetchval("SELECT count(*) FROM mailboxes") == 1


async def test_run_does_not_rerun_an_operation_that_is_not_idempotent(pg_pool: asyncpg.Pool) -> None:
    await make_boxes(pg_pool, "bob")
    attempts = 0

    async def bump_and_lose_the_connection(conn: asyncpg.Connection) -> None:
        nonlocal attempts
        attempts += 1
        await pg_pool.fetchval("SELECT pg_terminate_backend($1)", conn.get_server_pid())
        await conn.execute("UPDATE mailboxes SET unread_count = unread_count + 1")

    with pytest.raises(Unreachable, match="connection broke"):
        await retry.run(pg_pool, bump_and_lose_the_connection, idempotent=False)
    assert attempts == 1


async def test_a_batch_whose_senders_usage_counter_appears_meanwhile_is_decided_again(store: PgStore,
                                                                                      monkeypatch) -> None:
    """A usage counter that does not exist yet cannot be locked with the facts: another node charging the
    sender first makes it between the facts and the write. The write's guard sees it, writes nothing, and
    the batch is read and decided again in its transaction, now with that usage."""
    from fabricd.core.quota import Quotas

    write = append_sql.write
    calls = 0

    async def another_node_charges_first(conn: asyncpg.Connection, w: append_sql.Write,
                                         now: int) -> tuple[bool, list[str]]:
        nonlocal calls
        calls += 1
        if calls == 1:
            await store.engine._pool.execute(
                "INSERT INTO counters (name, value) VALUES ('usage/unread_bytes/dave', 7)")
        return await write(conn, w, now)

    monkeypatch.setattr(append_sql, "write", another_node_charges_first)
    out = await store.mailboxes.append([item("bob", "a", sender="dave"), item("ann", "b", sender="dave")],
                                       create=False, atomic=True, max_unread=0, quota=Quotas(unread_bytes=10_000))
    assert all(isinstance(r, Sent) for r in out) and calls == 2
    stored = sum(len(r.encoded) - 2 for r in out)  # type: ignore[union-attr]  # the bodies: seq 1's tag is 2 bytes
    assert (await store.mailboxes.usage("dave")).unread_bytes == 7 + stored
