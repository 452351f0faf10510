"""Shared pieces of the reliability suites."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from fabricd.client import Client


async def eventually(check: Callable[[], Awaitable[bool]], timeout: float = 30.0, what: str = "condition") -> None:
    """Poll `check` until it holds: for state the daemon reaches on its own clock (a stream closing)."""
    deadline = time.monotonic() + timeout
    while not await check():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} not reached within {timeout}s")
        await asyncio.sleep(0.02)


async def quiet(client: Client, baseline_waiters: int, timeout: float = 30.0) -> None:
    """Wait until no stream is open, no Ask or AwaitReply waits, and only the daemon's own waiters remain."""

    async def check() -> bool:
        s = await client.get_status()
        return (s.open_streams, s.open_waits, s.waiters) == (0, 0, baseline_waiters)

    await eventually(check, timeout, "no open streams, waits or waiters")
