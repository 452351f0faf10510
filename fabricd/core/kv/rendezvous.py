"""Transaction scripts of the rendezvous: enqueue a ticket with its task, continue, answer, retire, close, prune."""

from __future__ import annotations

import uuid
from collections.abc import Callable

from fabricd.core import quota as quotas
from fabricd.core import rendezvous as rules
from fabricd.core import tickets
from fabricd.core.kv import mailbox
from fabricd.core.kv.directory import resolve_name, similar_names
from fabricd.core.kv.tx import RecordTx
from fabricd.core.model import Ticket, TicketState
from fabricd.core.rendezvous_wait import queue_key, ticket_key

MAX_QUEUE_SCAN = 100_000


def position_in(queue: list[Ticket], ticket_id: str) -> int:
    """Where a ticket stands in its target's FIFO (0: the head), or -1 when it is not queued."""
    return next((i for i, t in enumerate(queue) if t.ticket_id == ticket_id), -1)


def leave(tx: RecordTx, ticket: Ticket) -> None:
    """Store a ticket that left its FIFO (tickets.finished): its task is no longer unread; its waiters wake."""
    tx.put_ticket(ticket)
    mailbox.consume(tx, ticket.target, ticket.message_id)  # answered or withdrawn: no longer unread
    tx.wake(ticket_key(ticket.ticket_id))
    tx.wake(queue_key(ticket.target))


def enqueue(tx: RecordTx, now: int, mint: Callable[[int], str], request: rules.TicketRequest,
            max_unread: int, quota: quotas.Quotas | None = None) -> tuple[Ticket, int]:
    """Queue a ticket and deliver its task (fabricd.core.tickets.enqueue decides); with a `quota`, the asking
    agent is held to its quotas."""
    entry = resolve_name(tx, request.target)
    if entry is None:
        raise rules.unknown_target(request.target, similar_names(tx, request.target))
    ticket_id = tickets.ticket_id(entry.agent_id, request, str(uuid.uuid4()))
    prior = tx.get_ticket(ticket_id) if request.continues or request.idempotency_key else None
    held = quota is not None and request.source_agent
    facts = tickets.EnqueueFacts(target=entry.agent_id, unread=entry.unread_count, prior=prior,
                                 usage=tx.usage(request.source_agent) if held else quotas.Usage())
    decided = tickets.enqueue(request, facts, ticket_id, now, max_unread, quota)
    if isinstance(decided, tickets.Resent):  # rare: finding its place may read the queue
        if decided.reattached:
            tx.put_ticket(decided.ticket)
        queued = decided.ticket.state == TicketState.QUEUED
        return decided.ticket, position_in(tx.queue(entry.agent_id, MAX_QUEUE_SCAN), ticket_id) if queued else -1
    ticket = decided.ticket
    position = tx.queue_length(entry.agent_id)  # one counter, not the queue: enqueue costs the same at any length
    if decided.follow_up:
        tx.delete_ticket(ticket.ticket_id)  # its finished record and index slots move with its new seq
    ticket.seq = tx.next_sequence("ticket")
    # Refusals were decided above. A ticket asked again by its request key once the first was pruned has the
    # same id, and so its task message the id of a consumed one whose record is kept for the dedupe window:
    # that id is renewed.
    mailbox.store(tx, now, mint, decided.message, b"", True, 0, None, renew=True)
    tx.put_ticket(ticket)
    tx.wake(queue_key(ticket.target))
    tx.wake(ticket_key(ticket.ticket_id))
    return ticket, position


def target(tx: RecordTx, name: str) -> str:
    """The agent a queue name means: an agent id, or an unambiguous session name."""
    entry = resolve_name(tx, name)
    return entry.agent_id if entry is not None else name


def queued(tx: RecordTx, agent_id: str) -> list[Ticket]:
    return tx.queue(agent_id, MAX_QUEUE_SCAN)


def abort_queue(tx: RecordTx, now: int, agent_id: str, reason: str) -> int:
    """Retire every queued ticket of `agent_id`; their waiters get ABORTED."""
    queue = tx.queue(agent_id, MAX_QUEUE_SCAN)
    for ticket in queue:
        leave(tx, tickets.finished(ticket, TicketState.ABORTED, now, reason=reason))
    return len(queue)


def retire(tx: RecordTx, now: int, ticket_id: str, reason: str, reattached: int | None = None) -> bool:
    """Abort a queued ticket; with `reattached`, only if no resend re-attached to it since it was that."""
    ticket = tx.get_ticket(ticket_id)
    if ticket is None or ticket.state != TicketState.QUEUED:
        return False
    if reattached is not None and ticket.reattached != reattached:
        return False
    leave(tx, tickets.finished(ticket, TicketState.ABORTED, now, reason=reason))
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
    withdrawn = tickets.withdraw(ticket, now, reason)
    if withdrawn is None:
        return ticket, False
    if ticket.state != TicketState.QUEUED:  # an INPUT_REQUIRED question: its finished record moves to the new time
        tx.delete_ticket(ticket_id)
    leave(tx, withdrawn)
    return withdrawn, True


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
    else:
        head = tx.queue(who, 1)
        ticket = head[0] if head else None
    answered = tickets.answer(ticket, who, reply, now, name=agent_id, ticket_id=ticket_id)
    leave(tx, answered)
    entry = tx.get_entry(who)
    if entry is not None:  # answering is the agent's activity
        entry.last_activity_ns = now
        tx.put_entry(entry, None)
    return answered.ticket_id


def cancel_head(tx: RecordTx, now: int, agent_id: str, ticket_id: str) -> bool:
    head = tx.queue(target(tx, agent_id), 1)
    if not head or head[0].ticket_id != ticket_id:
        return False
    leave(tx, tickets.finished(head[0], TicketState.ABORTED, now, reason="cancelled at the head of the queue"))
    return True


def close_queue(tx: RecordTx, now: int, agent_id: str, reason: str) -> int:
    return abort_queue(tx, now, target(tx, agent_id), reason)


def prune(tx: RecordTx, finished_before_ns: int, limit: int) -> int:
    ids = tx.finished_before(finished_before_ns, limit)
    for ticket_id in ids:
        tx.delete_ticket(ticket_id)
    return len(ids)
