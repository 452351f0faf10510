"""Wake-ups for streams: a version per key, and waiters that sleep until it moves (the in-process Wakeups).

A waiter reads the version, reads storage, then waits for the version to move;
a change that lands between the read and the wait is never missed. Nothing is
buffered here: streams catch up from storage, so memory does not grow with a
slow reader.
`listeners` see every key that moves (the overseer page coalesces them into one
refresh); they run inside `notify`, so they must only note the key.

Versions stay bounded: every ticket has a key of its own, so past MAX_KEYS the keys no
one waits on are forgotten and the epoch jumps past every version handed out, so a
reader that read a forgotten key's version sees it moved (a spurious wake-up: it reads
storage again) and never the same number again. The keys kept for their waiters do not
count against the next pass: past the bound, a pass waits until the map has doubled.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection, Hashable

MAX_KEYS = 4096
"""Keys whose versions are kept; past it, those without waiters are forgotten (see the module docstring). A
finished ticket's key is only worth keeping for a reader between its read and its wait, and costs ~130 bytes
(at 65,536 the map of a daemon answering asks grew by ~8 MiB over its first hours)."""


class LocalWakeups:
    """Implements fabricd.core.ports.Wakeups in one process. Use from the event loop thread only."""

    def __init__(self) -> None:
        self._versions: dict[Hashable, int] = {}
        self._waiters: dict[Hashable, set[asyncio.Future[bool]]] = {}
        self._closed = False
        self._epoch = 0
        self._forget_past = MAX_KEYS
        self.listeners: list[Callable[[Hashable | None], None]] = []
        """Called with each key that moves, and with None when every key does (wake_all)."""

    @property
    def closed(self) -> bool:
        return self._closed

    def version(self, key: Hashable) -> int:
        return self._versions.get(key, 0) + self._epoch

    def notify(self, key: Hashable) -> None:
        self._versions[key] = self._versions.get(key, 0) + 1
        if len(self._versions) > self._forget_past:
            self._forget()
        for listener in self.listeners:
            listener(key)
        waiters = self._waiters.pop(key, None)
        if waiters:
            for fut in waiters:
                if not fut.done():
                    fut.set_result(True)

    async def wait(self, key: Hashable, seen: int, timeout: float | None) -> bool:
        """Wait until the version of `key` differs from `seen`; False on timeout or close."""
        if self._versions.get(key, 0) + self._epoch != seen:
            return True
        if self._closed:
            return False
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[bool] = loop.create_future()
        self._waiters.setdefault(key, set()).add(fut)
        # A timer, not asyncio.wait_for: a wake-up then resumes the waiter directly, one loop turn
        # sooner, without the wrapping future and callbacks (an ask round trip waits twice).
        timer = None if timeout is None else loop.call_later(max(timeout, 0.0), _expire, fut)
        try:
            return await fut and not self._closed
        finally:
            if timer is not None:
                timer.cancel()
            waiters = self._waiters.get(key)
            if waiters is not None:
                waiters.discard(fut)
                if not waiters:
                    del self._waiters[key]

    def _forget(self) -> None:
        """Forget the versions of the keys no one waits on; every version then moves past any handed out
        (the epoch jumps by more than the highest), so no reader mistakes a forgotten key's new version for
        the one it read."""
        self._epoch += max(self._versions.values()) + 1
        self._versions = {k: v for k, v in self._versions.items() if k in self._waiters}
        self._forget_past = max(MAX_KEYS, 2 * len(self._versions))  # a pass stays O(1) a notify when many wait

    def wake_all(self) -> None:
        """Move every key's version and wake every waiter (after a lost LISTEN connection, wake-ups
        may have been lost: each waiter re-reads storage, and one between its read and its wait
        sees the version moved)."""
        self._epoch += 1
        for listener in self.listeners:
            listener(None)
        for key in list(self._waiters):
            for fut in self._waiters.pop(key):
                if not fut.done():
                    fut.set_result(True)

    def key_count(self) -> int:
        """Keys whose versions are kept now (at most MAX_KEYS + 1, or twice the keys waited on)."""
        return len(self._versions)

    def waiter_count(self, excluding: Collection[Hashable] = ()) -> int:
        """Futures waiting now, but none on the keys `excluding` (the daemon's own loops wait on those)."""
        return sum(len(w) for key, w in self._waiters.items() if key not in excluding)

    def close(self) -> None:
        """Wake every waiter for good: streams end at shutdown."""
        self._closed = True
        for key in list(self._waiters):
            for fut in self._waiters.pop(key):
                if not fut.done():
                    fut.set_result(True)


def _expire(fut: asyncio.Future[bool]) -> None:
    """A waiter's timeout: it resumes with False, unless woken first."""
    if not fut.done():
        fut.set_result(False)
