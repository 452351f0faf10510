"""PgTx's cursor reads (the `*_from` reads of RecordTx that List RPCs page through), in chunks.

Each iterator reads CHUNK rows at a time with `WHERE cursor > $after ORDER BY
cursor LIMIT`, so a reader that stops early has read at most one chunk more
than it used. Text cursors are the hex of the UTF-8 key (as on LMDB and in
memory) and compare in byte order (COLLATE "C"); hex that does not decode is
a ValueError, which the core answers as INVALID_PAGE_TOKEN.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

from fabricd.core.agentdir import FILTER_ALL, FILTER_NOTIFICATIONS, Agent, Thread, WorkRequest
from fabricd.core.model import MailboxEntry, OutboxRow, Ticket
from fabricd.core.outbox import row_cursor
from fabricd.core.tokens import Token
from fabricd.store.postgres import directory as d
from fabricd.store.postgres import outbox as o
from fabricd.store.postgres import tickets as tk

if TYPE_CHECKING:
    from asyncpg import Record

T = TypeVar("T")
CHUNK = 200


def _text(cursor: str) -> str:
    return bytes.fromhex(cursor).decode("utf-8", "surrogatepass")


def _hex(key: str) -> str:
    return key.encode("utf-8", "surrogatepass").hex()


class PagedReads:
    """Mixed into PgTx, which provides `_fetch` and the row decoders."""

    _fetch: Callable[..., list[Record]]
    _agent: Callable[[bytes | None], Agent | None]
    _thread: Callable[[bytes | None], Thread | None]

    def _chunks(self, sql: str, start: Any, key: str, *args: object) -> Iterator[Any]:
        """Rows of `sql` (which takes $1 = the last key, then `args`, and ends in LIMIT ${n}) chunk by chunk."""
        after = start
        while True:
            rows = self._fetch(sql, after, *args, CHUNK)
            yield from rows
            if len(rows) < CHUNK:
                return
            after = rows[-1][key]

    def entries_from(self, after: str) -> Iterator[tuple[str, MailboxEntry]]:
        sql = (f"SELECT {d.ENTRY_COLUMNS} FROM mailboxes WHERE agent_id COLLATE \"C\" > $1 "
               "ORDER BY agent_id COLLATE \"C\" LIMIT $2")
        for r in self._chunks(sql, _text(after), "agent_id"):
            yield _hex(r["agent_id"]), d.entry_of(r)

    def queue_from(self, target: str, after_seq: int) -> Iterator[tuple[int, Ticket]]:
        sql = (f"SELECT {tk.TICKET_COLUMNS} FROM tickets WHERE queue_seq > $1 AND target = $2 AND state = 1 "
               "ORDER BY queue_seq LIMIT $3")
        for r in self._chunks(sql, after_seq, "queue_seq", target):
            yield r["queue_seq"], tk.ticket_of(r)

    def tickets_before(self, target: str, source_agent: str, before_seq: int) -> Iterator[Ticket]:
        # Newest first through tickets_by_target (or tickets_by_source), a chunk at a time.
        column, value = ("source_agent", source_agent) if source_agent else ("target", target)
        sql = (f"SELECT {tk.TICKET_COLUMNS} FROM tickets WHERE queue_seq < $1 AND {column} = $2 AND target = $3 "
               "ORDER BY queue_seq DESC LIMIT $4")
        for r in self._chunks(sql, before_seq or 2**63 - 1, "queue_seq", value, target):
            yield tk.ticket_of(r)

    def outbox_from(self, after_key: str) -> Iterator[tuple[str, OutboxRow]]:
        sql = f"SELECT {o.COLUMNS} FROM outbox WHERE {o.AFTER} ORDER BY key, sender_agent LIMIT $4"
        cursor = after_key
        while True:
            rows = self._fetch(sql, *o.after(cursor), CHUNK)
            for r in rows:
                row = o.row_of(r)
                yield row_cursor(row), row
            if len(rows) < CHUNK:
                return
            cursor = row_cursor(o.row_of(rows[-1]))

    def agents_from(self, after: str) -> Iterator[tuple[str, Agent]]:
        sql = ("SELECT agent_id, body FROM ad_agents WHERE agent_id COLLATE \"C\" > $1 "
               "ORDER BY agent_id COLLATE \"C\" LIMIT $2")
        for r in self._chunks(sql, _text(after), "agent_id"):
            agent = self._agent(r["body"])
            if agent is not None:
                yield _hex(r["agent_id"]), agent

    def threads_from(self, agent_id: str, after_seq: int) -> Iterator[tuple[int, Thread]]:
        sql = "SELECT ordinal, body FROM ad_threads WHERE ordinal > $1 AND agent_id = $2 ORDER BY ordinal LIMIT $3"
        for r in self._chunks(sql, after_seq, "ordinal", agent_id):
            thread = self._thread(r["body"])
            if thread is not None:
                yield r["ordinal"], thread

    def requests_from(self, which: int, after_seq: int) -> Iterator[tuple[int, WorkRequest]]:
        where = {FILTER_ALL: "true", FILTER_NOTIFICATIONS: "owes_notification"}.get(which, "pending")
        sql = f"SELECT seq, body FROM ad_requests WHERE seq > $1 AND {where} ORDER BY seq LIMIT $2"
        for r in self._chunks(sql, after_seq, "seq"):
            yield r["seq"], d.request_of(r["seq"], r["body"])

    def tokens_from(self, after: str) -> Iterator[tuple[str, Token]]:
        sql = f"SELECT {d.TOKEN_COLUMNS} FROM tokens WHERE digest > $1 ORDER BY digest LIMIT $2"
        for r in self._chunks(sql, bytes.fromhex(after), "digest"):
            key, token = d.token_of(r)
            yield key.hex(), token
