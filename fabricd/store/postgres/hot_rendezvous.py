"""The rendezvous's hot paths on PostgreSQL: PgRendezvous.enqueue / answer / get.

An Ask or EnqueueTicket of a plain task is one short transaction (the ticket, its task
message and the counters; tickets.py's statements), a COMPLETED reply without parts is one
statement (`_ANSWER`); anything else (parts, follow-ups, an asker held to a quota, a session
name, an idempotent resend, nothing queued to answer) runs the record script, as hot.py says.
"""

from __future__ import annotations

import uuid
from typing import Any

from fabricd.core import mailbox as rules
from fabricd.core import quota as quotas
from fabricd.core import rendezvous as rv_rules
from fabricd.core import wake as wake_rules
from fabricd.core.kv import mailbox
from fabricd.core.kv.directory import similar_names
from fabricd.core.kv.rendezvous import IDEMPOTENCY_NAMESPACE
from fabricd.core.kv.store import KvRendezvous
from fabricd.core.model import Address, Message, MessageKind, Ticket, TicketOutcome, TicketSourceKind, TicketState
from fabricd.core.rendezvous_wait import queue_key, ticket_key
from fabricd.store.postgres import statements as s
from fabricd.store.postgres import tickets as tk
from fabricd.store.postgres.engine import Attempt, PgEngine
from fabricd.store.postgres.usage_sql import QUEUED, credit, freed

_ANSWER = f"""
WITH pick AS (
    SELECT ticket_id FROM tickets WHERE target = $1 AND state = 1 AND ($2 = '' OR ticket_id = $2)
    ORDER BY queue_seq LIMIT 1 FOR UPDATE
), t AS (
    UPDATE tickets k SET state = $3, result = $4, reason = '', finish_ns = $5, outcome = $6 FROM pick
    WHERE k.ticket_id = pick.ticket_id AND k.state = 1
    RETURNING k.ticket_id, k.source_agent, {tk.ticket_message_id("k")} AS message_id
), box AS (
    SELECT agent_id FROM mailboxes WHERE agent_id = $1 AND EXISTS (SELECT 1 FROM t) FOR UPDATE
), task AS (  -- the oldest unread message carrying the task's id (another sender may have chosen it too)
    SELECT min(m.seq) AS seq FROM message_ids i, t, messages m
    WHERE i.id = t.message_id AND i.agent_id = $1 AND m.agent_id = $1 AND m.seq = i.seq AND m.id = i.id
), gone AS (
    DELETE FROM messages m USING task, box WHERE m.agent_id = $1 AND m.seq = task.seq RETURNING m.body
), credited AS (
    {credit(freed("gone") + f" UNION ALL SELECT '{QUEUED}' || source_agent, 1 FROM t WHERE source_agent <> ''")}
), upd AS (
    UPDATE mailboxes m SET unread_count = m.unread_count - (SELECT count(*) FROM gone), last_activity = $5
    FROM box WHERE m.agent_id = box.agent_id
)
SELECT ticket_id FROM t
"""

_PRIOR = f"""
WITH prior AS (SELECT 1 FROM tickets WHERE ticket_id = $1
), stale AS (  -- a new ticket: the task message id of a pruned one of its request key is renewed (kv._deliver)
    {s.FORGET_CONSUMED_ID} AND NOT EXISTS (SELECT 1 FROM prior)
)
SELECT EXISTS (SELECT 1 FROM prior)
"""
"""Whether ticket $1 exists: a resend (the record script answers it); if not, asked by $2, the record of its task
message's id is forgotten when consumed (a request key asked again after its ticket was pruned)."""


class PgRendezvous(KvRendezvous):
    __slots__ = ()
    _e: PgEngine

    async def get(self, ticket_id: str) -> Ticket | None:
        return await self._e.op(lambda conn, _: tk.get_ticket(conn, ticket_id), rerun_safe=True)

    async def enqueue(self, request: rv_rules.TicketRequest, max_unread: int,
                      quota: quotas.Quotas | None = None) -> tuple[Ticket, int]:
        if request.data or request.headers or request.continues or (quota is not None and request.source_agent):
            # tasks with parts, follow-ups and an asker held to its quotas: the record script
            return await super().enqueue(request, max_unread, quota)
        now = self._clock()
        kind = TicketSourceKind(request.source_kind) or TicketSourceKind.HUMAN
        requester = request.requester or (request.source_agent if kind == TicketSourceKind.AGENT else "human")
        fresh_id = str(uuid.uuid4())
        target = request.target
        for resolved in (False, True):
            ticket_id = fresh_id
            if request.idempotency_key:
                ticket_id = str(uuid.uuid5(IDEMPOTENCY_NAMESPACE, f"{target}\n{request.idempotency_key}"))
            ticket = Ticket(ticket_id=ticket_id, target=target, task=request.task, source_kind=kind,
                            source_agent=request.source_agent, requester=requester,
                            conversation_id=request.conversation_id, enqueue_ns=now)
            message = Message(
                id=ticket_id, sender=Address(request.source_agent) if request.source_agent else Address(),
                recipient=Address(target), thread_id=request.conversation_id, text=rv_rules.task_text(ticket),
                headers={"fabricd-ticket-id": ticket_id, "fabricd-requester": requester},
                kind=MessageKind.USER if kind == TicketSourceKind.HUMAN else MessageKind.AGENT, send_time_ns=now,
                ticket_id=ticket_id)
            body = s.encode(message)
            prior_possible = bool(request.idempotency_key)
            done = await self._e.op(lambda conn, attempt, t=ticket, b=body, p=prior_possible:
                                    enqueue(conn, attempt, t, b, max_unread, p), rerun_safe=True)
            if done == "prior":
                return await super().enqueue(request, max_unread, quota)  # a resend: the record script finds its place
            if isinstance(done, tuple):
                ticket.seq = done[0]
                woken = {mailbox.key(target): None, queue_key(target): None}
                self._e.committed({**woken, wake_rules.WAKE: None} if done[2] else woken, 1)
                return ticket, done[1]
            if done is not None:
                raise rules.mailbox_full(target, done, max_unread)
            if resolved:
                break
            found = await self.target(request.target)  # a session name (may raise: ambiguous)
            if found == request.target:
                break
            target = found
        raise rv_rules.unknown_target(request.target, await self._e.read(lambda tx: similar_names(tx, request.target)))

    async def answer(self, agent_id: str, answer: rv_rules.Answer, ticket_id: str) -> str:
        if answer.outcome != TicketOutcome.COMPLETED or answer.data or answer.headers:
            return await super().answer(agent_id, answer, ticket_id)  # rarer answers keep the record script
        now = self._clock()

        async def run(conn: Any, attempt: Attempt) -> str | None:
            attempt.committing = True
            return await conn.fetchval(_ANSWER, agent_id, ticket_id, int(TicketState.ANSWERED), answer.result, now,
                                       int(TicketOutcome.COMPLETED))

        answered = await self._e.op(run, rerun_safe=False)
        if answered is None:  # a session name, or nothing to answer: the record script resolves or refuses
            return await super().answer(agent_id, answer, ticket_id)
        self._e.committed({ticket_key(answered): None, queue_key(agent_id): None})
        return answered


async def enqueue(conn: Any, attempt: Attempt, ticket: Ticket, body: bytes, max_unread: int,
                  prior_possible: bool) -> tuple[int, int, bool] | int | str | None:
    """tickets.enqueue_ticket, telling a found ticket apart ("prior"); its id is checked only when it may
    exist (an idempotency key, or a re-run). Stored: (queue seq, position, whether a wake hook was armed)."""
    async with conn.transaction():
        if (prior_possible or attempt.number > 1) and await conn.fetchval(
                _PRIOR, ticket.ticket_id, ticket.source_agent):
            return "prior"
        names = sorted({ticket.target, ticket.source_agent} - {""})
        boxes = {r["agent_id"]: r["unread_count"] for r in await conn.fetch(s._LOCK_BOXES, names)}
        if ticket.target not in boxes:
            return None
        if max_unread and boxes[ticket.target] >= max_unread:
            return boxes[ticket.target]
        attempt.committing = True
        row = await conn.fetchrow(tk._ENQUEUE, ticket.ticket_id, ticket.target, body, ticket.enqueue_ns,
                                  int(ticket.source_kind), ticket.source_agent, ticket.requester,
                                  ticket.conversation_id, ticket.task)
    return row["last_seq"], row["position"], row["woke"]
