"""Soak: an hour of mixed load against one daemon per backend leaves its memory and open files flat.

Sends (single and batched), a subscriber that comes and goes, asks answered by a replier stream, drains,
channel posts copied to members, leases taken, checked and released, and a URL wake hook firing: all at once,
each loop paced (PACE_S between rounds: about 80 messages a second, a steady load, not a benchmark), for
SHORT_S seconds in every run (so CI exercises it) and for SOAK_S with `pytest --soak` ($SOAK_SECONDS
overrides both; not a FABRICD_ variable: the daemon refuses those it does not know). After the warm-up (the
first WARMUP of the run) the daemon's anonymous resident memory (RssAnon: LMDB's mapped file pages are not
the daemon's to free) may grow by less than RSS_GROWTH_MIB, and its open file descriptors by at most FD_GROWTH.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import statistics
import time
from collections import Counter

import pytest

from fabricd.client import Client
from fabricd.v1 import types_pb2 as pb
from tests.conftest import Daemon
from tests.e2e.test_wake import Receiver, receiver  # noqa: F401 - a fixture

BACKENDS = ("lmdb", "postgres")
SHORT_S = 15.0
SOAK_S = 3600.0
WARMUP = 0.3
"""The share of the run before the baseline is taken (pools filled, caches warm, the first wakes sent)."""
RSS_GROWTH_MIB = 32.0
FD_GROWTH = 8
PACE_S = 0.05
"""Each load loop's pause between two rounds: the load is steady, not a benchmark."""
MAILBOXES = ("soak-0", "soak-1", "soak-2", "soak-3")


def rss_anon_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("RssAnon:")) / 1024


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


class Load:
    """The mixed load's loops, each counting what it did, until `stop` is set."""

    def __init__(self, client: Client, stop: asyncio.Event) -> None:
        self.client = client
        self.stop = stop
        self.done: Counter[str] = Counter()

    async def loop(self, name: str, step) -> None:
        while not self.stop.is_set():
            await step()
            self.done[name] += 1
            await asyncio.sleep(PACE_S)

    async def send(self) -> None:
        c, n = self.client, self.done["send"]
        to = MAILBOXES[n % len(MAILBOXES)]
        if n % 5:
            await c.send(to, "m" * (200 + n % 1800), sender="soak-sender")
        else:
            await c.send_many([pb.Message(recipient=pb.Address(agent_id=to), sender=pb.Address(agent_id="soak-sender"),
                                          text=f"batch {n}") for _ in range(20)])

    async def subscribe(self) -> None:
        """One subscription: read what comes for a moment, then leave (a reader that comes and goes)."""
        async with self.client.subscribe("soak-0") as inbox:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(0.5):
                    async for _ in inbox:
                        self.done["received"] += 1

    async def drain(self) -> None:
        for box in MAILBOXES[1:]:
            self.done["drained"] += len((await self.client.drain(box, 200)).messages)

    async def ask(self) -> None:
        n = self.done["ask"]
        assert await self.client.ask("soak-worker", f"task {n}", timeout=30) == f"done: task {n}"

    async def post(self) -> None:
        await self.client.publish("soak", f"post {self.done['post']}", sender="soak-1")

    async def lease(self) -> None:
        n = self.done["lease"]
        lease = await self.client.acquire_lease(f"soak-{n % 4}", [f"src/{n % 7}/**"], ttl=30, reason="soak")
        await self.client.check_leases([f"src/{n % 7}/x.py"], agent_id="soak-checker", literal=True)
        await self.client.release_lease(lease.lease_id)  # 0 when a resend after a lost answer did it again


@pytest.mark.soak
async def test_mixed_load_keeps_the_daemons_memory_and_open_files_flat(daemon: Daemon, soak: bool,
                                                                       receiver: Receiver) -> None:  # noqa: F811
    seconds = float(os.environ.get("SOAK_SECONDS") or (SOAK_S if soak else SHORT_S))
    pid = daemon.proc.pid
    async with Client(daemon.target) as client, Client(daemon.target) as replier:
        for agent in (*MAILBOXES, "soak-worker"):
            await client.register(agent)
        await client.create_channel("soak", max_messages=1000)  # the log stays bounded for the hour
        for member in ("soak-2", "soak-3"):
            await client.join_channel("soak", member)
        await client.set_wake_hook("soak-3", url=receiver.url, quiet_period=1, only_when_idle=False)
        stop = asyncio.Event()
        load = Load(client, stop)
        loops = [asyncio.create_task(load.loop(name, getattr(load, name)))
                 for name in ("send", "subscribe", "drain", "ask", "post", "lease")]
        serving = asyncio.create_task(replier.serve("soak-worker", lambda t: f"done: {t.task}"))
        samples: list[tuple[float, float, int]] = []
        start = time.monotonic()
        every = max(0.5, seconds / 120)
        for tick in itertools.count():
            await asyncio.sleep(max(0.0, start + tick * every - time.monotonic()))  # a sampling clock, not a wait
            samples.append((time.monotonic() - start, rss_anon_mib(pid), open_fds(pid)))
            failed = [t for t in (*loops, serving) if t.done()]
            if failed or samples[-1][0] >= seconds:
                break
        stop.set()
        await asyncio.gather(*loops)  # a loop that failed raises here
        assert list(await client.list_leases()) == []  # every lease taken was released
        if serving.done():
            serving.result()  # the replier failed: its error, not the asks' timeouts
        serving.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await serving
    after_warmup = [s for s in samples if s[0] >= seconds * WARMUP]
    base, last = after_warmup[: max(3, len(after_warmup) // 10)], after_warmup[-max(3, len(after_warmup) // 10):]
    rss_growth = statistics.median(s[1] for s in last) - statistics.median(s[1] for s in base)
    fd_growth = max(s[2] for s in last) - min(s[2] for s in base)
    report = (f"{seconds:.0f} s, {dict(load.done)}, wakes {len(receiver.all)}; RssAnon {samples[0][1]:.0f} -> "
              f"{statistics.median(s[1] for s in base):.1f} after warm-up -> {statistics.median(s[1] for s in last):.1f}"
              f" MiB (growth {rss_growth:.1f}); fds {samples[0][2]} -> {min(s[2] for s in base)} -> "
              f"{max(s[2] for s in last)} (growth {fd_growth}); RssAnon MiB by tenths of the run "
              f"{[round(samples[len(samples) * i // 10][1], 1) for i in range(10)] + [round(samples[-1][1], 1)]}")
    print(report)
    assert all(load.done[k] for k in ("send", "received", "drained", "ask", "post", "lease")), report
    assert receiver.all, report  # the wake hook fired
    assert rss_growth < RSS_GROWTH_MIB, report
    assert fd_growth <= FD_GROWTH, report
