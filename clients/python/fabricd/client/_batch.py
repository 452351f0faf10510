"""Coalescing of concurrent calls into batched RPCs.

A call made while nothing is waiting or in flight goes out at once, in its
caller's own task: a lone caller pays no loop turn, task or future for the
batching. Calls made while RPCs are in flight wait and leave together (after
one loop turn, so calls made in the same turn share it) in the next batch. Each
caller still gets its own result or its own exception.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Hashable, Sequence
from typing import Any, Generic, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")

# Runs one batch; returns one result or one exception per item, in order.
BatchFn = Callable[[Hashable, Sequence[Any]], Awaitable[Sequence[Any]]]


class Coalescer(Generic[Item, Result]):
    def __init__(self, run: BatchFn, *, max_batch: int = 500, max_in_flight: int = 2,
                 size_of: Callable[[Any], int] | None = None, max_bytes: int = 0) -> None:
        self._run = run
        self._max_batch = max_batch
        self._size_of = size_of
        self._max_bytes = max_bytes
        self._max_in_flight = max_in_flight
        self._pending: dict[Hashable, list[tuple[Item, asyncio.Future[Result]]]] = {}
        self._in_flight = 0
        self._scheduled = False
        self._tasks: set[asyncio.Task[None]] = set()
        self._alone: set[asyncio.Future[None]] = set()  # lone calls in flight, for drain()

    async def submit(self, key: Hashable, item: Item) -> Result:
        if not self._in_flight and not self._pending and not self._scheduled:
            return await self._lone(key, item)
        fut: asyncio.Future[Result] = asyncio.get_running_loop().create_future()
        self._pending.setdefault(key, []).append((item, fut))
        self._schedule()
        return await fut

    async def _lone(self, key: Hashable, item: Item) -> Result:
        """A call with nothing else in flight: its RPC in the caller's task; calls arriving meanwhile queue."""
        self._in_flight += 1
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._alone.add(done)
        try:
            (result,) = await self._run(key, [item])
        finally:
            self._alone.discard(done)
            done.set_result(None)
            self._in_flight -= 1
            self._schedule()
        if isinstance(result, BaseException):
            raise result
        return result

    def _schedule(self) -> None:
        if not self._scheduled and self._pending and self._in_flight < self._max_in_flight:
            self._scheduled = True
            asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        self._scheduled = False
        while self._pending and self._in_flight < self._max_in_flight:
            key = next(iter(self._pending))
            queue = self._pending[key]
            take = min(len(queue), self._max_batch)
            if self._size_of is not None and self._max_bytes:
                size = 0
                for i, (item, _) in enumerate(queue[:take]):
                    size += self._size_of(item)
                    if i and size > self._max_bytes:  # always at least one, however large
                        take = i
                        break
            batch, rest = queue[:take], queue[take:]
            if rest:
                self._pending[key] = rest
            else:
                del self._pending[key]
            self._in_flight += 1
            task = asyncio.get_running_loop().create_task(self._send(key, batch))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _send(self, key: Hashable, batch: list[tuple[Item, asyncio.Future[Result]]]) -> None:
        try:
            results = await self._run(key, [item for item, _ in batch])
        except BaseException as exc:  # the whole RPC failed: every caller in it sees why
            for _, fut in batch:
                if not fut.done():
                    fut.set_exception(exc)
            if isinstance(exc, asyncio.CancelledError):
                raise
        else:
            for (_, fut), result in zip(batch, results, strict=True):
                if fut.done():
                    continue
                if isinstance(result, BaseException):
                    fut.set_exception(result)
                else:
                    fut.set_result(result)
        finally:
            self._in_flight -= 1
            self._schedule()

    async def drain(self) -> None:
        """Wait until every submitted call has been sent and answered."""
        while self._tasks or self._pending or self._alone:
            if self._tasks or self._alone:
                await asyncio.gather(*list(self._tasks), *list(self._alone), return_exceptions=True)
            else:
                await asyncio.sleep(0)
