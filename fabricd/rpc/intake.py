"""Request bodies being read: what a caller can make the daemon hold before its call is decided.

gRPC reads a request only when the handler asks for it (fabricd.rpc.interceptor serves
every call as a client stream of one message), and the interceptor identifies the caller
from its headers first: a caller without a valid token never has its body read; its bytes
stay in the client, behind HTTP/2 flow control.

An identified caller that is not trusted (an agent token or certificate; its call may
still be out of scope) reads through `Intake`: a read reserves the most gRPC may hand over
(the frame limit), the reservation shrinks to the request's size once read, and it is
returned once the call is admitted or refused (what it holds after that is an authorised
call's, bounded by the limits of its method). At most `total` bytes are
reserved over all such callers, and at most a quarter of that by one identity; a read waits
for room, in arrival order. Admin tokens and local callers are not held back.

Large requests leave freed memory in the C allocator's arenas (gRPC's threads read into
their own): once no read is reserved and `trim_after` bytes were read since the last time,
the arenas' free pages are given back to the system (glibc's malloc_trim).
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
from collections import deque
from collections.abc import Callable

from fabricd.rpc.auth import Identity


def _malloc_trim() -> Callable[[], object]:
    try:
        trim = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):  # not glibc: nothing to give back this way
        return lambda: None
    return lambda: trim(0)


class Reservation:
    """Bytes one call holds in the intake; `shrink` once the request is read, `release` once it is decided."""

    __slots__ = ("intake", "key", "size")

    def __init__(self, intake: Intake, key: str, size: int) -> None:
        self.intake, self.key, self.size = intake, key, size

    def shrink(self, size: int) -> None:
        if size < self.size:
            self.intake._give(self.key, self.size - size)  # the reservation's own intake
            self.size = size

    def release(self) -> None:
        if self.size:
            self.intake._give(self.key, self.size)
            self.size = 0


class Intake:
    """The byte budget of request reads by untrusted callers (see the module docstring)."""

    def __init__(self, frame: int, total: Callable[[], int], trim_after: int = 16 << 20) -> None:
        self.frame = frame
        """The largest request gRPC hands over (the server's max_receive_message_length)."""
        self._total = total
        """Read on every use: a reload may change it."""
        self.held = 0
        self._by_key: dict[str, int] = {}
        self._waiting: deque[tuple[str, int, asyncio.Future[None]]] = deque()
        self.trim_after = trim_after
        self.read_since_trim = 0
        self.trims = 0
        self._trim = _malloc_trim()

    def read(self, size: int) -> None:
        """A request of `size` bytes was read (any caller's): counted toward the next trim."""
        self.read_since_trim += size

    def ended(self) -> None:
        """A call ended: trim soon (once its frames are gone) if no read is reserved and enough was read."""
        if self.read_since_trim >= self.trim_after and not self.held:
            asyncio.get_running_loop().call_soon(self._maybe_trim)

    def _maybe_trim(self) -> None:
        if self.read_since_trim >= self.trim_after and not self.held:
            self.read_since_trim = 0
            self.trims += 1
            self._trim()

    def _need(self) -> tuple[int, int]:
        total = max(1, self._total())
        per_key = max(1, total // 4)
        return min(self.frame, per_key), per_key

    def _fits(self, key: str, size: int, per_key: int) -> bool:
        held = self._by_key.get(key, 0)
        if held + size > per_key and held:
            return False
        return self.held + size <= self._total() or not self.held

    async def reserve(self, identity: Identity) -> Reservation | None:
        """Room to read one request of `identity` (None for trusted callers: they are not held back)."""
        if identity.trusted:
            return None
        key = identity.token_id or str(identity)
        size, _ = self._need()
        waiter = asyncio.get_running_loop().create_future()
        entry = (key, size, waiter)
        self._waiting.append(entry)
        self._wake()
        try:
            await waiter
        except BaseException:
            if waiter.done() and not waiter.cancelled():
                self._give(key, size)  # granted as it was cancelled: hand it on
            else:
                self._waiting.remove(entry)
                self._wake()
            raise
        return Reservation(self, key, size)

    def _take(self, key: str, size: int) -> None:
        self.held += size
        self._by_key[key] = self._by_key.get(key, 0) + size

    def _give(self, key: str, size: int) -> None:
        self.held -= size
        left = self._by_key[key] - size
        if left:
            self._by_key[key] = left
        else:
            del self._by_key[key]
        self._wake()

    def _wake(self) -> None:
        """Grant waiting reads in arrival order; one held back only by its own identity's share lets others by."""
        _, per_key = self._need()
        for entry in list(self._waiting):
            key, size, waiter = entry
            if self.held + size > self._total() and self.held:
                break
            if not self._fits(key, size, per_key):
                continue
            self._waiting.remove(entry)
            self._take(key, size)
            waiter.set_result(None)
