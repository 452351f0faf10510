"""Three fabricd nodes on one PostgreSQL database: one fabric, whichever node a client talks to.

Each node is a real `fabricd serve --store postgresql://...` process on its own
socket; the database is a fresh one of the session's throwaway cluster.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator

import asyncpg
import pytest

from fabricd.client import Client, Unavailable
from fabricd.store.postgres import schema
from fabricd.v1 import outbox_service_pb2 as ob
from tests import pg
from tests.conftest import Daemon
from tests.e2e.test_outbox import job, rows, until


@pytest.fixture
def nodes(pg_url: str, tmp_path) -> Iterator[list[Daemon]]:
    """Three nodes on one database (their outbox loops on), started."""
    made: list[Daemon] = []
    folders: list[str] = []
    for i in range(3):
        sock = tempfile.mkdtemp(prefix=f"fn{i}-", dir="/tmp")
        folders.append(sock)
        made.append(Daemon(str(tmp_path / f"data{i}"), sock, "--store", pg_url))
    for d in made:
        d.start()
    yield made
    for d in made:
        if d.proc is not None and d.proc.poll() is None:
            d.kill()
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)


async def test_a_send_on_one_node_reaches_a_subscriber_on_another(nodes: list[Daemon]) -> None:
    a, b, _ = nodes
    async with Client(a.target) as on_a, Client(b.target) as on_b:
        await on_b.register("bob")
        async with on_b.subscribe("bob") as inbox:
            started = time.perf_counter()
            await on_a.send("bob", "hello from node A")
            message = await asyncio.wait_for(inbox.__anext__(), 10)
            took = time.perf_counter() - started
        assert message.text == "hello from node A"
        print(f"cross-node send -> subscribe: {took * 1000:.1f} ms")


async def test_an_ask_on_one_node_is_answered_by_a_reply_on_another(nodes: list[Daemon]) -> None:
    a, _, c = nodes
    async with Client(a.target) as on_a, Client(c.target) as on_c:
        await on_c.register("worker")
        asking = asyncio.create_task(on_a.ask("worker", "what is 6 x 7?", timeout=20))
        async with on_c.subscribe("worker", auto_ack=False) as inbox:
            task = await asyncio.wait_for(inbox.__anext__(), 10)
        assert "6 x 7" in task.text
        await on_c.reply("worker", "42")
        assert await asyncio.wait_for(asking, 20) == "42"


async def test_outbox_loops_on_three_nodes_deliver_every_reply_exactly_once(nodes: list[Daemon], soak: bool) -> None:
    recipients = [f"agent-{i}" for i in range(40)]
    jobs = [job(key=f"req-{j}", job_id=f"job-{j}", reply_to=[(r, "s") for r in recipients])
            for j in range(125 if soak else 30)]
    total = len(jobs) * len(recipients)  # 1,200 replies; the 5,000 with --soak
    clients = [Client(n.target) for n in nodes]
    try:
        for c in clients:
            await c.__aenter__()
        for r in recipients:
            await clients[0].register(r)
        await asyncio.gather(*(clients[j % 3].fan_out(settled, "done") for j, settled in enumerate(jobs)))

        async def all_delivered() -> bool:
            return len(await rows(clients[1], ob.OUTBOX_ROW_STATE_DELIVERED)) == total

        await until(all_delivered, timeout=120)
        for i, r in enumerate(recipients):
            ids = [m.id for m in (await clients[i % 3].peek(r, limit=1000)).messages]
            assert sorted(ids) == sorted(f"outbox:req-{j}:reply:{i}" for j in range(len(jobs))), r
    finally:
        for c in clients:
            await c.__aexit__(None, None, None)


async def test_producers_on_three_nodes_get_gap_free_increasing_seqs_and_lose_nothing(
        nodes: list[Daemon], soak: bool) -> None:
    per_producer, producers = 10, 64 if soak else 16  # 3 nodes x 64 producers, the size, with --soak
    clients = [Client(n.target) for n in nodes]
    try:
        for c in clients:
            await c.__aenter__()
        await clients[0].register("sink")

        async def produce(node: int, p: int) -> list[int]:
            seqs = []
            for k in range(per_producer):
                sent = await clients[node].send("sink", f"{node}-{p}-{k}", id=f"m-{node}-{p}-{k}")
                seqs.append(sent.message.seq)
            return seqs

        started = time.perf_counter()
        per = await asyncio.gather(*(produce(n, p) for n in range(3) for p in range(producers)))
        took = time.perf_counter() - started
        total = 3 * producers * per_producer
        for seqs in per:
            assert seqs == sorted(seqs), "one producer's sends get increasing seqs"
        assert sorted(s for seqs in per for s in seqs) == list(range(1, total + 1))
        stored = []  # drained in pages: a peek takes at most 1,000 (the 3 x 64 x 10 of --soak is more)
        while page := (await clients[2].drain("sink", limit=1000)).messages:
            stored.extend(page)
        assert [m.seq for m in stored] == list(range(1, total + 1))
        assert {m.id for m in stored} == {f"m-{n}-{p}-{k}" for n in range(3) for p in range(producers)
                                           for k in range(per_producer)}
        print(f"3 nodes x {producers} producers: {total} sends in {took:.2f} s ({total / took:.0f}/s)")
    finally:
        for c in clients:
            await c.__aexit__(None, None, None)


async def test_streams_converge_after_the_database_terminates_the_listen_connections(
        nodes: list[Daemon], pg_url: str) -> None:
    a, b, _ = nodes
    async with Client(a.target) as on_a, Client(b.target) as on_b:
        await on_b.register("bob")
        async with on_b.subscribe("bob") as inbox:
            await on_a.send("bob", "before")
            assert (await asyncio.wait_for(inbox.__anext__(), 10)).text == "before"
            conn = await asyncpg.connect(pg_url)
            try:
                killed = await conn.fetchval("""
                    SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
                    WHERE datname = current_database() AND application_name = 'fabricd listen'""")
            finally:
                await conn.close()
            assert killed == 3, "each node holds one LISTEN connection"
            await on_a.send("bob", "after")  # maybe while B is still reconnecting: its reconnect wakes everyone
            assert (await asyncio.wait_for(inbox.__anext__(), 20)).text == "after"


async def test_a_database_restart_under_load_answers_unavailable_loses_nothing_and_nodes_recover(
        nodes: list[Daemon], pg_cluster: pg.Cluster) -> None:
    a, b, c = nodes
    acknowledged: list[str] = []
    refused = 0
    stop = asyncio.Event()
    async with Client(a.target) as on_a, Client(b.target) as on_b, Client(c.target) as on_c:
        await on_a.register("sink")

        async def produce(client: Client, name: str) -> None:
            nonlocal refused
            k = 0
            while not stop.is_set():
                mid = f"{name}-{k}"
                try:
                    await client.send("sink", mid, id=mid)
                    acknowledged.append(mid)
                    k += 1
                except Unavailable:
                    refused += 1  # retried with the same id: idempotent
                    await asyncio.sleep(0.05)

        producers = [asyncio.create_task(produce(cl, f"p{i}-{j}")) for i, cl in enumerate((on_a, on_b, on_c))
                     for j in range(4)]
        while len(acknowledged) < 100:
            await asyncio.sleep(0.01)
        await asyncio.to_thread(pg_cluster.stop, "fast")
        await asyncio.sleep(5.0)  # longer than a node rides out (about 4 s of retries): calls answer UNAVAILABLE
        await asyncio.to_thread(pg_cluster.start_again)
        before = len(acknowledged)
        deadline = time.monotonic() + 60
        while len(acknowledged) < before + 100:  # every node writes again without a restart
            assert time.monotonic() < deadline, "the nodes did not recover"
            await asyncio.sleep(0.05)
        stop.set()
        await asyncio.gather(*producers)
        assert refused > 0, "calls while the database was down answer UNAVAILABLE"
        stored: set[str] = set()
        while batch := (await on_b.drain("sink", limit=1000)).messages:
            stored.update(m.id for m in batch)
        assert set(acknowledged) <= stored, "every acknowledged send survived the restart"
        print(f"database restart: {len(acknowledged)} sends acknowledged, {refused} UNAVAILABLE answers")


def migrate(url: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fabricd.daemon.main", "migrate", "--store", url],
                          capture_output=True, text=True, timeout=60)


def test_migrate_creates_the_schema_then_has_nothing_to_do(pg_empty_url: str) -> None:
    first = migrate(pg_empty_url)
    assert first.returncode == 0, first.stderr
    assert f"to {schema.LATEST}" in first.stdout
    again = migrate(pg_empty_url)
    assert again.returncode == 0 and "nothing to do" in again.stdout


def test_a_database_a_newer_fabricd_migrated_is_refused_by_migrate_and_serve(pg_url: str, make_daemon) -> None:
    asyncio.run(_insert_version(pg_url, schema.LATEST + 1))
    refused = migrate(pg_url)
    assert refused.returncode == 2 and "a fabricd at least as new" in refused.stderr
    d = make_daemon("--store", pg_url)
    with pytest.raises(AssertionError, match="at least as new"):
        d.start()


async def _insert_version(url: str, version: int) -> None:
    conn = await asyncpg.connect(url)
    try:
        await conn.execute("INSERT INTO schema_version (version, description) VALUES ($1, 'from the future')", version)
    finally:
        await conn.close()


async def _admin_and_bob_tokens(pg_url: str) -> dict[str, tuple[str, str]]:
    """(token id, secret) of an admin token ("admin") and of agent bob's ("agent"), written into the database."""
    from fabricd.core.limits import Limits
    from fabricd.core.notify import LocalWakeups
    from fabricd.core.tokens import mint
    from fabricd.store import open_store

    store = open_store(pg_url, wakeups=LocalWakeups(), clock=time.time_ns)
    await store.start()
    issued = {}
    for scope, agent in (("admin", ""), ("agent", "bob")):
        key, token, secret = mint(scope, agent, "", Limits(), time.time_ns())
        await store.tokens.add(key, token)
        issued[scope] = (token.token_id, secret)
    await store.close()
    return issued


async def test_a_token_revoked_on_one_node_is_refused_by_the_others(pg_url: str, tmp_path) -> None:
    from fabricd.client import Unauthenticated

    issued = await _admin_and_bob_tokens(pg_url)
    socks = [tempfile.mkdtemp(prefix=f"ft{i}-", dir="/tmp") for i in range(2)]
    a, b = (Daemon(str(tmp_path / f"d{i}"), socks[i], "--store", pg_url, "--auth", "on").start() for i in range(2))
    try:
        async with Client(a.target, token=issued["admin"][1]) as admin, \
                Client(b.target, token=issued["agent"][1]) as bob:
            await bob.register("bob")  # node B accepts the agent's token
            assert await admin.revoke_token(issued["agent"][0])  # revoked through node A
            deadline = time.monotonic() + 10
            while True:
                try:
                    await bob.register("bob")
                except Unauthenticated:
                    break  # node B reloaded its tokens on the wake-up
                assert time.monotonic() < deadline, "node B still accepts a token revoked on node A"
                await asyncio.sleep(0.02)
    finally:
        for d in (a, b):
            d.kill()
        for folder in socks:
            shutil.rmtree(folder, ignore_errors=True)


async def test_a_revocation_whose_wake_up_was_lost_still_reaches_the_other_node(pg_url: str, tmp_path) -> None:
    # A node learns of another's revocation from its NOTIFY, and a NOTIFY is a hint the Publisher drops when it
    # fails (a broken pooled connection, a statement error) while the other node's LISTEN connection stays up:
    # the token then worked on that node, streams included, until some other token changed. Here the revocation
    # is written as the revoking node's commit is, with no NOTIFY after it (the one that was dropped).
    import grpc

    from fabricd.client import Unauthenticated
    from fabricd.daemon.app import TOKENS_RECHECK_S
    from fabricd.v1 import mailbox_service_pb2 as mb

    issued = await _admin_and_bob_tokens(pg_url)
    socks = [tempfile.mkdtemp(prefix="fl-", dir="/tmp")]
    b = Daemon(str(tmp_path / "d0"), socks[0], "--store", pg_url, "--auth", "on").start()
    try:
        async with Client(b.target, token=issued["agent"][1]) as bob:
            await bob.register("bob")
            subscribe = bob.mailbox.Subscribe(mb.SubscribeRequest(agent_id="bob"))
            await bob.touch("bob")  # the stream is open once a call after it is answered on the same channel
            conn = await asyncpg.connect(pg_url)
            try:
                assert await conn.execute("UPDATE tokens SET revoke_ns = $1 WHERE token_id = $2", time.time_ns(),
                                          issued["agent"][0]) == "UPDATE 1"
            finally:
                await conn.close()
            revoked = time.monotonic()
            bound = TOKENS_RECHECK_S + 5  # the recheck, and a loaded machine's slack
            while True:
                try:
                    await bob.touch("bob")
                except Unauthenticated:
                    break
                assert time.monotonic() - revoked < bound, "the node still accepts a token revoked elsewhere"
                await asyncio.sleep(0.05)

            async def ended() -> grpc.StatusCode:
                try:
                    while True:
                        await subscribe.read()
                except grpc.aio.AioRpcError as exc:
                    return exc.code()

            assert await asyncio.wait_for(ended(), bound) == grpc.StatusCode.UNAUTHENTICATED
    finally:
        b.kill()
        for folder in socks:
            shutil.rmtree(folder, ignore_errors=True)


async def test_a_token_revoked_on_one_node_ends_its_streams_and_waits_on_the_others(pg_url: str,
                                                                                   tmp_path) -> None:
    # The revoking node ends the token's open calls at once; another node refused its next call but went on
    # serving its open Subscribe (delivering mail to a revoked token), WatchQueue and Ask for good.
    import grpc

    from fabricd.v1 import mailbox_service_pb2 as mb
    from fabricd.v1 import rendezvous_service_pb2 as rv

    issued = await _admin_and_bob_tokens(pg_url)
    socks = [tempfile.mkdtemp(prefix=f"fr{i}-", dir="/tmp") for i in range(2)]
    a, b = (Daemon(str(tmp_path / f"d{i}"), socks[i], "--store", pg_url, "--auth", "on").start() for i in range(2))
    try:
        async with Client(a.target, token=issued["admin"][1]) as admin, \
                Client(b.target, token=issued["agent"][1]) as bob:
            await admin.register("alice")
            await bob.register("bob")
            subscribe = bob.mailbox.Subscribe(mb.SubscribeRequest(agent_id="bob"))
            watch = bob.rendezvous.WatchQueue(rv.WatchQueueRequest(agent_id="alice"))
            ask = asyncio.ensure_future(bob.rendezvous.Ask(rv.AskRequest(
                target="alice", task="wait for me", timeout={"seconds": 60},
                source=rv.TicketSource(kind=rv.TICKET_SOURCE_KIND_AGENT, agent_id="bob"))))
            await admin.send("bob", "before")
            assert (await subscribe.read()).messages[0].text == "before"
            await watch.read()
            while not [t for t in await admin.get_queue("alice") if t.task == "wait for me"]:
                await asyncio.sleep(0.02)
            assert await admin.revoke_token(issued["agent"][0])  # revoked through node A

            async def ended(stream) -> grpc.StatusCode:
                try:
                    while True:
                        await stream.read()
                except grpc.aio.AioRpcError as exc:
                    return exc.code()

            codes = await asyncio.wait_for(asyncio.gather(ended(subscribe), ended(watch)), 20)
            assert codes == [grpc.StatusCode.UNAUTHENTICATED] * 2
            with pytest.raises(grpc.aio.AioRpcError) as err:
                await asyncio.wait_for(ask, 20)
            assert err.value.code() == grpc.StatusCode.UNAUTHENTICATED
    finally:
        for d in (a, b):
            d.kill()
        for folder in socks:
            shutil.rmtree(folder, ignore_errors=True)


async def test_look_alike_channel_names_made_at_once_on_two_nodes_never_both_exist(nodes: list[Daemon]) -> None:
    # Each node read the channel names, found no look-alike and wrote its own: 'team-i' on one node and
    # 'tеam-i' (Cyrillic е) on the other, at the same moment, both stood. Exactly one of each pair must.
    pairs = 40
    async with Client(nodes[0].target) as one, Client(nodes[1].target) as two:
        made = await asyncio.gather(*(c.create_channel(name) for i in range(pairs) for c, name in (
            (one, f"team-{i}"), (two, f"t\u0435am-{i}"))), return_exceptions=True)
        refused = [r for r in made if isinstance(r, BaseException)]
        assert all(getattr(r, "reason", "") == "NAME_COLLISION" for r in refused), refused[:3]
        assert len(refused) == pairs, f"{pairs - len(refused)} look-alike pairs both made"
        names = [c.name for c in await one.list_channels()]
    assert len(names) == pairs
    assert {n.replace("\u0435", "e") for n in names} == {f"team-{i}" for i in range(pairs)}
