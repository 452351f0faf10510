"""`fabricd copy` on PostgreSQL: every record from one REPEATABLE READ snapshot, and a load in one transaction.

The dump reads each table through a cursor inside one read-only REPEATABLE READ
transaction: one snapshot, consistent whatever the nodes serving the database
write meanwhile. The load migrates the target, checks in its transaction that
it holds no fabric, and writes every table with COPY; nothing is visible until
the commit, and a failure leaves the database as it was. The quota usage
counters are derived from the records: left out of the dump, counted again by
the load (`_USAGE`).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import AsyncGenerator, Callable
from typing import TYPE_CHECKING, Any

import asyncpg

from fabricd import wire
from fabricd.core import agentdir, model_leases, turns, wake
from fabricd.core.agentdir import PENDING
from fabricd.core.ids import looks_minted
from fabricd.core.model import IdRecord
from fabricd.core.quota import CHANNELS, CREATED_BY, OUTBOX_HELD, POSTS, QUEUED_HELD, WAKE_ROW_PREFIX
from fabricd.store.postgres import directory as d
from fabricd.store.postgres import outbox as o
from fabricd.store.postgres import schema, tx_leases
from fabricd.store.postgres import statements as s
from fabricd.store.postgres import tickets as tk
from fabricd.store.postgres import tx_channels as ch
from fabricd.store.postgres.errors import PostgresError
from fabricd.store.postgres.migrate import connect, safe
from fabricd.store.postgres.usage_sql import MAILBOXES, OUTBOX_ROWS, QUEUED, charge, moved
from fabricd.store.records import BATCH, Kind, Record
from fabricd.store.usage import counter_name
from fabricd.v1 import agent_directory_service_pb2 as ad_pb
from fabricd.v1 import types_pb2 as pb

if TYPE_CHECKING:
    from asyncpg import Record as Row
    from asyncpg.transaction import Transaction

COVERS: dict[str, tuple[Kind, ...]] = {
    "counters": (Kind.COUNTER,),
    "mailboxes": (Kind.MAILBOX,),
    "removals": (Kind.REMOVAL,),
    "messages": (Kind.MESSAGE,),
    "message_ids": (Kind.MESSAGE_ID,),
    "tickets": (Kind.TICKET,),
    "outbox": (Kind.OUTBOX,),
    "ad_data": (Kind.DIRECTORY,),
    "ad_history": (Kind.HISTORY,),
    "ad_agents": (Kind.AGENT,),
    "ad_threads": (Kind.THREAD,),
    "ad_requests": (Kind.REQUEST,),
    "ad_repairs": (Kind.REPAIR,),
    "request_keys": (Kind.REQUEST_KEY,),
    "tokens": (Kind.TOKEN,),
    "wake_hooks": (Kind.WAKE_HOOK,),
    "channels": (Kind.CHANNEL,),
    "channel_members": (Kind.CHANNEL_MEMBER,),
    "channel_posts": (Kind.CHANNEL_POST,),
    "leases": (Kind.LEASE,),
}
"""What each table holds, as records of `fabricd copy` (tests check every table of the schema is here)."""

NOT_COPIED = {
    "schema_version": "the target's own migrations write it",
    "node_ids": "a sequence: each node takes a new node id when it starts",
    "lease_waiters": "waiting Acquire calls in flight on the source's nodes: a copy has no calls",
}

_UNSET_DATA = "body <> ''"  # ad_data's one row exists from the migration on; a fabric has written it

# (table, SELECT list or WHERE-filtered query, decode) for each kind, in dump order
_DUMPS: tuple[tuple[str, str, Callable[[Row], Record]], ...] = (
    ("counters", "SELECT name, value FROM counters WHERE (value <> 0 OR name LIKE 'seq-floor/%') AND name NOT LIKE 'usage/%' ORDER BY name",
     lambda r: (Kind.COUNTER, (r["name"], r["value"]))),
    ("mailboxes", f"SELECT {d.ENTRY_COLUMNS} FROM mailboxes ORDER BY agent_id", lambda r: (Kind.MAILBOX, d.entry_of(r))),
    ("removals", "SELECT revision, agent_id FROM removals ORDER BY revision",
     lambda r: (Kind.REMOVAL, (r["revision"], r["agent_id"]))),
    ("messages", "SELECT seq, body FROM messages ORDER BY agent_id, seq",
     lambda r: (Kind.MESSAGE, wire.message_in(pb.Message.FromString(s.envelope(r["seq"], r["body"]).encoded)))),
    ("message_ids", "SELECT id, sender, agent_id, seq, send_ns, digest FROM message_ids ORDER BY id, sender",
     lambda r: (Kind.MESSAGE_ID, (r["id"], r["sender"], _minted(r), IdRecord(r["agent_id"], r["seq"], r["send_ns"],
                                                                             bytes(r["digest"] or b""))))),
    ("tickets", f"SELECT {tk.TICKET_COLUMNS} FROM tickets ORDER BY ticket_id", lambda r: (Kind.TICKET, tk.ticket_of(r))),
    ("outbox", f"SELECT {o.COLUMNS} FROM outbox ORDER BY key, sender_agent", lambda r: (Kind.OUTBOX, o.row_of(r))),
    ("ad_data", f"SELECT body FROM ad_data WHERE {_UNSET_DATA}", lambda r: (Kind.DIRECTORY, d.data_of(r["body"]))),
    ("ad_history", "SELECT body FROM ad_history ORDER BY sequence", lambda r: (Kind.HISTORY, d.data_of(r["body"]))),
    ("ad_agents", "SELECT body FROM ad_agents ORDER BY agent_id",
     lambda r: (Kind.AGENT, wire.from_pb(ad_pb.Agent.FromString(r["body"]), agentdir.Agent))),
    ("ad_threads", "SELECT ordinal, body FROM ad_threads ORDER BY thread_id",
     lambda r: (Kind.THREAD, (r["ordinal"], wire.from_pb(ad_pb.Thread.FromString(r["body"]), agentdir.Thread)))),
    ("ad_requests", "SELECT seq, body FROM ad_requests ORDER BY seq",
     lambda r: (Kind.REQUEST, d.request_of(r["seq"], r["body"]))),
    ("ad_repairs", "SELECT key, generation, request_id FROM ad_repairs ORDER BY key",
     lambda r: (Kind.REPAIR, (r["key"], r["generation"], r["request_id"]))),
    ("request_keys", "SELECT scope, key, digest, created_id FROM request_keys ORDER BY scope, key",
     lambda r: (Kind.REQUEST_KEY, (r["scope"], r["key"], bytes(r["digest"]), r["created_id"]))),
    ("tokens", f"SELECT {d.TOKEN_COLUMNS} FROM tokens ORDER BY digest", lambda r: (Kind.TOKEN, d.token_of(r))),
    ("wake_hooks", "SELECT body FROM wake_hooks ORDER BY agent_id", lambda r: (Kind.WAKE_HOOK, wake.decode(r["body"]))),
    ("channels", "SELECT * FROM channels ORDER BY name", lambda r: (Kind.CHANNEL, ch.channel_of(r))),
    ("channel_members", "SELECT * FROM channel_members ORDER BY channel, agent_id",
     lambda r: (Kind.CHANNEL_MEMBER, ch.member_of(r))),
    ("channel_posts", "SELECT channel, seq, size, body FROM channel_posts ORDER BY channel, seq",
     lambda r: (Kind.CHANNEL_POST, ch.post_of(r))),
    ("leases", "SELECT body FROM leases ORDER BY lease_id", lambda r: (Kind.LEASE, model_leases.decode(r["body"]))),
)


def _minted(r: Row) -> bool:
    """Whether an id row is of a server-minted id (an LMDB target keys those alone, in time order).

    Rows do not say which ids were minted: one of the minted form with no digest is taken as minted (a
    ticket's task has that form too; keyed alone with its sender, a resend and an ack by id still find it)."""
    return r["digest"] is None and looks_minted(r["id"])


def _pb(value: object, message: type) -> bytes:
    return wire.to_pb(value, message).SerializeToString()


# (table, columns, the row of a record) for each kind a load writes with COPY
_LOADS: dict[Kind, tuple[str, tuple[str, ...], Callable[[Any], tuple[Any, ...]]]] = {
    Kind.MAILBOX: ("mailboxes", ("agent_id", "session_name", "cwd", "capabilities", "metadata", "registered", "busy",
                                 "last_activity", "register_time", "heartbeat", "unread_count", "last_seq",
                                 "revision", "change", "looks"), lambda e: (*d.entry_args(e), d.looks_of(e))),
    Kind.REMOVAL: ("removals", ("revision", "agent_id"), tuple),
    Kind.MESSAGE: ("messages", ("agent_id", "seq", "id", "body", "sender"),
                   lambda m: (m.recipient.agent_id, m.seq, m.id, s.encode(m), m.sender.agent_id)),
    Kind.MESSAGE_ID: ("message_ids", ("id", "sender", "agent_id", "seq", "send_ns", "digest"),
                      lambda v: (v[0], v[1], v[3].recipient, v[3].seq, v[3].send_time_ns, v[3].digest or None)),
    Kind.TICKET: ("tickets", tuple(tk.TICKET_COLUMNS.replace(" ", "").split(",")),
                  lambda t: (t.ticket_id, t.target, t.seq, int(t.state), int(t.source_kind), t.source_agent,
                             t.requester, t.conversation_id, t.task, t.enqueue_ns, t.finish_ns, t.result, t.reason,
                             int(t.outcome), t.data, json.dumps(t.headers), t.result_data,
                             json.dumps(t.result_headers), turns.encode(t.earlier), t.reattached)),
    Kind.OUTBOX: ("outbox", tuple(o.COLUMNS.replace(" ", "").split(",")),
                  lambda r: (r.key, int(r.state), r.recipient.agent_id, r.recipient.session_id, r.sender.agent_id,
                             r.sender.session_id, r.job_id, r.content, r.attempts, r.next_attempt_ns, r.last_error,
                             r.create_ns, r.deliver_ns, r.seq)),
    Kind.HISTORY: ("ad_history", ("sequence", "body"), lambda h: (h.sequence, _pb(h, ad_pb.DirectoryData))),
    Kind.AGENT: ("ad_agents", ("agent_id", "name", "body", "looks"),
                 lambda a: (a.agent_id, a.name, _pb(a, ad_pb.Agent), ch.looks_of(a.name))),
    Kind.THREAD: ("ad_threads", ("thread_id", "agent_id", "ordinal", "body"),
                  lambda v: (v[1].thread_id, v[1].agent_id, v[0], _pb(v[1], ad_pb.Thread))),
    Kind.REQUEST: ("ad_requests", ("request_id", "seq", "pending", "owes_notification", "body"),
                   lambda r: (r.request_id, r.seq, r.state == PENDING, r.owes_notification, _pb(r, ad_pb.Request))),
    Kind.REPAIR: ("ad_repairs", ("key", "generation", "request_id"), tuple),
    Kind.REQUEST_KEY: ("request_keys", ("scope", "key", "digest", "created_id"), tuple),
    Kind.TOKEN: ("tokens", tuple(d.TOKEN_COLUMNS.replace(" ", "").split(",")),
                 lambda v: (v[0], v[1].token_id, v[1].scope, v[1].agent_id, v[1].label, v[1].create_ns,
                            v[1].revoke_ns, "\n".join(v[1].session_names))),
    Kind.WAKE_HOOK: ("wake_hooks", ("agent_id", "body"), lambda h: (h.agent_id, wake.encode(h))),
    Kind.CHANNEL: ("channels", (*ch.CHANNEL_COLUMNS.replace(" ", "").split(","), "looks"),
                   lambda c: (*ch.channel_args(c), ch.looks_of(c.name))),
    Kind.CHANNEL_MEMBER: ("channel_members", ("channel", "agent_id", "delivery", "join_ns", "joined_after_seq"),
                          lambda m: (m.channel, m.agent_id, int(m.delivery), m.join_ns, m.joined_after_seq)),
    Kind.CHANNEL_POST: ("channel_posts", ("channel", "seq", "sender", "id", "send_ns", "size", "body", "text"),
                        ch.post_args),
    Kind.LEASE: ("leases", tx_leases.COLUMNS, tx_leases.row),
}


def written_columns() -> dict[str, set[str]]:
    """The columns a load writes, per table (tests check they are every column of the schema)."""
    out = {table: set(columns) for table, columns, _ in _LOADS.values()}
    out["counters"] = {"name", "value"}
    out["ad_data"] = {"one", "sequence", "body"}  # `one` is the row's constant key
    out["channel_posts"].add("search")  # generated from the text
    return out


_QUEUE_SEQ_FROM_MESSAGES = f"""
UPDATE tickets t SET queue_seq = i.seq FROM message_ids i
WHERE i.agent_id = t.target AND i.id = {tk.ticket_message_id("t")}
"""


async def tables(conn: asyncpg.Connection) -> set[str]:
    """Every table and sequence in the connection's schema."""
    rows = await conn.fetch("""
        SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()
        UNION SELECT sequence_name FROM information_schema.sequences WHERE sequence_schema = current_schema()""")
    return {r["name"] for r in rows}


async def _check_known(conn: asyncpg.Connection, url: str) -> None:
    unknown = await tables(conn) - set(COVERS) - set(NOT_COPIED)
    if unknown:
        raise PostgresError(f"{safe(url)} holds tables that are not this fabricd's ({', '.join(sorted(unknown)[:5])}):"
                            " give fabricd a database of its own, or copy with the fabricd that created them")


class PgSource:
    """Implements fabricd.store.records.Source on a database (nodes may be serving it)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.skipped: Counter[str] = Counter()
        self._conn: asyncpg.Connection | None = None

    async def records(self) -> AsyncGenerator[list[Record]]:
        self._conn = conn = await connect(self.url)
        current = await schema.version(conn)
        schema.check(current, safe(self.url))
        if not current:
            raise PostgresError(f"{safe(self.url)} holds no fabric (no fabricd schema); check the URL")
        if current < schema.LATEST:
            raise PostgresError(f"{safe(self.url)} holds fabricd schema version {current}; run `fabricd migrate "
                                f"--store URL` to bring it to {schema.LATEST}, then copy")
        await _check_known(conn, self.url)
        async with conn.transaction(isolation="repeatable_read", readonly=True):
            for _table, sql, decode in _DUMPS:
                batch: list[Record] = []
                async for row in conn.cursor(sql, prefetch=BATCH):
                    batch.append(decode(row))
                    if len(batch) >= BATCH:
                        yield batch
                        batch = []
                if batch:
                    yield batch

    async def close(self) -> None:
        if self._conn is not None:
            await self._conn.close()
            self._conn = None


class PgTarget:
    """Implements fabricd.store.records.Target on a database that holds no fabric (it is migrated first)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._conn: asyncpg.Connection | None = None
        self._tr: Transaction | None = None

    async def begin(self) -> None:
        self._conn = conn = await connect(self.url)
        schema.check(await schema.version(conn), safe(self.url))
        await _check_known(conn, self.url)  # before the migration: a database of other things is left alone
        await schema.migrate(conn)
        self._tr = tr = conn.transaction()
        await tr.start()
        held = await _held(conn)
        if held:
            await self.abort()
            raise PostgresError(f"{safe(self.url)} already holds a fabric ({held}); copy into a new database")

    def _begun(self) -> tuple[asyncpg.Connection, Transaction]:
        """The connection and the transaction `begin` opened (a load or commit before it is the caller's bug)."""
        if self._conn is None or self._tr is None:
            raise RuntimeError("PgTarget used before begin() or after commit() or abort()")
        return self._conn, self._tr

    async def load(self, batch: list[Record]) -> None:
        conn, _ = self._begun()
        grouped: dict[Kind, list[Any]] = {}
        for kind, value in batch:
            grouped.setdefault(kind, []).append(value)
        try:
            for kind, values in grouped.items():
                if kind is Kind.COUNTER:
                    await conn.executemany("INSERT INTO counters (name, value) VALUES ($1, $2) "
                                           "ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value", values)
                elif kind is Kind.DIRECTORY:
                    data = values[-1]
                    await conn.execute("UPDATE ad_data SET sequence = $1, body = $2", data.sequence,
                                       _pb(data, ad_pb.DirectoryData))
                else:
                    table, columns, row = _LOADS[kind]
                    await conn.copy_records_to_table(table, records=[row(v) for v in values], columns=columns)
        except asyncpg.PostgresError as exc:
            raise PostgresError(f"loading {safe(self.url)} failed ({type(exc).__name__}: {exc}); nothing was "
                                "written") from exc

    async def commit(self) -> None:
        # A ticket's FIFO place on PostgreSQL is its task message's seq (see hot.py); an embedded store
        # numbers tickets store-wide. Both grow in enqueue order per target, so the order is kept.
        conn, tr = self._begun()
        try:
            await conn.execute(_QUEUE_SEQ_FROM_MESSAGES)
            for sql in _USAGE:
                await conn.execute(sql)
        except asyncpg.PostgresError as exc:
            raise PostgresError(f"finishing the load of {safe(self.url)} failed ({type(exc).__name__}: {exc}); "
                                "nothing was written") from exc
        await tr.commit()
        self._tr = None
        await self.abort()

    async def abort(self) -> None:
        if self._conn is None:
            return
        if self._tr is not None and not self._conn.is_closed():
            await self._tr.rollback()
        self._tr = None
        await self._conn.close()
        self._conn = None


def _states(states: tuple[int, ...]) -> str:
    return ", ".join(str(int(state)) for state in states)


_USAGE = (
    charge(moved("SELECT sender, octet_length(body) FROM messages")),
    charge(f"SELECT '{QUEUED}' || source_agent, count(*) FROM tickets WHERE state IN ({_states(QUEUED_HELD)}) "
           "AND source_agent <> '' GROUP BY source_agent"),
    charge(f"SELECT '{MAILBOXES}' || c, count(*) FROM (SELECT metadata::jsonb ->> '{CREATED_BY}' AS c FROM mailboxes) "
           "AS m WHERE c <> '' GROUP BY c"),
    charge(f"SELECT '{OUTBOX_ROWS}' || sender_agent, count(*) FROM outbox WHERE state IN ({_states(OUTBOX_HELD)}) "
           f"AND sender_agent <> '' AND key NOT LIKE '{WAKE_ROW_PREFIX}%' GROUP BY sender_agent"),
    charge(f"SELECT '{counter_name(CHANNELS, '')}' || creator, count(*) FROM channels WHERE creator <> '' "
           "GROUP BY creator"),
    charge(f"SELECT '{counter_name(POSTS, '')}' || sender, count(*) FROM channel_posts WHERE sender <> '' "
           "GROUP BY sender"),
)
"""The quota usage counters (fabricd.core.quota), counted from the loaded records as the daemon counts them:
they are derived, so the dump leaves them out (`usage/` counters) and the load makes them again."""


async def _held(conn: asyncpg.Connection) -> str:
    """What the database holds, in words ("" for no fabric: a fresh or only migrated schema)."""
    parts = []
    for table, sql, _ in _DUMPS:
        n = await conn.fetchval(f"SELECT count(*) FROM ({sql}) AS t")
        if n:
            parts.append(f"{n} {table}")
    return ", ".join(parts)

