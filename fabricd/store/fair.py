"""Fair queues of the store's writers: one FIFO per lane (a token, see fabricd.core.lanes), served in turn.

FairQueue is the LMDB writer's waiting list: a batch takes one write from each lane in turn until it is
full, so a lane with a thousand heavy writes waiting and a lane with one light write both get into the next
batch. FairGate admits at most `capacity` holders at once (the PostgreSQL pool's connections) and hands a
freed slot to the next lane in turn; while other lanes asked for slots within SHARED_WINDOW_S, the last free
slot is kept for a lane that holds none, so one token's flood never holds every connection and another
token's call starts at once instead of waiting for one of the flood's to end. Invariants: within a lane,
first in first out; a lane served goes to the back of the turn; a batch takes the head of the first lane, and a
slot the head of the first lane it may go to, so nothing waits forever (a lane that only the reserve holds
back gets it once the others have been quiet for SHARED_WINDOW_S).
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Generic, TypeVar

T = TypeVar("T")
SHARED_WINDOW_S = 1.0
"""How long a lane counts as sharing the store after it last asked for it: while two or more lanes did, the
LMDB writer's commits are shared (fabricd.store.lmdb.engine) and the pool keeps a connection in reserve."""
SEEN_KEPT = 1024
"""FairGate forgets the lanes quiet for SHARED_WINDOW_S when a new one comes and it remembers this many."""


def forget_quiet(seen: dict[str, float], now: float) -> None:
    """Forget the lanes of `seen` (lane: when it last asked) that have not asked within SHARED_WINDOW_S."""
    for lane in [lane for lane, at in seen.items() if now - at > SHARED_WINDOW_S]:
        del seen[lane]


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

    def take_first(self, allowed: Callable[[str], bool]) -> tuple[str, T] | None:
        """The head of the first lane in turn that `allowed` lets go, with its lane (which then goes to the
        back of the turn); None when no lane may go."""
        for lane, queue in self._lanes.items():
            if allowed(lane):
                item, _ = queue.popleft()
                del self._lanes[lane]
                if queue:
                    self._lanes[lane] = queue
                self._count -= 1
                return lane, item
        return None

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
    """At most `capacity` holders at once; waiters queue in lanes and a freed slot goes to the next lane (see
    the module docstring for the slot kept in reserve while lanes share the gate)."""

    def __init__(self, capacity: int) -> None:
        self._free = max(1, capacity)
        self._waiting: FairQueue[asyncio.Future[None]] = FairQueue()
        self._held: dict[str, int] = {}
        self._seen: dict[str, float] = {}
        """When each lane last asked for a slot (pruned to SHARED_WINDOW_S when the reserve is decided)."""
        self._recheck: asyncio.TimerHandle | None = None

    @asynccontextmanager
    async def slot(self, lane: str) -> AsyncIterator[None]:
        now = time.monotonic()
        if len(self._seen) >= SEEN_KEPT and lane not in self._seen:
            forget_quiet(self._seen, now)
        self._seen[lane] = now
        if self._free > 0 and not len(self._waiting) and self._may_take(lane):
            self._take(lane)
        else:
            granted: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._waiting.put(lane, granted)
            self._grant()
            try:
                await granted
            except asyncio.CancelledError:
                if granted.done() and not granted.cancelled():
                    self._release(lane)  # handed a slot as it left: pass it on
                else:
                    self._waiting.discard(lane, granted)
                raise
        try:
            yield
        finally:
            self._release(lane)

    def _may_take(self, lane: str) -> bool:
        """Whether `lane` may take a free slot now: any but the last; the last only when it holds none, or when
        no other lane asked for a slot within SHARED_WINDOW_S."""
        if self._free > 1 or not self._held.get(lane):
            return True
        forget_quiet(self._seen, time.monotonic())
        return self._seen.keys() <= {lane}

    def _take(self, lane: str) -> None:
        self._free -= 1
        self._held[lane] = self._held.get(lane, 0) + 1

    def _release(self, lane: str) -> None:
        held = self._held[lane] - 1
        if held:
            self._held[lane] = held
        else:
            del self._held[lane]
        self._free += 1
        self._grant()

    def _grant(self) -> None:
        """Hand free slots to waiters, the next lane in turn first; a slot only the reserve keeps from the
        waiting lanes is handed again once the other lanes have been quiet for SHARED_WINDOW_S."""
        while self._free > 0 and len(self._waiting):
            found = self._waiting.take_first(self._may_take)
            if found is None:
                if self._recheck is None:
                    self._recheck = asyncio.get_running_loop().call_later(SHARED_WINDOW_S, self._rechecked)
                return
            lane, granted = found
            if not granted.done():  # done: its caller left (cancelled), and the slot goes to the next
                self._take(lane)
                granted.set_result(None)

    def _rechecked(self) -> None:
        self._recheck = None
        self._grant()
