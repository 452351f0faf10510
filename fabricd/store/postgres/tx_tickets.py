"""The rendezvous tickets' part of PgTx (a mixin): a ticket's row, its target's FIFO, pruning.

A new ticket's place in its target's FIFO (`queue_seq`) is its message's seq, as in the hot
enqueue (hot_rendezvous.py); a ticket's state moves its asker's QUEUED usage (count_usage, on PgTx). Pruning
finished tickets is housekeeping: one node at a time (`_housekeeper`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from fabricd.core import quota, turns
from fabricd.core.model import Ticket, TicketState
from fabricd.store.postgres import tickets as tk

if TYPE_CHECKING:
    from asyncpg import Record


class PgTicketRecords:
    """Mixed into PgTx, which provides the queries, `_lock` (FOR UPDATE in a write), `_write`,
    `_housekeeper` and `count_usage`."""

    _fetch: Callable[..., list[Record]]
    _row: Callable[..., Record | None]
    _val: Callable[..., Any]
    _lock: str
    _write: bool
    _housekeeper: Callable[[], bool]
    count_usage: Callable[[str, str, int], None]

    def get_ticket(self, ticket_id: str) -> Ticket | None:
        r = self._row(f"SELECT {tk.TICKET_COLUMNS} FROM tickets WHERE ticket_id = $1{self._lock}", ticket_id)
        return tk.ticket_of(r) if r is not None else None

    def put_ticket(self, t: Ticket) -> None:
        # A new ticket's FIFO place is its message's seq, as in the hot enqueue (hot_rendezvous.py), so
        # tickets queued by either path order by commit on every node. The old state moves the asker's
        # queued-ticket usage.
        was = self._val("""
            WITH old AS (SELECT state FROM tickets WHERE ticket_id = $1 FOR UPDATE), up AS (
            INSERT INTO tickets (ticket_id, target, queue_seq, state, source_kind, source_agent, requester,
                                 conversation_id, task, enqueue_ns, finish_ns, result, reason, outcome, data, headers,
                                 result_data, result_headers, earlier, reattached)
            VALUES ($1, $2, coalesce((SELECT seq FROM message_ids WHERE id = $20 AND agent_id = $2), $3),
                    $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $21)
            ON CONFLICT (ticket_id) DO UPDATE SET state = EXCLUDED.state, finish_ns = EXCLUDED.finish_ns,
                result = EXCLUDED.result, reason = EXCLUDED.reason, outcome = EXCLUDED.outcome,
                result_data = EXCLUDED.result_data, result_headers = EXCLUDED.result_headers,
                queue_seq = EXCLUDED.queue_seq, enqueue_ns = EXCLUDED.enqueue_ns, task = EXCLUDED.task,
                data = EXCLUDED.data, headers = EXCLUDED.headers, earlier = EXCLUDED.earlier,
                reattached = EXCLUDED.reattached)
            SELECT state FROM old""",
                   t.ticket_id, t.target, t.seq, int(t.state), int(t.source_kind), t.source_agent, t.requester,
                   t.conversation_id, t.task, t.enqueue_ns, t.finish_ns, t.result, t.reason, int(t.outcome), t.data,
                   json.dumps(t.headers), t.result_data, json.dumps(t.result_headers), turns.encode(t.earlier),
                   t.message_id, t.reattached)
        queued = int(TicketState.QUEUED)
        self.count_usage(t.source_agent, quota.QUEUED, int(int(t.state) == queued) - int(was == queued))

    def queue(self, target: str, limit: int) -> list[Ticket]:
        # Locked in a write: a ticket another transaction just answered or retired is re-checked and skipped.
        rows = self._fetch(f"SELECT {tk.TICKET_COLUMNS} FROM tickets WHERE target = $1 AND state = 1 "
                           f"ORDER BY queue_seq LIMIT $2{self._lock}", target, limit)
        return [tk.ticket_of(r) for r in rows]

    def queue_length(self, target: str) -> int:
        length: int = self._val("SELECT count(*) FROM tickets WHERE target = $1 AND state = 1", target)
        return length

    def queued_tickets(self) -> int:
        queued: int = self._val("SELECT count(*) FROM tickets WHERE state = 1")
        return queued

    def finished_before(self, finish_ns: int, limit: int) -> list[str]:
        if self._write and not self._housekeeper():
            return []
        rows = self._fetch("SELECT ticket_id FROM tickets WHERE state <> 1 AND finish_ns < $1 "
                           "ORDER BY finish_ns LIMIT $2", finish_ns, limit)
        return [r["ticket_id"] for r in rows]

    def delete_ticket(self, ticket_id: str) -> None:
        r = self._row("DELETE FROM tickets WHERE ticket_id = $1 RETURNING state, source_agent", ticket_id)
        if r is not None and r["state"] == int(TicketState.QUEUED):
            self.count_usage(r["source_agent"], quota.QUEUED, -1)
