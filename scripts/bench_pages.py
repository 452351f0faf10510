"""Open overseer pages during a benchmark: `scripts/bench --pages N [--agents M]`.

Each page is what a browser tab costs the daemon: a session (an admin token, acting as a person) and its
server-sent event stream, read to the end of every event. Side by side with a run without --pages, the
workloads' figures say what open pages cost (issue 29: send_64 and subscribe within 0.95x). `--agents M`
first registers M more agents with one unread message each, so the pages show a fabric of that size.

Figures added: pages_first_paint_ms (the slowest page's first picture after its stream opened),
pages_events (pictures the pages received during the run), pages_daemon_rss_mb (the daemon's resident
memory at the end, pages still open).
"""

from __future__ import annotations

import asyncio
import json
import time

import aiohttp

from fabricd.client import Client


class Pages:
    """`n` open pages of the overseer at `url`, signed in with `token`."""

    def __init__(self, url: str, token: str, n: int) -> None:
        self.url = url
        self.token = token
        self.n = n
        self.first_paint_ms: list[float] = []
        self.events = 0
        self._seen = asyncio.Condition()
        self._tasks: list[asyncio.Task[None]] = []
        self._sessions: list[aiohttp.ClientSession] = []

    async def open(self) -> None:
        painted = [asyncio.get_running_loop().create_future() for _ in range(self.n)]
        for future in painted:
            session = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))
            self._sessions.append(session)
            async with session.post(self.url + "api/session", json={"token": self.token, "act_as": "bench"}) as r:
                r.raise_for_status()
            self._tasks.append(asyncio.create_task(self._read(session, future)))
        await asyncio.wait_for(asyncio.gather(*painted), 60)

    async def _read(self, session: aiohttp.ClientSession, painted: asyncio.Future[None]) -> None:
        start = time.perf_counter()
        async with session.get(self.url + "api/events", timeout=aiohttp.ClientTimeout(total=None)) as r:
            async for line in r.content:
                if line.startswith(b"data: "):
                    if not painted.done():
                        self.first_paint_ms.append((time.perf_counter() - start) * 1000)
                        painted.set_result(None)
                    async with self._seen:
                        self.events += 1
                        self._seen.notify_all()

    async def until(self, events: int) -> None:
        """Wait until the pages have received `events` events in all."""
        async with self._seen:
            await self._seen.wait_for(lambda: self.events >= events)

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        for session in self._sessions:
            await session.close()


def page_url(line: str) -> str:
    """The page's URL from the daemon's announcement (a JSON log line, or a plain one)."""
    if line.startswith("{"):
        return str(json.loads(line)["url"])
    return line.split(" on ", 1)[1].strip()


async def populate(client: Client, agents: int) -> None:
    """`agents` more agents, each with one unread message."""
    names = [f"page-agent-{i}" for i in range(agents)]
    for start in range(0, agents, 200):
        await asyncio.gather(*(client.register(n) for n in names[start:start + 200]))
        await asyncio.gather(*(client.send(n, "waiting for you", sender="bench") for n in names[start:start + 200]))


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0
