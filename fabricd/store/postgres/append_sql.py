"""The statements of an append on PostgreSQL: the facts of a whole group of sends in one, its writes in another.

    facts(conn, ids, senders, names, counters, lock)   the id records, mailbox counters and usage counters
    named(conn, names)                                 entries a name may resolve to (agent id, session name)
    write(conn, w)                                     what the decider (fabricd.core.mailbox_writes) chose

Nothing here decides what is stored or refused. The write statement is guarded: it writes only if
every mailbox it moves still has the last seq and at most the unread count the facts showed, and every
quota counter at most the value they showed (so each decision still holds), and answers whether it did.
A caller that read the facts in its own transaction with `lock` (rows FOR UPDATE, mailboxes in agent id
order, then counters in name order) always passes the guard; a lone send reads them without a transaction
and runs the guarded write, one statement each, and starts again locked when the guard fails.

The write moves each mailbox row once (its seq, its unread count, its owner's activity), makes new mailboxes
(each with its own directory revision, change CREATED), stores the messages and their id records, charges
the senders' unread bytes (their bodies' lengths) and messages (one each) and the creators' mailboxes, and
stores the wake hooks the arrivals armed (fabricd.core.wake.arm_all decides, on the hooks the facts read; the
guard holds them).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from fabricd.core import quota as quotas
from fabricd.core.model import Change, IdRecord, MailboxEntry
from fabricd.store.postgres.schema import SEQ_FLOOR_SQL
from fabricd.store.postgres.usage_sql import MAILBOXES, MESSAGES_UNREAD, UNREAD, charge, moved

if TYPE_CHECKING:
    from fabricd.store.postgres.conn import Conn

_FACTS = """
WITH p AS (
    SELECT id, sender, agent_id, seq, send_ns, digest FROM message_ids
    WHERE id = ANY($1::text[]) AND sender = ANY($2::text[])
), b AS (
    SELECT agent_id, last_seq, unread_count FROM mailboxes WHERE agent_id = ANY($3::text[]) ORDER BY agent_id{lock}
), u AS (
    SELECT name, value FROM counters WHERE name = ANY($4::text[]) ORDER BY name{lock}
), h AS (
    SELECT agent_id, body FROM wake_hooks WHERE agent_id = ANY($3::text[]) ORDER BY agent_id{lock}
)
SELECT 0 AS k, id AS a, sender AS f, agent_id AS r, seq AS x, send_ns AS y, digest AS d FROM p
UNION ALL SELECT 1, agent_id, NULL, NULL, last_seq, unread_count, NULL FROM b
UNION ALL SELECT 2, name, NULL, NULL, value, NULL, NULL FROM u
UNION ALL SELECT 3, agent_id, NULL, NULL, NULL, NULL, body FROM h
"""
_FACTS_FREE, _FACTS_LOCKED = _FACTS.format(lock=""), _FACTS.format(lock=" FOR UPDATE")


@dataclass(slots=True)
class Facts:
    """The facts of a group of appends as read: id records by (id, sender), mailbox counters
    (agent id -> [last seq, unread]), counter values by name (absent: 0), and the stored wake hooks of
    the agent ids in `probed` (absent: no hook)."""

    priors: dict[tuple[str, str], IdRecord] = field(default_factory=dict)
    boxes: dict[str, tuple[int, int]] = field(default_factory=dict)
    counters: dict[str, int] = field(default_factory=dict)
    hooks: dict[str, bytes] = field(default_factory=dict)
    probed: set[str] = field(default_factory=set)


async def facts(conn: Conn, ids: list[str], senders: list[str], names: list[str], counters: list[str],
                lock: bool) -> Facts:
    """One statement: the records of these ids under these senders (both key columns are conditions, so
    every plan is a unique index probe per id), the counters of these mailboxes, and these named counters."""
    out = Facts(probed=set(names))
    for r in await conn.fetch(_FACTS_LOCKED if lock else _FACTS_FREE, ids, senders, names, _or_null(counters)):
        k = r["k"]
        if k == 0:
            out.priors[(r["a"], r["f"])] = IdRecord(r["r"], r["x"], r["y"], r["d"] or b"")
        elif k == 1:
            out.boxes[r["a"]] = (r["x"], r["y"])
        elif k == 2:
            out.counters[r["a"]] = r["x"]
        else:
            out.hooks[r["a"]] = bytes(r["d"])
    return out


async def hooks(conn: Conn, agents: list[str]) -> dict[str, bytes]:
    """The stored wake hooks of `agents` (sorted: the lock order), locked, by agent id."""
    rows = await conn.fetch("SELECT agent_id, body FROM wake_hooks WHERE agent_id = ANY($1::text[]) "
                            "ORDER BY agent_id FOR UPDATE", agents)
    return {r["agent_id"]: bytes(r["body"]) for r in rows}


def usage_counters(sender: str) -> tuple[str, str, str]:
    """The counters of a sender's usage an append reads: (mailboxes, unread bytes, unread messages)."""
    return MAILBOXES + sender, UNREAD + sender, MESSAGES_UNREAD + sender


def usage_of(counters: dict[str, int], sender: str) -> quotas.Usage:
    mailboxes, unread, messages = usage_counters(sender)
    return quotas.Usage(mailboxes=counters.get(mailboxes, 0), unread_bytes=counters.get(unread, 0),
                        unread_messages=counters.get(messages, 0))


_NAMED = """
SELECT agent_id, session_name, registered, last_seq, unread_count FROM mailboxes
WHERE agent_id = ANY($1::text[]) OR (session_name <> '' AND session_name = ANY($1::text[]))
ORDER BY agent_id FOR UPDATE
"""


async def named(conn: Conn, names: list[str]) -> list[MailboxEntry]:
    """Every entry whose agent id or session name is one of `names` (locked), with its counters."""
    return [MailboxEntry(agent_id=r["agent_id"], session_name=r["session_name"], registered=r["registered"],
                         last_seq=r["last_seq"], unread_count=r["unread_count"])
            for r in await conn.fetch(_NAMED, names)]


_SEQ_FLOORS = f"""
WITH lock AS (SELECT value FROM counters WHERE name = 'seq-floor' FOR UPDATE)
SELECT n, ({SEQ_FLOOR_SQL.replace("$1", "n")}) AS floor FROM unnest($1::text[]) AS n, (SELECT count(*) FROM lock) AS l"""


async def seq_floors(conn: Conn, names: list[str]) -> dict[str, int]:
    """Where a new mailbox of each of `names` starts numbering (RecordTx.seq_floor; the store-wide floor
    locked: a removal raising it waits for this commit)."""
    return {r["n"]: r["floor"] for r in await conn.fetch(_SEQ_FLOORS, names)}


async def registered(conn: Conn) -> list[MailboxEntry]:
    """The registered entries' names (for the "did you mean" of an unknown recipient)."""
    return [MailboxEntry(agent_id=r["agent_id"], session_name=r["session_name"], registered=True)
            for r in await conn.fetch("SELECT agent_id, session_name FROM mailboxes WHERE registered")]


@dataclass(slots=True)
class Write:
    """What a group of appends writes, column by column (see the module docstring)."""

    agent_ids: list[str] = field(default_factory=list)
    seqs: list[int] = field(default_factory=list)
    ids: list[str] = field(default_factory=list)
    bodies: list[bytes] = field(default_factory=list)
    digests: list[bytes] = field(default_factory=list)
    senders: list[str] = field(default_factory=list)
    # mailboxes moved: agent id, last seq and unread count seen (the guard; None: not guarded), last seq after,
    # messages added, whether its owner sent (its activity)
    moved: list[str] = field(default_factory=list)
    seen_seq: list[int | None] = field(default_factory=list)
    seen_unread: list[int | None] = field(default_factory=list)
    last_seq: list[int | None] = field(default_factory=list)
    added: list[int] = field(default_factory=list)
    active: list[bool] = field(default_factory=list)
    # mailboxes made: agent id, last seq, unread count, metadata (JSON), whether its owner sent
    made: list[str] = field(default_factory=list)
    made_seq: list[int] = field(default_factory=list)
    made_unread: list[int] = field(default_factory=list)
    made_metadata: list[str] = field(default_factory=list)
    made_active: list[bool] = field(default_factory=list)
    creators: list[str] = field(default_factory=list)
    """Agents charged a mailbox, one entry per mailbox made (MAILBOXES)."""
    guarded: list[str] = field(default_factory=list)
    guarded_values: list[int] = field(default_factory=list)
    """Usage counters a decision read, and the values it read (the guard: never above them)."""
    hooked: list[str] = field(default_factory=list)
    hooks_seen: list[bytes | None] = field(default_factory=list)
    """Every recipient and its wake hook as the decisions read it (None: none; the guard: still so)."""
    armed: list[str] = field(default_factory=list)
    armed_bodies: list[bytes] = field(default_factory=list)
    """The hooks the arrivals change (fabricd.core.wake.arm_all), as they are to be stored."""

    def metadata(self, creator: str) -> str:
        return json.dumps({quotas.CREATED_BY: creator} if creator else {})


_WRITE = f"""
WITH locked AS (
    SELECT agent_id, last_seq, unread_count FROM mailboxes WHERE agent_id = ANY($8::text[])
    ORDER BY agent_id FOR UPDATE
), used AS (
    SELECT name, value FROM counters WHERE name = ANY($19::text[]) ORDER BY name FOR UPDATE
), hooked AS (
    SELECT agent_id, body FROM wake_hooks WHERE agent_id = ANY($22::text[]) ORDER BY agent_id FOR UPDATE
), ok AS (
    SELECT NOT EXISTS (
        SELECT 1 FROM unnest($8::text[], $9::bigint[], $10::bigint[]) AS g(a, s, u)
        LEFT JOIN locked l ON l.agent_id = g.a
        WHERE g.s IS NOT NULL AND (l.agent_id IS NULL OR l.last_seq <> g.s OR l.unread_count > g.u)
    ) AND NOT EXISTS (
        SELECT 1 FROM unnest($19::text[], $20::bigint[]) AS q(n, v) JOIN used c ON c.name = q.n WHERE c.value > q.v
    ) AND NOT EXISTS (
        SELECT 1 FROM unnest($22::text[], $23::bytea[]) AS s(a, b) LEFT JOIN hooked k ON k.agent_id = s.a
        WHERE k.body IS DISTINCT FROM s.b
    ) AS ok
), rev AS (
    UPDATE counters SET value = value + cardinality($14::text[])
    WHERE name = 'revision' AND cardinality($14::text[]) > 0 AND (SELECT ok FROM ok) RETURNING value
), made AS (
    INSERT INTO mailboxes (agent_id, last_seq, unread_count, metadata, last_activity, revision, change)
    SELECT v.a, v.s, v.u, v.m::jsonb, CASE WHEN v.act THEN $5::bigint ELSE 0 END,
           rev.value - cardinality($14::text[]) + v.o, {int(Change.CREATED)}
    FROM unnest($14::text[], $15::bigint[], $16::bigint[], $17::text[], $18::bool[]) WITH ORDINALITY
         AS v(a, s, u, m, act, o), rev
), boxes AS (
    UPDATE mailboxes m SET last_seq = coalesce(v.s, m.last_seq), unread_count = m.unread_count + v.n,
        last_activity = CASE WHEN v.act THEN $5 ELSE m.last_activity END
    FROM unnest($8::text[], $11::bigint[], $12::bigint[], $13::bool[]) AS v(a, s, n, act)
    WHERE m.agent_id = v.a AND (SELECT ok FROM ok)
), msg AS (
    INSERT INTO messages (agent_id, seq, id, body, sender)
    SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::bytea[], $7::text[]) WHERE (SELECT ok FROM ok)
), ids AS (
    INSERT INTO message_ids (id, sender, agent_id, seq, send_ns, digest)
    SELECT i, f, a, s, $5, nullif(d, '') FROM unnest($3::text[], $7::text[], $1::text[], $2::bigint[], $6::bytea[])
        AS v(i, f, a, s, d) WHERE (SELECT ok FROM ok)
), charged AS (
    {charge(f'''SELECT n, sum(d)::bigint FROM (
        {moved("SELECT f, octet_length(b) FROM unnest($7::text[], $4::bytea[]) AS v(f, b)")}
        UNION ALL SELECT '{MAILBOXES}' || c, 1 FROM unnest($21::text[]) AS c WHERE c <> ''
    ) AS x(n, d) WHERE (SELECT ok FROM ok) GROUP BY n''')}
), wake AS (
    UPDATE wake_hooks w SET body = v.b FROM unnest($24::text[], $25::bytea[]) AS v(a, b)
    WHERE w.agent_id = v.a AND (SELECT ok FROM ok) RETURNING w.agent_id
)
SELECT (SELECT ok FROM ok) AS ok, array(SELECT agent_id FROM wake) AS woke
"""


def _or_null(values: list[Any]) -> list[Any] | None:
    """An empty array parameter as NULL, which the statement reads as no rows (unnest, = ANY and cardinality
    of NULL give none): asyncpg checks an array and each of its elements against collections.abc's
    Iterable and Sized on every call, and most groups move none of `made`, `guarded`, `creators` or `armed`."""
    return values or None


async def write(conn: Conn, w: Write, now: int) -> tuple[bool, list[str]]:
    """One statement: (whether the guard held and it wrote, the agents whose wake hooks it armed)."""
    n = _or_null
    row = await conn.fetchrow(_WRITE, w.agent_ids, w.seqs, w.ids, w.bodies, now, w.digests, w.senders,
                              n(w.moved), n(w.seen_seq), n(w.seen_unread), n(w.last_seq), n(w.added), n(w.active),
                              n(w.made), n(w.made_seq), n(w.made_unread), n(w.made_metadata), n(w.made_active),
                              n(w.guarded), n(w.guarded_values), n(w.creators), n(w.hooked), n(w.hooks_seen),
                              n(w.armed), n(w.armed_bodies))
    assert row is not None  # its SELECT has no FROM: always one row
    return row["ok"], row["woke"]
