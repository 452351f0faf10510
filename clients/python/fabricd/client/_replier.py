"""A replier's stream (RendezvousService.Serve): tickets in as they reach the head of the queue, answers out.

    async with Replier(client, "worker") as replier:
        async for ticket in replier:
            await replier.reply(ticket.ticket_id, "done")

The stream is opened again after a cut (a daemon restart, a dropped connection), backing
off to 2 s: tickets still queued come again (one being handled is not handed out twice),
and a reply whose answer was lost is written again; if its commit had landed, the daemon
says NO_PENDING_REQUEST and the ticket, read back, shows it answered: that is a success. A reply
to the head (no ticket id) is not written again, which could answer the next ticket: it fails
Unavailable, as a send without an id does on the sender's stream.
A daemon without Serve (UNIMPLEMENTED) is served by WatchQueue, GetTicket and the unary Reply.
A refusal of the stream itself (a revoked token, another agent's queue) ends the iteration.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import grpc

from fabricd.client._errors import FabricError, FailedPrecondition, Unavailable, from_status
from fabricd.client._sender import first_write
from fabricd.v1 import rendezvous_service_pb2 as rv_pb

if TYPE_CHECKING:
    from fabricd.client._client import Client

log = logging.getLogger("fabricd.client")
_ENDS = frozenset({grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED,
                   grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND, grpc.StatusCode.FAILED_PRECONDITION})


class Replier:
    """One agent's replier stream; an async iterator of rv_pb.Ticket and an async context manager."""

    def __init__(self, client: Client, agent_id: str, *, window: int = 16) -> None:
        self._client = client
        self.agent_id = agent_id
        self.window = window
        self._tickets: asyncio.Queue[rv_pb.Ticket | BaseException] = asyncio.Queue()
        self._handed: set[tuple[str, int]] = set()
        """Tickets handed out and not answered yet: a reconnect's copy is not handed out again."""
        self._pending: dict[int, tuple[rv_pb.ServeRequest, asyncio.Future[rv_pb.ServeAnswer]]] = {}
        self._seq = 0
        self._call: Any = None
        self._lock = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None
        self.unary = not client.streams
        """Served without the stream (the client's choice, or a daemon without Serve)."""

    async def __aenter__(self) -> Replier:
        self._start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def __aiter__(self) -> Replier:
        self._start()
        return self

    async def __anext__(self) -> rv_pb.Ticket:
        item = await self._tickets.get()
        if isinstance(item, BaseException):
            self._tickets.put_nowait(item)  # every later call ends alike
            if isinstance(item, StopAsyncIteration):
                raise StopAsyncIteration
            raise item
        return item

    def _start(self) -> None:
        if self._task is None:
            self._task = asyncio.ensure_future(self._run())

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        if self._call is not None:
            self._call.cancel()
        for _, future in self._pending.values():
            if not future.done():
                future.cancel()
        self._tickets.put_nowait(StopAsyncIteration())

    def _hand(self, ticket: rv_pb.Ticket) -> None:
        key = (ticket.ticket_id, len(ticket.earlier_turns))
        if key not in self._handed:
            self._handed.add(key)
            self._tickets.put_nowait(ticket)

    async def _run(self) -> None:
        backoff = 0.05
        while True:
            if self.unary:
                await self._watch()
                return
            try:
                await self._serve()
            except grpc.RpcError as exc:
                code = exc.code()  # type: ignore[attr-defined]
                if code == grpc.StatusCode.UNIMPLEMENTED:
                    self.unary = True
                    self._fail_pending(None)
                    continue
                self._fail_unsafe()
                if code in _ENDS:
                    error = self._client._error(exc)
                    self._fail_pending(error)
                    self._tickets.put_nowait(error)
                    return
                if code == grpc.StatusCode.UNAVAILABLE:
                    self._client._failed(self._client.target)
            else:
                self._fail_unsafe()
                backoff = 0.05
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, 2.0)

    async def _serve(self) -> None:
        call = self._client.rendezvous.Serve()
        async with self._lock:
            self._call, self._seq = call, 0
            await first_write(call, rv_pb.ServeRequest(open=rv_pb.ServeOpen(agent_id=self.agent_id,
                                                                           window=self.window)))
            for frame, _ in sorted(self._pending.values(), key=lambda p: p[0].seq):
                await self._write(frame)  # unanswered on the stream before: again, numbered anew
        try:
            while True:
                response = await call.read()
                if response is grpc.aio.EOF:
                    return
                kind = response.WhichOneof("frame")
                if kind == "tickets":
                    for ticket in response.tickets.tickets:
                        self._hand(ticket)
                elif kind == "answer":
                    entry = self._pending.pop(response.answer.seq, None)
                    if entry is not None and not entry[1].done():
                        entry[1].set_result(response.answer)
        finally:
            call.cancel()
            if self._call is call:
                self._call = None

    def _fail_unsafe(self) -> None:
        """Fail the replies to the head written on a stream that ended before answering them: one whose commit
        landed, written again, would answer the next ticket (a reply naming its ticket is resent safely)."""
        for seq, (frame, future) in list(self._pending.items()):
            if frame.WhichOneof("frame") == "reply" and not frame.reply.ticket_id:
                del self._pending[seq]
                if not future.done():
                    future.set_exception(Unavailable(
                        "the replier stream was cut before this reply to the head was answered: it may have "
                        "landed (read the queue's tickets to know), so it is not written again", reason="STREAM_ENDED"))

    async def _write(self, frame: rv_pb.ServeRequest) -> asyncio.Future[rv_pb.ServeAnswer]:
        """Number `frame` and write it (lock held); a failed write is written again on the next stream. The
        future of its answer, which may come (and leave `_pending`) before the write returns."""
        future = self._pending.pop(frame.seq, (None, None))[1] if frame.seq else None
        self._seq += 1
        frame.seq = self._seq
        future = future or asyncio.get_running_loop().create_future()
        self._pending[frame.seq] = (frame, future)
        if self._call is not None:
            try:
                await self._call.write(frame)
            except (grpc.RpcError, asyncio.InvalidStateError):
                pass
        return future

    def _fail_pending(self, error: BaseException | None) -> None:
        """Frames waiting on a stream that will not answer: failed with `error`, or (None) sent unary."""
        pending, self._pending = self._pending, {}
        for frame, future in pending.values():
            if future.done():
                continue
            if error is not None:
                future.set_exception(error)
            else:
                future.set_exception(_Unary(frame))

    async def _watch(self) -> None:
        """Without Serve: the queue's head from WatchQueue, each ticket read whole."""
        async for queued in self._client.watch_queue(self.agent_id, max_tickets=self.window):
            for q in queued:
                try:
                    self._hand(await self._client.get_ticket(q.ticket_id))
                except FabricError:
                    continue  # answered or pruned meanwhile

    async def _answer(self, frame: rv_pb.ServeRequest) -> rv_pb.ServeAnswer:
        self._start()
        async with self._lock:
            frame.seq = 0
            future = await self._write(frame)
        try:
            return await future
        finally:
            self._pending.pop(frame.seq, None)

    async def reply(self, ticket_id: str, result: str, *, outcome: int = rv_pb.TICKET_OUTCOME_COMPLETED,
                    data: bytes = b"", headers: Mapping[str, str] | None = None) -> str:
        """Answer `ticket_id` (empty: the head); returns the ticket id answered, once committed."""
        request = rv_pb.ReplyRequest(ticket_id=ticket_id, result=result, outcome=outcome, data=data,
                                     headers=headers or {})
        try:
            answer = await self._answer(rv_pb.ServeRequest(reply=request)) if not self.unary else None
        except _Unary:
            answer = None
        if answer is None:
            answered = await self._client.reply(self.agent_id, result, ticket_id=ticket_id, outcome=outcome,
                                                data=data, headers=headers)
        elif answer.HasField("error"):
            error = from_status(answer.error)
            if not (isinstance(error, FailedPrecondition) and ticket_id and await self._landed(ticket_id, request)):
                raise error
            answered = ticket_id
        else:
            answered = answer.ticket_id
        self._client._consumed(answered)  # the reply consumed the task message: a subscription need not ack it
        self._handed = {k for k in self._handed if k[0] != answered}
        return answered

    async def _landed(self, ticket_id: str, request: rv_pb.ReplyRequest) -> bool:
        """Whether a reply written again had landed the first time: the ticket holds this very answer."""
        ticket = await self._client.get_ticket(ticket_id)
        return (ticket.state == rv_pb.TICKET_STATE_ANSWERED and ticket.result == request.result
                and ticket.outcome == (request.outcome or rv_pb.TICKET_OUTCOME_COMPLETED))

    async def cancel_head(self, ticket_id: str) -> bool:
        """Retire `ticket_id` if it is at the head of the queue; False otherwise."""
        try:
            answer = await self._answer(rv_pb.ServeRequest(cancel_head=rv_pb.CancelHeadRequest(
                ticket_id=ticket_id))) if not self.unary else None
        except _Unary:
            answer = None
        if answer is None:
            return await self._client.cancel_head(self.agent_id, ticket_id)
        if answer.HasField("error"):
            raise from_status(answer.error)
        self._handed = {k for k in self._handed if k[0] != ticket_id}
        return answer.cancelled


async def answer_each(replier: Replier, handler: Callable[[rv_pb.Ticket], Any], limit: int = 0) -> None:
    """Client.serve: each ticket to `handler`, in turn, and its result back as the reply (see there); returns
    after `limit` answers (0: never)."""
    answered = 0
    async with replier:
        async for ticket in replier:
            try:
                out = handler(ticket)
                if inspect.isawaitable(out):
                    out = await out
            except Exception as exc:  # the asker is told, the replier goes on
                log.warning("handler failed on ticket %s: %s", ticket.ticket_id, exc)
                out = rv_pb.ReplyRequest(result=f"{type(exc).__name__}: {exc}", outcome=rv_pb.TICKET_OUTCOME_FAILED)
            if not isinstance(out, rv_pb.ReplyRequest):
                out = rv_pb.ReplyRequest(result=str(out))
            await replier.reply(ticket.ticket_id, out.result, outcome=out.outcome or rv_pb.TICKET_OUTCOME_COMPLETED,
                                data=out.data, headers=out.headers)
            answered += 1
            if answered == limit:
                return


class _Unary(Exception):
    """The daemon has no Serve: the answer goes by the unary call."""

    def __init__(self, frame: rv_pb.ServeRequest) -> None:
        super().__init__("unary")
        self.frame = frame
