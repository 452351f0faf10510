"""Rendezvous: ask an agent and wait for its reply, over a durable FIFO of tickets per target.

A ticket leaves its target's FIFO when answered or retired (cancelled, its
queue closed, or abandoned by its Ask). Waiters sleep on the notifier and read
the ticket from storage when woken, so a restart loses no queued ticket and no
uncollected result: they are in LMDB, and AwaitReply re-attaches.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

from fabricd.core import validate
from fabricd.core.directory import resolve_name
from fabricd.core.errors import Aborted, DeadlineExceeded, FailedPrecondition, InvalidArgument, NotFound, Unavailable
from fabricd.core.limits import Limits
from fabricd.core.mailbox import Mailboxes
from fabricd.core.model import Address, Message, MessageKind, Ticket, TicketSourceKind, TicketState
from fabricd.core.notify import ChangeNotifier
from fabricd.core.ports import Service, Store, Tx

MAX_QUEUE_SCAN = 100_000


def ticket_key(ticket_id: str) -> tuple[str, str]:
    return ("ticket", ticket_id)


def queue_key(agent_id: str) -> tuple[str, str]:
    return ("queue", agent_id)


@dataclass(frozen=True, slots=True)
class TicketRequest:
    """What an asker sends: the fields of Ask and EnqueueTicket."""

    target: str
    task: str
    requester: str = ""
    source_kind: int = TicketSourceKind.HUMAN
    """A TicketSourceKind; an int here, so an unknown value from the wire can be refused."""
    source_agent: str = ""
    conversation_id: str = ""


def task_text(ticket: Ticket) -> str:
    """The task as the target reads it in its mailbox, with who asked."""
    who = ticket.requester
    if ticket.source_kind == TicketSourceKind.AGENT and ticket.source_agent != who:
        who = f"{who} (agent {ticket.source_agent})"
    return f"Request from {who}, ticket {ticket.ticket_id}:\n\n{ticket.task}"


class Rendezvous(Service):
    """The rendezvous contract over a Store."""

    def __init__(
        self,
        store: Store,
        notifier: ChangeNotifier,
        limits: Limits,
        clock: Callable[[], int],
        mailboxes: Mailboxes,
        *,
        retention_s: float = 24 * 3600,
        keepalive_s: float = 15.0,
    ) -> None:
        super().__init__(store, notifier, limits, clock, keepalive_s)
        self._mailboxes = mailboxes
        self._retention_ns = int(retention_s * 1e9)
        self.open_waits = 0
        self._background: set[asyncio.Task[object]] = set()

    # -- checks

    def _check(self, request: TicketRequest) -> TicketRequest:
        limits = self.limits
        validate.text_field(request.target, "target", limits, required=True)
        if not request.task:
            raise InvalidArgument("task is required", reason="MISSING_FIELD", field="task")
        validate.payload_size(len(request.task.encode("utf-8", "surrogatepass")), "task", limits)
        validate.text_field(request.requester, "requester", limits, required=False)
        validate.text_field(request.conversation_id, "conversation_id", limits, required=False)
        kind = request.source_kind
        if kind not in (TicketSourceKind.UNSPECIFIED, TicketSourceKind.HUMAN, TicketSourceKind.AGENT):
            raise InvalidArgument(f"source.kind {int(kind)} is unknown", reason="INVALID_FIELD", field="source.kind")
        if kind == TicketSourceKind.AGENT:
            validate.text_field(request.source_agent, "source.agent_id", limits, required=True)
        elif request.source_agent:
            validate.text_field(request.source_agent, "source.agent_id", limits, required=False)
        return request

    def _ticket_id(self, ticket_id: str) -> str:
        validate.text_field(ticket_id, "ticket_id", self.limits, required=True)
        return ticket_id

    @staticmethod
    def _timeout(timeout_s: float | None) -> float | None:
        if timeout_s is not None and timeout_s < 0:
            raise InvalidArgument("timeout may not be negative", reason="INVALID_FIELD", field="timeout")
        return timeout_s

    # -- the rule of each change, inside the writer's transaction

    def _finish(self, tx: Tx, ticket: Ticket, state: TicketState, *, result: str = "", reason: str = "") -> None:
        ticket.state = state
        ticket.result = result
        ticket.reason = reason
        ticket.finish_ns = self._clock()
        tx.put_ticket(ticket)
        Mailboxes.consume_in(tx, ticket.target, ticket.ticket_id)  # answered or withdrawn: no longer unread
        tx.after_commit(self._notifier.notify, ticket_key(ticket.ticket_id))
        tx.after_commit(self._notifier.notify, queue_key(ticket.target))

    def _enqueue_in(self, tx: Tx, request: TicketRequest) -> tuple[Ticket, int]:
        entry = resolve_name(tx, request.target)
        if entry is None:
            raise NotFound(
                f"no agent or session is named {request.target!r}; it must register (or have mail) before it can be asked",
                reason="UNKNOWN_TARGET",
                target=request.target,
            )
        kind = TicketSourceKind(request.source_kind) or TicketSourceKind.HUMAN
        requester = request.requester or (request.source_agent if kind == TicketSourceKind.AGENT else "human")
        position = len(tx.queue(entry.agent_id, MAX_QUEUE_SCAN))
        ticket = Ticket(
            ticket_id=str(uuid.uuid4()),
            target=entry.agent_id,
            task=request.task,
            source_kind=kind,
            source_agent=request.source_agent,
            requester=requester,
            conversation_id=request.conversation_id,
            seq=tx.next_sequence("ticket"),
            enqueue_ns=self._clock(),
        )
        message = Message(
            id=ticket.ticket_id,
            sender=Address(request.source_agent) if request.source_agent else Address(),
            recipient=Address(entry.agent_id),
            thread_id=request.conversation_id,
            text=task_text(ticket),
            headers={"fabricd-ticket-id": ticket.ticket_id, "fabricd-requester": requester},
            kind=MessageKind.USER if kind == TicketSourceKind.HUMAN else MessageKind.AGENT,
            ticket_id=ticket.ticket_id,
        )
        self._mailboxes.store_in(tx, message, b"")
        tx.put_ticket(ticket)
        tx.after_commit(self._notifier.notify, queue_key(entry.agent_id))
        return ticket, position

    @staticmethod
    def _target(tx: Tx, name: str) -> str:
        """The agent a queue name means: an agent id, or an unambiguous session name."""
        entry = resolve_name(tx, name)
        return entry.agent_id if entry is not None else name

    @property
    def mailboxes(self) -> Mailboxes:
        return self._mailboxes

    @staticmethod
    def queued_in(tx: Tx, agent_id: str) -> list[Ticket]:
        return tx.queue(agent_id, MAX_QUEUE_SCAN)

    def abort_queue_in(self, tx: Tx, agent_id: str, reason: str) -> int:
        """Retire every queued ticket of `agent_id` in `tx`; their waiters get ABORTED."""
        tickets = tx.queue(agent_id, MAX_QUEUE_SCAN)
        for ticket in tickets:
            self._finish(tx, ticket, TicketState.ABORTED, reason=reason)
        return len(tickets)

    # -- the contract

    async def enqueue(self, request: TicketRequest) -> tuple[Ticket, int]:
        self._check(request)
        return await self._store.write(lambda tx: self._enqueue_in(tx, request))

    async def await_reply(self, ticket_id: str, timeout_s: float | None) -> str:
        """The ticket's result, waiting up to `timeout_s` (None: until cancelled)."""
        self._ticket_id(ticket_id)
        self._timeout(timeout_s)
        loop = asyncio.get_running_loop()
        deadline = None if timeout_s is None else loop.time() + timeout_s
        key = ticket_key(ticket_id)
        notifier = self._notifier
        self.open_waits += 1
        try:
            while True:
                seen = notifier.version(key)
                ticket = self._store.read(lambda tx: tx.get_ticket(ticket_id))
                if ticket is None:
                    raise NotFound(f"no ticket {ticket_id!r} (never issued, or expired)", reason="TICKET_NOT_FOUND",
                                   ticket_id=ticket_id)
                if ticket.state == TicketState.ANSWERED:
                    return ticket.result
                if ticket.state == TicketState.ABORTED:
                    raise Aborted(
                        f"the reply channel closed before a result was rendered: {ticket.reason}",
                        reason="TICKET_ABORTED",
                        ticket_id=ticket_id,
                    )
                remaining = None if deadline is None else deadline - loop.time()
                if remaining is not None and remaining <= 0:
                    raise DeadlineExceeded(f"no reply to ticket {ticket_id} within {timeout_s:g}s",
                                           reason="REPLY_TIMEOUT", ticket_id=ticket_id)
                await notifier.wait(key, seen, remaining)
                if notifier.closed:
                    raise Unavailable(
                        f"the daemon is shutting down; ticket {ticket_id} is kept: AwaitReply it after the restart",
                        reason="SHUTTING_DOWN",
                        ticket_id=ticket_id,
                    )
        finally:
            self.open_waits -= 1

    async def ask(self, request: TicketRequest, timeout_s: float | None) -> tuple[str, str]:
        """Enqueue, then wait; a timeout or a dropped caller retires the ticket."""
        self._timeout(timeout_s)
        ticket, _ = await self.enqueue(request)
        try:
            return ticket.ticket_id, await self.await_reply(ticket.ticket_id, timeout_s)
        except DeadlineExceeded:
            if not await self.retire(ticket.ticket_id, "the asker stopped waiting (timeout)"):
                # A reply landed between the timeout and the retire: it was accepted, so deliver it.
                answered = self._store.read(lambda tx: tx.get_ticket(ticket.ticket_id))
                if answered is not None and answered.state == TicketState.ANSWERED:
                    return ticket.ticket_id, answered.result
            raise
        except asyncio.CancelledError:
            # The caller is gone (disconnect or deadline): retire the ticket even though we are cancelled.
            task = asyncio.ensure_future(self.retire(ticket.ticket_id, "the asker disconnected"))
            self._background.add(task)
            task.add_done_callback(self._background.discard)
            raise

    async def retire(self, ticket_id: str, reason: str) -> bool:
        """Abort a queued ticket wherever it stands; False if it was no longer queued."""

        def apply(tx: Tx) -> bool:
            ticket = tx.get_ticket(ticket_id)
            if ticket is None or ticket.state != TicketState.QUEUED:
                return False
            self._finish(tx, ticket, TicketState.ABORTED, reason=reason)
            return True

        try:
            return await self._store.write(apply)
        except Unavailable:
            return False  # shutting down: the ticket stays queued, to be answered after the restart

    async def reply(self, agent_id: str, result: str, ticket_id: str = "") -> str:
        limits = self.limits
        validate.agent_id(agent_id, limits)
        if ticket_id:
            self._ticket_id(ticket_id)
        validate.payload_size(len(result.encode("utf-8", "surrogatepass")), "result", limits)

        def apply(tx: Tx) -> str:
            target = self._target(tx, agent_id)
            if ticket_id:
                ticket = tx.get_ticket(ticket_id)
                if ticket is None or ticket.state != TicketState.QUEUED or ticket.target != target:
                    ticket = None
            else:
                head = tx.queue(target, 1)
                ticket = head[0] if head else None
            if ticket is None:
                raise FailedPrecondition(
                    f"no pending request to reply to for agent {agent_id}"
                    + (f" (ticket {ticket_id} is not queued for it)" if ticket_id else ""),
                    reason="NO_PENDING_REQUEST",
                    agent_id=agent_id,
                )
            self._finish(tx, ticket, TicketState.ANSWERED, result=result)
            entry = tx.get_entry(target)
            if entry is not None:  # answering is the agent's activity
                entry.last_activity_ns = self._clock()
                tx.put_entry(entry, None)
            return ticket.ticket_id

        return await self._store.write(apply)

    async def cancel_head(self, agent_id: str, ticket_id: str) -> bool:
        validate.agent_id(agent_id, self.limits)
        self._ticket_id(ticket_id)

        def apply(tx: Tx) -> bool:
            head = tx.queue(self._target(tx, agent_id), 1)
            if not head or head[0].ticket_id != ticket_id:
                return False
            self._finish(tx, head[0], TicketState.ABORTED, reason="cancelled at the head of the queue")
            return True

        return await self._store.write(apply)

    async def close_queue(self, agent_id: str, reason: str = "") -> int:
        validate.agent_id(agent_id, self.limits)
        reason = reason or "the target's session ended"

        def apply(tx: Tx) -> int:
            return self.abort_queue_in(tx, self._target(tx, agent_id), reason)

        return await self._store.write(apply)

    def queue(self, agent_id: str) -> list[Ticket]:
        validate.agent_id(agent_id, self.limits)
        return self._store.read(lambda tx: tx.queue(self._target(tx, agent_id), MAX_QUEUE_SCAN))

    async def watch_queue(self, agent_id: str) -> AsyncIterator[list[Ticket] | None]:
        """The FIFO now, then after each change; None is a keepalive."""
        validate.agent_id(agent_id, self.limits)
        agent_id = self._store.read(lambda tx: self._target(tx, agent_id))
        key = queue_key(agent_id)
        notifier = self._notifier
        while True:
            seen = notifier.version(key)
            yield self._store.read(lambda tx: tx.queue(agent_id, MAX_QUEUE_SCAN))
            while not await notifier.wait(key, seen, self._keepalive_s):
                if notifier.closed:
                    return
                yield None
            if notifier.closed:
                return

    async def prune(self, limit: int = 1000) -> int:
        """Forget answered and aborted tickets older than the retention."""
        horizon = self._clock() - self._retention_ns
        if not self._store.read(lambda tx: tx.finished_before(horizon, 1)):
            return 0  # nothing to forget: no write

        def apply(tx: Tx) -> int:
            ids = tx.finished_before(horizon, limit)
            for ticket_id in ids:
                tx.delete_ticket(ticket_id)
            return len(ids)

        return await self._store.write(apply)
