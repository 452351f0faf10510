"""The lease workloads of scripts/bench: acquire/release round trips, and CheckLeases among 10,000 live leases.

`lease_rt`: 16 callers each take a lease on a path of their own and release it, again and again; figure: round
trips (an Acquire and a Release) a second. `lease_check_10k`: 10,000 live leases of 500 agents over 100
top-level folders, then CheckLeases of one path at a time; figures: its p50 and p99 in ms. A tree whose client
has no leases (before they existed) gives no figures.

Import this only after `use_tree(root)` (see bench_workloads).
"""

from __future__ import annotations

import asyncio
import time

from fabricd.client import Client

CALLERS = 16


def offered(client: Client) -> bool:
    return hasattr(client, "acquire_lease")


async def round_trips(client: Client, total: int, callers: int = CALLERS) -> float:
    """Acquire then release, `total` times over `callers` callers; round trips a second."""
    each = max(1, total // callers)

    async def caller(c: int) -> None:
        for i in range(each):
            lease = await client.acquire_lease(f"bench-lease-{c}", [f"bench/{c}/{i}.py"], ttl=60)
            await client.release_lease(lease.lease_id)

    started = time.perf_counter()
    await asyncio.gather(*(caller(c) for c in range(callers)))
    return each * callers / (time.perf_counter() - started)


async def check_latency(client: Client, live: int, checks: int) -> tuple[float, float]:
    """(p50, p99) ms of CheckLeases of one path while `live` leases are held; they are released after."""
    agents = 500

    async def seed(c: int) -> None:
        for i in range(c, live, CALLERS):
            await client.acquire_lease(f"bench-holder-{i % agents}", [f"area-{i % 100}/file-{i}.py"], ttl=600)

    await asyncio.gather(*(seed(c) for c in range(CALLERS)))
    samples = []
    for i in range(checks):
        started = time.perf_counter()
        await client.check_leases([f"area-{i % 100}/file-{i % live}.py"], agent_id="bench-checker")
        samples.append(time.perf_counter() - started)
    for a in range(agents):
        await client.release_lease(agent_id=f"bench-holder-{a}")
    samples.sort()
    return samples[len(samples) // 2] * 1e3, samples[max(0, int(len(samples) * 0.99) - 1)] * 1e3
