"""The client's end of MailboxService.SendStream: sends, batches, acks and asks pipelined on one stream.

Each request is a frame with the next seq; its response names the seq, and resolves the
caller's future. Writes are serialized (one lock: seq order is write order, so a mailbox's
order is the callers' order) and at most WINDOW frames are unanswered: a caller beyond waits.
When the stream is cut (daemon restart, a dropped connection, a cancel), the frames still
unanswered are written again on a new stream if a resend is safe (messages with ids, acks,
asks: they carry a request key), within the client's retry window; the others fail with the
cut's error, as their unary calls would (an UNAVAILABLE daemon with no retry window fails them at
once, as a unary call). A daemon without the stream (UNIMPLEMENTED) is
remembered, and every caller falls back to the unary RPC.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import grpc

from fabricd.client import _nodes
from fabricd.client._errors import Unavailable, from_status
from fabricd.v1 import mailbox_service_pb2 as mbx_pb

if TYPE_CHECKING:
    from fabricd.client._client import Client

log = logging.getLogger("fabricd.client")

WINDOW = 128
"""Frames unanswered at once: the daemon's read-ahead (MailboxService.SendStream)."""
_ENDS = frozenset({grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED,
                   grpc.StatusCode.INVALID_ARGUMENT})
"""A stream ended so fails its frames: a resend would be refused alike."""
_UNAVAILABLE = grpc.StatusCode.UNAVAILABLE.value[0]


async def first_write(call: Any, request: Any) -> None:
    """The first write of a new stream, which returns if the call ends first: grpc.aio's write waits for
    the call's headers to go out, and a call cancelled before they did would hold it for ever."""
    write = asyncio.ensure_future(call.write(request))
    ended = asyncio.ensure_future(call.code())
    try:
        await asyncio.wait((write, ended), return_when=asyncio.FIRST_COMPLETED)
    finally:
        ended.cancel()
        if not write.done():
            write.cancel()
    if write.done() and not write.cancelled() and write.exception() is not None:
        raise write.exception()  # type: ignore[misc]


class NotOffered(Exception):
    """The daemon has no SendStream: use the unary call."""


class _Frame:
    __slots__ = ("kind", "build", "resend", "future", "seq", "deadline", "attempts")

    def __init__(self, kind: str, build: Callable[[], Any], resend: bool, future: asyncio.Future[Any]) -> None:
        self.kind = kind
        self.build = build
        self.resend = resend
        self.future = future
        self.seq = 0
        self.deadline: float | None = None
        """Set at the first cut: resent until then (once, with no retry window)."""
        self.attempts = 0


class SenderStream:
    """One SendStream of a Client, opened on first use and again after a cut (see the module docstring)."""

    def __init__(self, client: Client) -> None:
        self._client = client
        self.offered = True
        self._call: Any = None
        self._reader: asyncio.Task[None] | None = None
        self._seq = 0
        self._pending: dict[int, _Frame] = {}
        self._lock = asyncio.Lock()
        self._room = asyncio.Semaphore(WINDOW)

    async def request(self, kind: str, build: Callable[[], Any], *, resend: bool) -> Any:
        """The response to one frame (`kind` one of send, send_many, ack, ask; `build` makes its request,
        again for a resend); raises its error, or NotOffered."""
        async with self._room:
            frame = _Frame(kind, build, resend, asyncio.get_running_loop().create_future())
            async with self._lock:
                await self._write(frame)
            try:
                response = await frame.future
            finally:
                self._pending.pop(frame.seq, None)
        if response.HasField("error"):
            raise from_status(response.error)
        return getattr(response, kind)

    async def _write(self, frame: _Frame) -> None:
        """Write `frame` on the stream (opened if need be); a failed write is left to the reader to resend."""
        if not self.offered:
            raise NotOffered
        first = self._call is None
        if first:
            self._call = self._client.mailbox.SendStream()
            self._seq = 0
            self._reader = asyncio.ensure_future(self._read(self._call, self._client.target))
        self._seq += 1
        frame.seq = self._seq
        self._pending[frame.seq] = frame
        request = mbx_pb.SendStreamRequest(seq=frame.seq, **{frame.kind: frame.build()})
        try:
            await (first_write(self._call, request) if first else self._call.write(request))
        except (grpc.RpcError, asyncio.InvalidStateError):
            pass  # the stream is ending: its reader sees why, and resends or fails this frame with the rest
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise  # our caller is cancelled; else the call was cancelled under us: as above


    async def _read(self, call: Any, target: str) -> None:
        error: BaseException
        try:
            while True:
                response = await call.read()
                if response is grpc.aio.EOF:
                    error = Unavailable("the daemon ended the send stream", reason="STREAM_ENDED")
                    break
                frame = self._pending.pop(response.seq, None)
                if frame is None or frame.future.done():
                    continue
                if response.error.code == _UNAVAILABLE and self._client.retry_window > 0 and self._again(frame):
                    # as a unary call's UNAVAILABLE: the next node (a node shutting down answers so), once safe
                    self._client._failed(target)
                    asyncio.ensure_future(self._resend([frame]))
                    continue
                frame.future.set_result(response)
        except grpc.RpcError as exc:
            error = exc
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():  # the client is closing: nothing is resent
                self._cut(call, Unavailable("the client was closed", reason="STREAM_ENDED"), target, resend=False)
                raise
            # the call was cancelled under the stream (grpc raises the cancel in read): the daemon is there
            for frame in self._pending.values():
                frame.deadline = None
            error = Unavailable("the send stream was cancelled", reason="STREAM_ENDED")
        self._cut(call, error, target)

    def _cut(self, call: Any, error: BaseException, target: str, *, resend: bool = True) -> None:
        if self._call is call:
            self._call = None
        call.cancel()
        if isinstance(error, grpc.RpcError) and error.code() == grpc.StatusCode.UNAVAILABLE:  # type: ignore[attr-defined]
            self._client._failed(target)  # with several nodes, the resend goes to the next
        pending, self._pending = list(self._pending.values()), {}
        if not pending:
            return
        code = error.code() if isinstance(error, grpc.RpcError) else None  # type: ignore[attr-defined]
        if code == grpc.StatusCode.UNIMPLEMENTED:
            self.offered = False
            failure: BaseException = NotOffered()
        elif isinstance(error, grpc.RpcError):
            failure = self._client._error(error)
        else:
            failure = error
        again: list[_Frame] = []
        if resend and code not in _ENDS and code != grpc.StatusCode.UNIMPLEMENTED:
            if code != grpc.StatusCode.UNAVAILABLE or self._client.retry_window > 0:
                # an unreachable daemon with no retry window fails at once, as a unary call does
                again = [frame for frame in pending if self._again(frame)]
        for frame in pending:
            if frame not in again and not frame.future.done():
                frame.future.set_exception(failure)
        if again:
            log.debug("send stream cut (%s): %d frames resent", failure, len(again))
            asyncio.ensure_future(self._resend(again))

    def _again(self, frame: _Frame) -> bool:
        """Whether to write `frame` again: a safe resend, first cut or within the retry window since."""
        if not frame.resend:
            return False
        now = asyncio.get_running_loop().time()
        if frame.deadline is None:
            frame.deadline = now + max(self._client.retry_window, 0.0)
            return True
        return now < frame.deadline

    async def _resend(self, frames: list[_Frame]) -> None:
        """Write the unanswered frames again on a new stream (the next node, with several), backing off as a
        unary call's retries do after each round of the nodes."""
        attempt = max(f.attempts for f in frames) + 1
        for frame in frames:
            frame.attempts = attempt
        try:
            await _nodes.pause(attempt, len(self._client.targets))
            async with self._lock:
                for frame in frames:
                    if not frame.future.done():
                        await self._write(frame)
        except BaseException as exc:  # no frame may be left waiting on a resend that died
            for frame in frames:
                if not frame.future.done():
                    frame.future.set_exception(Unavailable(f"the send stream could not be opened again: {exc!r}",
                                                           reason="STREAM_ENDED"))
            raise

    async def close(self) -> None:
        call, self._call = self._call, None
        if call is not None:
            call.cancel()
        if self._reader is not None:
            self._reader.cancel()
            await asyncio.gather(self._reader, return_exceptions=True)
