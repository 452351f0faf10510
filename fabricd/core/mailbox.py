"""Mailboxes: send (idempotent on a client id), peek, drain, subscribe with acks.

A drain consumes only what its caller can still receive. The write consumes
nothing when the caller is gone or has less than DELIVERY_MARGIN_S left before
its deadline (asked inside the write, at the moment it runs); a caller that goes
away while the write is in flight gets its messages put back, unread, in their
places, as does one whose deadline came too near by the time the write was
durable, or whose answer the transport never took (`put_back_later`: a client
that refuses an answer larger than its receive limit, or stops reading). What
remains is the moment between the answer leaving the daemon and the caller
reading it: a client killed then loses that batch. Clients that
cannot lose a message read with Subscribe and Ack (nothing is consumed before
the ack).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, replace

from fabricd.core import validate
from fabricd.core.errors import AlreadyExists, DeadlineExceeded, FabricError, InvalidArgument, ResourceExhausted
from fabricd.core.ids import message_digest
from fabricd.core.limits import Limits
from fabricd.core.model import Address, Envelope, IdRecord, Message, Sent
from fabricd.core.ports import Service, Store

DELIVERY_MARGIN_S = 0.05
"""A drain consumes only with at least this long left before its caller's deadline, to deliver the answer."""


class Claim:
    """Whether a drain's caller can still take delivery; asked by the write (on the writer's thread)."""

    __slots__ = ("deadline", "gone")

    def __init__(self, time_remaining: float | None) -> None:
        self.deadline = None if time_remaining is None else time.monotonic() + time_remaining
        self.gone = False

    def deliverable(self) -> bool:
        return not self.gone and (self.deadline is None or time.monotonic() < self.deadline - DELIVERY_MARGIN_S)


def undeliverable(agent_id: str) -> DeadlineExceeded:
    return DeadlineExceeded(
        f"the drain of {agent_id!r} could not be answered before the call's deadline, so nothing was consumed; "
        f"call with a longer deadline (at least {DELIVERY_MARGIN_S * 1000:.0f} ms more than the drain takes)",
        reason="UNDELIVERABLE_DRAIN", agent_id=agent_id)


@dataclass(frozen=True, slots=True)
class Drained:
    """What one drain consumed: the messages, the unread left, and the revision a put back needs."""

    agent_id: str
    messages: list[Envelope]
    remaining: int
    revision: int


def mailbox_key(agent_id: str) -> str:
    """The wake-up key of a mailbox."""
    return "mailbox/" + agent_id


def digest_of(msg: Message) -> bytes:
    """What a client sent, minus the recipient's name: a resend may name the agent another way."""
    return message_digest(
        (msg.sender.agent_id, msg.sender.session_id),
        ("", msg.recipient.session_id),
        tuple((a.agent_id, a.session_id) for a in msg.reply_to),
        msg.thread_id,
        msg.text,
        msg.data,
        msg.headers,
        int(msg.kind),
        msg.hops,
        msg.ticket_id,
    )


# -- the rules every backend applies to a send


def as_stored(msg: Message, record: IdRecord) -> Message:
    """A resend answered with the message as it was stored: the request plus what the server assigned then."""
    return replace(
        msg,
        recipient=Address(record.recipient, msg.recipient.session_id),
        seq=record.seq,
        send_time_ns=record.send_time_ns,
    )


def message_id_reused(message_id: str) -> AlreadyExists:
    return AlreadyExists(f"message id {message_id!r} was already used for a different message",
                         reason="MESSAGE_ID_REUSED", message_id=message_id)


def mailbox_full(agent_id: str, unread: int, limit: int) -> ResourceExhausted:
    return ResourceExhausted(
        f"mailbox {agent_id!r} holds {unread} unread messages, its quota; retry once the agent has read some",
        reason="MAILBOX_FULL",
        agent_id=agent_id,
        limit=limit,
    )


def at_index(exc: FabricError, i: int) -> FabricError:
    """A batch's refusal, naming the message: the error keeps its class and reason."""
    return type(exc)(f"messages[{i}]: {exc.message}", reason=exc.reason, index=i, **exc.metadata)


class Mailboxes(Service):
    """The mailbox contract over a Store."""

    def __init__(self, store: Store, limits: Limits, clock: Callable[[], int], keepalive_s: float = 15.0) -> None:
        super().__init__(store, limits, clock, keepalive_s)
        self._background: set[asyncio.Task[None]] = set()
        """Put-backs of drains whose callers left, kept until they are durable."""
        self._streams: dict[str, int] = {}
        """Open Subscribe streams of this process by agent id."""

    # -- the contract

    async def send(self, msg: Message, create_mailbox: bool = False, agent_token: bool = False) -> Sent:
        """Store one message; `agent_token`: the caller is an agent token, held to its quotas."""
        validate.message(msg, self.limits)
        digest = digest_of(msg) if msg.id else b""
        (result,) = await self._store.mailboxes.append(((msg, digest),), create=create_mailbox, atomic=False,
                                                        max_unread=self.limits.max_unread,
                                                        quota=self.limits.quotas_for(agent_token))
        if isinstance(result, FabricError):
            raise result
        return result

    async def send_many(self, messages: Sequence[Message], atomic: bool, create_mailbox: bool = False,
                        agent_token: bool = False) -> list[Sent | FabricError]:
        """Store a batch in one transaction; each message gets its result or its error.

        With `atomic`, the first invalid message fails the whole call and nothing is stored.
        """
        if not messages or len(messages) > self.limits.max_batch:
            raise InvalidArgument(
                f"send 1 to {self.limits.max_batch} messages per call, not {len(messages)}",
                reason="BATCH_SIZE",
                field="messages",
                limit=self.limits.max_batch,
            )
        out: list[Sent | FabricError | None] = []
        items: list[tuple[Message, bytes]] = []
        for i, msg in enumerate(messages):
            try:
                validate.message(msg, self.limits)
                items.append((msg, digest_of(msg) if msg.id else b""))
                out.append(None)
            except FabricError as exc:
                if atomic:  # nothing is stored; the error keeps its class and names the message
                    raise at_index(exc, i) from exc
                out.append(exc)
        if not items:  # every message was refused
            return [result for result in out if result is not None]
        stored = iter(await self._store.mailboxes.append(items, create=create_mailbox, atomic=atomic,
                                                          max_unread=self.limits.max_unread,
                                                          quota=self.limits.quotas_for(agent_token)))
        if len(items) == len(out):
            return list(stored)
        return [next(stored) if r is None else r for r in out]

    async def peek(self, agent_id: str, limit: int, max_bytes: int = 0) -> tuple[list[Envelope], int]:
        validate.agent_id(agent_id, self.limits)
        limit = validate.limit(limit, self.limits)
        budget = validate.response_bytes(max_bytes, self.limits)
        return await self._store.mailboxes.peek(agent_id, limit, budget)

    async def drain(self, agent_id: str, limit: int, time_remaining: float | None = None,
                    max_bytes: int = 0) -> tuple[list[Envelope], int]:
        """Consume and return the oldest unread messages, only if the caller can still receive them.

        `time_remaining`: seconds until the caller's deadline (None: no deadline). See the module docstring.
        `max_bytes`: of messages in the answer (0: the default, under gRPC's default 4 MiB receive limit).
        """
        drained = await self.take(agent_id, limit, time_remaining, max_bytes)
        return drained.messages, drained.remaining

    async def take(self, agent_id: str, limit: int, time_remaining: float | None = None,
                   max_bytes: int = 0) -> Drained:
        """`drain`, with what `put_back_later` needs when the answer does not reach the caller."""
        validate.agent_id(agent_id, self.limits)
        limit = validate.limit(limit, self.limits)
        budget = validate.response_bytes(max_bytes, self.limits)
        claim = Claim(time_remaining)
        mailboxes = self._store.mailboxes
        write = asyncio.ensure_future(mailboxes.drain(agent_id, limit, budget, claim.deliverable))
        try:
            messages, remaining, revision = await asyncio.shield(write)
        except asyncio.CancelledError:
            claim.gone = True  # a write not yet run takes nothing; one already durable is put back
            self._put_back_when_done(agent_id, write)
            raise
        if not claim.deliverable():
            if messages:
                await mailboxes.put_back(agent_id, messages, revision)
            raise undeliverable(agent_id)
        return Drained(agent_id, messages, remaining, revision)

    def put_back_later(self, drained: Drained) -> None:
        """Make a drain's messages unread again, in their places, soon (its answer never reached the caller)."""
        if drained.messages:
            done: asyncio.Future[tuple[list[Envelope], int, int]] = asyncio.get_running_loop().create_future()
            done.set_result((drained.messages, drained.remaining, drained.revision))
            self._put_back_when_done(drained.agent_id, done)

    def _put_back_when_done(self, agent_id: str, write: asyncio.Future[tuple[list[Envelope], int, int]]) -> None:
        async def put_back() -> None:
            try:
                messages, _, revision = await write
            except FabricError:
                return
            if messages:
                await self._store.mailboxes.put_back(agent_id, messages, revision)  # before close: close commits it

        task = asyncio.ensure_future(put_back())
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def ack(self, agent_id: str, message_ids: Sequence[str]) -> int:
        limits = self.limits
        validate.agent_id(agent_id, limits)
        if not message_ids or len(message_ids) > limits.max_batch:
            raise InvalidArgument(
                f"ack 1 to {limits.max_batch} message ids per call, not {len(message_ids)}",
                reason="BATCH_SIZE",
                field="message_ids",
                limit=limits.max_batch,
            )
        longest = limits.max_id_chars
        for i, mid in enumerate(message_ids):
            if not (0 < len(mid) <= longest and mid.isprintable()):  # what text_field allows; it words the refusal
                validate.text_field(mid, f"message_ids[{i}]", limits, required=True)
        return await self._store.mailboxes.ack(agent_id, message_ids)

    async def forget_old_ids(self, window_s: float, scan: int = 5000) -> int:
        """Forget the ids of consumed messages older than the dedupe window; one pass over the id table.

        Unread messages keep their ids (acks need them). A resend of a forgotten id is stored anew.
        """
        horizon = self._clock() - int(window_s * 1e9)
        cursor, forgotten = b"", 0
        while True:
            pruned, cursor = await self._store.mailboxes.forget_ids(horizon, cursor, scan)
            forgotten += pruned
            if not cursor:
                return forgotten

    async def subscribe(self, agent_id: str, batch: int = 512) -> AsyncIterator[list[Envelope]]:
        """Unread messages oldest first, then new ones as they commit; [] is a keepalive.

        Each stream keeps its own cursor, so every subscriber sees every unread
        message; nothing is consumed until acked. A wake-up is only a hint: the
        loop re-reads storage every time, so a lost one costs a keepalive's delay.
        A batch holds at most `limits.stream_buffer_bytes` of messages (one larger
        message alone), and the next is read only when the consumer asks for it.
        """
        validate.agent_id(agent_id, self.limits)
        wakeups, mailboxes = self._wakeups, self._store.mailboxes
        key = mailbox_key(agent_id)
        cursor = 0
        self._streams[agent_id] = self._streams.get(agent_id, 0) + 1
        try:
            while True:
                seen = wakeups.version(key)
                messages = await mailboxes.unread(agent_id, cursor, batch, self.limits.stream_buffer_bytes)
                if messages:
                    cursor = messages[-1].seq
                    yield messages
                    continue
                woke = await wakeups.wait(key, seen, self._keepalive_s)
                if wakeups.closed:
                    return
                if not woke:
                    yield []
        finally:
            left = self._streams.pop(agent_id) - 1
            if left:
                self._streams[agent_id] = left

    def streaming(self, agent_id: str) -> bool:
        """Whether this process serves an open Subscribe stream of `agent_id` (wake hooks hold off then);
        thread-safe to ask (a dict read)."""
        return agent_id in self._streams
