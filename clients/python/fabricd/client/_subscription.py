"""Subscription: a mailbox followed across dropped connections, acked in batches."""

from __future__ import annotations

import asyncio
import collections
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import grpc

from fabricd.client._acks import looks_minted
from fabricd.client._errors import DeadlineExceeded, FabricError, Unavailable, from_rpc_error
from fabricd.v1 import mailbox_service_pb2 as mbx_pb
from fabricd.v1 import types_pb2 as pb

if TYPE_CHECKING:
    from fabricd.client._client import Client

log = logging.getLogger("fabricd.client")

_RETRYABLE = (grpc.StatusCode.UNAVAILABLE,)
_ACK_MAX = 1000
"""Ids per AckMessages at most (the daemon's limit)."""


def _stalled(exc: grpc.RpcError) -> bool:
    """The daemon ended the stream because it was not read for `limits.stream_stall_timeout` (STREAM_STALLED)."""
    return exc.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and from_rpc_error(exc).reason == "STREAM_STALLED"


class Subscription:
    """Unread mail, then new mail as it arrives, surviving dropped connections.

    With `auto_ack` (the default) a message counts as handled when the caller
    asks for the next one, or when the subscription closes, unless the
    `async with` block is left by an exception: the message being handled then
    stays unacked. Handled messages are acknowledged in batches. A message handed out but not handled before a
    crash is delivered again by the next Subscribe. Across reconnects within
    one Subscription, nothing is handed out twice and nothing is skipped.

    When the daemon cannot be reached, `on_wait` hears "waiting for fabricd at
    ..." at once and "connected to fabricd at ..." when it answers again; after
    `wait` seconds of trying (0: forever) the iteration raises Unavailable. With
    several targets it subscribes again on the next node, from its cursor: the
    unacked mail comes again and what was handed out already is skipped by seq.
    """

    def __init__(self, client: Client, agent_id: str, *, auto_ack: bool = True, ack_batch: int = 256,
                 max_backoff: float = 2.0, wait: float = 30.0, on_wait: Callable[[str], None] | None = None) -> None:
        self._client = client
        self.agent_id = agent_id
        self._auto_ack = auto_ack
        self._ack_batch = ack_batch
        self._max_backoff = max_backoff
        self._buffer: collections.deque[pb.Message] = collections.deque()
        self._call: Any = None
        self._last_seq = 0
        self._handed: pb.Message | None = None
        self._to_ack: list[str] = []
        self._ack_tasks: set[asyncio.Task[None]] = set()
        self._closed = False
        self.reconnects = 0
        self._wait = wait
        self._on_wait = on_wait or (lambda text: log.warning("%s", text))
        self._outage_since: float | None = None
        self._target = client.target

    async def __aenter__(self) -> Subscription:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, *exc: object) -> None:
        # Left by an exception (or a cancel) while handling the last message handed out: that one was not handled.
        await self.close(handled=exc_type is None)

    def __aiter__(self) -> Subscription:
        return self

    async def __anext__(self) -> pb.Message:
        if self._closed:
            raise StopAsyncIteration  # not the rest of the buffer: close() sent its last acks, none would follow
        if self._handed is not None and self._auto_ack:
            self._handled(self._handed)
            self._handed = None
        while not self._buffer:
            if self._closed:
                raise StopAsyncIteration
            if self._to_ack:
                self._flush_acks()
            await self._fill()
        if len(self._to_ack) >= self._ack_batch:
            self._flush_acks()
        message = self._buffer.popleft()
        self._handed = message
        return message

    async def ack(self, *messages: pb.Message | str) -> None:
        """Acknowledge handled messages by hand (with auto_ack=False)."""
        self._to_ack.extend(m if isinstance(m, str) else m.id for m in messages)
        self._flush_acks()

    def _flush_acks(self) -> None:
        """Send the handled ids: at once, or when the ack in flight returns (one AckMessages at a time)."""
        if any(not task.done() for task in self._ack_tasks):
            return  # the ack in flight sends these next: one at a time, so acks never queue on each other
        task = asyncio.get_running_loop().create_task(self._send_acks())
        self._ack_tasks.add(task)
        task.add_done_callback(self._ack_tasks.discard)

    async def _send_acks(self) -> None:
        # One ack in flight per subscription: acks sent together would only wait on each other in the daemon
        # (on PostgreSQL each holds the mailbox row), and one larger ack costs less than several small ones.
        while self._to_ack:
            chunk, self._to_ack = self._to_ack[:_ACK_MAX], self._to_ack[_ACK_MAX:]
            try:
                await self._client.ack(self.agent_id, chunk)
            except FabricError as exc:  # kept: retried with the next flush
                if isinstance(exc, (Unavailable, DeadlineExceeded)):  # it may have landed: see fabricd.client._acks
                    again = [m for m in chunk if looks_minted(m)]
                    if len(again) < len(chunk):
                        log.info("the ack of %d messages with ids their senders chose may have landed: not sent "
                                 "again (what it did not consume stays unread and comes again): %s",
                                 len(chunk) - len(again), exc)
                    chunk = again
                log.debug("ack of %d messages failed, will retry: %s", len(chunk), exc)
                self._to_ack[:0] = chunk
                return

    async def _fill(self) -> None:
        backoff = 0.05
        while True:
            if self._closed:
                return  # closed from another task while this one read: the cancelled read ends here, unrenewed
            try:
                if self._call is None:
                    self._target = self._client.target
                    self._call = self._client.mailbox.Subscribe(mbx_pb.SubscribeRequest(agent_id=self.agent_id))
                    await self._call.wait_for_connection()
                    self._reached()
                response = await self._call.read()
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if task is not None and task.cancelling():
                    raise  # we are being cancelled (a timeout around __anext__, say): the call goes with us
                self._call = None  # cancelled by close(), or by an earlier interrupted read: subscribe again
                continue
            except grpc.RpcError as exc:
                self._call = None
                if _stalled(exc) and not self._closed:
                    # The daemon ended a stream we read too slowly: subscribe again (from the unacked mail).
                    log.debug("the daemon ended a stalled subscription, subscribing again")
                    self.reconnects += 1
                    continue
                if exc.code() not in _RETRYABLE or self._closed:
                    raise self._client._error(exc) from None
                self._unreachable(exc)
            else:
                if response is grpc.aio.EOF:  # the daemon ended the stream (shutdown): resubscribe
                    self._call = None
                else:
                    self._reached()
                    fresh = [m for m in response.messages if m.seq > self._last_seq]
                    if fresh:
                        self._last_seq = fresh[-1].seq
                        self._buffer.extend(fresh)
                    return
            if self._closed:
                return
            self.reconnects += 1
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, self._max_backoff)

    def _unreachable(self, exc: grpc.RpcError) -> None:
        """Say at once that we wait; look for the socket again; give up after `wait` seconds."""
        now = time.monotonic()
        moved = self._client._failed(self._target)  # with several nodes, the next Subscribe goes to the next one
        if self._outage_since is None:
            self._outage_since = now
            if moved:
                self._on_wait(f"fabricd at {self._target} is unavailable: subscribing through {self._client.target}")
            else:
                self._on_wait(f"waiting for fabricd at {self._client.tried}"
                              + (f" (giving up after {self._wait:g}s)" if self._wait else ""))
        if self._client.rediscover():
            self._on_wait(f"found fabricd at {self._client.target}")
        if self._wait and now - self._outage_since >= self._wait:
            error = self._client._error(exc)
            raise Unavailable(f"fabricd did not answer within {self._wait:g}s at {self._client.tried}: is it "
                              "running? (start it with `fabricd serve`)", reason="NOT_READY",
                              metadata={**error.metadata, "target": self._client.target,
                                        "wait_seconds": f"{self._wait:g}", "last_error": error.message}) from None

    def _reached(self) -> None:
        if self._outage_since is not None:
            self._outage_since = None
            self._on_wait(f"connected to fabricd at {self._client.target}")

    def _handled(self, message: pb.Message) -> None:
        if self._client._needs_ack(message.id):  # a task message our Reply consumed is read already
            self._to_ack.append(message.id)

    async def close(self, *, handled: bool = True) -> None:
        """Ack what was handled, then end the stream.

        `handled=False`: the message handed out last was not handled (its handler failed); it stays unacked, and
        the next Subscribe delivers it again.
        """
        if self._closed:
            return
        self._closed = True
        if self._handed is not None and self._auto_ack and handled:
            self._handled(self._handed)
            self._handed = None
        if self._call is not None:
            self._call.cancel()
            self._call = None
        for _ in range(3):
            if self._to_ack:
                self._flush_acks()
            if self._ack_tasks:
                await asyncio.gather(*list(self._ack_tasks), return_exceptions=True)
            if not self._to_ack:
                break
