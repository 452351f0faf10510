"""The rendezvous's write rules as deciders: the facts of one write in, what to write (or the refusal) out.

Every backend runs these: the record scripts (fabricd.core.kv.rendezvous: LMDB, memory) gather the facts
with reads in their write transaction, PostgreSQL (store/postgres/hot_rendezvous.py) with one statement
that reads and locks them; each applies the decision its own way. No I/O here, and no input is changed:
a decision carries new objects.

    ticket_id          the id a request names: a fresh one, or the request key's (the same key to the same
                       target names the same ticket, queued or finished)
    enqueue            a new ticket, a follow-up turn of an INPUT_REQUIRED one, or a resend's answer; the
                       task message it delivers and the asker's quotas (queued tickets, unread bytes)
    answer             the reply to a queued ticket of the replier's (`answerable`; `answered`: what it writes)
    withdraw           CancelTicket: a queued ticket, or a question nobody will answer, aborted
    finished           what any ticket leaving its FIFO becomes (answered or aborted)

Invariants: a refusal is decided before anything is written; a resend never changes the ticket's turn
(its only write is `reattached`, so a dropped Ask's retire skips a ticket a resend waits on again).
"""

from __future__ import annotations

import dataclasses
import uuid
from dataclasses import dataclass

from fabricd.core import mailbox as mailbox_rules
from fabricd.core import quota as quotas
from fabricd.core.model import Address, Message, MessageKind, Ticket, TicketOutcome, TicketSourceKind, TicketState, Turn
from fabricd.core.paging import approx_size
from fabricd.core.rendezvous import (
    Answer,
    TicketRequest,
    no_pending_request,
    not_continuable,
    task_text,
    ticket_not_found,
    turn_moved,
)

IDEMPOTENCY_NAMESPACE = uuid.UUID("6f6a2c1e-1f0b-4c55-9d55-8f6b7a2a2a10")
TICKET_ID, REQUESTER, TURN = "fabricd-ticket-id", "fabricd-requester", "fabricd-ticket-turn"
"""The headers the daemon sets on a task message."""


def ticket_id(target: str, request: TicketRequest, fresh: str) -> str:
    """The id of the ticket `request` asks of agent `target`: `fresh` (a new uuid) unless it has a request key,
    whose ticket it then names (a follow-up names its ticket in `continues` instead)."""
    if request.continues:
        return request.continues
    if request.idempotency_key:
        return str(uuid.uuid5(IDEMPOTENCY_NAMESPACE, f"{target}\n{request.idempotency_key}"))
    return fresh


@dataclass(frozen=True, slots=True)
class EnqueueFacts:
    """What an enqueue decides on, read (and locked) in its write transaction."""

    target: str
    """The agent id the request's target names (resolved by the backend; an unknown name is refused before)."""
    unread: int
    """The target's unread count."""
    prior: Ticket | None
    """The stored ticket of `ticket_id(...)`: a resend's (request key), or the one a follow-up continues."""
    usage: quotas.Usage
    """The asking agent's usage (zeros when no agent asks)."""


@dataclass(frozen=True, slots=True)
class Enqueued:
    """Store `ticket` (a follow-up replaces its stored record: it moves to its new seq, which the backend
    takes) and deliver `message`, its task, to its target."""

    ticket: Ticket
    message: Message
    follow_up: bool


@dataclass(frozen=True, slots=True)
class Resent:
    """A resend: answer `ticket` as it is stored; store it again only when `reattached` moved."""

    ticket: Ticket
    reattached: bool


def task_message(ticket: Ticket, now: int) -> Message:
    """The message a ticket's current turn delivers to its target's mailbox."""
    headers = {**ticket.headers, TICKET_ID: ticket.ticket_id, REQUESTER: ticket.requester}
    if ticket.earlier:
        headers[TURN] = str(len(ticket.earlier) + 1)
    return Message(
        id=ticket.message_id,
        sender=Address(ticket.source_agent) if ticket.source_agent else Address(),
        recipient=Address(ticket.target),
        thread_id=ticket.conversation_id,
        text=task_text(ticket),
        data=ticket.data,
        headers=headers,
        kind=MessageKind.USER if ticket.source_kind == TicketSourceKind.HUMAN else MessageKind.AGENT,
        send_time_ns=now,
        ticket_id=ticket.ticket_id,
    )


def enqueue(request: TicketRequest, facts: EnqueueFacts, ticket_id_: str, now: int, max_unread: int,
            quota: quotas.Quotas | None) -> Enqueued | Resent:
    """Queue a new ticket (or a follow-up turn) with its task, or answer a resend; raises the refusal.

    `ticket_id_` is ticket_id(facts.target, request, fresh). With a `quota`, the asking agent is held to its
    queued tickets and unread bytes; `max_unread` (0: none) bounds the target's unread count."""
    if request.continues:
        decided = _follow_up(request, facts, now)
    elif facts.prior is not None:  # the same key to the same target: the ticket it named, queued or finished
        prior = facts.prior
        if prior.state == TicketState.QUEUED:  # its caller waits on it now: a dropped Ask's retire skips it
            return Resent(dataclasses.replace(prior, reattached=prior.reattached + 1), True)
        return Resent(prior, False)
    else:
        kind = TicketSourceKind(request.source_kind) or TicketSourceKind.HUMAN
        requester = request.requester or (request.source_agent if kind == TicketSourceKind.AGENT else "human")
        decided = Ticket(ticket_id=ticket_id_, target=facts.target, task=request.task, source_kind=kind,
                         source_agent=request.source_agent, requester=requester,
                         conversation_id=request.conversation_id, enqueue_ns=now, data=request.data,
                         headers=dict(request.headers))
    if isinstance(decided, Resent):
        return decided
    message = task_message(decided, now)
    asker = request.source_agent
    if quota is not None and asker:  # queued again or anew: held to the asker's quota like a new ticket
        quotas.check(quotas.QUEUED, asker, quota.queued_tickets, facts.usage.queued_tickets, 1)
    if max_unread and facts.unread >= max_unread:
        raise mailbox_rules.mailbox_full(facts.target, facts.unread, max_unread)
    if quota is not None and asker:
        quotas.check_unread(asker, quota, facts.usage, approx_size(message))
    return Enqueued(decided, message, bool(request.continues))


def _follow_up(request: TicketRequest, facts: EnqueueFacts, now: int) -> Ticket | Resent:
    """The ticket queued again with the follow-up as its next turn (same id and conversation), or a resend's
    answer (the request key names an accepted follow-up)."""
    ticket = facts.prior
    asker_differs = (request.source_kind == TicketSourceKind.AGENT and ticket is not None
                     and ticket.source_agent != request.source_agent)
    if ticket is None or ticket.target != facts.target or asker_differs:
        raise ticket_not_found(request.continues)  # another asker's ticket is not revealed
    key = request.idempotency_key
    if key and any(turn.followup_key == key for turn in ticket.earlier):
        return Resent(ticket, False)
    if request.continues_turn and request.continues_turn != len(ticket.earlier) + 1:
        raise turn_moved(ticket, request.continues_turn)
    if ticket.state != TicketState.ANSWERED or ticket.outcome != TicketOutcome.INPUT_REQUIRED:
        raise not_continuable(ticket)
    earlier = [*ticket.earlier, Turn(ticket.task, ticket.data, ticket.headers, ticket.result, ticket.result_data,
                                     ticket.result_headers, followup_key=key)]
    return dataclasses.replace(ticket, task=request.task, data=request.data, headers=dict(request.headers),
                               state=TicketState.QUEUED, outcome=TicketOutcome.UNSPECIFIED, finish_ns=0, result="",
                               result_data=b"", result_headers={}, reason="", earlier=earlier, seq=0,
                               enqueue_ns=now)


def finished(ticket: Ticket, state: TicketState, now: int, *, result: str = "", reason: str = "") -> Ticket:
    """A ticket leaving its FIFO, answered or aborted (its task message is consumed with it)."""
    return dataclasses.replace(ticket, state=state, result=result, reason=reason, finish_ns=now)


@dataclass(frozen=True, slots=True)
class Answered:
    """What an answer writes on the ticket it answers (whichever queued ticket of the replier's that is)."""

    state: TicketState
    outcome: TicketOutcome
    result: str
    result_data: bytes
    result_headers: dict[str, str]
    finish_ns: int


def answered(reply: Answer, now: int) -> Answered:
    return Answered(TicketState.ANSWERED, reply.outcome, reply.result, reply.data, dict(reply.headers), now)


def answerable(replier: str) -> tuple[TicketState, str]:
    """The (state, target) of the only tickets an answer by agent `replier` answers: its own, still queued.

    A backend that applies `answered` in the statement that reads the ticket (PostgreSQL) guards its write on
    the ticket having these; when it has not, nothing is written and `answer` names the refusal."""
    return TicketState.QUEUED, replier


def answer(ticket: Ticket | None, replier: str, reply: Answer, now: int, *, name: str, ticket_id: str) -> Ticket:
    """The answered ticket: `ticket` is the one the reply names (`ticket_id`), or the head of the FIFO of agent
    `replier` (None when it has none), who replied as `name`; only a queued ticket of the replier's is answered
    (`answerable`)."""
    if ticket is None or (ticket.state, ticket.target) != answerable(replier):
        raise no_pending_request(name, ticket_id)
    a = answered(reply, now)
    return dataclasses.replace(ticket, state=a.state, outcome=a.outcome, result=a.result, result_data=a.result_data,
                               result_headers=a.result_headers, finish_ns=a.finish_ns, reason="")


def withdraw(ticket: Ticket, now: int, reason: str) -> Ticket | None:
    """CancelTicket: a queued ticket, or one answered INPUT_REQUIRED (a question nobody will answer), aborted;
    None for any other (finished: left as it is). A withdrawn question keeps its text beside its data."""
    waiting = ticket.state == TicketState.ANSWERED and ticket.outcome == TicketOutcome.INPUT_REQUIRED
    if not (waiting or ticket.state == TicketState.QUEUED):
        return None
    outcome = TicketOutcome.UNSPECIFIED if waiting else ticket.outcome
    return finished(dataclasses.replace(ticket, outcome=outcome), TicketState.ABORTED, now,
                    result=ticket.result if waiting else "", reason=reason)
