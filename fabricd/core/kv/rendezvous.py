"""Transaction scripts of the rendezvous: enqueue a ticket with its task, answer, retire, close, prune."""

from __future__ import annotations

import uuid
from collections.abc import Callable

from fabricd.core import quota as quotas
from fabricd.core import rendezvous as rules
from fabricd.core.kv import mailbox
from fabricd.core.kv.directory import resolve_name
from fabricd.core.kv.tx import RecordTx
from fabricd.core.model import Address, Message, MessageKind, Ticket, TicketSourceKind, TicketState

MAX_QUEUE_SCAN = 100_000
IDEMPOTENCY_NAMESPACE = uuid.UUID("6f6a2c1e-1f0b-4c55-9d55-8f6b7a2a2a10")


def position_in(queue: list[Ticket], ticket_id: str) -> int:
    """Where a ticket stands in its target's FIFO (0: the head), or -1 when it is not queued."""
    return next((i for i, t in enumerate(queue) if t.ticket_id == ticket_id), -1)


def finish(tx: RecordTx, now: int, ticket: Ticket, state: TicketState, *, result: str = "", reason: str = "") -> None:
    ticket.state = state
    ticket.result = result
    ticket.reason = reason
    ticket.finish_ns = now
    tx.put_ticket(ticket)
    mailbox.consume(tx, ticket.target, ticket.ticket_id)  # answered or withdrawn: no longer unread
    tx.wake(rules.ticket_key(ticket.ticket_id))
    tx.wake(rules.queue_key(ticket.target))


def enqueue(tx: RecordTx, now: int, mint: Callable[[int], str], request: rules.TicketRequest,
            max_unread: int, quota: quotas.Quotas | None = None) -> tuple[Ticket, int]:
    """Queue a ticket and deliver its task; with a `quota`, the asking agent is held to its quotas."""
    entry = resolve_name(tx, request.target)
    if entry is None:
        raise rules.unknown_target(request.target)
    kind = TicketSourceKind(request.source_kind) or TicketSourceKind.HUMAN
    requester = request.requester or (request.source_agent if kind == TicketSourceKind.AGENT else "human")
    ticket_id = str(uuid.uuid4())
    if request.idempotency_key:
        # The same key to the same target names the same ticket: a resend returns it, queued or finished.
        ticket_id = str(uuid.uuid5(IDEMPOTENCY_NAMESPACE, f"{entry.agent_id}\n{request.idempotency_key}"))
        existing = tx.get_ticket(ticket_id)
        if existing is not None:  # a resend, rare: finding its place may read the queue
            return existing, position_in(tx.queue(entry.agent_id, MAX_QUEUE_SCAN), ticket_id)
    if quota is not None and request.source_agent:
        usage = tx.usage(request.source_agent).queued_tickets
        quotas.check(quotas.QUEUED, request.source_agent, quota.queued_tickets, usage, 1)
    position = tx.queue_length(entry.agent_id)  # one counter, not the queue: enqueue costs the same at any length
    ticket = Ticket(
        ticket_id=ticket_id,
        target=entry.agent_id,
        task=request.task,
        source_kind=kind,
        source_agent=request.source_agent,
        requester=requester,
        conversation_id=request.conversation_id,
        seq=tx.next_sequence("ticket"),
        enqueue_ns=now,
    )
    message = Message(
        id=ticket.ticket_id,
        sender=Address(request.source_agent) if request.source_agent else Address(),
        recipient=Address(entry.agent_id),
        thread_id=request.conversation_id,
        text=rules.task_text(ticket),
        headers={"fabricd-ticket-id": ticket.ticket_id, "fabricd-requester": requester},
        kind=MessageKind.USER if kind == TicketSourceKind.HUMAN else MessageKind.AGENT,
        ticket_id=ticket.ticket_id,
    )
    mailbox.store(tx, now, mint, message, b"", True, max_unread, quota)
    tx.put_ticket(ticket)
    tx.wake(rules.queue_key(entry.agent_id))
    return ticket, position


def target(tx: RecordTx, name: str) -> str:
    """The agent a queue name means: an agent id, or an unambiguous session name."""
    entry = resolve_name(tx, name)
    return entry.agent_id if entry is not None else name


def queued(tx: RecordTx, agent_id: str) -> list[Ticket]:
    return tx.queue(agent_id, MAX_QUEUE_SCAN)


def abort_queue(tx: RecordTx, now: int, agent_id: str, reason: str) -> int:
    """Retire every queued ticket of `agent_id`; their waiters get ABORTED."""
    tickets = tx.queue(agent_id, MAX_QUEUE_SCAN)
    for ticket in tickets:
        finish(tx, now, ticket, TicketState.ABORTED, reason=reason)
    return len(tickets)


def retire(tx: RecordTx, now: int, ticket_id: str, reason: str) -> bool:
    ticket = tx.get_ticket(ticket_id)
    if ticket is None or ticket.state != TicketState.QUEUED:
        return False
    finish(tx, now, ticket, TicketState.ABORTED, reason=reason)
    return True


def view(tx: RecordTx, ticket_id: str) -> rules.TicketView | None:
    ticket = tx.get_ticket(ticket_id)
    if ticket is None:
        return None
    queued = ticket.state == TicketState.QUEUED
    position = position_in(tx.queue(ticket.target, MAX_QUEUE_SCAN), ticket_id) if queued else -1
    return rules.TicketView(ticket, position)


def cancel(tx: RecordTx, now: int, ticket_id: str, reason: str) -> Ticket | None:
    """Withdraw a queued ticket wherever it stands; a finished one is returned unchanged, an unknown one None."""
    ticket = tx.get_ticket(ticket_id)
    if ticket is not None and ticket.state == TicketState.QUEUED:
        finish(tx, now, ticket, TicketState.ABORTED, reason=reason)
    return ticket


def listed(tx: RecordTx, name: str, query: rules.TicketQuery) -> list[Ticket]:
    """The target's tickets matching `query`, newest first, after `query.before_seq`."""
    out = []
    for ticket in reversed(tx.tickets_of(target(tx, name))):
        if query.before_seq and ticket.seq >= query.before_seq:
            continue
        if query.conversation_id and ticket.conversation_id != query.conversation_id:
            continue
        if query.states and ticket.state not in query.states:
            continue
        out.append(ticket)
        if len(out) >= query.limit:
            break
    return out


def answer(tx: RecordTx, now: int, agent_id: str, result: str, ticket_id: str) -> str:
    who = target(tx, agent_id)
    ticket: Ticket | None
    if ticket_id:
        ticket = tx.get_ticket(ticket_id)
        if ticket is None or ticket.state != TicketState.QUEUED or ticket.target != who:
            ticket = None
    else:
        head = tx.queue(who, 1)
        ticket = head[0] if head else None
    if ticket is None:
        raise rules.no_pending_request(agent_id, ticket_id)
    finish(tx, now, ticket, TicketState.ANSWERED, result=result)
    entry = tx.get_entry(who)
    if entry is not None:  # answering is the agent's activity
        entry.last_activity_ns = now
        tx.put_entry(entry, None)
    return ticket.ticket_id


def cancel_head(tx: RecordTx, now: int, agent_id: str, ticket_id: str) -> bool:
    head = tx.queue(target(tx, agent_id), 1)
    if not head or head[0].ticket_id != ticket_id:
        return False
    finish(tx, now, head[0], TicketState.ABORTED, reason="cancelled at the head of the queue")
    return True


def close_queue(tx: RecordTx, now: int, agent_id: str, reason: str) -> int:
    return abort_queue(tx, now, target(tx, agent_id), reason)


def prune(tx: RecordTx, finished_before_ns: int, limit: int) -> int:
    ids = tx.finished_before(finished_before_ns, limit)
    for ticket_id in ids:
        tx.delete_ticket(ticket_id)
    return len(ids)
