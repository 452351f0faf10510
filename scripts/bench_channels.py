"""The channel workloads of scripts/bench: publish to a channel of 1, 10 and 100 members, and search.

    publish_1, publish_10, publish_100   16 callers publish durable posts to a channel of that many members;
                                         figures: posts a second and member deliveries (copies) a second
    search_100k                          100,000 retained posts (20,000 with --quick), then 200 searches one
                                         at a time; figures: search p50 and p99 in ms
The issue's targets: a 10-member publish at least 5,000 member deliveries/s on LMDB, and search p50 under
20 ms over 100k posts.

Import this only after `use_tree(root)` (see bench_workloads).
"""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

from fabricd.client import Client

WORDS = ("main", "red", "merge", "deploy", "api", "refactor", "review", "tests", "flaky", "release", "docs", "lint",
         "build", "cache", "schema", "migration", "rollback", "queue", "ticket", "agent", "plan", "done", "blocked",
         "please", "stop", "start", "green", "broken", "fixed", "today")
QUERIES = ("main red", '"api refactor"', "deploy*", "flaky tests -fixed", "rollback migration", "review")
"""What search_100k looks for: words, a phrase, a prefix, an exclusion."""


def post_text(i: int) -> str:
    """The i-th post of search_100k: twelve words of WORDS drawn by a generator seeded with i (the same text
    in every run), and the post's number."""
    rng = random.Random(i)
    return " ".join(rng.choice(WORDS) for _ in range(12)) + f" (post {i})"


def _percentiles(samples: list[float]) -> tuple[float, float]:
    samples = sorted(samples)
    return samples[len(samples) // 2] * 1e3, samples[max(0, int(len(samples) * 0.99) - 1)] * 1e3


async def _channel(client: Client, name: str, members: int) -> None:
    await client.create_channel(name, max_messages=0)
    for m in range(members):
        agent = f"{name}-m{m}"
        await client.register(agent)
        await client.join_channel(name, agent)


async def publish_rate(client: Client, members: int, total: int, callers: int = 16) -> tuple[float, float]:
    """(posts/s, member deliveries/s) of `callers` publishing `total` posts to a channel of `members`."""
    name = f"bench-pub-{members}"
    await _channel(client, name, members)
    per = total // callers
    delivered = 0

    async def caller(c: int) -> None:
        nonlocal delivered
        for i in range(per):
            done = await client.publish(name, f"post {c}-{i}", sender="bench")
            delivered += done.delivered

    start = time.perf_counter()
    await asyncio.gather(*(caller(c) for c in range(callers)))
    elapsed = time.perf_counter() - start
    await client.delete_channel(name, purge=True)
    for m in range(members):
        await client.unregister(f"{name}-m{m}", purge=True)
    return per * callers / elapsed, delivered / elapsed


async def search_latency(client: Client, posts: int, searches: int = 200) -> tuple[float, float]:
    """(p50, p99) in ms of searches one at a time over `posts` retained posts of one channel."""
    name = "bench-search"
    await client.create_channel(name)
    sem = asyncio.Semaphore(32)

    async def post(i: int) -> None:
        async with sem:
            await client.publish(name, post_text(i), sender="bench")

    await asyncio.gather(*(post(i) for i in range(posts)))
    await client.search_messages("main")  # the index catches up (LMDB) before the timing
    samples = []
    for i in range(searches):
        t0 = time.perf_counter()
        await client.search_messages(QUERIES[i % len(QUERIES)], channel=name)
        samples.append(time.perf_counter() - t0)
    await client.delete_channel(name, purge=True)
    return _percentiles(samples)


def _publish(members: int, total: int) -> Any:
    async def workload(t: Any) -> dict[str, float]:
        posts, deliveries = await publish_rate(await t.client(), members, t.n(total))
        return {f"publish_{members}_posts": posts, f"publish_{members}_deliveries": deliveries}

    return workload


async def _search(t: Any) -> dict[str, float]:
    p50, p99 = await search_latency(await t.client(), t.n(100_000))
    return {"search_100k_p50_ms": p50, "search_100k_p99_ms": p99}


WORKLOADS = {"publish_1": _publish(1, 4000), "publish_10": _publish(10, 4000), "publish_100": _publish(100, 1000),
             "search_100k": _search}
