"""The hot paths of PgStore: one statement or one short transaction each, the record scripts behind them.

    PgMailboxes.append / peek / unread / drain / ack                  (here)
    PgRendezvous.enqueue / answer / get                               (hot_rendezvous.py)
    PgOutbox.deliver_due / next_due                                   (hot_outbox.py)

This module holds the mailbox's, and what the outbox's shares with it: a message's stored
copy (`_bodies`), what an append means (`_outcome`) and the hand-over (`_Handover`).

Each runs statements.py's (or tickets.py's, outbox.py's) SQL through `PgEngine.op` (re-run after a
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

from collections.abc import Callable, Sequence
from typing import Any

from fabricd.core import mailbox as rules
from fabricd.core import quota as quotas
from fabricd.core import wake as wake_rules
from fabricd.core.errors import FabricError
from fabricd.core.kv import mailbox
from fabricd.core.kv.store import KvMailboxes
from fabricd.core.paging import approx_size
from fabricd.core.model import Envelope, Message, Sent
from fabricd.store.postgres import statements as s
from fabricd.store.postgres.engine import Attempt, PgEngine

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
        count_limit = quota.unread_messages if quota is not None else 0
        sizes = [approx_size(msg) for msg, _ in items] if limit else []
        now = self._clock()
        prepared = _bodies(items, now, self._mint)  # ids minted once, before the first run
        woke = [False]  # the last run armed a wake hook

        async def one(conn: Any, attempt: Attempt) -> list[Sent | FabricError]:
            (stored, body, item), (msg, digest) = prepared[0], items[0]
            attempt.committing = True
            done = await s.append(conn, item.agent_id, item.message_id, body, now, digest, max_unread, item.sender,
                                  limit if item.sender else 0, sizes[0] if limit else 0, item.ticket_id,
                                  count_limit)
            woke[0] = done.woke
            return [_outcome(msg, stored, body, digest, done, max_unread)]

        async def many(conn: Any, attempt: Attempt) -> list[Sent | FabricError]:
            async with conn.transaction():
                done = await s.append_many(conn, [item for _, _, item in prepared], now, max_unread, limit, sizes,
                                           count_limit)
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
                    deliverable: Callable[[], bool] | None = None) -> tuple[list[Envelope], int, int]:
        now = self._clock()

        async def run(conn: Any, attempt: Attempt) -> tuple[list[Envelope], int, int]:
            async with conn.transaction():
                box = await conn.fetchrow("SELECT unread_count, revision FROM mailboxes WHERE agent_id = $1 "
                                          "FOR UPDATE", agent_id)
                if box is None or not box["unread_count"]:
                    return [], 0, 0
                unread, revision = box["unread_count"], box["revision"]
                if deliverable is not None and not deliverable():  # the caller is gone or out of time
                    return [], unread, revision
                rows = await conn.fetch(s._DRAIN, agent_id, limit, max_bytes, now)
                attempt.committing = True
            return ([s.envelope(r["seq"], r["body"]) for r in rows if r["seq"] is not None], rows[0]["left"],
                    revision)

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
