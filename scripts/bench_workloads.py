"""The workloads of `scripts/bench`, each measured against a daemon of one source tree.

Import this only after `use_tree(root)`: the client it imports (and the daemon it
starts) must be that tree's, and fabricd's client sets gRPC's experiments at import.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable

import bench_common
import bench_pages
import bench_unary
from bench_common import derive, rounded

# isort: off
from fabricd.client import Client  # first: it sets gRPC's experiments before grpc loads (in older trees too)
from bench_fairness import flood
from bench_channels import WORKLOADS as CHANNEL_WORKLOADS
import bench_leases
from fabricd.a2a import a2a_pb2 as a2a_pb
from fabricd.a2a import a2a_pb2_grpc as a2a_grpc
# isort: on
from fabricd.v1 import mailbox_service_pb2 as mbx_pb
from fabricd.v1 import outbox_service_pb2 as ob_pb
from fabricd.v1 import types_pb2 as pb


class Daemon:
    """`fabricd serve` of the tree `root`, on a temporary folder, reached over a unix socket."""

    def __init__(self, *args: str, root: str, page: bool = False) -> None:
        self.dir = tempfile.mkdtemp(prefix="fdb-", dir="/tmp")
        self.target = f"unix:{self.dir}/s.sock"
        self.proc = subprocess.Popen(
            [sys.executable, bench_common.__file__, root, "serve", "--data-dir", f"{self.dir}/data",
             "--listen", self.target, "--log-level", "WARNING", *(["--http", "127.0.0.1:0"] if page else []),
             *args],
            stdout=subprocess.PIPE, text=True, cwd=root)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if "serving" not in line:
            self.stop()
            raise SystemExit(f"fabricd ({root}) did not start: {line}")
        self.page_url = bench_pages.page_url(self.proc.stdout.readline()) if page else ""
        """The overseer page's URL (scripts/bench --pages)."""

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(30)
        shutil.rmtree(self.dir, ignore_errors=True)


def msg(to: str, i: int) -> pb.Message:
    return pb.Message(recipient=pb.Address(agent_id=to), sender=pb.Address(agent_id="bench"), text=f"message {i}")


def percentiles(samples: list[float]) -> tuple[float, float]:
    samples.sort()
    return samples[len(samples) // 2] * 1e3, samples[int(len(samples) * 0.99) - 1] * 1e3


async def send_rate(client: Client, callers: int, total: int, samples: list[float] | None = None) -> float:
    """SendMessage RPCs straight on the stub, `callers` at a time; each call's time into `samples` if given."""
    per = total // callers

    async def caller(c: int) -> None:
        stub = client.mailbox  # per caller: with several nodes (bench_common.Spread) callers spread across them
        for i in range(per):
            t0 = time.perf_counter()
            await stub.SendMessage(mbx_pb.SendMessageRequest(message=msg(f"r{c % 8}", i)))
            if samples is not None:
                samples.append(time.perf_counter() - t0)

    start = time.perf_counter()
    await asyncio.gather(*(caller(c) for c in range(callers)))
    return per * callers / (time.perf_counter() - start)


async def batch_rate(client: Client, batches: int, size: int = 100, in_flight: int = 8) -> float:
    stub = client.mailbox
    request = mbx_pb.SendMessagesRequest(messages=[msg("batch", i) for i in range(size)])

    async def caller() -> None:
        for _ in range(batches // in_flight):
            response = await stub.SendMessages(request)
            if response.results[0].HasField("error"):  # refusals come back per message: do not time them
                raise SystemExit(f"send_batch_100: refused: {response.results[0].error.message}")

    start = time.perf_counter()
    await asyncio.gather(*(caller() for _ in range(in_flight)))
    return (batches // in_flight) * in_flight * size / (time.perf_counter() - start)


async def coalesced_rate(client: Client, coroutines: int, total: int) -> float:
    """64 coroutines each awaiting client.send() of one message: the client batches them."""
    per = total // coroutines

    async def worker(c: int) -> None:
        for i in range(per):
            await client.send(f"c{c % 8}", f"message {i}", sender="bench")

    start = time.perf_counter()
    await asyncio.gather(*(worker(c) for c in range(coroutines)))
    return per * coroutines / (time.perf_counter() - start)


async def subscribe_rate(client: Client, total: int) -> float:
    """One consumer that acks (auto-ack, batched) takes a backlog of `total` messages."""
    for start in range(0, total, 1000):
        await client.send_many([msg("sub", i) for i in range(start, min(total, start + 1000))])
    got = 0
    t0 = time.perf_counter()
    async with client.subscribe("sub") as inbox:
        async for _ in inbox:
            got += 1
            if got == total:
                break
    rate = total / (time.perf_counter() - t0)
    left = (await client.peek("sub")).unread_count
    if left:
        raise SystemExit(f"subscribe benchmark left {left} messages unacked")
    return rate


async def latency(client: Client, count: int) -> tuple[float, float]:
    """Send one message at a time; time from send to the subscriber holding it."""
    sent_at: dict[str, float] = {}
    samples: list[float] = []
    ready = asyncio.Event()

    async def consume() -> None:
        async with client.subscribe("lat") as inbox:
            ready.set()
            async for m in inbox:
                samples.append(time.perf_counter() - sent_at[m.text])
                if len(samples) == count:
                    return

    task = asyncio.create_task(consume())
    await ready.wait()
    for i in range(count):
        key = f"lat {i}"
        sent_at[key] = time.perf_counter()
        await client.send("lat", key)
        await asyncio.sleep(0.001)
    await task
    return percentiles(samples)


async def serve_asks(client: Client, agent_id: str, stop: asyncio.Event) -> None:
    """A target that answers each task: by the client's replier loop (its Serve stream), or in an older arm
    without one, from its inbox by ticket id."""
    serve = getattr(client, "serve", None)
    if serve is not None:
        await serve(agent_id, lambda ticket: "ok")
        return
    async with client.subscribe(agent_id) as inbox:
        async for message in inbox:
            if message.ticket_id:
                await client.reply(agent_id, "ok", ticket_id=message.ticket_id)
            if stop.is_set():
                return


async def ask_rate(client: Client, askers: int, targets: int, total: int) -> tuple[float, float, float]:
    """Ask/reply round trips per second with p50/p99 latency in ms."""
    names = [f"target-{targets}-{t}" for t in range(targets)]
    for name in names:
        await client.register(name)
    stop = asyncio.Event()
    servers = [asyncio.create_task(serve_asks(client, name, stop)) for name in names]
    samples: list[float] = []
    per = total // askers

    async def asker(a: int) -> None:
        for i in range(per):
            t0 = time.perf_counter()
            await client.ask(names[a % targets], f"task {i}", source_agent=f"asker-{a}", timeout=30)
            samples.append(time.perf_counter() - t0)

    start = time.perf_counter()
    await asyncio.gather(*(asker(a) for a in range(askers)))
    rate = per * askers / (time.perf_counter() - start)
    stop.set()
    for task in servers:
        task.cancel()
    return (rate, *percentiles(samples))


def settled(key: str, reply_to: list[str]) -> ob_pb.SettledJob:
    return ob_pb.SettledJob(
        job_id=key, outcome=ob_pb.JOB_OUTCOME_COMPLETED, agent=pb.Address(agent_id="worker", session_id="w"),
        mail=pb.Mail(key=key, reply_to=[pb.Address(agent_id=a, session_id="s") for a in reply_to]))


async def outbox_rate(client: Client, settlements: int, fan: int, prefix: str, callers: int = 16) -> float:
    """Replies delivered per second by the daemon's own loop, from the first FanOut to none pending."""
    run = time.monotonic_ns()  # fresh job ids: a replayed FanOut writes nothing and would time nothing

    async def settle(c: int) -> None:
        for i in range(c, settlements, callers):
            await client.fan_out(settled(f"{prefix}-{run}-{i}", [f"{prefix}-r{(i + k) % 500}" for k in range(fan)]),
                                 "done")

    start = time.perf_counter()
    await asyncio.gather(*(settle(c) for c in range(min(callers, settlements))))
    status = getattr(client, "get_status", None) or client.status  # the older name in an older arm
    while (await status()).outbox_pending:
        await asyncio.sleep(0.002)
    return settlements * fan / (time.perf_counter() - start)


async def a2a_rate(client: Client, callers: int, targets: int, total: int) -> tuple[float, float, float]:
    """A2A SendMessage round trips (blocking, raw lf.a2a.v1 stubs on the client's channel) per second, with
    p50/p99 latency in ms: the same agents and replies as ask_rate, so the two compare."""
    names = [f"a2a-target-{targets}-{t}" for t in range(targets)]
    for name in names:
        await client.register(name)
    stop = asyncio.Event()
    servers = [asyncio.create_task(serve_asks(client, name, stop)) for name in names]
    stub = a2a_grpc.A2AServiceStub(client._channel)
    version = (("a2a-version", "1.0"),)
    samples: list[float] = []
    per = total // callers

    async def caller(c: int) -> None:
        for i in range(per):
            request = a2a_pb.SendMessageRequest(tenant=names[c % targets], message=a2a_pb.Message(
                message_id=f"{c}-{i}", role=a2a_pb.ROLE_USER, parts=[a2a_pb.Part(text=f"task {i}")]))
            t0 = time.perf_counter()
            response = await stub.SendMessage(request, metadata=version, timeout=30)
            samples.append(time.perf_counter() - t0)
            if response.task.status.state != a2a_pb.TASK_STATE_COMPLETED:
                raise SystemExit(f"a2a task {response.task.id} ended {response.task.status.state}")

    start = time.perf_counter()
    await asyncio.gather(*(caller(c) for c in range(callers)))
    rate = per * callers / (time.perf_counter() - start)
    stop.set()
    for task in servers:
        task.cancel()
    return (rate, *percentiles(samples))


RECIPIENTS = [*(f"r{i}" for i in range(8)), *(f"c{i}" for i in range(8)), "batch", "sub", "lat"]
"""The mailboxes the workloads send to; each arm's daemon gets them registered before it is measured."""


class Tree:
    """One source tree's daemons (durable, and --no-sync when asked for), started on first use."""

    def __init__(self, root: str, quick: bool, store: str = "", nodes: int = 1, pages: int = 0,
                 agents: int = 0) -> None:
        self.root = root
        self.pages = pages
        """Overseer pages kept open on the durable LMDB daemon (scripts/bench_pages.py), after `agents` more agents."""
        self.agents = agents
        self.open_pages: bench_pages.Pages | None = None
        self.scale = 0.2 if quick else 1.0
        self.store = store
        """A PostgreSQL URL: `nodes` daemons on it (bench_pg.py), else one LMDB daemon."""
        self.nodes = nodes
        self._daemons: dict[bool, tuple[list[Daemon], Client]] = {}

    def n(self, count: int) -> int:
        return max(64, int(count * self.scale))

    def target(self) -> str:
        """The durable daemon's address (its first node's), for clients with their own tokens."""
        return self._daemons[False][0][0].target

    async def client(self, nosync: bool = False) -> Client:
        if nosync not in self._daemons:
            if self.store:
                daemons = [Daemon("--store", self.store, root=self.root) for _ in range(self.nodes)]
                client: Client = bench_common.Spread([Client(d.target) for d in daemons])  # type: ignore[assignment]
            else:
                page = bool(self.pages) and not nosync
                daemons = [Daemon(*(["--no-sync"] if nosync else []), root=self.root, page=page)]
                client = Client(daemons[0].target)
            self._daemons[nosync] = (daemons, client)
            await client.wait_ready()
            for name in RECIPIENTS:  # mail to an unregistered name is refused (UNKNOWN_RECIPIENT)
                await client.register(name)
            if self.agents and not nosync and not self.store:
                await bench_pages.populate(client, self.agents)  # with or without pages: the same fabric
            if daemons[0].page_url:
                token = (await client.issue_token(admin=True, label="bench pages")).token
                self.open_pages = bench_pages.Pages(daemons[0].page_url, token, self.pages)
                await self.open_pages.open()
            await send_rate(client, 8, 256)  # warm up
        return self._daemons[nosync][1]

    def pids(self) -> list[int]:
        """The daemons' process ids (for CPU accounting)."""
        return [d.proc.pid for daemons, _ in self._daemons.values() for d in daemons]

    async def page_figures(self) -> dict[str, float]:
        """What the open pages saw and cost (none without --pages); closes them (their reader counts at the end)."""
        pages = self.open_pages
        if pages is None:
            return {}
        rss = bench_pages.rss_mb(self._daemons[False][0][0].proc.pid)  # with the pages still open
        await pages.close()
        return {"pages_first_paint_ms": max(pages.first_paint_ms), "pages_events": pages.events,
                "pages_daemon_rss_mb": rss}

    async def close(self) -> None:
        if self.open_pages is not None:
            await self.open_pages.close()
        for daemons, client in self._daemons.values():
            await client.close()
            for daemon in daemons:
                daemon.stop()
        self._daemons.clear()


async def _send_1(t: Tree) -> dict[str, float]:
    samples: list[float] = []
    rate = await send_rate(await t.client(), 1, t.n(3000), samples)
    return {"send_1_caller": rate, "send_1_p50_ms": percentiles(samples)[0]}


async def _send_64(t: Tree) -> dict[str, float]:
    return {"send_64_callers": await send_rate(await t.client(), 64, t.n(25600))}


async def _batch_100(t: Tree) -> dict[str, float]:
    return {"send_batch_100": await batch_rate(await t.client(), t.n(1000))}


async def _client_64(t: Tree) -> dict[str, float]:
    return {"client_64_coroutines": await coalesced_rate(await t.client(), 64, t.n(64000))}


async def _subscribe(t: Tree) -> dict[str, float]:
    return {"subscribe_ack": await subscribe_rate(await t.client(), t.n(100000))}


async def _latency(t: Tree) -> dict[str, float]:
    p50, p99 = await latency(await t.client(), t.n(2000))
    return {"latency_p50_ms": p50, "latency_p99_ms": p99}


async def _ask_1x1(t: Tree) -> dict[str, float]:
    rate, p50, p99 = await ask_rate(await t.client(), 1, 1, t.n(1000))
    return {"ask_1x1": rate, "ask_1x1_p50_ms": p50, "ask_1x1_p99_ms": p99}


async def _ask_16x4(t: Tree) -> dict[str, float]:
    rate, p50, p99 = await ask_rate(await t.client(), 16, 4, t.n(4000))
    return {"ask_16x4": rate, "ask_16x4_p50_ms": p50, "ask_16x4_p99_ms": p99}


async def _a2a_1x1(t: Tree) -> dict[str, float]:
    rate, p50, p99 = await a2a_rate(await t.client(), 1, 1, t.n(1000))
    return {"a2a_1x1": rate, "a2a_1x1_p50_ms": p50, "a2a_1x1_p99_ms": p99}


async def _a2a_16x4(t: Tree) -> dict[str, float]:
    rate, p50, p99 = await a2a_rate(await t.client(), 16, 4, t.n(4000))
    return {"a2a_16x4": rate, "a2a_16x4_p50_ms": p50, "a2a_16x4_p99_ms": p99}


async def _outbox_wide(t: Tree) -> dict[str, float]:
    return {"outbox_1x1000": await outbox_rate(await t.client(), 1, 1000, "wide")}


async def _outbox_many(t: Tree) -> dict[str, float]:
    return {"outbox_1000x3": await outbox_rate(await t.client(), t.n(1000), 3, "many")}


async def _send_64_nosync(t: Tree) -> dict[str, float]:
    return {"send_64_callers_nosync": await send_rate(await t.client(nosync=True), 64, t.n(25600))}


async def _lease_rt(t: Tree) -> dict[str, float]:
    client = await t.client()
    return {"lease_round_trips": await bench_leases.round_trips(client, t.n(3200))} if bench_leases.offered(client) else {}


async def _lease_check_10k(t: Tree) -> dict[str, float]:
    client = await t.client()
    if not bench_leases.offered(client):
        return {}
    p50, p99 = await bench_leases.check_latency(client, t.n(10000), t.n(2000))
    return {"lease_check_10k_p50_ms": p50, "lease_check_10k_p99_ms": p99}


async def _unary(t: Tree) -> dict[str, float]:
    if t.store:
        return {}  # the unary path's floor is measured on the embedded store (one commit per call)
    client = await t.client()
    return await bench_unary.unary(client, t.target(), t.n(6400))


WORKLOADS: dict[str, Callable[[Tree], Awaitable[dict[str, float]]]] = {
    "send_1": _send_1, "send_64": _send_64, "batch_100": _batch_100, "client_64": _client_64,
    "subscribe": _subscribe, "latency": _latency, "ask_1x1": _ask_1x1, "ask_16x4": _ask_16x4,
    "a2a_1x1": _a2a_1x1, "a2a_16x4": _a2a_16x4,
    "outbox_wide": _outbox_wide, "outbox_many": _outbox_many, "send_64_nosync": _send_64_nosync, "flood": flood,
    **CHANNEL_WORKLOADS,
    "lease_rt": _lease_rt, "lease_check_10k": _lease_check_10k, "unary": _unary,
}
"""Name -> workload, in the order a full run takes them; `--only` picks by these names."""


async def run(root: str, quick: bool, only: list[str], pages: int = 0, agents: int = 0) -> dict[str, float]:
    """The workloads named in `only` (in WORKLOADS order) against one durable and one --no-sync daemon (with
    `pages` overseer pages open on the durable one)."""
    tree = Tree(root, quick, pages=pages, agents=agents)
    figures: dict[str, float] = {}
    try:
        for name, workload in WORKLOADS.items():
            if name in only:
                figures.update(await workload(tree))
        figures.update(await tree.page_figures())
    finally:
        await tree.close()
    return rounded(derive(figures))


def start_daemon(root: str) -> tuple[Daemon, str]:
    """For bench_peers: a durable daemon of `root` and its target."""
    daemon = Daemon(root=root)
    return daemon, daemon.target


if __name__ == "__main__":
    raise SystemExit(f"run {os.path.join(os.path.dirname(os.path.abspath(__file__)), 'bench')} instead")
