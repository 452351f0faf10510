"""Rendezvous: ask an agent and wait for its reply, over a durable FIFO of tickets per target.

A ticket leaves its target's FIFO when answered or retired (cancelled, its
queue closed, or abandoned by its Ask). Waiters sleep on the wake-ups and read
the ticket from storage when woken, so a restart loses no queued ticket and no
uncollected result: they are in the store, and AwaitReply re-attaches (on any node).

This module holds the rules: what an asker and a replier send, the checks, the
refusals, and the contract's calls that read or write once. The waiting (AwaitReply,
Ask, the watches) and the retiring of tickets whose asker left are in
fabricd.core.rendezvous_wait, mixed into Rendezvous.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Sequence

from fabricd.core import paging, validate
from fabricd.core.directory import name_not_found
from fabricd.core.errors import FailedPrecondition, InvalidArgument, NotFound
from fabricd.core.limits import Limits
from fabricd.core.model import Ticket, TicketOutcome, TicketSourceKind, TicketState
from fabricd.core.model_rendezvous import Answer as Answer
from fabricd.core.model_rendezvous import TicketQuery as TicketQuery
from fabricd.core.model_rendezvous import TicketRequest as TicketRequest
from fabricd.core.model_rendezvous import TicketView as TicketView
from fabricd.core.paging import Listed
from fabricd.core.ports import Service, Store
from fabricd.core.rendezvous_wait import RendezvousWaits

MAX_REASON_BYTES = 4096
"""Why a queue was closed: stored with each ticket it aborts and shown to each waiter."""
KEY_CHARS_PER_ID = 3
"""An idempotency key is "<kind> <asker kind>:<asker id> <caller's key>": two ids and a few characters."""


CANCELLED = "cancelled by the asker"
"""The reason of a ticket withdrawn by CancelTicket (A2A: CANCELED, not FAILED)."""


def task_text(ticket: Ticket) -> str:
    """The task as the target reads it in its mailbox, with who asked."""
    who = ticket.requester
    if ticket.source_kind == TicketSourceKind.AGENT and ticket.source_agent != who:
        who = f"{who} (agent {ticket.source_agent})"
    return f"Request from {who}, ticket {ticket.ticket_id}:\n\n{ticket.task}"


def unknown_target(target: str, close: Sequence[str] = ()) -> NotFound:
    hint = f"did you mean {' or '.join(repr(c) for c in close)}? " if close else ""
    return NotFound(
        f"no agent or session is named {target!r}; {hint}it must register (or have mail) before it can be asked",
        reason="UNKNOWN_TARGET",
        target=target,
        suggestions=",".join(close),
    )


def ticket_not_found(ticket_id: str) -> NotFound:
    return NotFound(f"no ticket {ticket_id!r} (never issued, or expired)", reason="TICKET_NOT_FOUND",
                    ticket_id=ticket_id)


def not_continuable(ticket: Ticket) -> FailedPrecondition:
    state = ticket.outcome.name if ticket.state == TicketState.ANSWERED else ticket.state.name
    return FailedPrecondition(
        f"ticket {ticket.ticket_id} is {state}: only a ticket answered INPUT_REQUIRED takes a follow-up; "
        "ask a new ticket in the same conversation instead",
        reason="TICKET_NOT_CONTINUABLE", ticket_id=ticket.ticket_id, state=state)


def turn_moved(ticket: Ticket, expected: int) -> FailedPrecondition:
    turn = len(ticket.earlier) + 1
    return FailedPrecondition(
        f"ticket {ticket.ticket_id} moved on to turn {turn} since you read it at turn {expected}: read it again "
        "and decide on what it asks now", reason="TICKET_TURN_MOVED", ticket_id=ticket.ticket_id,
        turn=str(turn), expected=str(expected))


def no_pending_request(agent_id: str, ticket_id: str) -> FailedPrecondition:
    return FailedPrecondition(
        f"no pending request to reply to for agent {agent_id}"
        + (f" (ticket {ticket_id} is not queued for it)" if ticket_id else ""),
        reason="NO_PENDING_REQUEST",
        agent_id=agent_id,
    )


class Rendezvous(RendezvousWaits, Service):
    """The rendezvous contract over a Store."""

    def __init__(self, store: Store, limits: Limits, clock: Callable[[], int], *, retention_s: float = 24 * 3600,
                 keepalive_s: float = 15.0, reattach_grace_s: float = 15.0) -> None:
        super().__init__(store, limits, clock, keepalive_s)
        self._retention_ns = int(retention_s * 1e9)
        self._reattach_grace_s = reattach_grace_s
        self.open_waits = 0
        self._background: set[asyncio.Task[object]] = set()

    # -- checks

    def _check(self, request: TicketRequest) -> TicketRequest:
        limits = self.limits
        validate.text_field(request.target, "target", limits, required=True)
        if not request.task:
            raise InvalidArgument("task is required", reason="MISSING_FIELD", field="task")
        validate.stored_text(request.task, "task")
        validate.text_field(request.requester, "requester", limits, required=False)
        validate.text_field(request.conversation_id, "conversation_id", limits, required=False)
        self._bytes(request.task, request.data, request.headers, "task")
        if request.continues:
            validate.text_field(request.continues, "continue_ticket_id", limits, required=True)
        kind = request.source_kind
        if kind not in (TicketSourceKind.UNSPECIFIED, TicketSourceKind.HUMAN, TicketSourceKind.AGENT):
            raise InvalidArgument(f"source.kind {int(kind)} is unknown", reason="INVALID_FIELD", field="source.kind")
        if kind == TicketSourceKind.AGENT:
            validate.text_field(request.source_agent, "source.agent_id", limits, required=True)
        elif request.source_agent:
            validate.text_field(request.source_agent, "source.agent_id", limits, required=False)
        key = request.idempotency_key  # the caller's key after its asker's id: each part was checked as an id
        if key and (len(key) > KEY_CHARS_PER_ID * limits.max_id_chars or not key.isprintable()):
            raise InvalidArgument(f"idempotency_key is {len(key)} characters or holds control characters; the "
                                  f"limit is {KEY_CHARS_PER_ID * limits.max_id_chars}", reason="INVALID_FIELD",
                                  field="idempotency_key")
        return request

    def _bytes(self, text: str, data: bytes, headers: dict[str, str], field: str) -> None:
        """Text, data and headers together within one message's size; no daemon (fabricd-) headers."""
        size = len(text.encode("utf-8", "surrogatepass")) + len(data)
        size += validate.headers(headers, "headers", self.limits)
        for key in headers:
            if key.lower().startswith(validate.RESERVED_HEADER_PREFIX):
                raise InvalidArgument(f"header {key!r}: headers starting with {validate.RESERVED_HEADER_PREFIX!r} "
                                      "are set by the daemon only; rename it", reason="RESERVED_FIELD",
                                      field="headers", header=key)
        validate.payload_size(size, field, self.limits)

    def _ticket_id(self, ticket_id: str) -> str:
        validate.text_field(ticket_id, "ticket_id", self.limits, required=True)
        return ticket_id

    @staticmethod
    def _timeout(timeout_s: float | None) -> float | None:
        if timeout_s is not None and timeout_s < 0:
            raise InvalidArgument("timeout may not be negative", reason="INVALID_FIELD", field="timeout")
        return timeout_s

    # -- the contract

    async def enqueue(self, request: TicketRequest) -> tuple[Ticket, int]:
        self._check(request)
        return await self._store.rendezvous.enqueue(request, self.limits.max_unread,
                                                    self.limits.quotas_for(request.agent_token))

    async def target(self, name: str) -> str:
        """The agent a queue name means: an agent id, or an unambiguous session name."""
        validate.agent_id(name, self.limits)
        return await self._store.rendezvous.target(name)

    async def ticket(self, ticket_id: str) -> Ticket | None:
        return await self._store.rendezvous.get(ticket_id)

    async def reply(self, agent_id: str, result: str | Answer, ticket_id: str = "") -> str:
        """Answer the head of the FIFO, or `ticket_id`; a plain string answers COMPLETED."""
        answer = result if isinstance(result, Answer) else Answer(result)
        if answer.outcome not in iter(TicketOutcome) or answer.outcome == TicketOutcome.UNSPECIFIED:
            raise InvalidArgument(f"outcome {int(answer.outcome)} is unknown: COMPLETED, INPUT_REQUIRED, REJECTED "
                                  "or FAILED", reason="INVALID_FIELD", field="outcome")
        answer = dataclasses.replace(answer, outcome=TicketOutcome(answer.outcome))
        limits = self.limits
        validate.agent_id(agent_id, limits)
        if ticket_id:
            self._ticket_id(ticket_id)
        validate.stored_text(answer.result, "result")
        self._bytes(answer.result, answer.data, answer.headers, "result")
        answered = await self._store.rendezvous.answer(agent_id, answer, ticket_id)
        # The asker's Ask was woken by the commit: let it answer its caller before this Reply answers
        # the replier, which is not waiting on anyone (one loop turn; the ask round trip is the one timed).
        await asyncio.sleep(0)
        return answered

    async def cancel_head(self, agent_id: str, ticket_id: str) -> bool:
        validate.agent_id(agent_id, self.limits)
        self._ticket_id(ticket_id)
        return await self._store.rendezvous.cancel_head(agent_id, ticket_id)

    async def close_queue(self, agent_id: str, reason: str = "") -> int:
        validate.agent_id(agent_id, self.limits)
        validate.text_bytes(validate.stored_text(reason, "reason"), "reason", MAX_REASON_BYTES)  # stored in every ticket it aborts
        return await self._store.rendezvous.close_queue(agent_id, reason or "the target's session ended")

    async def queue(self, agent_id: str, page_size: int = 0, page_token: str = "") -> Listed[Ticket]:
        """One page of the FIFO of `agent_id`, head first; `offset` is the position of its first ticket."""
        validate.agent_id(agent_id, self.limits)
        asked = paging.request("queue", agent_id, page_size, page_token)
        _, page = await self._store.rendezvous.queue_page(agent_id, asked.cursor, asked.size, paging.budget())
        if not page.items and not asked.cursor and await self._store.directory.resolve(agent_id) is None:
            raise name_not_found(agent_id, await self._store.directory.similar(agent_id))
        return Listed(page.items, paging.next_token("queue", agent_id, asked, page), asked.offset)

    async def view(self, ticket_id: str) -> TicketView:
        """A ticket and its position; NotFound (TICKET_NOT_FOUND) if never issued or pruned."""
        self._ticket_id(ticket_id)
        found = await self._store.rendezvous.view(ticket_id)
        if found is None:
            raise ticket_not_found(ticket_id)
        return found

    async def cancel(self, ticket_id: str) -> Ticket:
        """Withdraw a queued ticket wherever it stands in the FIFO (its unread task message too).

        Returns the ticket as it now is: ABORTED with reason CANCELLED, or unchanged when it had
        already finished (the caller tells these apart by the reason).
        """
        return (await self.cancel_ticket(ticket_id))[0]

    async def cancel_ticket(self, ticket_id: str) -> tuple[Ticket, bool]:
        """As `cancel`, and whether this call withdrew it (False: it had finished before)."""
        self._ticket_id(ticket_id)
        seen = await self._store.rendezvous.get(ticket_id)  # a read first: an unknown or finished one writes nothing
        if seen is not None and seen.state != TicketState.QUEUED and seen.outcome != TicketOutcome.INPUT_REQUIRED:
            return seen, False
        found = await self._store.rendezvous.cancel(ticket_id, CANCELLED) if seen is not None else None
        if found is None:
            raise ticket_not_found(ticket_id)
        return found

    async def list(self, target: str, query: TicketQuery) -> list[Ticket]:
        """A target's tickets, newest first (see TicketQuery)."""
        validate.agent_id(target, self.limits)
        validate.text_field(query.conversation_id, "conversation_id", self.limits, required=False)
        validate.text_field(query.source_agent, "source_agent_id", self.limits, required=False)
        if not 1 <= query.limit <= 1000:
            raise InvalidArgument("page size must be 1 to 1000", reason="INVALID_FIELD", field="page_size")
        return await self._store.rendezvous.list(target, query)

    async def tickets(self, target: str, query: TicketQuery, page_size: int = 0,
                      page_token: str = "") -> Listed[TicketView]:
        """One page of a target's tickets, newest first (ListTickets): positions of the queued ones too."""
        validate.agent_id(target, self.limits)
        scope = "\n".join((target, query.conversation_id, query.source_agent, ",".join(str(int(s)) for s in
                                                                                     query.states)))
        asked = paging.request("tickets", scope, page_size, page_token)
        if asked.cursor and not asked.cursor.isdigit():
            raise paging.bad_token("is not one this daemon handed out")
        found = await self.list(target, TicketQuery(query.conversation_id, query.states, int(asked.cursor or 0),
                                                    asked.size + 1, query.source_agent))
        items, more = paging.take(((t.seq, t) for t in found), asked.size, paging.budget())
        positions: dict[str, int] = {}
        if any(t.state == TicketState.QUEUED for t in items):  # one read of the FIFO for the whole page
            queue = await self._store.rendezvous.queue(items[0].target)
            positions = {t.ticket_id: i for i, t in enumerate(queue)}
        views = [TicketView(t, positions.get(t.ticket_id, -1)) for t in items]
        page = paging.Page(views, str(more) if more is not None else "")
        return Listed(views, paging.next_token("tickets", scope, asked, page), asked.offset)

    async def prune(self, limit: int = 1000) -> int:
        """Forget answered and aborted tickets older than the retention."""
        return await self._store.rendezvous.prune(self._clock() - self._retention_ns, limit)
