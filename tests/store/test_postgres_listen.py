"""Wake-ups between nodes (NOTIFY after commit, a LISTEN connection that reconnects), advisory locks, failover."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Hashable

import asyncpg

from fabricd.store.postgres import directory, listen, locks, schema
from tests import pg
from tests.store.conftest import append


class Collector:
    """What a node's notifier would get: the keys woken, and a wake-everyone on each reconnect."""

    def __init__(self) -> None:
        self.keys: list[Hashable] = []
        self.arrived = asyncio.Event()
        self.reconnected = asyncio.Event()

    def on_keys(self, keys: list[Hashable]) -> None:
        self.keys.extend(keys)
        self.arrived.set()

    def on_reconnect(self) -> None:
        self.reconnected.set()

    async def next_keys(self) -> list[Hashable]:
        await asyncio.wait_for(self.arrived.wait(), 10)
        self.arrived.clear()
        keys, self.keys = self.keys, []
        return keys


async def start_listener(url: str, collector: Collector) -> tuple[listen.Listener, asyncio.Task[None]]:
    listener = listen.Listener(lambda: asyncpg.connect(url), collector.on_keys, collector.on_reconnect,
                               backoff_s=0.01)
    task = asyncio.create_task(listener.run())
    await asyncio.wait_for(listener.connected.wait(), 10)
    return listener, task


async def test_a_notify_after_commit_reaches_the_listening_node_once_per_key(pg_url: str, pg_pool: asyncpg.Pool) -> None:
    collector = Collector()
    _listener, task = await start_listener(pg_url, collector)
    try:
        async with pg_pool.acquire() as conn:
            await directory.create_mailbox(conn, "bob")
            for i in range(3):
                await append(conn, "bob", f"m{i}")
            # the batch's keys: one wake-up for bob however many messages, tuples survive the trip
            assert await listen.publish(conn, ["bob", "bob", "bob", ("ticket", "t1"), ("outbox",)]) == 1
        assert await collector.next_keys() == ["bob", ("ticket", "t1"), ("outbox",)]
    finally:
        task.cancel()


async def test_a_node_skips_its_own_echoes_by_node_id_whatever_connection_sent_them(pg_url: str,
                                                                                   pg_pool: asyncpg.Pool) -> None:
    """Echoes are told apart by the node id in the payload: a server pid, reused after a reconnect, could
    make a node drop another node's wake-ups."""
    collector = Collector()
    listener, task = await start_listener(pg_url, collector)
    listener.origin = 7
    try:
        async with pg_pool.acquire() as conn:
            await listen.publish(conn, ["own"], origin=7)  # this node's echo: its waiters were woken at commit
            await listen.publish(conn, ["other"], origin=8)  # the same connection, another node's id
            await listen.publish(conn, ["unnamed"])
        keys = await collector.next_keys()
        while len(keys) < 2:
            keys += await collector.next_keys()
        assert keys == ["other", "unnamed"]
    finally:
        task.cancel()


async def test_a_listen_connection_terminated_by_the_database_reconnects_and_reports_it(pg_url: str,
                                                                                   pg_pool: asyncpg.Pool) -> None:
    collector = Collector()
    listener, task = await start_listener(pg_url, collector)
    try:
        first_pid = listener.pid
        assert await pg_pool.fetchval("SELECT pg_terminate_backend($1)", first_pid)
        await asyncio.wait_for(collector.reconnected.wait(), 10)
        assert listener.reconnects == 1
        assert listener.pid != first_pid
        async with pg_pool.acquire() as conn:
            await listen.publish(conn, ["bob"])
        assert await collector.next_keys() == ["bob"]  # listening again, not just connected
    finally:
        task.cancel()


async def test_a_listener_comes_back_after_the_database_restarts() -> None:
    with pg.Cluster.start() as cluster:
        collector = Collector()
        listener, task = await start_listener(cluster.url(), collector)
        try:
            await asyncio.to_thread(cluster.restart)  # down, then up on the same port
            await asyncio.wait_for(collector.reconnected.wait(), 20)
            conn = await asyncpg.connect(cluster.url())
            try:
                await listen.publish(conn, ["bob"])
            finally:
                await conn.close()
            assert await collector.next_keys() == ["bob"]
            assert listener.reconnects == 1
        finally:
            task.cancel()


async def test_concurrent_commits_share_notify_transactions_and_every_wake_up_arrives(
        pg_url: str, pg_pool: asyncpg.Pool) -> None:
    collector = Collector()
    _listener, task = await start_listener(pg_url, collector)
    publisher = listen.Publisher(pg_pool)
    names = [f"agent-{i}" for i in range(64)]
    try:
        async with pg_pool.acquire() as conn:
            for name in names:
                await directory.create_mailbox(conn, name)

        async def send(name: str) -> None:
            async with pg_pool.acquire() as conn:
                await append(conn, name, f"to-{name}")
            publisher.add([name])  # after the commit, as a node does

        await asyncio.gather(*(send(n) for n in names))
        await publisher.drain()
        woken: set[Hashable] = set()
        while woken != set(names):
            woken.update(await collector.next_keys())
        assert 1 <= publisher.published < len(names)
    finally:
        task.cancel()


def test_payloads_stay_under_the_notify_limit_and_keep_every_key() -> None:
    keys = [f"agent-{i:04d}-" + "x" * 100 for i in range(300)]
    sent = listen.payloads(keys + keys)
    assert len(sent) > 1
    assert all(len(p.encode()) <= listen.MAX_PAYLOAD for p in sent)
    assert [k for p in sent for k in listen.keys_of(p)] == keys
    assert json.loads(listen.payloads([("queue", "bob")])[0]) == [["queue", "bob"]]


async def test_housekeeping_runs_on_one_node_at_a_time(pg_url: str) -> None:
    a, b = await asyncpg.connect(pg_url), await asyncpg.connect(pg_url)
    try:
        async with locks.try_hold(a, locks.HOUSEKEEPING) as held_a:
            async with locks.try_hold(b, locks.HOUSEKEEPING) as held_b:
                assert (held_a, held_b) == (True, False)
        async with locks.try_hold(b, locks.HOUSEKEEPING) as held_b:
            assert held_b  # released when the holder finished
        async with locks.try_hold(a, locks.HOUSEKEEPING) as held_a:
            await a.close()  # a node that dies mid-round frees the lock with its connection
        async with locks.try_hold(b, locks.HOUSEKEEPING) as held_b:
            assert held_a and held_b
    finally:
        await b.close()


async def test_a_promoted_synchronous_standby_keeps_every_acknowledged_message() -> None:
    with pg.Pair.start(synchronous=True) as pair:
        pair.wait_streaming()
        primary = await asyncpg.connect(pair.primary.url())
        await schema.migrate(primary)
        await directory.create_mailbox(primary, "bob")
        for i in range(50):
            assert await append(primary, "bob", f"m{i}") == i + 1
        await primary.close()
        pair.promote()
        promoted = await asyncpg.connect(pair.standby.url())
        try:
            assert await promoted.fetchval("SELECT count(*) FROM messages") == 50
            assert await append(promoted, "bob", "after") == 51  # takes writes now
        finally:
            await promoted.close()
