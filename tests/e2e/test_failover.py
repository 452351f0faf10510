"""A node that dies loses nothing: clients given every node move on, and what they did carries over.

Three real `fabricd serve` processes on one PostgreSQL database (the `nodes`
fixture of test_nodes.py); clients get all three targets. A node is killed
with SIGKILL (or stopped with SIGTERM) while clients use it.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator

import pytest

from fabricd.client import Client, SyncClient, Unavailable
from tests import pg
from tests.conftest import Daemon
from tests.e2e.test_node import NODE_CLIENT
from tests.e2e.test_nodes import nodes  # noqa: F401 - the fixture
from tests.reliability import checker


def targets(daemons: list[Daemon]) -> str:
    return ",".join(d.target for d in daemons)


async def test_a_client_with_every_target_keeps_sending_through_a_kill_9_of_its_node(
        nodes: list[Daemon]) -> None:  # noqa: F811
    a, b, c = nodes
    async with Client([a.target, b.target, c.target]) as client, Client(c.target) as reader:
        await client.register("sink")
        for i in range(20):
            await client.send("sink", f"before {i}", id=f"before-{i}")
        assert client.target == a.target
        a.kill()
        for i in range(20):  # the first of these meets the dead node; it is re-sent to the next one
            await client.send("sink", f"after {i}", id=f"after-{i}")
        assert client.target == b.target
        stored = [m.id for m in (await reader.peek("sink", limit=100)).messages]
    assert stored == [f"before-{i}" for i in range(20)] + [f"after-{i}" for i in range(20)]


async def test_a_send_without_an_id_is_not_resent_but_the_next_call_goes_to_a_live_node(
        nodes: list[Daemon]) -> None:  # noqa: F811
    a, b, _ = nodes
    async with Client([a.target, b.target]) as client:
        await client.register("sink")
        a.kill()
        with pytest.raises(Unavailable):  # it may or may not have been stored: only the caller can decide
            await client.send("sink", "no id")
        assert (await client.send("sink", "next")).message.text == "next"
        assert client.target == b.target


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM], ids=["kill-9", "shutdown"])
async def test_an_ask_whose_node_dies_is_answered_once_through_another_node(nodes: list[Daemon], how) -> None:  # noqa: F811
    a, _, c = nodes
    async with Client([a.target, c.target]) as asker, Client(c.target) as worker:
        await worker.register("worker")
        asking = asyncio.create_task(asker.ask("worker", "what is 6 x 7?", timeout=60))
        async with worker.subscribe("worker", auto_ack=False) as inbox:
            task = await asyncio.wait_for(anext(inbox), 20)  # queued through node A
        a.stop(how)
        with pytest.raises(asyncio.TimeoutError):  # the re-sent Ask waits on node C, on the same ticket
            await asyncio.wait_for(asyncio.shield(asking), 0.5)
        await worker.reply("worker", "42", ticket_id=task.ticket_id)
        assert await asyncio.wait_for(asking, 30) == "42"
        assert await worker.get_queue("worker") == [], "the re-sent Ask queued no second ticket"
        assert (await worker.peek("worker")).unread_count == 0


async def test_a_subscription_resumes_from_its_cursor_on_the_next_node(nodes: list[Daemon]) -> None:  # noqa: F811
    a, b, c = nodes
    async with Client([a.target, b.target]) as follower, Client(c.target) as sender:
        await sender.register("bob")
        for i in range(5):
            await sender.send("bob", f"m{i}", id=f"m{i}")
        got = []
        async with follower.subscribe("bob", wait=30) as inbox:
            for _ in range(3):
                got.append((await asyncio.wait_for(anext(inbox), 20)).id)
            a.kill()  # m3 and m4 came in the same batch, or come again from node B: handed out once either way
            for i in range(5, 10):
                await sender.send("bob", f"m{i}", id=f"m{i}")
            for _ in range(7):
                got.append((await asyncio.wait_for(anext(inbox), 30)).id)
        assert follower.target == b.target
        assert got == [f"m{i}" for i in range(10)]
        async with Client(b.target) as check:
            assert (await check.peek("bob")).unread_count == 0, "what was handled was acked, through node B"


def test_the_sync_client_and_a_comma_separated_target_fail_over_too(nodes: list[Daemon]) -> None:  # noqa: F811
    a, b, _ = nodes
    with SyncClient(f"{a.target},{b.target}") as client:
        client.register("sink")
        a.kill()
        assert client.send("sink", "after the kill", id="once").message.id == "once"
        assert client.target == b.target and client.peek("sink").unread_count == 1


async def test_kill_9_of_one_node_of_three_under_mixed_load_loses_and_duplicates_nothing(
        nodes: list[Daemon], tmp_path, soak: bool) -> None:  # noqa: F811
    kills = 30 if soak else 4
    rng = random.Random(11)
    workers = checker.start(targets(nodes), tmp_path)  # every client process has all three nodes
    for k in range(kills):
        await asyncio.sleep(rng.uniform(0.5, 1.0))  # the kill lands at a random moment of the load
        victim = nodes[k % 3]
        victim.kill()
        await asyncio.sleep(rng.uniform(0.2, 0.6))  # the clients carry on with the other two
        await asyncio.to_thread(victim.start)
    await asyncio.sleep(0.5)
    await asyncio.to_thread(checker.stop, workers)
    async with Client(targets(nodes)) as client:
        summary = await checker.check(client, tmp_path)
    print(f"\n3 nodes, kill -9 of one at a time: kills={kills} {summary}")


@pytest.fixture
def pair() -> Iterator[pg.Pair]:
    """A primary with a synchronous streaming standby (tests/pg.py), streaming."""
    with pg.Pair.start(synchronous=True) as made:
        made.wait_streaming()
        yield made


async def test_nodes_on_both_hosts_ride_out_a_standby_promotion_losing_no_acknowledged_write(
        pair: pg.Pair, tmp_path) -> None:
    pair.primary.psql('CREATE DATABASE "fabric"')  # streamed to the standby like everything else
    # libpq's multi-host form, which asyncpg reads too: whichever host accepts writes now.
    url = (f"postgresql://{pg.SUPERUSER}@127.0.0.1:{pair.primary.port},127.0.0.1:{pair.standby.port}/fabric"
           "?target_session_attrs=read-write")
    socks = [tempfile.mkdtemp(prefix=f"fp{i}-", dir="/tmp") for i in range(2)]
    daemons = [Daemon(str(tmp_path / f"d{i}"), socks[i], "--store", url) for i in range(2)]
    try:
        for d in daemons:
            await asyncio.to_thread(d.start)
        acknowledged: list[str] = []
        refused = 0
        stop = asyncio.Event()
        async with Client(targets(daemons), retry_window=0) as client:
            await client.register("sink")

            async def produce(name: str) -> None:
                nonlocal refused
                k = 0
                while not stop.is_set():
                    mid = f"{name}-{k}"
                    try:
                        await client.send("sink", mid, id=mid)
                        acknowledged.append(mid)
                        k += 1
                    except Unavailable:
                        refused += 1  # the database is failing over: resent with the same id
                        await asyncio.sleep(0.05)

            producers = [asyncio.create_task(produce(f"p{j}")) for j in range(8)]
            while len(acknowledged) < 100:
                await asyncio.sleep(0.01)
            await asyncio.to_thread(pair.promote)  # the primary dies (immediate stop); the standby takes over
            before = len(acknowledged)
            deadline = time.monotonic() + 90
            while len(acknowledged) < before + 100:  # both nodes write to the new primary, no restart
                assert time.monotonic() < deadline, "the nodes did not recover after the promotion"
                await asyncio.sleep(0.05)
            stop.set()
            await asyncio.gather(*producers)
            stored: set[str] = set()
            while batch := (await client.drain("sink", limit=1000)).messages:
                stored.update(m.id for m in batch)
        assert set(acknowledged) <= stored, "every send acknowledged before the promotion survived it"
        assert all(d.proc is not None and d.proc.poll() is None for d in daemons), "no node had to restart"
        print(f"\npromotion: {len(acknowledged)} sends acknowledged, {refused} UNAVAILABLE answers meanwhile")
    finally:
        for d in daemons:
            if d.proc is not None and d.proc.poll() is None:
                d.kill()
        for folder in socks:
            shutil.rmtree(folder, ignore_errors=True)


async def test_a_node_client_with_every_target_subscribes_sends_and_asks_through_two_node_deaths(
        nodes: list[Daemon]) -> None:  # noqa: F811
    node = shutil.which("node")
    if node is None or not os.path.isdir(os.path.join(NODE_CLIENT, "node_modules", "@grpc")):
        pytest.fail("Node and clients/node/node_modules are needed: `python3 scripts/dev test` installs them")
    a, b, c = nodes
    async with Client(c.target) as py:
        for agent in ("node-agent", "py-sink", "py-worker"):
            await py.register(agent)
        # Minted ids: the Node subscription's ack that fails with its node is sent again on the next (an ack
        # naming an id a sender chose is not, lest it take another sender's copy: fabricd.client._acks).
        sent = [(await py.send("node-agent", f"m{i}")).message.id for i in range(5)]
        proc = await asyncio.create_subprocess_exec(node, "test/failover.mjs", targets(nodes), cwd=NODE_CLIENT,
                                                    stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                                                    stderr=asyncio.subprocess.PIPE)
        assert proc.stdin is not None and proc.stdout is not None

        async def step(name: str) -> dict:
            line = await asyncio.wait_for(proc.stdout.readline(), 60)
            assert line, (await proc.stderr.read()).decode()
            fields = json.loads(line)
            assert fields["step"] == name, fields
            return fields

        try:
            assert (await step("ready"))["target"] == a.target
            a.kill()
            sent += [(await py.send("node-agent", f"m{i}")).message.id for i in range(5, 10)]
            proc.stdin.write(b"go\n")
            subscribed = await step("subscribed")
            assert subscribed["ids"] == sent, "resumed on the next node from its cursor"
            assert (await step("sent"))["target"] == b.target
            assert (await step("asking"))["target"] == b.target
            async with py.subscribe("py-worker", auto_ack=False) as inbox:
                task = await asyncio.wait_for(anext(inbox), 30)  # queued through node B
            b.kill()
            await py.reply("py-worker", "42", ticket_id=task.ticket_id)
            asked = await step("asked")
            assert asked == {"step": "asked", "result": "42", "target": c.target}
            assert await asyncio.wait_for(proc.wait(), 30) == 0
        finally:
            if proc.returncode is None:
                proc.kill()
        assert await py.get_queue("py-worker") == [], "the re-sent ask queued no second ticket"
        assert [m.id for m in (await py.peek("py-sink")).messages] == [f"after-{i}" for i in range(3)]
        assert (await py.peek("node-agent")).unread_count == 0, "what the Node subscription handled was acked"


def test_fabric_with_a_dead_target_first_answers_through_the_next(daemon: Daemon, tmp_path) -> None:
    dead = f"unix:{tmp_path}/gone.sock"  # nothing listens there
    done = subprocess.run([sys.executable, "-m", "fabricd.cli.main", "--target", dead, "--target", daemon.target,
                           "--json", "status"], capture_output=True, text=True, timeout=60, cwd=checker.ROOT)
    assert done.returncode == 0, done.stderr
    assert "version" in json.loads(done.stdout.splitlines()[0])
