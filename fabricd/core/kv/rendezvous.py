"""Transaction scripts of the rendezvous: enqueue a ticket with its task, continue, answer, retire, close, prune."""

from __future__ import annotations

import uuid
from collections.abc import Callable

from fabricd.core import quota as quotas
from fabricd.core import rendezvous as rules
from fabricd.core.kv import mailbox
from fabricd.core.kv.directory import resolve_name, similar_names
from fabricd.core.kv.tx import RecordTx
from fabricd.core.model import (
    Address,
    MailboxEntry,
    Message,
    MessageKind,
    Ticket,
    TicketOutcome,
    TicketSourceKind,
    TicketState,
    Turn,
)
from fabricd.core.rendezvous_wait import queue_key, ticket_key

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
    mailbox.consume(tx, ticket.target, ticket.message_id)  # answered or withdrawn: no longer unread
    tx.wake(ticket_key(ticket.ticket_id))
    tx.wake(queue_key(ticket.target))


def enqueue(tx: RecordTx, now: int, mint: Callable[[int], str], request: rules.TicketRequest,
            max_unread: int, quota: quotas.Quotas | None = None) -> tuple[Ticket, int]:
    """Queue a ticket and deliver its task; with a `quota`, the asking agent is held to its quotas."""
    entry = resolve_name(tx, request.target)
    if entry is None:
        raise rules.unknown_target(request.target, similar_names(tx, request.target))
    if request.continues:
        return _continue(tx, now, mint, entry, request, max_unread, quota)
    kind = TicketSourceKind(request.source_kind) or TicketSourceKind.HUMAN
    requester = request.requester or (request.source_agent if kind == TicketSourceKind.AGENT else "human")
    ticket_id = str(uuid.uuid4())
    if request.idempotency_key:
        # The same key to the same target names the same ticket: a resend returns it, queued or finished.
        ticket_id = str(uuid.uuid5(IDEMPOTENCY_NAMESPACE, f"{entry.agent_id}\n{request.idempotency_key}"))
        existing = tx.get_ticket(ticket_id)
        if existing is not None:  # a resend, rare: finding its place may read the queue
            if existing.state == TicketState.QUEUED:  # its caller waits on it now: a dropped Ask's retire skips it
                existing.reattached += 1
                tx.put_ticket(existing)
            return existing, position_in(tx.queue(entry.agent_id, MAX_QUEUE_SCAN), ticket_id)
    _check_queued(tx, request, quota)
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
        data=request.data,
        headers=dict(request.headers),
    )
    _deliver(tx, now, mint, ticket, max_unread, quota)
    return ticket, position


def _check_queued(tx: RecordTx, request: rules.TicketRequest, quota: quotas.Quotas | None) -> None:
    """Refuse, before anything is written, a ticket that takes its asking agent over its queued quota."""
    if quota is not None and request.source_agent:
        usage = tx.usage(request.source_agent).queued_tickets
        quotas.check(quotas.QUEUED, request.source_agent, quota.queued_tickets, usage, 1)


def _deliver(tx: RecordTx, now: int, mint: Callable[[int], str], ticket: Ticket, max_unread: int,
             quota: quotas.Quotas | None) -> None:
    """Store the ticket and put its current turn's task in the target's mailbox."""
    headers = {**ticket.headers, "fabricd-ticket-id": ticket.ticket_id, "fabricd-requester": ticket.requester}
    if ticket.earlier:
        headers["fabricd-ticket-turn"] = str(len(ticket.earlier) + 1)
    message = Message(
        id=ticket.message_id,
        sender=Address(ticket.source_agent) if ticket.source_agent else Address(),
        recipient=Address(ticket.target),
        thread_id=ticket.conversation_id,
        text=rules.task_text(ticket),
        data=ticket.data,
        headers=headers,
        kind=MessageKind.USER if ticket.source_kind == TicketSourceKind.HUMAN else MessageKind.AGENT,
        ticket_id=ticket.ticket_id,
    )
    # A ticket asked again by its request key once the first was pruned has the same id, and so its task
    # message the id of a consumed one whose record is kept for the dedupe window: that id is renewed.
    mailbox.store(tx, now, mint, message, b"", True, max_unread, quota, renew=True)
    tx.put_ticket(ticket)
    tx.wake(queue_key(ticket.target))
    tx.wake(ticket_key(ticket.ticket_id))


def _continue(tx: RecordTx, now: int, mint: Callable[[int], str], entry: MailboxEntry, request: rules.TicketRequest,
              max_unread: int, quota: quotas.Quotas | None) -> tuple[Ticket, int]:
    """Queue an INPUT_REQUIRED ticket again with the follow-up as its next turn (same id and conversation)."""
    ticket = tx.get_ticket(request.continues)
    asker_differs = (request.source_kind == TicketSourceKind.AGENT and ticket is not None
                     and ticket.source_agent != request.source_agent)
    if ticket is None or ticket.target != entry.agent_id or asker_differs:
        raise rules.ticket_not_found(request.continues)  # another asker's ticket is not revealed
    key = request.idempotency_key
    if key and any(turn.followup_key == key for turn in ticket.earlier):  # a resend of an accepted follow-up
        queued = ticket.state == TicketState.QUEUED
        return ticket, position_in(tx.queue(ticket.target, MAX_QUEUE_SCAN), ticket.ticket_id) if queued else -1
    if ticket.state != TicketState.ANSWERED or ticket.outcome != TicketOutcome.INPUT_REQUIRED:
        raise rules.not_continuable(ticket)
    _check_queued(tx, request, quota)  # queued again: held to the asker's quota like a new ticket
    position = tx.queue_length(ticket.target)
    tx.delete_ticket(ticket.ticket_id)  # its finished record and index slots move with its new seq
    ticket.earlier.append(Turn(ticket.task, ticket.data, ticket.headers, ticket.result, ticket.result_data,
                               ticket.result_headers, followup_key=key))
    ticket.task, ticket.data, ticket.headers = request.task, request.data, dict(request.headers)
    ticket.state, ticket.outcome, ticket.finish_ns = TicketState.QUEUED, TicketOutcome.UNSPECIFIED, 0
    ticket.result, ticket.result_data, ticket.result_headers, ticket.reason = "", b"", {}, ""
    ticket.seq, ticket.enqueue_ns = tx.next_sequence("ticket"), now
    _deliver(tx, now, mint, ticket, max_unread, quota)
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


def retire(tx: RecordTx, now: int, ticket_id: str, reason: str, reattached: int | None = None) -> bool:
    """Abort a queued ticket; with `reattached`, only if no resend re-attached to it since it was that."""
    ticket = tx.get_ticket(ticket_id)
    if ticket is None or ticket.state != TicketState.QUEUED:
        return False
    if reattached is not None and ticket.reattached != reattached:
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


def cancel(tx: RecordTx, now: int, ticket_id: str, reason: str) -> tuple[Ticket, bool] | None:
    """Withdraw a queued (or INPUT_REQUIRED) ticket wherever it stands: (it, True); a finished one unchanged:
    (it, False); an unknown one: None."""
    ticket = tx.get_ticket(ticket_id)
    if ticket is None:
        return None
    waiting = ticket.state == TicketState.ANSWERED and ticket.outcome == TicketOutcome.INPUT_REQUIRED
    if waiting:  # a question nobody will answer: withdrawn too; its finished record moves to the new time
        tx.delete_ticket(ticket_id)
        ticket.outcome = TicketOutcome.UNSPECIFIED
    withdrawn = waiting or ticket.state == TicketState.QUEUED
    if withdrawn:  # a withdrawn question keeps its text beside its data: the task's history still shows it
        finish(tx, now, ticket, TicketState.ABORTED, result=ticket.result if waiting else "", reason=reason)
    return ticket, withdrawn


def listed(tx: RecordTx, name: str, query: rules.TicketQuery) -> list[Ticket]:
    """The target's tickets matching `query`, newest first, after `query.before_seq`."""
    out = []
    # Read through the per-target (or per-asker) index, newest first: never the whole table.
    for ticket in tx.tickets_before(target(tx, name), query.source_agent, query.before_seq):
        if query.conversation_id and ticket.conversation_id != query.conversation_id:
            continue
        if query.states and ticket.state not in query.states:
            continue
        out.append(ticket)
        if len(out) >= query.limit:
            break
    return out


def answer(tx: RecordTx, now: int, agent_id: str, reply: rules.Answer, ticket_id: str) -> str:
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
    ticket.outcome, ticket.result_data, ticket.result_headers = reply.outcome, reply.data, dict(reply.headers)
    finish(tx, now, ticket, TicketState.ANSWERED, result=reply.result)
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
