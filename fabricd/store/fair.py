"""Fair queues of the store's writers: one FIFO per lane (a token, see fabricd.core.lanes), served in turn.

FairQueue is the LMDB writer's waiting list: a batch takes one write from each lane in turn until it is
full, so a lane with a thousand heavy writes waiting and a lane with one light write both get into the next
batch. FairGate admits at most `capacity` holders at once (the PostgreSQL pool's connections) and hands a
freed slot to the next lane in turn. Invariants: within a lane, first in first out; a lane served goes to the
back of the turn; a batch or a slot always takes the head of the first lane, so nothing waits forever.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Generic, TypeVar

T = TypeVar("T")


class FairQueue(Generic[T]):
    """Items waiting in lanes; `take` serves the lanes round-robin (see the module docstring)."""

    __slots__ = ("_lanes", "_count")

    def __init__(self) -> None:
        self._lanes: dict[str, deque[tuple[T, int]]] = {}
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def put(self, lane: str, item: T, weight: int = 1) -> None:
        queue = self._lanes.get(lane)
        if queue is None:
            queue = self._lanes[lane] = deque()
        queue.append((item, max(1, weight)))
        self._count += 1

    def discard(self, lane: str, item: T) -> None:
        """Take `item` out of its lane (a waiter that left); nothing when it is not there."""
        queue = self._lanes.get(lane)
        if queue is None:
            return
        for i, (queued, _) in enumerate(queue):
            if queued is item:
                del queue[i]
                self._count -= 1
                if not queue:
                    del self._lanes[lane]
                return

    def take(self, max_items: int, max_work: int) -> list[T]:
        """Up to `max_items` items weighing up to `max_work` together (the first whatever it weighs), one
        from each lane in turn; a lane whose head would pass `max_work` is passed over in this batch."""
        out: list[T] = []
        work = 0
        if len(self._lanes) == 1:  # one lane (the usual case): its FIFO, without the turns' bookkeeping
            lane, queue = next(iter(self._lanes.items()))
            while queue and len(out) < max_items:
                item, weight = queue[0]
                if out and work + weight > max_work:
                    break
                queue.popleft()
                out.append(item)
                work += weight
            if not queue:
                del self._lanes[lane]
            self._count -= len(out)
            return out
        while self._lanes and len(out) < max_items:
            took = False
            for lane in list(self._lanes):
                queue = self._lanes[lane]
                item, weight = queue[0]
                if out and work + weight > max_work:
                    continue
                queue.popleft()
                out.append(item)
                work += weight
                took = True
                del self._lanes[lane]  # to the back of the turn
                if queue:
                    self._lanes[lane] = queue
                if len(out) >= max_items:
                    break
            if not took:
                break
        self._count -= len(out)
        return out


class FairGate:
    """At most `capacity` holders at once; waiters queue in lanes and a freed slot goes to the next lane."""

    def __init__(self, capacity: int) -> None:
        self._free = max(1, capacity)
        self._waiting: FairQueue[asyncio.Future[None]] = FairQueue()

    @asynccontextmanager
    async def slot(self, lane: str) -> AsyncIterator[None]:
        if self._free > 0 and not len(self._waiting):
            self._free -= 1
        else:
            granted: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._waiting.put(lane, granted)
            try:
                await granted
            except asyncio.CancelledError:
                if granted.done() and not granted.cancelled():
                    self._release()  # handed a slot as it left: pass it on
                else:
                    self._waiting.discard(lane, granted)
                raise
        try:
            yield
        finally:
            self._release()

    def _release(self) -> None:
        while len(self._waiting):
            (granted,) = self._waiting.take(1, 1)
            if not granted.done():
                granted.set_result(None)
                return
        self._free += 1
