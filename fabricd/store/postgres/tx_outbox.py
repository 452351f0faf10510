"""The outbox's part of PgTx (a mixin): one row per (key, sender agent), its state moving usage.

A row's state moves the OUTBOX_ROWS usage of the agent holding it (quota.outbox_holder; count_usage,
on PgTx). In a write, due rows are claimed with SKIP LOCKED (outbox.claim_due), so each is posted once.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from fabricd.core import quota
from fabricd.core.model import OutboxRow, RowState
from fabricd.store.postgres import outbox as o

if TYPE_CHECKING:
    from asyncpg import Record

    from fabricd.store.postgres.conn import Conn

_INSERT = f"INSERT INTO outbox ({o.COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)"
"""A row's insert; its values are _values(row), in o.COLUMNS order."""


def _values(r: OutboxRow) -> tuple[object, ...]:
    return (r.key, int(r.state), r.recipient.agent_id, r.recipient.session_id, r.sender.agent_id, r.sender.session_id,
            r.job_id, r.content, r.attempts, r.next_attempt_ns, r.last_error, r.create_ns, r.deliver_ns, r.seq)


class PgOutboxRecords:
    """Mixed into PgTx, which provides the connection, the queries, `_lock` (FOR UPDATE in a write) and
    `count_usage`."""

    _conn: Conn
    _run: Callable[[Coroutine[Any, Any, Any]], Any]
    _fetch: Callable[..., list[Record]]
    _row: Callable[..., Record | None]
    _val: Callable[..., Any]
    _lock: str
    count_usage: Callable[[str, str, int], None]

    def get_outbox_row(self, agent_id: str, key: str) -> OutboxRow | None:
        r = self._row(f"SELECT {o.COLUMNS} FROM outbox WHERE key = $1 AND sender_agent = $2{self._lock}",
                      key, agent_id)
        return o.row_of(r) if r is not None else None

    def put_outbox_row(self, r: OutboxRow) -> None:
        # The old state moves the sender's outbox-rows usage (a delivery gives one back).
        was = self._row(f"""
            WITH old AS (SELECT state, sender_agent FROM outbox WHERE key = $1 AND sender_agent = $5 FOR UPDATE), up AS (
            {_INSERT}
            ON CONFLICT (key, sender_agent) DO UPDATE SET state = EXCLUDED.state, attempts = EXCLUDED.attempts,
                next_attempt_ns = EXCLUDED.next_attempt_ns, last_error = EXCLUDED.last_error,
                deliver_ns = EXCLUDED.deliver_ns, seq = EXCLUDED.seq, content = EXCLUDED.content)
            SELECT state, sender_agent FROM old""", *_values(r))
        if was is not None:
            self.count_usage(quota.outbox_holder(r.key, was["state"], was["sender_agent"]), quota.OUTBOX_ROWS, -1)
        self.count_usage(quota.outbox_holder(r.key, r.state, r.sender.agent_id), quota.OUTBOX_ROWS, 1)

    def add_outbox_row(self, r: OutboxRow) -> bool:
        # ON CONFLICT DO NOTHING: a row another node inserted after this transaction looked is left as it is
        # (an upsert would make its receipt PENDING again, and the replay would count as written).
        added = self._val(f"{_INSERT} ON CONFLICT (key, sender_agent) DO NOTHING RETURNING 1", *_values(r))
        if added is None:
            return False
        self.count_usage(quota.outbox_holder(r.key, r.state, r.sender.agent_id), quota.OUTBOX_ROWS, 1)
        return True

    def outbox_rows_keyed(self, key: str) -> list[OutboxRow]:
        return [o.row_of(r) for r in self._fetch(
            f"SELECT {o.COLUMNS} FROM outbox WHERE key = $1 ORDER BY sender_agent{self._lock}", key)]

    def due_outbox_rows(self, now_ns: int, limit: int) -> list[OutboxRow]:
        # In a write: rows another node is posting are skipped, not waited for, so each is posted once.
        claimed: list[OutboxRow] = self._run(o.claim_due(self._conn, now_ns, limit))
        return claimed

    def next_outbox_due(self) -> int | None:
        due: int | None = self._run(o.next_due(self._conn))
        return due

    def outbox_rows(self, after_key: str, limit: int, state: RowState) -> list[OutboxRow]:
        rows: list[OutboxRow] = self._run(o.rows(self._conn, after_key, limit, state))
        return rows

    def outbox_counts(self) -> tuple[int, int]:
        r = self._row("SELECT count(*) FILTER (WHERE state = 1) AS pending, count(*) AS rows FROM outbox")
        assert r is not None  # an aggregate without GROUP BY: always one row
        return r["pending"], r["rows"]

    def delete_outbox_row(self, agent_id: str, key: str) -> None:
        was = self._row("DELETE FROM outbox WHERE key = $1 AND sender_agent = $2 RETURNING state, sender_agent",
                        key, agent_id)
        if was is not None:
            self.count_usage(quota.outbox_holder(key, was["state"], was["sender_agent"]), quota.OUTBOX_ROWS, -1)
