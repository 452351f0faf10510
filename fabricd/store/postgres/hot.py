"""The hot paths of PgStore: one statement or one short transaction each.

    PgMailboxes.append                                 (hot_append.py: fabricd.core.mailbox_writes.append)
    PgMailboxes.peek / unread / drain / ack            (here)
    PgRendezvous.enqueue / answer / get                (hot_rendezvous.py)
    PgOutbox.deliver_due / next_due                    (hot_outbox.py)

A drain reads its facts (the mailbox, locked, and the sizes of its oldest messages) and lets
fabricd.core.mailbox_writes decide whether it takes anything and how much its byte budget holds; its
write is guarded, so a drain whose facts predate the lock reads them again.

Each runs through `PgEngine.op` (re-run after a rollback, a unique-key race or a connection lost before the
commit). Round trips per operation are counted in tests/store/test_postgres_round_trips.py.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from fabricd.core import mailbox_writes as writes
from fabricd.core import quota as quotas
from fabricd.core.errors import FabricError
from fabricd.core.kv.store import KvMailboxes
from fabricd.core.model import Envelope, Message, Sent
from fabricd.store.postgres import hot_append
from fabricd.store.postgres import statements as s
from fabricd.store.postgres.engine import Attempt, PgEngine
from fabricd.store.postgres.usage_sql import credit, moved

if TYPE_CHECKING:
    from fabricd.store.postgres.conn import Conn


class PgMailboxes:
    """The Mailboxes port on PostgreSQL: append, reads, drain and ack here; put-back, forgetting ids and the
    counts run the record scripts (fabricd.core.kv.mailbox, deciding with the same functions) over PgTx."""

    __slots__ = ("_e", "_clock", "_mint", "_records")

    def __init__(self, engine: PgEngine, clock: Callable[[], int], mint: Callable[[int], str]) -> None:
        self._e = engine
        self._clock = clock
        self._mint = mint
        self._records = KvMailboxes(engine, clock, mint)

    async def put_back(self, agent_id: str, envelopes: Sequence[Envelope], revision: int) -> int:
        return await self._records.put_back(agent_id, envelopes, revision)

    async def forget_ids(self, sent_before_ns: int, cursor: bytes, limit: int) -> tuple[int, bytes]:
        return await self._records.forget_ids(sent_before_ns, cursor, limit)

    async def unread_counts(self) -> list[tuple[str, int]]:
        return await self._records.unread_counts()

    async def usage(self, agent_id: str) -> quotas.Usage:
        return await self._records.usage(agent_id)

    async def append(self, items: Sequence[tuple[Message, bytes]], *, create: bool, atomic: bool,
                     max_unread: int, quota: quotas.Quotas | None = None) -> list[Sent | FabricError]:
        return await hot_append.append(self._e, self._clock, self._mint, items, create=create, atomic=atomic,
                                       max_unread=max_unread, quota=quota)

    async def unread(self, agent_id: str, after_seq: int, limit: int, max_bytes: int) -> list[Envelope]:
        return await self._e.op(lambda conn, _: s.unread(conn, agent_id, after_seq, limit, max_bytes),
                                rerun_safe=True)

    async def peek(self, agent_id: str, limit: int, max_bytes: int) -> tuple[list[Envelope], int]:
        return await self._e.op(lambda conn, _: peek(conn, agent_id, limit, max_bytes), rerun_safe=True)

    async def drain(self, agent_id: str, limit: int, max_bytes: int,
                    deliverable: Callable[[], bool] | None = None) -> tuple[list[Envelope], int, int]:
        """fabricd.core.mailbox_writes.drains and take decide; one short transaction: the mailbox locked
        with the sizes of its oldest messages, then the guarded write (again after a concurrent drain)."""
        now = self._clock()

        async def run(conn: Conn, attempt: Attempt) -> tuple[list[Envelope], int, int]:
            async with conn.transaction():
                while True:
                    facts = await conn.fetch(_DRAIN_FACTS, agent_id, limit)
                    unread = facts[0]["unread_count"] if facts else 0
                    if not unread:
                        return [], 0, 0
                    revision = facts[0]["revision"]
                    if not writes.drains(unread, deliverable is None or deliverable()):
                        return [], unread, revision
                    seqs = [r["seq"] for r in facts if r["seq"] is not None]
                    seqs = seqs[:writes.take([s.envelope_size(r["seq"], r["n"]) for r in facts if r["seq"] is not None],
                                             max_bytes)]
                    attempt.committing = True
                    rows = await conn.fetch(_DRAIN, agent_id, seqs, now)
                    if rows[0]["ok"]:
                        break
                    attempt.committing = False  # the facts were older than the lock: read them again
            return ([s.envelope(r["seq"], r["body"]) for r in rows if r["seq"] is not None], rows[0]["left"],
                    revision)

        out = await self._e.op(run)  # a drain whose commit may have happened is not run again: UNAVAILABLE
        self._e.committed(())
        return out

    async def ack(self, agent_id: str, message_ids: Sequence[str]) -> int:
        now = self._clock()

        async def run(conn: Conn, attempt: Attempt) -> int:
            attempt.committing = True
            return await s.ack(conn, agent_id, message_ids, now)

        acked = await self._e.op(run, rerun_safe=True)  # a re-run consumes nothing twice
        self._e.committed(())
        return acked


_DRAIN_FACTS = """
WITH b AS (SELECT unread_count, revision FROM mailboxes WHERE agent_id = $1 FOR UPDATE)
SELECT b.unread_count, b.revision, m.seq, octet_length(m.body) AS n FROM b
LEFT JOIN LATERAL (SELECT seq, body FROM messages WHERE agent_id = $1 ORDER BY seq LIMIT $2) m ON b.unread_count > 0
ORDER BY m.seq
"""
"""A drain's facts: the mailbox (locked) and the sizes of its oldest messages (as of the statement's start:
a drain that waited for the lock may see messages another drain took; the write's guard finds out)."""

_DRAIN = f"""
WITH ok AS (
    SELECT count(*) = cardinality($2::bigint[]) AS ok FROM messages WHERE agent_id = $1 AND seq = ANY($2::bigint[])
), taken AS (
    DELETE FROM messages m WHERE m.agent_id = $1 AND m.seq = ANY($2::bigint[]) AND (SELECT ok FROM ok)
    RETURNING m.seq, m.body, m.sender
), credited AS (
    {credit(moved("SELECT sender, octet_length(body) FROM taken"))}
), box AS (
    UPDATE mailboxes SET unread_count = unread_count - (SELECT count(*) FROM taken), last_activity = $3
    WHERE agent_id = $1 AND (SELECT ok FROM ok) RETURNING unread_count
)
SELECT (SELECT ok FROM ok) AS ok, (SELECT unread_count FROM box) AS left, t.seq, t.body
FROM (SELECT 1) AS one LEFT JOIN taken t ON true ORDER BY t.seq
"""
"""Consume the messages a drain decided on, crediting their senders, if every one is still unread (the
mailbox is locked: a drain that read its facts before the lock was granted reads them again)."""

_PEEK = f"""
SELECT b.unread_count, x.seq, x.body FROM mailboxes b
LEFT JOIN LATERAL ({s.within_budget("SELECT seq, body FROM messages m WHERE m.agent_id = b.agent_id "
                                    "ORDER BY seq LIMIT $2", "$3")}) x ON true
WHERE b.agent_id = $1 AND b.unread_count > 0 ORDER BY x.seq
"""


async def peek(conn: Conn, agent_id: str, limit: int, max_bytes: int) -> tuple[list[Envelope], int]:
    """The oldest unread messages with the unread count, from one snapshot: one statement."""
    rows = await conn.fetch(_PEEK, agent_id, limit, max_bytes)
    return s.take(rows, max_bytes), (rows[0]["unread_count"] if rows else 0)
