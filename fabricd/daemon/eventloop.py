"""The daemon's event loop (setting server.event_loop): uvloop where it imports, else the standard library's.

Everything the daemon runs on its loop (grpc.aio, aiohttp, asyncpg, signal handlers, subprocesses, the writer
threads' call_soon_threadsafe) uses asyncio's public API only, which both loops implement.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass


class LoopUnavailable(Exception):
    """server.event_loop names a loop that does not import here; the message says what to install."""


@dataclass(frozen=True, slots=True)
class EventLoop:
    """The loop the daemon runs on: its name (for the start line) and how to make one."""

    name: str
    new: Callable[[], asyncio.AbstractEventLoop]


def choose(setting: str) -> EventLoop:
    """The loop for server.event_loop ("auto", "uvloop" or "asyncio"); LoopUnavailable when "uvloop" cannot be had."""
    if setting == "asyncio":
        return EventLoop("asyncio", asyncio.new_event_loop)
    try:
        import uvloop
    except ImportError as exc:
        if setting == "uvloop":
            raise LoopUnavailable(f"uvloop does not import ({exc}): pip install uvloop (it comes with "
                                  "'fabricd[daemon]'), or set server.event_loop to auto or asyncio") from exc
        return EventLoop("asyncio", asyncio.new_event_loop)
    return EventLoop("uvloop", uvloop.new_event_loop)
