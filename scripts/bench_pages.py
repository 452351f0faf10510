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
import os
import subprocess
import sys
import time
from typing import TYPE_CHECKING

import aiohttp

if TYPE_CHECKING:
    from fabricd.client import Client


class Pages:
    """`n` open pages of the overseer at `url`, signed in with `token`, read by a process of their own (this
    file run as a script), so reading the pages' events takes no time from the load generator's loop."""

    def __init__(self, url: str, token: str, n: int) -> None:
        self.url = url
        self.token = token
        self.n = n
        self.first_paint_ms: list[float] = []
        self.events = 0
        self._proc: subprocess.Popen[str] | None = None

    async def open(self) -> None:
        self._proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), self.url, self.token, str(self.n)],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self._proc.stdout is not None
        line = await asyncio.to_thread(self._proc.stdout.readline)
        if not line:
            raise RuntimeError("the page readers did not start")
        self.first_paint_ms = json.loads(line)["first_paint_ms"]

    async def until(self, events: int) -> None:
        """Wait until the pages have received `events` events in all (the reader answers when they have)."""
        proc = self._proc
        assert proc is not None and proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(f"until {events}\n")
        proc.stdin.flush()
        line = await asyncio.to_thread(proc.stdout.readline)
        if not line:
            raise RuntimeError("the page readers ended before the pages got the events")
        self.events = json.loads(line)["events"]

    async def close(self) -> None:
        proc = self._proc
        if proc is None:
            return
        out, _ = await asyncio.to_thread(proc.communicate, "")
        self.events = json.loads(out.strip().splitlines()[-1])["events"] if out.strip() else 0
        self._proc = None


class Readers:
    """The pages themselves (in the reader process): sessions and their event streams."""

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


async def read_pages(url: str, token: str, n: int) -> None:
    """The reader process: open the pages, print their first paints, read until standard input closes, print
    the events they received. A line `until N` on standard input is answered once the pages have N events."""
    readers = Readers(url, token, n)
    await readers.open()
    print(json.dumps({"first_paint_ms": readers.first_paint_ms}), flush=True)
    while line := await asyncio.to_thread(sys.stdin.readline):
        if line.startswith("until "):
            await readers.until(int(line.split()[1]))
            print(json.dumps({"events": readers.events}), flush=True)
    events = readers.events
    await readers.close()
    print(json.dumps({"events": events}), flush=True)


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


if __name__ == "__main__":
    asyncio.run(read_pages(sys.argv[1], sys.argv[2], int(sys.argv[3])))
