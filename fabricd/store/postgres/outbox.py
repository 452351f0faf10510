"""The outbox on PostgreSQL: rows, their due index, the claim with SKIP LOCKED, and receipts.

Every node runs the delivery loop. A node claims due rows inside its transaction
(`FOR UPDATE SKIP LOCKED`: rows another node holds are skipped, not waited for),
posts each row's message with the row's key as the message id and turns the row
into its receipt in the same transaction. A node that dies mid-transaction leaves
the rows PENDING for the next claim; the message id makes a post after an
ambiguous commit answer the first one, so each row is delivered once. What a
post makes of its row (a receipt, a retry, a dead letter) is fabricd.core.outbox's
decision; `settle` writes it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from fabricd.core import quota, wake
from fabricd.core.model import Address, OutboxRow, RowState
from fabricd.core.wake import WakeHook
from fabricd.store.postgres.usage_sql import OUTBOX_ROWS, charge, credit

if TYPE_CHECKING:
    from asyncpg import Record

    from fabricd.store.postgres.conn import Conn

PENDING, DEAD_LETTER, DELIVERED = int(RowState.PENDING), int(RowState.DEAD_LETTER), int(RowState.DELIVERED)
COLUMNS = ("key, state, recipient_agent, recipient_session, sender_agent, sender_session, job_id, content, "
            "attempts, next_attempt_ns, last_error, create_ns, deliver_ns, seq")


def row_of(r: Record) -> OutboxRow:
    return OutboxRow(key=r["key"], state=RowState(r["state"]), recipient=Address(r["recipient_agent"],
                     r["recipient_session"]), sender=Address(r["sender_agent"], r["sender_session"]),
                     job_id=r["job_id"], content=r["content"], attempts=r["attempts"],
                     next_attempt_ns=r["next_attempt_ns"], last_error=r["last_error"], create_ns=r["create_ns"],
                     deliver_ns=r["deliver_ns"], seq=r["seq"])


async def claim_due(conn: Conn, now_ns: int, limit: int) -> list[OutboxRow]:
    """Lock up to `limit` PENDING rows due by `now_ns`, earliest first, skipping rows other nodes hold.

    Call inside the transaction that posts them and records their receipts.
    """
    rows = await conn.fetch(f"""
        SELECT {COLUMNS} FROM outbox WHERE state = 1 AND next_attempt_ns <= $1
        ORDER BY next_attempt_ns LIMIT $2 FOR UPDATE SKIP LOCKED""", now_ns, limit)
    return [row_of(r) for r in rows]


_SETTLE = f"""
WITH v AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::smallint[], $4::integer[], $5::bigint[], $6::text[],
                         $7::bigint[], $8::bigint[], $9::text[]) AS v(k, a, st, att, nxt, err, dns, sq, c)
), r AS (
    UPDATE outbox o SET state = v.st, attempts = v.att, next_attempt_ns = v.nxt, last_error = v.err,
        deliver_ns = v.dns, seq = v.sq, content = v.c
    FROM v WHERE o.key = v.k AND o.sender_agent = v.a AND o.state = 1
), credited AS (
    {credit("SELECT * FROM unnest($10::text[], $11::bigint[])")}
), charged AS (
    {charge("SELECT * FROM unnest($12::text[], $13::bigint[])")}
)
SELECT 1
"""


async def settle(conn: Conn, claimed: Sequence[OutboxRow], settled: Sequence[OutboxRow]) -> None:
    """Write what fabricd.core.outbox decided for rows claimed PENDING in the caller's transaction (a receipt,
    a retry, a dead letter), moving the OUTBOX_ROWS usage of whoever holds each row before and after
    (quota.outbox_holder). One statement."""
    moves: dict[str, int] = {}
    for was, now in zip(claimed, settled, strict=True):
        for holder, delta in ((quota.outbox_holder(was.key, was.state, was.sender.agent_id), -1),
                              (quota.outbox_holder(now.key, now.state, now.sender.agent_id), 1)):
            if holder:
                moves[OUTBOX_ROWS + holder] = moves.get(OUTBOX_ROWS + holder, 0) + delta
    down = sorted((n, -d) for n, d in moves.items() if d < 0)
    up = sorted((n, d) for n, d in moves.items() if d > 0)
    cols = list(zip(*((r.key, r.sender.agent_id, int(r.state), r.attempts, r.next_attempt_ns, r.last_error,
                       r.deliver_ns, r.seq, r.content) for r in settled), strict=True))
    await conn.execute(_SETTLE, *map(list, cols), [n for n, _ in down], [d for _, d in down],
                       [n for n, _ in up], [d for _, d in up])


async def lock_hooks(conn: Conn, agents: Sequence[str]) -> dict[str, WakeHook]:
    """The wake hooks of `agents` (sorted: the lock order), locked in the caller's transaction."""
    rows = await conn.fetch("SELECT agent_id, body FROM wake_hooks WHERE agent_id = ANY($1::text[]) "
                            "ORDER BY agent_id FOR UPDATE", list(agents))
    return {r["agent_id"]: wake.decode(r["body"]) for r in rows}


async def put_hooks(conn: Conn, hooks: Sequence[WakeHook]) -> None:
    """Store hooks read with lock_hooks, as a decision left them."""
    if hooks:
        await conn.execute("UPDATE wake_hooks w SET body = v.b FROM unnest($1::text[], $2::bytea[]) AS v(a, b) "
                           "WHERE w.agent_id = v.a", [h.agent_id for h in hooks], [wake.encode(h) for h in hooks])


async def next_due(conn: Conn) -> int | None:
    """When the earliest PENDING row is due; None when none is."""
    due: int | None = await conn.fetchval("SELECT min(next_attempt_ns) FROM outbox WHERE state = 1")
    return due


def after(cursor: str) -> tuple[str, str, bool]:
    """(key, agent, whether the agent counts) of a row cursor (key NUL agent) or a bare key (after all its rows)."""
    key, sep, agent = cursor.partition("\0")
    return key, agent, bool(sep)


AFTER = "(key > $1 OR ($3 AND key = $1 AND sender_agent > $2))"
"""Rows after a cursor ($1, $2, $3 from `after`), in the table's order: key, then settling agent (both "C")."""


async def rows(conn: Conn, after_key: str, limit: int, state: RowState) -> list[OutboxRow]:
    """Rows in key order after a cursor or key (`after`), of one state (UNSPECIFIED: all)."""
    found = await conn.fetch(f"""
        SELECT {COLUMNS} FROM outbox WHERE {AFTER} AND ($4 = 0 OR state = $4)
        ORDER BY key, sender_agent LIMIT $5""", *after(after_key), int(state), limit)
    return [row_of(r) for r in found]
