"""A sender's pipeline: the frames of one bidirectional stream, taken in order, answered after their commits.

Invariants (every backend):
- Frames are taken in their order: sends, batches and acks run one step at a time, and an
  ask is queued in its place, so a mailbox's order is the order of the frames.
- Consecutive sends and non-atomic batches with the same create_mailbox go to the store
  as one batch (one commit), each keeping its own result; an atomic batch goes alone.
- Each frame gets exactly one result, yielded only once its write is durable (an ask's,
  once its ticket is answered or fails); a refused frame gets its error, and the rest go on.
- At most `window` frames, and about `window_bytes` of them (one larger frame alone), are read
  and not yet answered: a sender faster than the commits waits for room, so the memory a
  stream holds is bounded by its window.
- A cut stream cancels the steps in flight as a dropped unary call would (an ask whose
  caller left retires its ticket after the grace a request key gives): a resend of the
  same ids and request keys after reconnect is stored once (fabricd.core.mailbox, rendezvous).
- At shutdown a stream stops reading, answers every frame it read, then ends UNAVAILABLE
  SHUTTING_DOWN: an idle sender's stream does not hold the daemon's stop for its grace.

`merge` interleaves several sources into one stream (a replier's tickets and answers).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeGuard, TypeVar

from fabricd.core.errors import FabricError
from fabricd.core.mailbox import Mailboxes
from fabricd.core.model import Message, Sent, Ticket
from fabricd.core.rendezvous import Rendezvous, TicketRequest
from fabricd.core.rendezvous_wait import shutting_down

WINDOW = 128
"""Frames of one stream read and not yet answered."""
WINDOW_BYTES = 4 << 20
"""Bytes of the frames of one stream read and not yet answered (one larger frame is read alone)."""

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class SendOp:
    """SendMessage (`single`) or SendMessages."""

    messages: Sequence[Message]
    create_mailbox: bool = False
    atomic: bool = False
    single: bool = True


@dataclass(frozen=True, slots=True)
class AckOp:
    agent_id: str
    message_ids: Sequence[str]


@dataclass(frozen=True, slots=True)
class AskOp:
    request: TicketRequest
    timeout_s: float | None = None


Op = SendOp | AckOp | AskOp | FabricError
"""A frame's request; a FabricError is a frame refused before it reached the pipeline (answered as is)."""
Result = Sent | list[Sent | FabricError] | int | Ticket | FabricError
"""SendOp single: Sent; batch: list of Sent or FabricError; AckOp: the count; AskOp: the answered Ticket."""


class Pipeline:
    """Runs one stream's frames (see the module docstring)."""

    def __init__(self, mailboxes: Mailboxes, rendezvous: Rendezvous, *, agent_token: bool,
                 window: int = WINDOW, window_bytes: int = WINDOW_BYTES) -> None:
        self._mailboxes = mailboxes
        self._rv = rendezvous
        self._agent_token = agent_token
        self._room = asyncio.Semaphore(window)
        self._window_bytes = window_bytes
        self._held = 0
        """Bytes of the frames read and not yet answered."""
        self._sizes: dict[int, int] = {}
        self._freed = asyncio.Event()
        self._out: asyncio.Queue[tuple[int, Result] | None] = asyncio.Queue()
        self._asks: set[asyncio.Task[None]] = set()
        self._failed: BaseException | None = None
        """What a step or an ask's wait raised that is no FabricError (a bug, a broken store): it ends the stream,
        as it would end a unary call INTERNAL, instead of leaving the frames it held unanswered for good."""

    async def run(self, frames: AsyncIterator[tuple[int, Op, int]]) -> AsyncIterator[tuple[int, Result]]:
        """Each frame's (seq, result), once durable; ends when `frames` (seq, op, its size in bytes) does and
        every frame is answered."""
        pending: list[tuple[int, Op]] = []
        more = asyncio.Event()
        done = False
        shut = False

        async def read() -> None:
            nonlocal done
            try:
                while True:
                    await self._room.acquire()
                    while self._held >= self._window_bytes:  # nothing held: a frame of any size is read
                        self._freed.clear()
                        await self._freed.wait()
                    try:
                        seq, op, size = await anext(frames)
                    except StopAsyncIteration:
                        self._room.release()
                        return
                    self._sizes[seq] = size
                    self._held += size
                    pending.append((seq, op))
                    more.set()
            finally:
                done = True
                more.set()

        async def steps() -> None:
            try:
                while True:
                    await more.wait()
                    more.clear()
                    while pending:
                        batch = pending[:]
                        del pending[:]
                        await self._step(batch)
                    if done and not pending:
                        if self._asks:
                            await asyncio.gather(*self._asks)
                        await self._out.put(None)
                        return
            except Exception as exc:
                await self._fail(exc)

        reader, stepper = asyncio.ensure_future(read()), asyncio.ensure_future(steps())
        shutdown = asyncio.ensure_future(self._mailboxes.closing())

        def stop_reading(_: object) -> None:  # the daemon shuts down: answer what was read, then end
            nonlocal shut
            if not shutdown.cancelled() and not reader.done():
                shut = True
                reader.cancel()

        shutdown.add_done_callback(stop_reading)
        try:
            while True:
                item = await self._out.get()
                if item is None:
                    if self._failed is not None:
                        raise self._failed
                    break
                yield item
                self._room.release()
                self._held -= self._sizes.pop(item[0], 0)
                self._freed.set()
            if shut:
                raise shutting_down()  # every frame read is answered; the client sends the rest again elsewhere
            await reader  # raise what the reader met (a malformed frame)
        finally:
            for task in (reader, stepper, shutdown, *self._asks):
                task.cancel()
            await asyncio.gather(reader, stepper, shutdown, *self._asks, return_exceptions=True)
            closing = getattr(frames, "aclose", None)
            if closing is not None:
                await closing()

    def _mergeable(self, op: Op) -> TypeGuard[SendOp]:
        """A send or non-atomic batch the store may take with its neighbours (an empty or oversized batch
        goes alone, to be refused as SendMessages refuses it)."""
        return (isinstance(op, SendOp) and not op.atomic
                and 0 < len(op.messages) <= self._mailboxes.limits.max_batch)

    async def _step(self, frames: list[tuple[int, Op]]) -> None:
        """Run the frames read so far, in order: runs of mergeable sends as one batch each."""
        limit = self._mailboxes.limits.max_batch
        i = 0
        while i < len(frames):
            seq, op = frames[i]
            if not self._mergeable(op):
                await self._one(seq, op)
                i += 1
                continue
            sends = [(seq, op)]
            size = len(op.messages)
            while i + len(sends) < len(frames):
                other_seq, other = frames[i + len(sends)]
                if (not self._mergeable(other) or other.create_mailbox != op.create_mailbox
                        or size + len(other.messages) > limit):
                    break
                sends.append((other_seq, other))
                size += len(other.messages)
            await self._sends(sends)
            i += len(sends)

    async def _sends(self, frames: list[tuple[int, SendOp]]) -> None:
        ops = [op for _, op in frames]
        messages = [m for op in ops for m in op.messages]
        try:
            results = await self._mailboxes.send_many(messages, False, ops[0].create_mailbox, self._agent_token)
        except FabricError as exc:  # refused whole (the store failed): every frame in it
            for seq, _ in frames:
                await self._out.put((seq, exc))
            return
        at = 0
        for (seq, _), op in zip(frames, ops, strict=True):
            mine = results[at:at + len(op.messages)]
            at += len(op.messages)
            await self._out.put((seq, mine[0] if op.single else list(mine)))

    async def _one(self, seq: int, op: Op) -> None:
        result: Result
        try:
            if isinstance(op, FabricError):
                result = op
            elif isinstance(op, SendOp):  # atomic, empty or oversized
                result = await self._mailboxes.send_many(op.messages, op.atomic, op.create_mailbox,
                                                         self._agent_token)
            elif isinstance(op, AckOp):
                result = await self._mailboxes.ack(op.agent_id, op.message_ids)
            else:
                ticket = await self._rv.ask_queue(op.request, op.timeout_s)
                task = asyncio.ensure_future(self._answer(seq, ticket, op))
                self._asks.add(task)
                task.add_done_callback(self._asks.discard)
                return
        except FabricError as exc:
            result = exc
        await self._out.put((seq, result))

    async def _answer(self, seq: int, ticket: Ticket, op: AskOp) -> None:
        try:
            result: Result = await self._rv.answer_of(ticket, op.request, op.timeout_s)
        except FabricError as exc:
            result = exc
        except Exception as exc:
            await self._fail(exc)
            return
        await self._out.put((seq, result))

    async def _fail(self, exc: BaseException) -> None:
        """End the stream with `exc` (see _failed), the first such error only."""
        if self._failed is None:
            self._failed = exc
            await self._out.put(None)


async def merge(*sources: AsyncIterator[T]) -> AsyncIterator[T]:
    """The items of every source as they come; each source waits until its item is taken (bounded).
    Ends when all sources have; a source's error ends the merge with it, closing the others."""
    out: asyncio.Queue[tuple[int, Any]] = asyncio.Queue(maxsize=1)
    taken = [asyncio.Event() for _ in sources]

    async def pump(i: int, source: AsyncIterator[T]) -> None:
        try:
            async for item in source:
                taken[i].clear()
                await out.put((0, (i, item)))
                await taken[i].wait()
        except BaseException as exc:  # handed to the consumer, which raises it
            if not isinstance(exc, asyncio.CancelledError):
                await out.put((2, exc))
                return
            raise
        await out.put((1, None))

    tasks = [asyncio.ensure_future(pump(i, s)) for i, s in enumerate(sources)]
    try:
        running = len(tasks)
        while running:
            kind, value = await out.get()
            if kind == 1:
                running -= 1
            elif kind == 2:
                raise value
            else:
                i, item = value
                yield item
                taken[i].set()
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for source in sources:
            closing = getattr(source, "aclose", None)
            if closing is not None:
                await closing()
