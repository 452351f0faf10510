"""Messages on PostgreSQL: their stored encoding, reads, acks, and the outbox delivery's batch append.

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
from dataclasses import dataclass, replace
from typing import Any

from fabricd import wire
from fabricd.core import mailbox_writes as writes
from fabricd.core.model import Envelope, IdRecord, Message
from fabricd.store.postgres.usage_sql import UNREAD, charge, credit, freed
from fabricd.store.postgres.wake_sql import arm

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
    return Envelope(seq, body + _SEQ_TAG + _varint(seq))


@dataclass(frozen=True, slots=True)
class Appended:
    """What one append did: stored at `seq`, or found `prior` (the id was used), or neither.

    Neither means the mailbox does not exist (`unread` is None) or is full (`unread`
    is its count, at the quota).
    """

    seq: int | None
    prior: IdRecord | None = None
    unread: int | None = None
    woke: bool = False
    """The append armed its recipient's wake hook (the wake loop should look)."""


@dataclass(frozen=True, slots=True)
class Item:
    """One message of a batch append."""

    agent_id: str
    message_id: str
    body: bytes
    digest: bytes = b""
    sender: str = ""
    ticket_id: str = ""


_PRIORS = """
SELECT id, sender, agent_id, seq, send_ns, digest FROM message_ids WHERE id = ANY($1::text[]) AND sender = ANY($2::text[])
"""
"""The records of these ids under these senders (the caller keeps its items' pairs). Both key columns are
conditions so that every plan is a unique index lookup per id, cached generic plans too: `id = ANY` alone
(the key's first column, not unique) and a join on unnest (id, sender) were planned as scans while the
table was small and kept as the prepared statement's plan, 1.2-2 ms a batch of 100 against 0.15 ms
(pg_stat_statements over 200 batches)."""

_LOCK_BOXES = """
SELECT agent_id, last_seq, unread_count FROM mailboxes WHERE agent_id = ANY($1::text[]) ORDER BY agent_id FOR UPDATE
"""

_APPEND_MANY = f"""
WITH charged AS (
    {charge("SELECT * FROM unnest($11::text[], $12::bigint[])")}
), msg AS (
    INSERT INTO messages (agent_id, seq, id, body) SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::bytea[])
), ids AS (
    INSERT INTO message_ids (id, sender, agent_id, seq, send_ns, digest)
    SELECT i, f, a, s, $5, nullif(d, '')
    FROM unnest($3::text[], $14::text[], $1::text[], $2::bigint[], $6::bytea[]) AS v(i, f, a, s, d)
), boxes AS (
    UPDATE mailboxes m SET last_seq = coalesce(v.s, m.last_seq), unread_count = coalesce(v.u, m.unread_count),
        last_activity = CASE WHEN v.act THEN $5 ELSE m.last_activity END
    FROM unnest($7::text[], $8::bigint[], $9::bigint[], $10::bool[]) AS v(a, s, u, act)
    WHERE m.agent_id = v.a
), wake AS ({arm("SELECT * FROM unnest($1::text[], $3::text[], $13::text[]) WITH ORDINALITY AS u(a, mid, tid, n)",
                 "$5")}
)
SELECT array(SELECT agent_id FROM wake)
"""
# One UPDATE per mailbox row: a statement that updated one row twice (the counters in a CTE, the sender's
# activity outside it) keeps only one of the two changes, and a lost last_seq hands a seq out twice.


async def append_many(conn, items: Sequence[Item], send_ns: int, max_unread: int = 0,  # noqa: ANN001
                      quota_limit: int = 0, adding: Sequence[int] = ()) -> list[Appended]:
    """Store a batch in one short transaction (three statements); each item gets its Appended. The outbox
    delivery's (hot_outbox.py) until it appends through hot_append.append_in, which decides with
    fabricd.core.mailbox_writes.append.

    Items whose id is already used (earlier, or earlier in this batch) come back
    with `prior`; items for a missing or full mailbox with `seq` None. The caller
    decides: with an atomic batch it raises inside its transaction and nothing is kept.
    With a `quota_limit` on the senders' unread bytes (`adding`: each item's size bound), an item that
    would pass it comes back with `seq` None and `unread` below max_unread (one more statement: the
    senders' counters, locked). Call inside `conn.transaction()`.
    """
    keyed = {(item.message_id, item.sender) for item in items}
    priors = {(r["id"], r["sender"]): IdRecord(r["agent_id"], r["seq"], r["send_ns"], r["digest"] or b"")
              for r in await conn.fetch(_PRIORS, [item.message_id for item in items],
                                        sorted({item.sender for item in items}))
              if (r["id"], r["sender"]) in keyed}
    names = sorted({item.agent_id for item in items} | {item.sender for item in items if item.sender})
    boxes = {r["agent_id"]: [r["last_seq"], r["unread_count"]] for r in await conn.fetch(_LOCK_BOXES, names)}
    out: list[Appended] = []
    cols: tuple[list, ...] = ([], [], [], [], [], [], [])
    active: set[str] = set()
    charges: dict[str, int] = {}
    used: dict[str, int] = {}
    if quota_limit:
        senders = sorted({UNREAD + item.sender for item in items if item.sender})
        used = {r["name"]: r["value"] for r in await conn.fetch(
            "SELECT name, value FROM counters WHERE name = ANY($1::text[]) ORDER BY name FOR UPDATE", senders)}
    for i, item in enumerate(items):
        prior = priors.get((item.message_id, item.sender))
        box = boxes.get(item.agent_id)
        counter = UNREAD + item.sender
        if prior is not None:
            out.append(Appended(None, prior))
        elif box is None or (max_unread and box[1] >= max_unread):
            out.append(Appended(None, None, None if box is None else box[1]))
        elif quota_limit and item.sender and used.get(counter, 0) + adding[i] > quota_limit:
            out.append(Appended(None, None, box[1]))  # over the sender's quota: the caller hands it over
        else:
            if item.sender:
                used[counter] = used.get(counter, 0) + len(item.body)
            box[0] += 1
            box[1] += 1
            priors[(item.message_id, item.sender)] = IdRecord(item.agent_id, box[0], send_ns, item.digest)
            for col, value in zip(cols, (item.agent_id, box[0], item.message_id, item.body, item.digest,
                                         item.ticket_id, item.sender), strict=True):
                col.append(value)
            out.append(Appended(box[0], None, box[1]))
            if item.sender and item.sender != item.agent_id and item.sender in boxes:
                active.add(item.sender)
            if item.sender:  # charged to the sender's unread bytes (fabricd.core.quota)
                charges[UNREAD + item.sender] = charges.get(UNREAD + item.sender, 0) + len(item.body)
    if cols[0]:
        changed = set(cols[0])
        rows = sorted(changed | active)
        woke = set(await conn.fetchval(_APPEND_MANY, *cols[:4], send_ns, cols[4], rows,
                                       [boxes[a][0] if a in changed else None for a in rows],
                                       [boxes[a][1] if a in changed else None for a in rows],
                                       [a in active for a in rows],
                                       list(charges), list(charges.values()), cols[5], cols[6]))
        if woke:
            out = [replace(d, woke=True) if d.seq is not None and item.agent_id in woke else d
                   for item, d in zip(items, out, strict=True)]
    return out


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


def take(rows: Iterable[Any], max_bytes: int) -> list[Envelope]:
    """The envelopes of `rows` (seq, body; a NULL seq skipped) a read returns within `max_bytes`
    (fabricd.core.mailbox_writes.take: 0 is no budget; always the first)."""
    out = [envelope(row["seq"], row["body"]) for row in rows if row["seq"] is not None]
    return out[:writes.take([len(e.encoded) for e in out], max_bytes)]


_UNREAD = within_budget("SELECT seq, body FROM messages WHERE agent_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
                        "$4")


async def unread(conn, agent_id: str, after_seq: int, limit: int, max_bytes: int = 0) -> list[Envelope]:  # noqa: ANN001
    """Unread messages above `after_seq`, oldest first: at most `limit`, at most `max_bytes` (but one)."""
    return take(await conn.fetch(_UNREAD, agent_id, after_seq, limit, max_bytes), max_bytes)


OLDEST_UNREAD = """
    SELECT seq FROM (
        SELECT x.seq, row_number() OVER (PARTITION BY x.id ORDER BY x.seq) AS n, w.k
        FROM (SELECT id, count(*) AS k FROM unnest($2::text[]) AS id GROUP BY id) AS w
        JOIN LATERAL (
            SELECT DISTINCT m.seq, m.id FROM message_ids i JOIN messages m
              ON m.agent_id = $1 AND m.seq = i.seq AND m.id = i.id
            WHERE i.id = w.id AND i.agent_id = $1
        ) AS x ON true
    ) AS y WHERE n <= k"""
"""The unread messages of mailbox $1 that the ids $2 name: for an id named k times, its k oldest (two senders
may have chosen one id; the oldest goes first, so an in-order consumer never acks one it has not handled)."""

_ACK = f"""
WITH box AS (
    SELECT agent_id FROM mailboxes WHERE agent_id = $1 FOR UPDATE
), pick AS ({OLDEST_UNREAD}
), gone AS (
    -- seq = ANY(ARRAY(...)): an index lookup per seq; joined to pick, the planner hashed it against a scan of
    -- the whole mailbox (each ack of 250 read a backlog of 10,000)
    DELETE FROM messages m USING box WHERE m.agent_id = $1 AND m.seq = ANY(ARRAY(SELECT seq FROM pick))
    RETURNING m.seq, m.body
), credited AS (
    {credit(freed("gone"))}
), upd AS (
    UPDATE mailboxes m SET unread_count = m.unread_count - (SELECT count(*) FROM gone), last_activity = $3
    FROM box WHERE m.agent_id = box.agent_id
)
SELECT count(*) FROM gone
"""


async def ack(conn, agent_id: str, message_ids: Sequence[str], now_ns: int) -> int:  # noqa: ANN001
    """Consume the named unread messages of `agent_id` (its activity); how many were unread. One statement."""
    return await conn.fetchval(_ACK, agent_id, list(message_ids), now_ns)


FORGET_CONSUMED_ID = """
    DELETE FROM message_ids i WHERE i.id = $1 AND i.sender = $2
      AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.agent_id = i.agent_id AND m.seq = i.seq)"""
"""Forget the record of id $1 of sender $2 if its message was consumed (RecordTx.forget_id)."""


async def forget_ids(conn, sent_before_ns: int, limit: int) -> int:  # noqa: ANN001
    """Forget up to `limit` ids of consumed messages sent before `sent_before_ns` (the dedupe window)."""
    return await conn.fetchval("""
        WITH old AS (
            SELECT i.id, i.sender FROM message_ids i WHERE i.send_ns < $1
              AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.agent_id = i.agent_id AND m.seq = i.seq)
            ORDER BY i.send_ns LIMIT $2 FOR UPDATE SKIP LOCKED
        ), gone AS (DELETE FROM message_ids i USING old WHERE i.id = old.id AND i.sender = old.sender RETURNING 1)
        SELECT count(*) FROM gone""", sent_before_ns, limit)
