"""MemoryEngine: the core's key-value Engine over Python dicts, one write at a time.

A write runs its script against copy-on-write tables and publishes them only
when the script returns, so a refused write leaves nothing behind (as an
aborted LMDB transaction does). Records are copied in and out, so no caller
holds a live reference into the store.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any, TypeVar

from fabricd.core.ports import StoreStats, Wakeups
from fabricd.store.memory.tx import MemoryTx, new_tables

T = TypeVar("T")


class MemoryEngine:
    """Implements fabricd.core.kv.tx.Engine in memory."""

    def __init__(self, wakeups: Wakeups | None = None) -> None:
        self._tables: dict[str, dict[Any, Any]] = new_tables()
        self._wakeups = wakeups
        self._lock = asyncio.Lock()
        self._closed = False
        self.commits = 0
        self.writes = 0
        self.messages_stored = 0
        self.on_commit: Callable[[int, float], None] | None = None

    async def start(self) -> None:
        pass

    async def close(self) -> None:
        self._closed = True

    async def write(self, fn: Callable[[MemoryTx], T], weight: int = 1) -> T:
        if self._closed:
            from fabricd.core.errors import Unavailable

            raise Unavailable("the daemon is shutting down", reason="SHUTTING_DOWN")
        async with self._lock:
            started = time.perf_counter()
            tx = MemoryTx(self._tables, write=True)
            result = fn(tx)
            tx.flush()
            self._tables = tx.tables
            self.commits += 1
            self.writes += 1
            self.messages_stored += tx.stored_messages
            if self._wakeups is not None:
                for key in tx.woken:
                    self._wakeups.notify(key)
            if self.on_commit is not None:
                self.on_commit(1, time.perf_counter() - started)
            return result

    async def read(self, fn: Callable[[MemoryTx], T]) -> T:
        return fn(MemoryTx(self._tables, write=False))

    def read_now(self, fn: Callable[[MemoryTx], T]) -> T:
        return fn(MemoryTx(self._tables, write=False))

    def stats(self) -> StoreStats:
        return StoreStats(location="memory:", commits=self.commits, writes=self.writes, last_batch=1,
                          messages_stored=self.messages_stored)

    def making_progress(self, stall_s: float) -> bool:
        return True
