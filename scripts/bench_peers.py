"""`scripts/bench --peers`: the same workloads against fabricd, Redis Streams and NATS JetStream.

Each peer runs durable on 127.0.0.1, started here when its server is installed
(skipped with a note when not): redis-server with appendonly and
`appendfsync always` (XADD, XREADGROUP + XACK), and nats-server with JetStream
file storage and `sync_interval: always` (acked publish, durable pull
consumer; core request/reply for the round trip). Each is driven with its
usual Python client: fabricd.client, redis-py (asyncio), nats-py.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable

N_SINGLE = 2000
N_MANY = 20000
BATCHES = 100
LATENCY = 500
ROUND_TRIPS = 1000


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def percentiles(samples: list[float]) -> tuple[float, float]:
    samples.sort()
    return samples[len(samples) // 2] * 1e3, samples[int(len(samples) * 0.99) - 1] * 1e3


async def timed(total: int, fn: Callable[[], Awaitable[None]]) -> float:
    start = time.perf_counter()
    await fn()
    return total / (time.perf_counter() - start)


async def concurrently(callers: int, total: int, one: Callable[[int], Awaitable[None]]) -> None:
    async def caller(c: int) -> None:
        for i in range(c, total, callers):
            await one(i)

    await asyncio.gather(*(caller(c) for c in range(callers)))


# -- fabricd

async def bench_fabricd(target: str) -> dict[str, float]:
    from fabricd.client import Client
    from fabricd.v1 import types_pb2 as pb

    out: dict[str, float] = {}
    async with Client(target) as client:
        for name in ("responder", "b1", "b64", "bb", "lat"):  # mail to an unregistered name is refused
            await client.register(name)

        async def consume(box: str, total: int) -> float:
            async def run() -> None:
                got = 0
                async with client.subscribe(box) as inbox:
                    async for _ in inbox:
                        got += 1
                        if got == total:
                            return

            return await timed(total, run)

        out["send_1"] = await timed(N_SINGLE, lambda: concurrently(1, N_SINGLE, lambda i: client.send("b1", f"m{i}")))
        out["consume_1"] = await consume("b1", N_SINGLE)
        out["send_64"] = await timed(N_MANY, lambda: concurrently(64, N_MANY, lambda i: client.send("b64", f"m{i}")))
        out["consume_64"] = await consume("b64", N_MANY)
        batch = [pb.Message(recipient=pb.Address(agent_id="bb"), text=f"m{i}") for i in range(100)]
        out["batch_100"] = await timed(BATCHES * 100, lambda: concurrently(4, BATCHES, lambda i: client.send_many(batch)))

        sent_at: dict[str, float] = {}
        samples: list[float] = []

        async def listen() -> None:
            async with client.subscribe("lat") as inbox:
                async for m in inbox:
                    samples.append(time.perf_counter() - sent_at[m.text])
                    if len(samples) == LATENCY:
                        return

        listener = asyncio.create_task(listen())
        await asyncio.sleep(0.2)
        for i in range(LATENCY):
            sent_at[f"l{i}"] = time.perf_counter()
            await client.send("lat", f"l{i}")
            await asyncio.sleep(0.002)
        await listener
        out["latency_p50_ms"], out["latency_p99_ms"] = percentiles(samples)

        async def respond() -> None:
            serve = getattr(client, "serve", None)  # the replier loop (Serve stream); an older arm has none
            if serve is not None:
                await serve("responder", lambda ticket: "pong")
                return
            async with client.subscribe("responder") as inbox:
                async for m in inbox:
                    if m.ticket_id:
                        await client.reply("responder", "pong", ticket_id=m.ticket_id)

        responder = asyncio.create_task(respond())
        trips: list[float] = []

        async def ask(i: int) -> None:
            start = time.perf_counter()
            await client.ask("responder", "ping", source_agent="bench", timeout=30)
            trips.append(time.perf_counter() - start)

        out["request_reply"] = await timed(ROUND_TRIPS, lambda: concurrently(1, ROUND_TRIPS, ask))
        out["request_reply_p50_ms"], out["request_reply_p99_ms"] = percentiles(trips)
        responder.cancel()
    return out


# -- Redis Streams

def start_redis(folder: str) -> tuple[subprocess.Popen, int] | None:
    exe = shutil.which("redis-server")
    if exe is None:
        return None
    port = free_port()
    proc = subprocess.Popen([exe, "--port", str(port), "--bind", "127.0.0.1", "--dir", folder, "--appendonly", "yes",
                             "--appendfsync", "always", "--save", ""], stdout=subprocess.DEVNULL)
    return proc, port


async def bench_redis(port: int) -> dict[str, float]:
    import redis.asyncio as redis

    r = redis.Redis(port=port, max_connections=128)
    for _ in range(100):
        try:
            await r.ping()
            break
        except Exception:  # starting up
            await asyncio.sleep(0.05)
    out: dict[str, float] = {}

    async def consume(stream: str, total: int) -> float:
        await r.xgroup_create(stream, "g", id="0", mkstream=True)

        async def run() -> None:
            got = 0
            while got < total:
                reply = await r.xreadgroup("g", "c", {stream: ">"}, count=500, block=1000)
                for _, entries in reply:
                    ids = [entry_id for entry_id, _ in entries]
                    if ids:
                        await r.xack(stream, "g", *ids)
                    got += len(ids)

        return await timed(total, run)

    out["send_1"] = await timed(N_SINGLE, lambda: concurrently(1, N_SINGLE, lambda i: r.xadd("b1", {"t": f"m{i}"})))
    out["consume_1"] = await consume("b1", N_SINGLE)
    out["send_64"] = await timed(N_MANY, lambda: concurrently(64, N_MANY, lambda i: r.xadd("b64", {"t": f"m{i}"})))
    out["consume_64"] = await consume("b64", N_MANY)

    async def batch(_: int) -> None:
        pipe = r.pipeline(transaction=False)
        for i in range(100):
            pipe.xadd("bb", {"t": f"m{i}"})
        await pipe.execute()

    out["batch_100"] = await timed(BATCHES * 100, lambda: concurrently(4, BATCHES, batch))
    await r.xgroup_create("lat", "g", id="$", mkstream=True)
    samples: list[float] = []
    sent_at: dict[bytes, float] = {}

    async def listen() -> None:
        reader = redis.Redis(port=port)
        while len(samples) < LATENCY:
            for _, entries in await reader.xreadgroup("g", "c", {"lat": ">"}, count=100, block=0):
                for entry_id, fields in entries:
                    samples.append(time.perf_counter() - sent_at[fields[b"t"]])
                    await reader.xack("lat", "g", entry_id)
        await reader.aclose()

    listener = asyncio.create_task(listen())
    await asyncio.sleep(0.2)
    for i in range(LATENCY):
        sent_at[f"l{i}".encode()] = time.perf_counter()
        await r.xadd("lat", {"t": f"l{i}"})
        await asyncio.sleep(0.002)
    await listener
    out["latency_p50_ms"], out["latency_p99_ms"] = percentiles(samples)
    await r.aclose()
    return out


# -- NATS JetStream

def start_nats(folder: str) -> tuple[subprocess.Popen, int] | None:
    exe = os.path.join(os.path.dirname(sys.executable), "nats-server")
    if not os.path.exists(exe):
        exe = shutil.which("nats-server") or ""
    if not exe:
        return None
    port = free_port()
    config = os.path.join(folder, "nats.conf")
    with open(config, "w") as f:
        f.write(f'listen: "127.0.0.1:{port}"\njetstream {{\n  store_dir: "{folder}"\n  sync_interval: always\n}}\n')
    proc = subprocess.Popen([exe, "-c", config], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:  # a server that refuses the configuration exits at once; nats-py would retry for minutes
        _, err = proc.communicate(timeout=0.5)
    except subprocess.TimeoutExpired:
        return proc, port
    raise RuntimeError(f"{exe} exited at start (sync_interval needs nats-server >= 2.10): {err.strip()[-300:]}")


async def bench_nats(port: int) -> dict[str, float]:
    import nats

    for _ in range(100):
        try:
            nc = await nats.connect(f"nats://127.0.0.1:{port}")
            break
        except Exception:  # starting up
            await asyncio.sleep(0.05)
    js = nc.jetstream()
    await js.add_stream(name="BENCH", subjects=["bench.>"])
    out: dict[str, float] = {}

    async def consume(subject: str, durable: str, total: int) -> float:
        sub = await js.pull_subscribe(subject, durable=durable)

        async def run() -> None:
            got = 0
            while got < total:
                for msg in await sub.fetch(500, timeout=5):
                    await msg.ack()
                    got += 1

        return await timed(total, run)

    out["send_1"] = await timed(N_SINGLE, lambda: concurrently(1, N_SINGLE, lambda i: js.publish("bench.b1", b"m")))
    out["consume_1"] = await consume("bench.b1", "c1", N_SINGLE)
    out["send_64"] = await timed(N_MANY, lambda: concurrently(64, N_MANY, lambda i: js.publish("bench.b64", b"m")))
    out["consume_64"] = await consume("bench.b64", "c64", N_MANY)

    async def batch(_: int) -> None:
        await asyncio.gather(*(js.publish("bench.bb", b"m") for _ in range(100)))

    out["batch_100"] = await timed(BATCHES * 100, lambda: concurrently(4, BATCHES, batch))
    samples: list[float] = []
    sent_at: dict[bytes, float] = {}
    done = asyncio.Event()

    async def on_message(msg) -> None:  # noqa: ANN001
        samples.append(time.perf_counter() - sent_at[msg.data])
        await msg.ack()
        if len(samples) == LATENCY:
            done.set()

    await js.subscribe("bench.lat", durable="lat", cb=on_message, manual_ack=True)
    for i in range(LATENCY):
        data = f"l{i}".encode()
        sent_at[data] = time.perf_counter()
        await js.publish("bench.lat", data)
        await asyncio.sleep(0.002)
    await asyncio.wait_for(done.wait(), 30)
    out["latency_p50_ms"], out["latency_p99_ms"] = percentiles(samples)

    async def respond(msg) -> None:  # noqa: ANN001
        await msg.respond(b"pong")

    await nc.subscribe("svc.ping", cb=respond)
    trips: list[float] = []

    async def ask(_: int) -> None:
        start = time.perf_counter()
        await nc.request("svc.ping", b"ping", timeout=5)
        trips.append(time.perf_counter() - start)

    out["request_reply"] = await timed(ROUND_TRIPS, lambda: concurrently(1, ROUND_TRIPS, ask))
    out["request_reply_p50_ms"], out["request_reply_p99_ms"] = percentiles(trips)
    await nc.close()
    return out


def table(results: dict[str, dict[str, float]]) -> str:
    keys = list(next(iter(results.values())))
    names = list(results)
    lines = ["workload".ljust(22) + "".join(n.rjust(14) for n in names)]
    for key in keys:
        lines.append(key.ljust(22) + "".join(f"{results[n].get(key, float('nan')):14.1f}" for n in names))
    return "\n".join(lines)


async def _one(name: str, start_fabricd: Callable[[], tuple[object, str]], notes: list[str]) -> dict[str, float] | None:
    """One run of one system on a fresh server; None (with a note) when it is not installed or fails."""
    if name == "fabricd":
        daemon, target = start_fabricd()
        try:
            return await bench_fabricd(target)
        finally:
            daemon.stop()  # type: ignore[attr-defined]
    start, bench = (start_redis, bench_redis) if name == "redis" else (start_nats, bench_nats)
    folder = tempfile.mkdtemp(prefix=f"bench-{name}-")
    try:
        started = start(folder)
    except RuntimeError as exc:
        notes.append(f"{name}: {exc}")
        shutil.rmtree(folder, ignore_errors=True)
        return None
    if started is None:
        notes.append(f"{name}: server not installed, skipped")
        shutil.rmtree(folder, ignore_errors=True)
        return None
    proc, port = started
    try:
        return await bench(port)
    except Exception as exc:  # report and go on with the others
        notes.append(f"{name}: failed: {exc!r}")
        return None
    finally:
        proc.terminate()
        proc.wait(30)
        shutil.rmtree(folder, ignore_errors=True)


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def summarize(rounds: list[dict[str, dict[str, float]]]) -> dict[str, object]:
    """Each system's median figures, and each fabricd/peer ratio as the median of the rounds' own ratios
    (a ratio is taken within one round, where both ran minutes apart at most) with its [min, max]."""
    systems = [name for name in ("fabricd", "redis", "nats") if any(name in r for r in rounds)]
    results = {name: {key: round(_median([r[name][key] for r in rounds if key in r.get(name, {})]), 3)
                      for key in next(r[name] for r in rounds if name in r)} for name in systems}
    per_round: dict[str, list[float]] = {}
    for r in rounds:
        mine = r.get("fabricd", {})
        for peer in (n for n in systems if n != "fabricd" and n in r):
            for key, value in r[peer].items():
                if mine.get(key) and value:
                    per_round.setdefault(f"{key}_vs_{peer}", []).append(mine[key] / value)
    return {"results": results,
            "ratios_fabricd_over_peer": {k: round(_median(v), 3) for k, v in per_round.items()},
            "ratio_spread": {k: [round(min(v), 3), round(max(v), 3)] for k, v in per_round.items()},
            "rounds": len(rounds)}


async def run_peers(start_fabricd: Callable[[], tuple[object, str]], rounds: int = 1) -> dict[str, object]:
    """`rounds` rounds of fabricd, Redis and NATS, one after the other on fresh servers, the order turned by
    one each round (this machine drifts within minutes: a ratio of two figures taken apart is not one)."""
    notes: list[str] = []
    done: list[dict[str, dict[str, float]]] = []
    order = ["fabricd", "redis", "nats"]
    skipped: set[str] = set()
    for i in range(rounds):
        figures: dict[str, dict[str, float]] = {}
        for name in order[i % 3:] + order[:i % 3]:
            if name in skipped:
                continue
            result = await _one(name, start_fabricd, notes)
            if result is None:
                skipped.add(name)  # not installed or refused: the next rounds would only say so again
            else:
                figures[name] = result
        done.append(figures)
        if rounds > 1:
            print(f"round {i + 1}/{rounds}: " + ", ".join(figures), file=sys.stderr)
    summary = summarize(done)
    print(table(summary["results"]), file=sys.stderr)  # type: ignore[arg-type]
    for note in notes:
        print(note, file=sys.stderr)
    return {**summary, "notes": notes}
