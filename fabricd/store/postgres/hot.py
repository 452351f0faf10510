"""The hot paths of PgStore: one statement or one short transaction each, the record scripts behind them.

    PgMailboxes.append / peek / unread / drain / ack, PgRendezvous.enqueue / answer / get,
    PgOutbox.deliver_due / next_due

Each runs statements.py's (or outbox.py's) SQL through `PgEngine.op` (re-run after a
rollback, a unique-key race or a connection lost before the commit). A hot path handles
the common case and the refusals it can name exactly (a full mailbox, a reused id, a
duplicate); anything else it hands, untouched, to the shared record script (fabricd.core.kv),
which gives the very refusal LMDB gives:
- a recipient or target that is not a mailbox's agent id (a session name to resolve, a
  mailbox to create, an unknown name with its "did you mean"),
- a client id used before for a different recipient name,
- a reply with no queued ticket to answer (to name why), an idempotent Ask's resend,
- an outbox row whose recipient has no mailbox and whose name might be a session name
  (one with no mailbox and no such session gets its mailbox in the same transaction), or
  whose sender would be charged for the new mailbox,
- a send over its sender's unread-bytes quota, an ask held to a quota,
- an outbox page holding a wake row (claimed for its sender, never posted as mail).
The quota counters (fabricd.core.quota) move in the hot statements themselves (usage_sql.py), and a
send, batch, ticket or outbox reply arms its recipient's wake hook there too (wake_sql.py: a probe
of wake_hooks by primary key, a write only when a hook has news).
A batch's hand-over is all or nothing: its transaction is rolled back first (`_Handover`).

A send locks its mailbox rows (the recipient's seq, the sender's activity) in agent id
order, in statements.py and, through PgEngine.write's `lock`, when handed to the record
script, so two nodes sending to each other never deadlock. Round trips per operation,
before and after, are counted in tests/store/test_postgres_round_trips.py.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from typing import Any

from fabricd.core import mailbox as rules
from fabricd.core import outbox as outbox_rules
from fabricd.core import quota as quotas
from fabricd.core import rendezvous as rv_rules
from fabricd.core.rendezvous_wait import queue_key, ticket_key
from fabricd.core import wake as wake_rules
from fabricd.core.errors import FabricError
from fabricd.core.kv import mailbox
from fabricd.core.kv.directory import DIRECTORY
from fabricd.core.kv.rendezvous import IDEMPOTENCY_NAMESPACE
from fabricd.core.kv.store import KvMailboxes, KvOutbox, KvRendezvous
from fabricd.core.paging import approx_size
from fabricd.core.model import (Address, Change, Envelope, Message, MessageKind, Sent, Ticket, TicketOutcome,
                                TicketSourceKind, TicketState)
from fabricd.store.postgres import outbox as o
from fabricd.store.postgres import statements as s
from fabricd.store.postgres import tickets as tk
from fabricd.store.postgres.engine import Attempt, PgEngine
from fabricd.store.postgres.usage_sql import OUTBOX_ROWS, QUEUED, credit, freed

class _Handover(Exception):
    """Raised inside a hot path's transaction (rolling it back): the record script decides this one."""


def _copy(msg: Message, message_id: str, now: int) -> Message:
    """The message as it will be stored: a new object (the caller's is left alone), seq set after the append."""
    return Message(message_id, msg.sender, msg.recipient, msg.reply_to, msg.thread_id, msg.text, msg.data,
                   msg.headers, msg.kind, msg.hops, now, 0, msg.ticket_id)


def _bodies(items: Sequence[tuple[Message, bytes]], now: int,
            mint: Callable[[int], str]) -> list[tuple[Message, bytes, s.Item]]:
    out = []
    for msg, digest in items:
        stored = _copy(msg, msg.id or mint(now), now)
        body = s.encode(stored)
        out.append((stored, body, s.Item(msg.recipient.agent_id, stored.id, body, digest, msg.sender.agent_id,
                                         stored.ticket_id)))
    return out


def _outcome(msg: Message, stored: Message, body: bytes, digest: bytes, done: s.Appended,
             max_unread: int) -> Sent | FabricError:
    """What one append means, as LMDB's `mailbox.store` would say it; raises _Handover when it cannot tell."""
    name = msg.recipient.agent_id
    if done.prior is not None:
        prior = done.prior
        if not msg.id and prior.recipient == name:  # our minted id: an earlier run of this very call committed
            stored.seq, stored.send_time_ns = prior.seq, prior.send_time_ns
            return Sent(stored)
        if prior.digest != digest:
            return rules.message_id_reused(msg.id)
        if prior.recipient != name:
            raise _Handover  # the name may resolve to the recipient of record: the record script checks
        return Sent(rules.as_stored(msg, prior), duplicate=True)
    if done.seq is None:
        if done.unread is None:
            raise _Handover  # no mailbox has that agent id: resolve, create or refuse on the record path
        if max_unread and done.unread >= max_unread:
            return rules.mailbox_full(name, done.unread, max_unread)
        raise _Handover  # over the sender's quota: the record script names the refusal, with its usage
    stored.seq = done.seq
    return Sent(stored, encoded=s.envelope(done.seq, body).encoded)


class PgMailboxes(KvMailboxes):
    __slots__ = ()
    _e: PgEngine

    async def append(self, items: Sequence[tuple[Message, bytes]], *, create: bool, atomic: bool,
                     max_unread: int, quota: quotas.Quotas | None = None) -> list[Sent | FabricError]:
        limit = quota.unread_bytes if quota is not None else 0
        sizes = [approx_size(msg) for msg, _ in items] if limit else []
        now = self._clock()
        prepared = _bodies(items, now, self._mint)  # ids minted once, before the first run
        woke = [False]  # the last run armed a wake hook

        async def one(conn: Any, attempt: Attempt) -> list[Sent | FabricError]:
            (stored, body, item), (msg, digest) = prepared[0], items[0]
            attempt.committing = True
            done = await s.append(conn, item.agent_id, item.message_id, body, now, digest, max_unread, item.sender,
                                  limit if item.sender else 0, sizes[0] if limit else 0, item.ticket_id)
            woke[0] = done.woke
            return [_outcome(msg, stored, body, digest, done, max_unread)]

        async def many(conn: Any, attempt: Attempt) -> list[Sent | FabricError]:
            async with conn.transaction():
                done = await s.append_many(conn, [item for _, _, item in prepared], now, max_unread, limit, sizes)
                woke[0] = any(d.woke for d in done)
                out = []
                for i, ((msg, digest), (stored, body, _), d) in enumerate(zip(items, prepared, done, strict=True)):
                    result = _outcome(msg, stored, body, digest, d, max_unread)
                    if isinstance(result, FabricError) and atomic:
                        raise rules.at_index(result, i)  # rolls the batch back
                    out.append(result)
                attempt.committing = True
            return out

        try:
            out = await self._e.op(one if len(items) == 1 else many, rerun_safe=True)
        except _Handover:
            return await self._record_append(items, create, atomic, max_unread, quota)
        if len(items) == 1 and atomic and isinstance(out[0], FabricError):
            raise rules.at_index(out[0], 0)
        fresh = [r for r in out if isinstance(r, Sent) and r.encoded]
        if fresh:
            woken = {mailbox.key(r.message.recipient.agent_id): None for r in fresh}
            self._e.committed({**woken, wake_rules.WAKE: None} if woke[0] else woken, len(fresh))
        return out

    async def _record_append(self, items: Sequence[tuple[Message, bytes]], create: bool, atomic: bool,
                             max_unread: int, quota: quotas.Quotas | None) -> list[Sent | FabricError]:
        names = {msg.recipient.agent_id for msg, _ in items} | {msg.sender.agent_id for msg, _ in items}
        return await self._e.write(lambda tx: mailbox.append(tx, self._clock(), self._mint, items, create,
                                                             atomic, max_unread, quota),
                                   weight=len(items), lock=sorted(names - {""}))

    async def unread(self, agent_id: str, after_seq: int, limit: int, max_bytes: int) -> list[Envelope]:
        return await self._e.op(lambda conn, _: s.unread(conn, agent_id, after_seq, limit, max_bytes),
                                rerun_safe=True)

    async def peek(self, agent_id: str, limit: int, max_bytes: int) -> tuple[list[Envelope], int]:
        return await self._e.op(lambda conn, _: peek(conn, agent_id, limit, max_bytes), rerun_safe=True)

    async def drain(self, agent_id: str, limit: int, max_bytes: int,
                    deliverable: Callable[[], bool] | None = None) -> tuple[list[Envelope], int]:
        now = self._clock()

        async def run(conn: Any, attempt: Attempt) -> tuple[list[Envelope], int]:
            async with conn.transaction():
                unread = await conn.fetchval("SELECT unread_count FROM mailboxes WHERE agent_id = $1 FOR UPDATE",
                                             agent_id)
                if not unread:
                    return [], 0
                if deliverable is not None and not deliverable():  # the caller is gone or out of time
                    return [], unread
                rows = await conn.fetch(s._DRAIN, agent_id, limit, max_bytes, now)
                attempt.committing = True
            return [s.envelope(r["seq"], r["body"]) for r in rows if r["seq"] is not None], rows[0]["left"]

        out = await self._e.op(run)  # a drain whose commit may have happened is not run again: UNAVAILABLE
        self._e.committed(())
        return out

    async def ack(self, agent_id: str, message_ids: Sequence[str]) -> int:
        now = self._clock()

        async def run(conn: Any, attempt: Attempt) -> int:
            attempt.committing = True
            return await s.ack(conn, agent_id, message_ids, now)

        acked = await self._e.op(run, rerun_safe=True)  # a re-run consumes nothing twice
        self._e.committed(())
        return acked


_PEEK = f"""
SELECT b.unread_count, x.seq, x.body FROM mailboxes b
LEFT JOIN LATERAL ({s.within_budget("SELECT seq, body FROM messages m WHERE m.agent_id = b.agent_id "
                                    "ORDER BY seq LIMIT $2", "$3")}) x ON true
WHERE b.agent_id = $1 AND b.unread_count > 0 ORDER BY x.seq
"""


async def peek(conn: Any, agent_id: str, limit: int, max_bytes: int) -> tuple[list[Envelope], int]:
    """The oldest unread messages with the unread count, from one snapshot: one statement."""
    rows = await conn.fetch(_PEEK, agent_id, limit, max_bytes)
    return s.take(rows, max_bytes), (rows[0]["unread_count"] if rows else 0)


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
        raise rv_rules.unknown_target(request.target)

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
                "SELECT 1 FROM tickets WHERE ticket_id = $1", ticket.ticket_id):
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


class PgOutbox(KvOutbox):
    __slots__ = ()
    _e: PgEngine

    async def next_due(self) -> int | None:
        return await self._e.op(lambda conn, _: o.next_due(conn), rerun_safe=True)

    async def deliver_due(self, limit: int, policy: outbox_rules.RetryPolicy,
                          max_unread: int) -> outbox_rules.DrainResult:
        due = await self.next_due()
        now = self._clock()
        if due is None or due > now:
            return outbox_rules.DrainResult(0, 0, more=False)  # nothing due: no write

        async def run(conn: Any, attempt: Attempt) -> tuple[outbox_rules.DrainResult, list[str]]:
            async with conn.transaction():
                rows = await o.claim_due(conn, now, limit + 1)
                batch = rows[:limit]
                if not batch:  # another node took them
                    return outbox_rules.DrainResult(0, 0, more=False), []
                if any(wake_rules.is_wake_row(r.key) for r in batch):
                    raise _Handover  # a wake row is claimed for its sender, not posted: the record script

                msgs = [outbox_rules.message_of(r) for r in batch]
                prepared = _bodies([(m, b"") for m in msgs], now, self._mint)
                items = [item for _, _, item in prepared]
                done = await s.append_many(conn, items, now, max_unread)
                created = await _create_missing(conn, items, done, now, max_unread)
                receipts: list[tuple[str, str, int]] = []
                failed = []
                for row, msg, (stored, body, _), d in zip(batch, msgs, prepared, done, strict=True):
                    result = _outcome(msg, stored, body, b"", d, max_unread)
                    if isinstance(result, FabricError):
                        failed.append(outbox_rules.failed(row, result, now, policy, self._rng))
                    else:
                        receipts.append((row.key, row.sender.agent_id, result.message.seq))
                if receipts:
                    await conn.execute(_RECEIPTS, [k for k, _, _ in receipts], [q for _, _, q in receipts], now,
                                       [a for _, a, _ in receipts])
                for f in failed:
                    await conn.execute("UPDATE outbox SET state = $2, attempts = $3, last_error = $4, "
                                       "next_attempt_ns = $5 WHERE key = $1 AND sender_agent = $6 AND state = 1",
                                       f.key, int(f.state), f.attempts, f.last_error, f.next_attempt_ns,
                                       f.sender.agent_id)
                attempt.committing = True
            woken: list[str] = [mailbox.key(m.recipient.agent_id) for m, d in zip(msgs, done, strict=True) if d.seq]
            if created:
                woken.append(DIRECTORY)
            if any(d.woke for d in done):
                woken.append(wake_rules.WAKE)
            return outbox_rules.DrainResult(len(receipts), len(failed), more=len(rows) > limit), woken

        try:
            result, woken = await self._e.op(run, rerun_safe=True)  # re-run: claimed rows are receipts by then
        except _Handover:
            return await super().deliver_due(limit, policy, max_unread)
        self._e.committed(dict.fromkeys(woken), len(woken) - (DIRECTORY in woken) - (wake_rules.WAKE in woken))
        return result


_RECEIPTS = f"""
WITH r AS (
    UPDATE outbox o SET state = 3, seq = v.s, deliver_ns = $3, attempts = o.attempts + 1, content = '', last_error = ''
    FROM unnest($1::text[], $4::text[], $2::bigint[]) AS v(k, a, s)
    WHERE o.key = v.k AND o.sender_agent = v.a AND o.state = 1 RETURNING o.sender_agent
)
{credit(f"SELECT '{OUTBOX_ROWS}' || sender_agent, count(*) FROM r WHERE sender_agent <> '' GROUP BY sender_agent")}
"""
"""Posted rows become their receipts, giving their senders' outbox-rows usage back (wake rows never come here)."""

_NAMED = """
SELECT 1 FROM mailboxes WHERE session_name <> '' AND session_name = ANY($1::text[]) LIMIT 1
"""

_NUMBER_CREATED = """
WITH rev AS (
    UPDATE counters SET value = value + cardinality($1::text[]) WHERE name = 'revision' RETURNING value
)
UPDATE mailboxes m SET revision = (SELECT value FROM rev) - cardinality($1::text[]) + v.o, change = $2
FROM unnest($1::text[]) WITH ORDINALITY AS v(a, o) WHERE m.agent_id = v.a
"""


async def _create_missing(conn: Any, items: list[s.Item], done: list[s.Appended], now: int, max_unread: int) -> bool:
    """Make the mailboxes an outbox page's replies go to but that do not exist, then store those replies
    (`done` updated in place); whether any was made. Raises _Handover when a name might resolve to an
    agent (a session name, `session/segment`): the record script decides those.

    The rows are inserted in agent id order before the directory's revision counter is taken, the order
    the record scripts lock in, and each new mailbox gets its own revision (change CREATED), as there.
    """
    waiting = [i for i, d in enumerate(done) if d.seq is None and d.prior is None and d.unread is None]
    if not waiting:
        return False
    if any(items[i].sender and items[i].sender != items[i].agent_id for i in waiting):
        raise _Handover  # a mailbox made by an agent's mail is charged to it (fabricd.core.quota): the record script
    names = sorted({items[i].agent_id for i in waiting})
    sessions = names + [n.rsplit("/", 1)[0] for n in names if "/" in n]
    if await conn.fetchval(_NAMED, sessions):
        raise _Handover
    made = [r["agent_id"] for r in await conn.fetch(
        "INSERT INTO mailboxes (agent_id) SELECT a FROM unnest($1::text[]) AS a ORDER BY a "
        "ON CONFLICT (agent_id) DO NOTHING RETURNING agent_id", names)]
    if made:
        await conn.execute(_NUMBER_CREATED, sorted(made), int(Change.CREATED))
    again = await s.append_many(conn, [items[i] for i in waiting], now, max_unread)
    for i, d in zip(waiting, again, strict=True):
        done[i] = d
    return bool(made)


