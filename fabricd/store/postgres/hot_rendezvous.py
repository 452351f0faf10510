"""The rendezvous's hot paths on PostgreSQL: PgRendezvous.enqueue / answer / get.

fabricd.core.tickets decides each write, as it does for the record scripts (LMDB, memory). An Ask or
EnqueueTicket is one short transaction: its facts in one statement, the decision, its write in one statement
(tickets.py). A reply is one statement (`_ANSWER`): a guarded write that reads the ticket the reply names (or
the replier's FIFO head), locked, and applies tickets.answered to it if it is one tickets.answerable names. A name that is no agent id is resolved in the same transaction as the write it leads to (its
entries read locked): an enqueue reads its facts again for that agent; a reply that picked nothing resolves
the name, answers that agent's ticket or names the refusal in one transaction of its own.
"""

from __future__ import annotations

import json
import uuid
from typing import TYPE_CHECKING

from fabricd.core import mailbox_writes as writes
from fabricd.core import quota as quotas
from fabricd.core import rendezvous as rv_rules
from fabricd.core import tickets, turns
from fabricd.core import wake as wake_rules
from fabricd.core.kv import mailbox
from fabricd.core.kv.store import KvRendezvous
from fabricd.core.model import Ticket, TicketState
from fabricd.core.rendezvous_wait import queue_key, ticket_key
from fabricd.store.postgres import append_sql
from fabricd.store.postgres import statements as s
from fabricd.store.postgres import tickets as tk
from fabricd.store.postgres.engine import Attempt, PgEngine
from fabricd.store.postgres.usage_sql import QUEUED, credit, moved

if TYPE_CHECKING:
    from fabricd.store.postgres.conn import Conn

_ANSWER = f"""
WITH named AS (
    SELECT ticket_id, state, target FROM tickets WHERE ticket_id = $2 AND $2 <> '' FOR UPDATE
), head AS (
    SELECT ticket_id, state, target FROM tickets WHERE target = $1 AND state = {int(TicketState.QUEUED)} AND $2 = ''
    ORDER BY queue_seq LIMIT 1 FOR UPDATE
), pick AS (
    SELECT * FROM named UNION ALL SELECT * FROM head
), t AS (
    UPDATE tickets k SET state = $3, result = $4, reason = '', finish_ns = $5, outcome = $6, result_data = $7,
        result_headers = $8 FROM pick
    WHERE k.ticket_id = pick.ticket_id AND pick.state = $9 AND pick.target = $10
    RETURNING k.ticket_id, k.target, k.source_agent, {tk.ticket_message_id("k")} AS id
), box AS (
    SELECT agent_id FROM mailboxes WHERE agent_id = (SELECT target FROM t) FOR UPDATE
), task AS (  -- the task's id acked alone (fabricd.core.mailbox_acks.ack): its oldest unread copy
    SELECT x.seq FROM t AS w CROSS JOIN {s.copies_of("1", "w.target")}
), gone AS (
    DELETE FROM messages m USING task, box WHERE m.agent_id = box.agent_id AND m.seq = task.seq
    RETURNING m.sender, octet_length(m.body) AS n
), credited AS (
    {credit(moved("SELECT sender, n FROM gone") + f" UNION ALL SELECT '{QUEUED}' || source_agent, 1 FROM t WHERE source_agent <> ''")}
), upd AS (
    UPDATE mailboxes m SET unread_count = m.unread_count - (SELECT count(*) FROM gone), last_activity = $5
    FROM box WHERE m.agent_id = box.agent_id
)
SELECT ticket_id FROM t
"""
"""Apply fabricd.core.tickets.answered (the fields $3-$8) to the ticket an answer by agent $1 names: ticket $2, or
the head of $1's FIFO when $2 is empty; guarded by tickets.answerable ($9, $10: the state and target of the only
tickets an answer answers). The ticket's id; no row when the guard held for none (nothing written: the caller
asks fabricd.core.tickets.answer for the refusal)."""


class PgRendezvous(KvRendezvous):
    __slots__ = ()
    _e: PgEngine

    async def get(self, ticket_id: str) -> Ticket | None:
        return await self._e.op(lambda conn, _: tk.get_ticket(conn, ticket_id), rerun_safe=True)

    async def enqueue(self, request: rv_rules.TicketRequest, max_unread: int,
                      quota: quotas.Quotas | None = None) -> tuple[Ticket, int]:
        now = self._clock()
        fresh = str(uuid.uuid4())
        # A follow-up re-run after an unknown commit would find its ticket queued and refuse it: not re-run.
        rerun_safe = bool(request.idempotency_key or not request.continues)
        ticket, position, woken = await self._e.op(
            lambda conn, attempt: _enqueue(conn, attempt, request, fresh, now, max_unread, quota),
            rerun_safe=rerun_safe)
        self._e.committed(woken, int(mailbox.key(ticket.target) in woken))
        return ticket, position

    async def answer(self, agent_id: str, answer: rv_rules.Answer, ticket_id: str) -> str:
        now = self._clock()
        # The statement picks the replier's queued ticket (the named one, or its FIFO head) and writes what the
        # decider says an answer writes. When it picks none, `agent_id` may be a session name: `_answer_by_name`.
        decided = tickets.answered(answer, now)
        args = (ticket_id, int(decided.state), decided.result, now, int(decided.outcome), decided.result_data,
                json.dumps(decided.result_headers))

        async def run(conn: Conn, attempt: Attempt) -> str | None:
            attempt.committing = True
            answered: str | None = await conn.fetchval(_ANSWER, agent_id, *args, *_guard(agent_id))
            return answered

        answered = await self._e.op(run, rerun_safe=False)
        if answered is None:
            by_name, who = await self._e.op(
                lambda conn, attempt: _answer_by_name(conn, attempt, agent_id, answer, ticket_id, now, args),
                rerun_safe=False)
            self._e.committed({ticket_key(by_name): None, queue_key(who): None})
            return by_name
        self._e.committed({ticket_key(answered): None, queue_key(agent_id): None})
        return answered


def _guard(replier: str) -> tuple[int, str]:
    state, target = tickets.answerable(replier)
    return int(state), target


async def _answer_by_name(conn: Conn, attempt: Attempt, name: str, answer: rv_rules.Answer, ticket_id: str, now: int,
                          args: tuple[object, ...]) -> tuple[str, str]:
    """A reply whose replier `name` has no such ticket queued as an agent id, in one transaction: `name`
    resolved as a session name (or `session/segment`) on its entries, read locked (fabricd.core.mailbox_writes
    .resolve, AMBIGUOUS_NAME when several agents share it), that agent's ticket answered, or the refusal
    fabricd.core.tickets.answer names. (answered ticket id, agent id)."""
    async with conn.transaction():
        sessions = writes.sessions_of(name)
        named = await append_sql.named(conn, sessions)
        found = writes.resolve(name, [e for e in named if e.agent_id == name or e.session_name in sessions])
        who = found.agent_id if found is not None else name
        if who != name:
            attempt.committing = True
            answered: str | None = await conn.fetchval(_ANSWER, who, *args, *_guard(who))
            if answered is not None:
                return answered, who
            attempt.committing = False  # nothing written: the refusal below reads only
        stored = await tk.get_ticket(conn, ticket_id) if ticket_id else None
        tickets.answer(stored, who, answer, now, name=name, ticket_id=ticket_id)  # raises the refusal
        raise AssertionError("unreachable: the statement answers every queued ticket of the replier's")


async def _enqueue(conn: Conn, attempt: Attempt, request: rv_rules.TicketRequest, fresh: str, now: int,
                   max_unread: int, quota: quotas.Quotas | None) -> tuple[Ticket, int, list[str]]:
    """One enqueue (fabricd.core.tickets.enqueue decides on tickets.ENQUEUE_FACTS): (ticket, position, the
    wake-up keys of the commit). A target that is no agent id is resolved in the same transaction
    (fabricd.core.mailbox_writes.resolve, on the entries it may name, locked) and its facts read again."""
    target = request.target
    held = quota is not None and bool(request.source_agent)
    names = tk.usage_names(request.source_agent) if held else []
    async with conn.transaction():
        while True:
            ticket_id = tickets.ticket_id(target, request, fresh)
            row = await conn.fetchrow(tk.ENQUEUE_FACTS, sorted({target, request.source_agent} - {""}), target,
                                      ticket_id, names)
            assert row is not None  # FROM (SELECT 1) LEFT JOIN ...: always one row
            if row["unread"] is None:
                found = None
                if target == request.target:  # a session name, or `session/segment`?
                    sessions = writes.sessions_of(target)
                    named = await append_sql.named(conn, sessions)
                    found = writes.resolve(target, [e for e in named if e.agent_id == target
                                                    or e.session_name in sessions])
                if found is None or found.agent_id == target:
                    close = writes.close_names(request.target, await append_sql.registered(conn))
                    raise rv_rules.unknown_target(request.target, close)
                target = found.agent_id
                continue
            prior = tk.ticket_of(row) if row["ticket_id"] is not None else None
            if prior is not None and ticket_id == fresh:  # an earlier run of this very call committed
                return prior, row["ahead"] if prior.state == TicketState.QUEUED else -1, []
            used = list(row["used"])
            facts = tickets.EnqueueFacts(target=target, unread=row["unread"], prior=prior,
                                         usage=quotas.Usage(unread_bytes=used[0], queued_tickets=used[1],
                                                            unread_messages=used[2]) if held
                                         else quotas.Usage())
            decided = tickets.enqueue(request, facts, ticket_id, now, max_unread, quota)
            if isinstance(decided, tickets.Resent):
                if decided.reattached:
                    await conn.execute("UPDATE tickets SET reattached = $2 WHERE ticket_id = $1", ticket_id,
                                       decided.ticket.reattached)
                queued = decided.ticket.state == TicketState.QUEUED
                return decided.ticket, row["ahead"] if queued else -1, []
            ticket, message = decided.ticket, decided.message
            hook = wake_rules.decode(row["hook"]) if row["hook"] is not None else None
            armed = wake_rules.arming(hook, now, message.id, ticket.ticket_id) if hook is not None else None
            attempt.committing = True
            wrote = await conn.fetchrow(
                tk.ENQUEUE_FOLLOW_UP if decided.follow_up else tk.ENQUEUE_NEW, ticket.ticket_id, target,
                s.encode(message), now, int(ticket.source_kind), ticket.source_agent, ticket.requester,
                ticket.conversation_id, ticket.task, message.id, ticket.data, json.dumps(ticket.headers),
                turns.encode(ticket.earlier), wake_rules.encode(armed) if armed is not None else None,
                row["hook"], names, used)
            if wrote is not None:
                break
            # the asker's usage or the hook moved since the facts were read: read them again, decide again
    ticket.seq = wrote["last_seq"]
    woken = [mailbox.key(target), queue_key(target), ticket_key(ticket.ticket_id)]
    return ticket, wrote["position"], woken + [wake_rules.WAKE] if armed is not None else woken
