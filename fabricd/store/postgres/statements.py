"""Messages on PostgreSQL: their stored encoding, reads, acks, forgetting old ids.

An append's statements are in append_sql.py, the tickets' in tickets.py, the outbox's in outbox.py, the
directories' and tokens' in directory.py.

Every function takes an asyncpg connection and is safe to run again after a
serialization failure, a deadlock or a connection lost before the commit (see
errors.py and `run` in retry.py):
- appends carry their message id (minted by the caller before the first try), so
  a second run finds the id and answers the original;
- a ticket carries its ticket id, an outbox row its key, a receipt its row's key
  and only a PENDING row takes one; acks and finishes change only what is still
  unread or queued.
Each mailbox's row lock (`FOR UPDATE`, taken in agent_id order when a statement
touches two mailboxes, so senders writing to each other never deadlock) orders
its writers: seqs are gap-free and commit in order on every node.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from fabricd import wire
from fabricd.core import mailbox_acks as acks
from fabricd.core import mailbox_writes as writes
from fabricd.core.model import Envelope, Message
from fabricd.store.postgres.usage_sql import credit, moved

if TYPE_CHECKING:
    from asyncpg import Record

    from fabricd.store.postgres.conn import Conn

_SEQ_TAG = b"\x60"  # field 12 (seq) of fabricd.v1.Message, varint


def _varint(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def encode(message: Message) -> bytes:
    """A message's stored body: its fabricd.v1.Message bytes without seq, which the append assigns."""
    out = wire.message_out(message)
    out.ClearField("seq")
    return out.SerializeToString()


def envelope_size(seq: int, body_size: int) -> int:
    """The size of `envelope(seq, body)` for a body of `body_size` bytes."""
    return body_size + len(_SEQ_TAG) + len(_varint(seq))


def envelope(seq: int, body: bytes) -> Envelope:
    """A stored message as read back: its body (encoded without seq) with its seq field appended.

    Protobuf reads a field wherever it occurs in the bytes, so the result decodes
    as the message with its seq set; the body needs no decode and re-encode.
    """
    return Envelope(seq, enveloped(seq, body))


def enveloped(seq: int, body: bytes) -> bytes:
    """`envelope(seq, body).encoded`, without the Envelope."""
    return body + _SEQ_TAG + _varint(seq)


def within_budget(rows: str, budget: str) -> str:
    """The rows of SELECT `rows` (seq, body, oldest first) a reader with a byte budget (parameter `budget`,
    0: none) may keep: the
    first, and those whose running total of body bytes is within it. The bodies' own lengths (TOAST knows
    them without reading them) slightly under-count the envelopes', so the caller's exact cut (`take`) still
    decides; the database never sends the rest: a Subscribe of 1 MB mail with a 1 MiB budget reads one, not
    its whole page of 512 (40 never-reading streams held 250 MiB so)."""
    return f"""SELECT seq, body FROM (
        SELECT seq, body, row_number() OVER w AS n, sum(octet_length(body)) OVER w AS total FROM ({rows}) AS r
        WINDOW w AS (ORDER BY seq)
    ) AS x WHERE n = 1 OR {budget} = 0 OR total <= {budget} ORDER BY seq"""


def take(rows: Iterable[Record], max_bytes: int) -> list[Envelope]:
    """The envelopes of `rows` (seq, body; a NULL seq skipped) a read returns within `max_bytes`
    (fabricd.core.mailbox_writes.take: 0 is no budget; always the first)."""
    out = [envelope(row["seq"], row["body"]) for row in rows if row["seq"] is not None]
    return out[:writes.take([len(e.encoded) for e in out], max_bytes)]


_UNREAD = within_budget("SELECT seq, body FROM messages WHERE agent_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
                        "$4")


async def unread(conn: Conn, agent_id: str, after_seq: int, limit: int, max_bytes: int = 0) -> list[Envelope]:
    """Unread messages above `after_seq`, oldest first: at most `limit`, at most `max_bytes` (but one)."""
    return take(await conn.fetch(_UNREAD, agent_id, after_seq, limit, max_bytes), max_bytes)


def copies_of(limit: str, agent: str = "$1") -> str:
    """A LATERAL (x.seq) for each id w.id of a FROM item w: the seqs of the unread messages of mailbox `agent`
    carrying it, oldest first, at most `limit` (an SQL expression, of w.k say) of them: the facts of an ack."""
    return f"""LATERAL (
        SELECT DISTINCT m.seq FROM message_ids i JOIN messages m ON m.agent_id = {agent} AND m.seq = i.seq
            AND m.id = i.id
        WHERE i.id = w.id AND i.agent_id = {agent} ORDER BY m.seq LIMIT {limit}) AS x"""


COPIES = f"SELECT w.id, x.seq FROM unnest($2::text[], $3::int[]) AS w(id, k) CROSS JOIN {copies_of('w.k')}"
"""The facts of an ack (fabricd.core.mailbox_acks.AckFacts.copies) of mailbox $1: for each id $2[i], its
$3[i] oldest unread copies (two senders may have chosen one id)."""

_ACK = f"""
WITH box AS (
    SELECT agent_id, unread_count FROM mailboxes WHERE agent_id = $1 FOR UPDATE
), w AS (
    SELECT id, k FROM unnest($2::text[], $3::int[]) AS w(id, k)
), copies AS (
    SELECT w.id, w.k, x.seq, row_number() OVER (PARTITION BY w.id ORDER BY x.seq) AS n
    FROM w CROSS JOIN {copies_of("w.k + 1")}
), ok AS (
    SELECT CASE WHEN $4::bigint[] IS NULL THEN NOT EXISTS (SELECT 1 FROM copies WHERE n > k)
                ELSE $4 = ARRAY(SELECT seq FROM copies ORDER BY seq) END AS ok
), gone AS (
    -- seq = ANY(ARRAY(...)): an index lookup per seq; joined to the copies, the planner hashed them against a
    -- scan of the whole mailbox (each ack of 250 read a backlog of 10,000)
    DELETE FROM messages m USING box WHERE m.agent_id = $1 AND (SELECT ok FROM ok)
      AND m.seq = ANY(coalesce($5::bigint[], ARRAY(SELECT seq FROM copies)))
    RETURNING m.sender, octet_length(m.body) AS n
), credited AS (
    {credit(moved("SELECT sender, n FROM gone"))}
), upd AS (
    UPDATE mailboxes m SET unread_count = m.unread_count - (SELECT count(*) FROM gone), last_activity = $6
    FROM box WHERE m.agent_id = box.agent_id AND (SELECT ok FROM ok)
)
SELECT o.ok, (SELECT count(*) FROM gone) AS acked, (SELECT unread_count FROM box) AS unread, c.id, c.seq
FROM ok AS o LEFT JOIN copies AS c ON NOT o.ok
"""
"""An ack as a guarded write. Handed no facts ($4 NULL), it applies what fabricd.core.mailbox_acks.ack
decides whenever no id ($2, named $3 times) has more unread copies than it is named: every copy. Handed the
facts it decided on ($4: the seqs of every copy it saw, sorted) and the seqs it takes ($5), it applies them
while the facts still hold. Either way, when its guard fails it writes nothing and returns the facts (the
unread count, and the copies, up to k + 1 oldest of an id named k)."""


async def ack(conn: Conn, agent_id: str, message_ids: Sequence[str], now_ns: int) -> int:
    """Consume what fabricd.core.mailbox_acks.ack takes of `agent_id`'s unread messages (its activity); how
    many. One statement, and one more when an id has more unread copies than it is named."""
    want = acks.wanted(message_ids)
    ids, named = list(want), list(want.values())
    seen: list[int] | None = None
    taken: list[int] | None = None
    while True:
        rows = await conn.fetch(_ACK, agent_id, ids, named, seen, taken, now_ns)
        if rows[0]["ok"]:
            acked: int = rows[0]["acked"]
            return acked
        copies: dict[str, list[Envelope]] = {}
        for r in rows:
            copies.setdefault(r["id"], []).append(Envelope(r["seq"], b""))
        decided = acks.ack(want, acks.AckFacts(rows[0]["unread"], copies))
        if not decided.active:
            return 0
        seen, taken = sorted(r["seq"] for r in rows), [e.seq for e in decided.taken]


FORGET_CONSUMED_ID = """
    DELETE FROM message_ids i WHERE i.id = $1 AND i.sender = $2
      AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.agent_id = i.agent_id AND m.seq = i.seq)"""
"""Forget the record of id $1 of sender $2 if its message was consumed (RecordTx.forget_id)."""


async def forget_ids(conn: Conn, sent_before_ns: int, limit: int) -> int:
    """Forget up to `limit` ids of consumed messages sent before `sent_before_ns` (the dedupe window)."""
    forgotten: int = await conn.fetchval("""
        WITH old AS (
            SELECT i.id, i.sender FROM message_ids i WHERE i.send_ns < $1
              AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.agent_id = i.agent_id AND m.seq = i.seq)
            ORDER BY i.send_ns LIMIT $2 FOR UPDATE SKIP LOCKED
        ), gone AS (DELETE FROM message_ids i USING old WHERE i.id = old.id AND i.sender = old.sender RETURNING 1)
        SELECT count(*) FROM gone""", sent_before_ns, limit)
    return forgotten
