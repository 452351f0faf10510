"""Flow control of every server stream: one response in flight, a daemon-wide byte budget, stalls, counts.

grpc.aio's `context.write` returns once the transport has taken the message
into HTTP/2 flow control (gRPC core completes a send when all but its write
buffer, 64 KiB, has gone out). A stream that awaits each write before making its
next response therefore holds one response at a time, and a stream's memory is
bounded by the size of that response: a Subscribe batch is at most
`limits.stream_buffer_bytes` of messages (one larger message goes alone). All
streams together hold at most `limits.stream_buffer_total_bytes` in flight: a
stream waits for room before it writes (a response larger than the whole budget
goes when nothing else is in flight).

A response not taken within `limits.stream_stall_timeout` means the client has
stopped reading: the stream stops being fed and ends with RESOURCE_EXHAUSTED
(STREAM_STALLED). Its last response stays in the transport until the client
reads or disconnects (gRPC has no way to drop it), so a stalled stream keeps at
most one batch; and a token (or mTLS identity) opens at most
`limits.max_streams_per_token` streams (TOO_MANY_STREAMS). Local callers without
a token are not counted: they own the machine, and the budget and the stall
timeout still apply to them. A bidirectional stream is one stream: its
responses go through `write` as a server stream's do, and each request frame
the guard refuses reaches its servicer as `Refused`, to be answered with the
error (the stream goes on).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

import grpc

from fabricd.core.errors import FabricError, InvalidArgument, ResourceExhausted
from fabricd.core.limits import Limits
from fabricd.rpc.auth import Identity

log = logging.getLogger("fabricd.rpc")


Frame = TypeVar("Frame")


@dataclass(frozen=True, slots=True)
class Refused(Generic[Frame]):
    """A request frame of a bidirectional stream that the guard refused: answered with `error`."""

    frame: Frame
    error: FabricError


class CallLoad(Protocol):
    """The daemon's count of unary calls in flight (fabricd.rpc.interceptor.Load, which imports this module)."""

    unary_calls: int


class InFlight:
    """The request frames of one bidirectional stream read and not yet answered, counted as unary calls in
    the daemon's load (its writer commits on the loop thread only while no other call is in flight)."""

    __slots__ = ("_load", "held")

    def __init__(self, load: CallLoad | None) -> None:
        self._load = load
        self.held = 0

    def read(self) -> None:
        self.held += 1
        if self._load is not None:
            self._load.unary_calls += 1

    def answered(self) -> None:
        self.held -= 1
        if self._load is not None:
            self._load.unary_calls -= 1

    def close(self) -> None:
        """The stream ended: its frames still unanswered are no longer in flight."""
        if self._load is not None:
            self._load.unary_calls -= self.held
        self.held = 0


def next_seq(seq: int, previous: int) -> int:
    """A request frame's seq, which must be above the previous frame's (the stream ends otherwise)."""
    if seq <= previous:
        raise InvalidArgument(f"frame seq {seq} is not above the previous frame's ({previous}): number the "
                              "frames of a stream 1, 2, 3, ...", reason="FRAME_SEQ", seq=seq, previous=previous)
    return seq


def stalled(timeout_s: float) -> ResourceExhausted:
    return ResourceExhausted(
        f"this stream's client took no message for {timeout_s:g} s, so the daemon stopped feeding it and ended "
        "it; subscribe again and keep reading (unacked mail is delivered again)",
        reason="STREAM_STALLED", stall_timeout_s=f"{timeout_s:g}")


def too_many_streams(limit: int) -> ResourceExhausted:
    return ResourceExhausted(
        f"this token already holds {limit} open streams, the limit (limits.max_streams_per_token); close one "
        "before opening another", reason="TOO_MANY_STREAMS", limit=limit)


class Streams:
    """Open streams per token and bytes in flight over all streams (see the module docstring)."""

    def __init__(self, limits: Callable[[], Limits]) -> None:
        self._limits = limits
        """Read on every use: a reload (SIGHUP) swaps the limits in place."""
        self._open: dict[str, int] = {}
        self._in_flight = 0
        self._waiting: set[asyncio.Future[None]] = set()
        self.stalled = 0
        """Streams ended for stalling since the start."""
        self.open_streams = 0
        """Streams open now, every caller's (local callers' too), as flow control sees them."""

    @property
    def in_flight(self) -> int:
        """Bytes of responses handed to gRPC and not yet taken by the transport."""
        return self._in_flight

    def open(self, identity: Identity) -> str:
        """Count a new stream of `identity`; refused over the limit. Returns the key to `close` with."""
        key = identity.token_id
        if not key:
            self.open_streams += 1
            return ""
        limit = self._limits().max_streams_per_token
        held = self._open.get(key, 0)
        if limit and held >= limit:
            raise too_many_streams(limit)
        self._open[key] = held + 1
        self.open_streams += 1
        return key

    def close(self, key: str) -> None:
        self.open_streams -= 1
        if key:
            held = self._open[key] - 1
            if held:
                self._open[key] = held
            else:
                del self._open[key]

    async def write(self, context: grpc.aio.ServicerContext, response: object, size: int) -> None:
        """Write one response once there is room, and wait until the transport takes it or the stall timeout."""
        limits = self._limits()
        while self._in_flight and self._in_flight + size > limits.stream_buffer_total_bytes:
            room: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._waiting.add(room)
            try:
                await room
            finally:
                self._waiting.discard(room)
        self._in_flight += size
        try:
            await asyncio.wait_for(context.write(response), limits.stream_stall_timeout_s)
        except TimeoutError:
            self.stalled += 1
            log.info("stream stalled", extra={"peer": context.peer(), "bytes": size})
            raise stalled(limits.stream_stall_timeout_s) from None
        finally:
            self._in_flight -= size
            waiting, self._waiting = self._waiting, set()
            for room in waiting:
                if not room.done():
                    room.set_result(None)
        task = asyncio.current_task()
        if task is not None and task.cancelling():
            # The caller left as the transport took the response: Python 3.11's wait_for then returns the
            # write's result and drops the cancel, and the stream would go on until its next write failed
            # (a keepalive later: 15 s). Raise it here, as a cancel at this await would have.
            raise asyncio.CancelledError
