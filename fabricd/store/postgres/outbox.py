"""The outbox on PostgreSQL: rows, their due index, the claim with SKIP LOCKED, and receipts.

Every node runs the delivery loop. A node claims due rows inside its transaction
(`FOR UPDATE SKIP LOCKED`: rows another node holds are skipped, not waited for),
posts each row's message with the row's key as the message id and turns the row
into its receipt in the same transaction. A node that dies mid-transaction leaves
the rows PENDING for the next claim; the message id makes a post after an
ambiguous commit answer the first one, so each row is delivered once.
"""

from __future__ import annotations

from collections.abc import Sequence

from fabricd.core.model import Address, OutboxRow, RowState

PENDING, DEAD_LETTER, DELIVERED = int(RowState.PENDING), int(RowState.DEAD_LETTER), int(RowState.DELIVERED)
_COLUMNS = ("key, state, recipient_agent, recipient_session, sender_agent, sender_session, job_id, content, "
            "attempts, next_attempt_ns, last_error, create_ns, deliver_ns, seq")


def row_of(r) -> OutboxRow:  # noqa: ANN001 - an asyncpg Record
    return OutboxRow(key=r["key"], state=RowState(r["state"]), recipient=Address(r["recipient_agent"],
                     r["recipient_session"]), sender=Address(r["sender_agent"], r["sender_session"]),
                     job_id=r["job_id"], content=r["content"], attempts=r["attempts"],
                     next_attempt_ns=r["next_attempt_ns"], last_error=r["last_error"], create_ns=r["create_ns"],
                     deliver_ns=r["deliver_ns"], seq=r["seq"])


async def enqueue_rows(conn, rows: Sequence[OutboxRow]) -> list[str]:  # noqa: ANN001
    """Insert PENDING rows; the keys that were new (a replayed key, pending or delivered, is left alone)."""
    cols = list(zip(*((r.key, r.recipient.agent_id, r.recipient.session_id, r.sender.agent_id, r.sender.session_id,
                       r.job_id, r.content, r.next_attempt_ns, r.create_ns) for r in rows), strict=True))
    if not cols:
        return []
    return [r["key"] for r in await conn.fetch("""
        INSERT INTO outbox (key, state, recipient_agent, recipient_session, sender_agent, sender_session, job_id,
                            content, next_attempt_ns, create_ns)
        SELECT k, 1, ra, rs, sa, ss, j, c, n, cr
        FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
                    $8::bigint[], $9::bigint[]) AS v(k, ra, rs, sa, ss, j, c, n, cr)
        ON CONFLICT (key, sender_agent) DO NOTHING RETURNING key""", *map(list, cols))]


async def claim_due(conn, now_ns: int, limit: int) -> list[OutboxRow]:  # noqa: ANN001
    """Lock up to `limit` PENDING rows due by `now_ns`, earliest first, skipping rows other nodes hold.

    Call inside the transaction that posts them and records their receipts.
    """
    rows = await conn.fetch(f"""
        SELECT {_COLUMNS} FROM outbox WHERE state = 1 AND next_attempt_ns <= $1
        ORDER BY next_attempt_ns LIMIT $2 FOR UPDATE SKIP LOCKED""", now_ns, limit)
    return [row_of(r) for r in rows]


async def record_receipt(conn, agent_id: str, key: str, seq: int, now_ns: int) -> bool:  # noqa: ANN001
    """Turn a PENDING row into its receipt (its message's seq); False if it was not pending (a re-run)."""
    done = await conn.execute("""
        UPDATE outbox SET state = 3, seq = $2, deliver_ns = $3, attempts = attempts + 1, content = '', last_error = ''
        WHERE key = $1 AND sender_agent = $4 AND state = 1""", key, seq, now_ns, agent_id)
    return done == "UPDATE 1"


async def record_failure(conn, agent_id: str, key: str, error: str, next_attempt_ns: int,  # noqa: ANN001
                         dead: bool) -> bool:
    """Count a failed post of a PENDING row: retry at `next_attempt_ns`, or dead-letter it."""
    done = await conn.execute("""
        UPDATE outbox SET attempts = attempts + 1, last_error = $2, next_attempt_ns = $3,
                          state = CASE WHEN $4 THEN 2 ELSE 1 END
        WHERE key = $1 AND sender_agent = $5 AND state = 1""", key, error, next_attempt_ns, dead, agent_id)
    return done == "UPDATE 1"


async def next_due(conn) -> int | None:  # noqa: ANN001
    """When the earliest PENDING row is due; None when none is."""
    return await conn.fetchval("SELECT min(next_attempt_ns) FROM outbox WHERE state = 1")


async def get_row(conn, agent_id: str, key: str) -> OutboxRow | None:  # noqa: ANN001
    r = await conn.fetchrow(f"SELECT {_COLUMNS} FROM outbox WHERE key = $1 AND sender_agent = $2", key, agent_id)
    return row_of(r) if r is not None else None


def after(cursor: str) -> tuple[str, str, bool]:
    """(key, agent, whether the agent counts) of a row cursor (key NUL agent) or a bare key (after all its rows)."""
    key, sep, agent = cursor.partition("\0")
    return key, agent, bool(sep)


AFTER = "(key > $1 OR ($3 AND key = $1 AND sender_agent > $2))"
"""Rows after a cursor ($1, $2, $3 from `after`), in the table's order: key, then settling agent (both "C")."""


async def rows(conn, after_key: str, limit: int, state: RowState) -> list[OutboxRow]:  # noqa: ANN001
    """Rows in key order after a cursor or key (`after`), of one state (UNSPECIFIED: all)."""
    found = await conn.fetch(f"""
        SELECT {_COLUMNS} FROM outbox WHERE {AFTER} AND ($4 = 0 OR state = $4)
        ORDER BY key, sender_agent LIMIT $5""", *after(after_key), int(state), limit)
    return [row_of(r) for r in found]


async def retry_dead_letters(conn, keys: Sequence[str], now_ns: int) -> int:  # noqa: ANN001
    """Make dead letters PENDING again, due now (all of them when `keys` is empty); how many."""
    return await conn.fetchval("""
        WITH back AS (UPDATE outbox SET state = 1, attempts = 0, next_attempt_ns = $2
                      WHERE state = 2 AND (cardinality($1::text[]) = 0 OR key = ANY($1)) RETURNING 1)
        SELECT count(*) FROM back""", list(keys), now_ns)


async def prune_receipts(conn, delivered_before_ns: int, limit: int) -> int:  # noqa: ANN001
    """Delete up to `limit` receipts delivered before `delivered_before_ns`."""
    return await conn.fetchval("""
        WITH old AS (SELECT key, sender_agent FROM outbox WHERE state = 3 AND deliver_ns < $1
                     ORDER BY deliver_ns LIMIT $2),
             gone AS (DELETE FROM outbox o USING old WHERE o.key = old.key AND o.sender_agent = old.sender_agent
                      RETURNING 1)
        SELECT count(*) FROM gone""", delivered_before_ns, limit)
