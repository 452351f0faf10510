"""The mailbox directory, counters, the agent directory and tokens on PostgreSQL.

Directory changes take the next revision from `counters` under its row lock, in
the same statement as the change, so revisions commit in order and a watcher
reading `revision > cursor` never skips one. An entry write never touches
`last_seq` or `unread_count`: those belong to the message statements, which may
run at the same time on other nodes.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from fabricd import wire
from fabricd.core import lookalike
from fabricd.core.model import Capability, Change, MailboxEntry
from fabricd.core.model_agentdir import DirectoryData, WorkRequest
from fabricd.core.model_tokens import Token
from fabricd.v1 import agent_directory_service_pb2 as ad_pb

if TYPE_CHECKING:
    from asyncpg import Record

    from fabricd.store.postgres.conn import Conn

ENTRY_COLUMNS = ("agent_id, session_name, cwd, capabilities, metadata, registered, busy, last_activity, register_time, "
                  "heartbeat, unread_count, last_seq, revision, change")


def entry_of(r: Record) -> MailboxEntry:
    return MailboxEntry(
        agent_id=r["agent_id"], session_name=r["session_name"], cwd=r["cwd"],
        capabilities=tuple(Capability(**c) for c in json.loads(r["capabilities"])),
        metadata=json.loads(r["metadata"]), registered=r["registered"], busy=r["busy"],
        last_activity_ns=r["last_activity"], register_time_ns=r["register_time"], heartbeat_ns=r["heartbeat"],
        unread_count=r["unread_count"], last_seq=r["last_seq"], revision=r["revision"], change=Change(r["change"]))


ENTRY_SQL = f"SELECT {ENTRY_COLUMNS} FROM mailboxes"


def entry_args(e: MailboxEntry) -> tuple[object, ...]:
    """An entry as the parameters of an INSERT INTO mailboxes with the columns in ENTRY_COLUMNS' order."""
    caps = json.dumps([{"name": c.name, "description": c.description, "payload": c.payload} for c in e.capabilities])
    return (e.agent_id, e.session_name, e.cwd, caps, json.dumps(e.metadata), e.registered, e.busy,
            e.last_activity_ns, e.register_time_ns, e.heartbeat_ns, e.unread_count, e.last_seq, e.revision,
            int(e.change))


def looks_of(e: MailboxEntry) -> list[str]:
    """The entry's `looks` column: the look-alike keys it is found by (fabricd.core.lookalike.entry_keys)."""
    return sorted(lookalike.keys_of(e))


async def next_value(conn: Conn, name: str) -> int:
    """The next value of a named counter (1, 2, ...), in commit order (row lock until the commit)."""
    value: int = await conn.fetchval("""
        INSERT INTO counters (name, value) VALUES ($1, 1)
        ON CONFLICT (name) DO UPDATE SET value = counters.value + 1 RETURNING value""", name)
    return value


async def get_entry(conn: Conn, agent_id: str) -> MailboxEntry | None:
    r = await conn.fetchrow(f"SELECT {ENTRY_COLUMNS} FROM mailboxes WHERE agent_id = $1", agent_id)
    return entry_of(r) if r is not None else None


async def entries(conn: Conn) -> list[MailboxEntry]:
    return [entry_of(r) for r in await conn.fetch(f"SELECT {ENTRY_COLUMNS} FROM mailboxes ORDER BY agent_id")]


async def entries_named(conn: Conn, session_name: str) -> list[MailboxEntry]:
    rows = await conn.fetch(f"SELECT {ENTRY_COLUMNS} FROM mailboxes WHERE session_name = $1 AND session_name <> '' "
                            "ORDER BY agent_id", session_name)
    return [entry_of(r) for r in rows]


async def entries_since(conn: Conn, revision: int, limit: int) -> list[MailboxEntry]:
    """Entries changed after `revision`, in revision order; a removed one as a bare UNREGISTERED entry."""
    rows = await conn.fetch(f"""
        SELECT * FROM (
            SELECT {ENTRY_COLUMNS} FROM mailboxes WHERE revision > $1
            UNION ALL
            SELECT agent_id, '', '', '[]', '{{}}', false, false, 0, 0, 0, 0, 0, revision, {int(Change.UNREGISTERED)}
            FROM removals WHERE revision > $1
        ) AS changed ORDER BY revision LIMIT $2""", revision, limit)
    return [entry_of(r) for r in rows]


_PUT_ENTRY = """
WITH rev AS (
    UPDATE counters SET value = value + 1 WHERE name = 'revision' AND $13 > 0
        AND ($11 OR NOT EXISTS (SELECT 1 FROM mailboxes WHERE agent_id = $1 AND revision <> $12))
    RETURNING value
)
INSERT INTO mailboxes AS m (agent_id, session_name, cwd, capabilities, metadata, registered, busy, last_activity,
                            register_time, heartbeat, revision, change)
VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, $6, $7, $8, $9, $10, coalesce((SELECT value FROM rev), 0), $13)
ON CONFLICT (agent_id) DO UPDATE SET
    session_name = EXCLUDED.session_name, cwd = EXCLUDED.cwd, capabilities = EXCLUDED.capabilities,
    metadata = EXCLUDED.metadata, registered = EXCLUDED.registered, busy = EXCLUDED.busy,
    last_activity = greatest(m.last_activity, EXCLUDED.last_activity), register_time = EXCLUDED.register_time,
    heartbeat = EXCLUDED.heartbeat,
    revision = CASE WHEN $13 > 0 THEN EXCLUDED.revision ELSE m.revision END,
    change = CASE WHEN $13 > 0 THEN EXCLUDED.change ELSE m.change END
WHERE $11 OR m.revision = $12
RETURNING m.revision
"""


async def put_entry(conn: Conn, entry: MailboxEntry, change: Change | None, *, expect_revision: int | None = None,
                    ) -> int | None:
    """Write an entry's directory fields; with a `change`, it takes the next revision. Its revision, or None.

    With `expect_revision`, the write happens only if the stored entry still has
    that revision (compare-and-set: a re-run after a lost connection, or a racing
    node, finds it moved and changes nothing; the caller reads again).
    Activity only moves forward, so concurrent touches from two nodes keep the latest.
    """
    revision: int | None = await conn.fetchval(
        _PUT_ENTRY, entry.agent_id, entry.session_name, entry.cwd,
        json.dumps([{"name": c.name, "description": c.description, "payload": c.payload} for c in entry.capabilities]),
        json.dumps(entry.metadata), entry.registered, entry.busy, entry.last_activity_ns, entry.register_time_ns,
        entry.heartbeat_ns, expect_revision is None, expect_revision or 0, int(change or 0))
    return revision


async def create_mailbox(conn: Conn, agent_id: str) -> bool:
    """Make an empty mailbox (change CREATED) unless it exists; whether it was made. Re-run safe."""
    made = await conn.fetchval(f"""
        WITH rev AS (
            UPDATE counters SET value = value + 1
            WHERE name = 'revision' AND NOT EXISTS (SELECT 1 FROM mailboxes WHERE agent_id = $1) RETURNING value
        ), made AS (
            INSERT INTO mailboxes (agent_id, revision, change) SELECT $1, value, {int(Change.CREATED)} FROM rev
            ON CONFLICT (agent_id) DO NOTHING RETURNING 1
        ) SELECT count(*) FROM made""", agent_id)
    return bool(made == 1)


# -- agent directory: protobuf bodies (fabricd.v1 DirectoryData, Agent, Thread, Request), encoded by the caller

async def directory_data(conn: Conn) -> tuple[int, bytes]:
    r = await conn.fetchrow("SELECT sequence, body FROM ad_data")
    assert r is not None, "ad_data's one row is made by the migration"
    return r["sequence"], r["body"]


async def put_directory_data(conn: Conn, sequence: int, body: bytes, keep_history: int) -> bool:
    """Store the data as of `sequence`, which must be the stored one plus one (compare-and-set), and keep
    the last `keep_history` sequences. False when the sequence moved (a re-run or another node): read again.
    Call inside the transaction of the change it describes."""
    moved = await conn.execute("UPDATE ad_data SET sequence = $1, body = $2 WHERE sequence = $1 - 1", sequence, body)
    if moved != "UPDATE 1":
        return False
    if keep_history:
        await conn.execute("""
            WITH old AS (DELETE FROM ad_history WHERE sequence <= $1 - $3)
            INSERT INTO ad_history (sequence, body) VALUES ($1, $2)""", sequence, body, keep_history)
    return True


async def directory_history(conn: Conn, after_sequence: int, limit: int) -> list[tuple[int, bytes]]:
    rows = await conn.fetch("SELECT sequence, body FROM ad_history WHERE sequence > $1 ORDER BY sequence LIMIT $2",
                            after_sequence, limit)
    return [(r["sequence"], r["body"]) for r in rows]


async def put_agent(conn: Conn, agent_id: str, name: str, body: bytes) -> None:
    """Store an agent, with its name's look-alike keys (migration 15); its name is unique (a racing node's insert
    fails and is re-run, then sees this one)."""
    await conn.execute("""
        INSERT INTO ad_agents (agent_id, name, body, looks) VALUES ($1, $2, $3, $4)
        ON CONFLICT (agent_id) DO UPDATE SET name = EXCLUDED.name, body = EXCLUDED.body, looks = EXCLUDED.looks""",
                       agent_id, name, body, sorted(lookalike.keys(name)))


async def get_agent(conn: Conn, agent_id: str = "", name: str = "") -> bytes | None:
    """An agent's body by id, or by name."""
    if name:
        body: bytes | None = await conn.fetchval("SELECT body FROM ad_agents WHERE name = $1", name)
    else:
        body = await conn.fetchval("SELECT body FROM ad_agents WHERE agent_id = $1", agent_id)
    return body


async def agents(conn: Conn) -> list[bytes]:
    return [r["body"] for r in await conn.fetch("SELECT body FROM ad_agents ORDER BY agent_id")]


async def put_thread(conn: Conn, thread_id: str, agent_id: str, body: bytes) -> None:
    """Store a thread; a new one takes the next 'thread' ordinal (its place in its agent's list)."""
    await conn.execute("""
        WITH n AS (
            UPDATE counters SET value = value + 1
            WHERE name = 'thread' AND NOT EXISTS (SELECT 1 FROM ad_threads WHERE thread_id = $1) RETURNING value
        )
        INSERT INTO ad_threads (thread_id, agent_id, ordinal, body) SELECT $1, $2, coalesce((SELECT value FROM n), 0), $3
        ON CONFLICT (thread_id) DO UPDATE SET body = EXCLUDED.body""", thread_id, agent_id, body)


async def get_thread(conn: Conn, thread_id: str) -> bytes | None:
    body: bytes | None = await conn.fetchval("SELECT body FROM ad_threads WHERE thread_id = $1", thread_id)
    return body


async def threads_of(conn: Conn, agent_id: str) -> list[bytes]:
    rows = await conn.fetch("SELECT body FROM ad_threads WHERE agent_id = $1 ORDER BY ordinal", agent_id)
    return [r["body"] for r in rows]


async def put_request(conn: Conn, request_id: str, seq: int, pending: bool, owes_notification: bool, body: bytes) -> None:
    await conn.execute("""
        INSERT INTO ad_requests (request_id, seq, pending, owes_notification, body) VALUES ($1, $2, $3, $4, $5)
        ON CONFLICT (request_id) DO UPDATE SET pending = EXCLUDED.pending,
            owes_notification = EXCLUDED.owes_notification, body = EXCLUDED.body""",
                       request_id, seq, pending, owes_notification, body)


async def get_request(conn: Conn, request_id: str) -> tuple[int, bytes] | None:
    r = await conn.fetchrow("SELECT seq, body FROM ad_requests WHERE request_id = $1", request_id)
    return (r["seq"], r["body"]) if r is not None else None


LIST_PENDING, LIST_NOTIFICATIONS, LIST_ALL = 1, 2, 3
_LISTS = {LIST_PENDING: "pending", LIST_NOTIFICATIONS: "owes_notification", LIST_ALL: "true"}


async def requests(conn: Conn, which: int, after_seq: int, limit: int) -> list[tuple[int, bytes]]:
    """Requests of one list (pending, notifications owed, all) in admission order after `after_seq`."""
    rows = await conn.fetch(f"SELECT seq, body FROM ad_requests WHERE {_LISTS[which]} AND seq > $1 "
                            "ORDER BY seq LIMIT $2", after_seq, limit)
    return [(r["seq"], r["body"]) for r in rows]


async def put_repair(conn: Conn, key: str, generation: int, request_id: str) -> None:
    await conn.execute("""
        INSERT INTO ad_repairs (key, generation, request_id) VALUES ($1, $2, $3)
        ON CONFLICT (key) DO UPDATE SET generation = EXCLUDED.generation, request_id = EXCLUDED.request_id""",
                       key, generation, request_id)


async def get_repair(conn: Conn, key: str) -> tuple[int, str] | None:
    r = await conn.fetchrow("SELECT generation, request_id FROM ad_repairs WHERE key = $1", key)
    return (r["generation"], r["request_id"]) if r is not None else None


# -- access tokens: only the SHA-256 digest is stored; and the agent directory's protobuf rows

TOKEN_COLUMNS = "digest, token_id, scope, agent_id, label, create_ns, revoke_ns, session_names"


def token_of(r: Record) -> tuple[bytes, Token]:
    names = tuple(r["session_names"].split("\n")) if r["session_names"] else ()
    return bytes(r["digest"]), Token(r["token_id"], r["scope"], r["agent_id"], r["label"], r["create_ns"],
                                     r["revoke_ns"], names)


def data_of(body: bytes | None) -> DirectoryData:
    return wire.from_pb(ad_pb.DirectoryData.FromString(body or b""), DirectoryData)


def request_of(seq: int, body: bytes) -> WorkRequest:
    request = wire.from_pb(ad_pb.Request.FromString(body), WorkRequest)
    request.seq = seq
    return request
