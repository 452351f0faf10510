"""PgTx: the core's record-level transaction (fabricd.core.kv.tx.RecordTx) over one PostgreSQL transaction.

The shared transaction scripts (fabricd.core.kv) are synchronous; asyncpg is
not. A script runs on a worker thread (see engine.py) and each record call
here hands its query to the event loop and waits for the answer, so the loop
never blocks and the scripts, with every refusal rule, are the same code on
LMDB, in memory and here.

Concurrency: a write transaction runs at READ COMMITTED and locks every record
it reads (`FOR UPDATE`: an entry, a ticket, an outbox row, the agent
directory's data row, ...) and every named counter it moves (its UPDATE), so
a reply and a retire of one ticket on two nodes never both win. Entries are cached
for the transaction and the dirty ones written once at the end (`flush`), as
on the other backends. A deadlock or a unique-key race between nodes rolls the
transaction back and the engine runs the script again from the start.
Read transactions are REPEATABLE READ, READ ONLY: one snapshot, like LMDB's.

This module holds the entries (cached, written by flush), the messages, the usage counters, the
sequences, the agent directory and the access tokens; the other concerns are mixins beside it:
tx_tickets.py (rendezvous tickets), tx_outbox.py (outbox rows), tx_wake.py (wake hooks), tx_leases.py,
tx_pages.py (the cursor reads List RPCs page through) and tx_channels.py (channels, members, their logs).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from fabricd import wire
from fabricd.core import agentdir, lookalike, quota
from fabricd.core.agentdir import FILTER_ALL, FILTER_NOTIFICATIONS, PENDING, Agent, DirectoryData, Thread, WorkRequest
from fabricd.core.model import Change, Envelope, IdRecord, MailboxEntry, Message
from fabricd.core.tokens import TOKENS, Token
from fabricd.store.postgres import directory as d
from fabricd.store.postgres import statements as s
from fabricd.store.postgres.locks import HOUSEKEEPING, LOOKS
from fabricd.store.postgres.schema import SEQ_FLOOR_SQL
from fabricd.store.postgres.tx_channels import PgChannelRecords
from fabricd.store.postgres.tx_leases import PgLeaseRecords
from fabricd.store.postgres.tx_outbox import PgOutboxRecords
from fabricd.store.postgres.tx_pages import PagedReads
from fabricd.store.postgres.tx_tickets import PgTicketRecords
from fabricd.store.postgres.tx_wake import WakeRecords
from fabricd.store.usage import counter_name
from fabricd.v1 import agent_directory_service_pb2 as ad_pb
from fabricd.v1 import types_pb2 as pb

if TYPE_CHECKING:
    from asyncpg import Record

    from fabricd.store.postgres.conn import Conn

T = TypeVar("T")

class PgTx(PagedReads, WakeRecords, PgTicketRecords, PgOutboxRecords, PgChannelRecords, PgLeaseRecords):
    """Implements RecordTx on one connection inside a transaction; called from a worker thread."""

    def __init__(self, conn: Conn, loop: asyncio.AbstractEventLoop, *, write: bool) -> None:
        self._conn = conn
        self._loop = loop
        self._write = write
        self._lock = " FOR UPDATE" if write else ""
        """A write locks every record it reads (until its commit), so two writers never both change one."""
        self._entries: dict[str, MailboxEntry | None] = {}
        self._dirty: dict[str, MailboxEntry] = {}
        self.woken: dict[str, None] = {}
        self.stored_messages = 0
        self._hooked: set[str] | None = None

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    def _fetch(self, sql: str, *args: object) -> list[Record]:
        return self._run(self._conn.fetch(sql, *args))

    def _row(self, sql: str, *args: object) -> Record | None:
        return self._run(self._conn.fetchrow(sql, *args))

    def _val(self, sql: str, *args: object) -> Any:
        return self._run(self._conn.fetchval(sql, *args))

    def _exec(self, sql: str, *args: object) -> str:
        return self._run(self._conn.execute(sql, *args))

    def seed(self, rows: list[Record]) -> None:
        """Cache entries this transaction already read and locked (PgEngine.write's `lock`)."""
        for r in rows:
            self._entries[r["agent_id"]] = d.entry_of(r)

    # -- directory

    def get_entry(self, agent_id: str) -> MailboxEntry | None:
        if agent_id not in self._entries:
            row = self._row(f"{d.ENTRY_SQL} WHERE agent_id = $1{self._lock}", agent_id)
            self._entries[agent_id] = d.entry_of(row) if row is not None else None
        return self._entries[agent_id]

    def put_entry(self, entry: MailboxEntry, change: Change | None) -> None:
        if change is not None:
            entry.revision, entry.change = self.next_sequence("revision"), change
        self._entries[entry.agent_id] = entry
        self._dirty[entry.agent_id] = entry

    def _merged(self, rows: list[Record], keep: Callable[[MailboxEntry], bool]) -> list[MailboxEntry]:
        """Stored entries overlaid with this transaction's own, those `keep` accepts, by agent id."""
        found: dict[str, MailboxEntry | None] = {r["agent_id"]: d.entry_of(r) for r in rows}
        for agent_id, entry in self._entries.items():
            found[agent_id] = entry
        return [e for _, e in sorted(found.items()) if e is not None and keep(e)]

    def entries(self) -> Iterator[MailboxEntry]:
        return iter(self._merged(self._fetch(d.ENTRY_SQL), lambda e: True))

    def entries_named(self, session_name: str) -> list[MailboxEntry]:
        rows = self._fetch(f"{d.ENTRY_SQL} WHERE session_name = $1 AND session_name <> ''", session_name)
        return self._merged(rows, lambda e: e.session_name == session_name)

    def entries_looking_like(self, looks: frozenset[str]) -> list[MailboxEntry]:
        if self._write:  # a name being made: another node making a look-alike now waits, then reads this one
            for key in sorted(looks):
                self._exec("SELECT pg_advisory_xact_lock($1, hashtext($2))", LOOKS, key)
        rows = self._fetch(f"{d.ENTRY_SQL} WHERE looks && $1::text[]", sorted(looks))
        return self._merged(rows, lambda e: not looks.isdisjoint(lookalike.keys_of(e)))

    def entries_since(self, revision: int, limit: int) -> list[MailboxEntry]:
        return self._run(d.entries_since(self._conn, revision, limit))

    def delete_entry(self, agent_id: str) -> None:
        if self.get_entry(agent_id) is None:
            return
        rev = self.next_sequence("revision")
        self._exec("WITH gone AS (DELETE FROM mailboxes WHERE agent_id = $1) "
                   "INSERT INTO removals (revision, agent_id) VALUES ($2, $1)", agent_id, rev)
        self._dirty.pop(agent_id, None)
        self._entries[agent_id] = None

    def revision(self) -> int:
        revision: int = self._val("SELECT value FROM counters WHERE name = 'revision'")
        return revision

    def removed_since(self, agent_id: str, revision: int) -> bool:
        removed: bool = self._val("SELECT EXISTS (SELECT 1 FROM removals WHERE revision > $2 AND agent_id = $1)",
                                  agent_id, revision)
        return removed

    def seq_floor(self, agent_id: str) -> int:
        floor: int = self._val(SEQ_FLOOR_SQL, agent_id)
        return floor

    def mailbox_count(self) -> int:
        count: int = self._val("SELECT count(*) FROM mailboxes")
        return count

    # -- messages

    def get_id(self, sender: str, message_id: str) -> IdRecord | None:
        r = self._row("SELECT agent_id, seq, send_ns, digest FROM message_ids WHERE id = $1 AND sender = $2",
                      message_id, sender)
        return IdRecord(r["agent_id"], r["seq"], r["send_ns"], bytes(r["digest"] or b"")) if r is not None else None

    def put_message(self, message: Message, digest: bytes, chosen: bool) -> bytes:
        # Every id is keyed (id, sender) here: a minted one is unique anyway (statements.append does the same).
        body = s.encode(message)
        agent_id = message.recipient.agent_id
        self._exec("WITH m AS (INSERT INTO messages (agent_id, seq, id, body, sender) VALUES ($1, $2, $3, $4, $7)) "
                   "INSERT INTO message_ids (id, sender, agent_id, seq, send_ns, digest) "
                   "VALUES ($3, $7, $1, $2, $5, $6)",
                   agent_id, message.seq, message.id, body, message.send_time_ns, digest or None,
                   message.sender.agent_id)
        self.stored_messages += 1
        self._move(message.sender.agent_id, len(body), 1)
        return s.enveloped(message.seq, body)

    def unread_copies(self, agent_id: str, wanted: Mapping[str, int]) -> dict[str, list[Envelope]]:
        out: dict[str, list[Envelope]] = {}
        for r in self._fetch(s.COPIES, agent_id, list(wanted), list(wanted.values())):
            out.setdefault(r["id"], []).append(Envelope(r["seq"], b""))  # delete_message reads the body itself
        return out

    def unread(self, agent_id: str, after_seq: int, limit: int, max_bytes: int = 0) -> list[Envelope]:
        return self._run(s.unread(self._conn, agent_id, after_seq, limit, max_bytes))

    def delete_message(self, agent_id: str, seq: int, encoded: bytes | None = None) -> bool:
        r = self._row("DELETE FROM messages WHERE agent_id = $1 AND seq = $2 RETURNING sender, octet_length(body) AS n",
                      agent_id, seq)
        if r is None:
            return False
        self._move(r["sender"], r["n"], -1)
        return True

    def delete_messages(self, agent_id: str, taken: Sequence[Envelope]) -> int:
        return sum(1 for e in taken if self.delete_message(agent_id, e.seq, e.encoded or None))

    def _move(self, sender: str, size: int, sign: int, count: int = 1) -> None:
        for agent_id, name, delta in quota.message_moves(sender, size, sign, count):
            self.count_usage(agent_id, name, delta)

    def restore_message(self, agent_id: str, seq: int, encoded: bytes) -> bool:
        message = pb.Message.FromString(encoded)
        message.ClearField("seq")
        body = message.SerializeToString()
        inserted: int = self._val("WITH r AS (INSERT INTO messages (agent_id, seq, id, body, sender) "
                                  "VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING 1) SELECT count(*) FROM r",
                                  agent_id, seq, message.id, body, message.sender.agent_id)
        restored = inserted == 1
        if restored:
            self._move(message.sender.agent_id, len(body), 1)
        return restored

    def purge_unread(self, agent_id: str) -> int:
        rows = self._fetch("WITH m AS (DELETE FROM messages WHERE agent_id = $1 RETURNING id, seq, sender, "
                           "octet_length(body) AS n), i AS (DELETE FROM message_ids i USING m WHERE i.id = m.id "
                           "AND i.agent_id = $1 AND i.seq = m.seq) SELECT sender, sum(n)::bigint AS n, count(*) AS k "
                           "FROM m GROUP BY sender", agent_id)
        for r in rows:
            self._move(r["sender"], r["n"], -1, r["k"])
        return sum(r["k"] for r in rows)

    def usage(self, agent_id: str) -> quota.Usage:
        names = [counter_name(q, agent_id) for q in (quota.MAILBOXES, quota.UNREAD_BYTES, quota.QUEUED,
                                                     quota.OUTBOX_ROWS, quota.UNREAD_MESSAGES)]
        # Locked in a write: two nodes checking one agent's quota at once take turns, so neither passes it.
        rows = self._fetch(f"SELECT name, value FROM counters WHERE name = ANY($1::text[]){self._lock}", names)
        found = {r["name"]: r["value"] for r in rows}
        return quota.Usage(*(found.get(n, 0) for n in names))

    def count_usage(self, agent_id: str, name: str, delta: int) -> None:
        if agent_id and delta:
            self._exec("INSERT INTO counters (name, value) VALUES ($1, greatest(0, $2::bigint)) ON CONFLICT (name) "
                       "DO UPDATE SET value = greatest(0, counters.value + $2::bigint)",
                       counter_name(name, agent_id), delta)

    def forget_id(self, sender: str, message_id: str) -> bool:
        forgotten: int = self._val(f"WITH gone AS ({s.FORGET_CONSUMED_ID} RETURNING 1) SELECT count(*) FROM gone",
                                   message_id, sender)
        return forgotten == 1

    def _housekeeper(self) -> bool:
        """Whether this transaction may do housekeeping: one node at a time (others skip the round)."""
        held: bool = self._val("SELECT pg_try_advisory_xact_lock($1)", HOUSEKEEPING)
        return held

    def forget_consumed_ids(self, sent_before_ns: int, cursor: bytes, limit: int) -> tuple[int, bytes]:
        if not self._housekeeper():
            return 0, b""
        forgotten = self._run(s.forget_ids(self._conn, sent_before_ns, limit))
        return forgotten, (b"more" if forgotten >= limit else b"")

    # -- named sequences

    def next_sequence(self, name: str) -> int:
        return self._run(d.next_value(self._conn, name))

    # -- agent directory

    def get_directory_data(self) -> DirectoryData:
        return d.data_of(self._val(f"SELECT body FROM ad_data{self._lock}"))

    def put_directory_data(self, data: DirectoryData, keep_history: int) -> None:
        body = wire.to_pb(data, ad_pb.DirectoryData).SerializeToString()
        self._exec("UPDATE ad_data SET sequence = $1, body = $2", data.sequence, body)
        if keep_history:
            self._exec("WITH old AS (DELETE FROM ad_history WHERE sequence <= $1::bigint - $3::bigint) "
                       "INSERT INTO ad_history (sequence, body) VALUES ($1, $2) "
                       "ON CONFLICT (sequence) DO UPDATE SET body = EXCLUDED.body", data.sequence, body, keep_history)

    def directory_history(self, after_sequence: int, limit: int) -> list[DirectoryData]:
        return [d.data_of(body) for _, body in self._run(d.directory_history(self._conn, after_sequence, limit))]

    @staticmethod
    def _agent(body: bytes | None) -> Agent | None:
        return wire.from_pb(ad_pb.Agent.FromString(body), agentdir.Agent) if body is not None else None

    def get_agent(self, agent_id: str) -> Agent | None:
        return self._agent(self._val(f"SELECT body FROM ad_agents WHERE agent_id = $1{self._lock}", agent_id))

    def agent_named(self, name: str) -> Agent | None:
        return self._agent(self._val(f"SELECT body FROM ad_agents WHERE name = $1{self._lock}", name))

    def put_agent(self, agent: Agent) -> None:
        self._run(d.put_agent(self._conn, agent.agent_id, agent.name,
                              wire.to_pb(agent, ad_pb.Agent).SerializeToString()))

    def agents(self) -> list[Agent]:
        return [a for a in map(self._agent, self._run(d.agents(self._conn))) if a is not None]

    def agents_looking_like(self, looks: frozenset[str]) -> list[Agent]:
        rows = self._fetch("SELECT body FROM ad_agents WHERE looks && $1::text[] ORDER BY agent_id", sorted(looks))
        return [a for a in (self._agent(r["body"]) for r in rows) if a is not None]

    @staticmethod
    def _thread(body: bytes | None) -> Thread | None:
        return wire.from_pb(ad_pb.Thread.FromString(body), agentdir.Thread) if body is not None else None

    def get_thread(self, thread_id: str) -> Thread | None:
        return self._thread(self._val(f"SELECT body FROM ad_threads WHERE thread_id = $1{self._lock}", thread_id))

    def put_thread(self, thread: Thread) -> None:
        self._run(d.put_thread(self._conn, thread.thread_id, thread.agent_id,
                               wire.to_pb(thread, ad_pb.Thread).SerializeToString()))

    def threads_of(self, agent_id: str) -> list[Thread]:
        return [t for t in map(self._thread, self._run(d.threads_of(self._conn, agent_id))) if t is not None]

    def get_request(self, request_id: str) -> WorkRequest | None:
        r = self._row(f"SELECT seq, body FROM ad_requests WHERE request_id = $1{self._lock}", request_id)
        return d.request_of(r["seq"], r["body"]) if r is not None else None

    def put_request(self, request: WorkRequest) -> None:
        self._run(d.put_request(self._conn, request.request_id, request.seq, request.state == PENDING,
                                request.owes_notification,
                                wire.to_pb(request, ad_pb.Request).SerializeToString()))

    def requests(self, which: int, after_seq: int, limit: int) -> list[WorkRequest]:
        where = {FILTER_ALL: "true", FILTER_NOTIFICATIONS: "owes_notification"}.get(which, "pending")
        rows = self._fetch(f"SELECT seq, body FROM ad_requests WHERE {where} AND seq > $1 ORDER BY seq LIMIT $2",
                           after_seq, limit)
        return [d.request_of(r["seq"], r["body"]) for r in rows]

    def get_repair(self, key: str) -> tuple[int, str] | None:
        return self._run(d.get_repair(self._conn, key))

    def put_repair(self, key: str, generation: int, request_id: str) -> None:
        self._run(d.put_repair(self._conn, key, generation, request_id))

    def get_request_key(self, scope: str, key: str) -> tuple[bytes, str] | None:
        r = self._row("SELECT digest, created_id FROM request_keys WHERE scope = $1 AND key = $2", scope, key)
        return (bytes(r["digest"]), r["created_id"]) if r is not None else None

    def put_request_key(self, scope: str, key: str, digest: bytes, created_id: str) -> None:
        self._exec("INSERT INTO request_keys (scope, key, digest, created_id) VALUES ($1, $2, $3, $4)",
                   scope, key, digest, created_id)

    # -- access tokens

    def put_token(self, key: bytes, t: Token) -> None:
        self._exec(f"""
            INSERT INTO tokens ({d.TOKEN_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
            ON CONFLICT (digest) DO UPDATE SET label = EXCLUDED.label, revoke_ns = EXCLUDED.revoke_ns""",
                   key, t.token_id, t.scope, t.agent_id, t.label, t.create_ns, t.revoke_ns, "\n".join(t.session_names))
        self.wake(TOKENS)

    def get_token(self, key: bytes) -> Token | None:
        r = self._row(f"SELECT {d.TOKEN_COLUMNS} FROM tokens WHERE digest = $1{self._lock}", key)
        return d.token_of(r)[1] if r is not None else None

    def token_by_id(self, token_id: str) -> tuple[bytes, Token] | None:
        r = self._row(f"SELECT {d.TOKEN_COLUMNS} FROM tokens WHERE token_id = $1{self._lock}", token_id)
        return d.token_of(r) if r is not None else None

    def tokens(self) -> list[tuple[bytes, Token]]:
        return [d.token_of(r) for r in self._fetch(f"SELECT {d.TOKEN_COLUMNS} FROM tokens ORDER BY create_ns")]

    # -- effects

    def wake(self, key: str) -> None:
        self.woken[key] = None

    async def flush(self) -> None:
        """Write the dirty entries (on the loop, once the script is done): every field, counters included,
        since this transaction holds each entry's row lock."""
        for e in self._dirty.values():
            await self._conn.execute("""
                INSERT INTO mailboxes AS m (agent_id, session_name, cwd, capabilities, metadata, registered, busy,
                    last_activity, register_time, heartbeat, unread_count, last_seq, revision, change, looks)
                VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15::text[])
                ON CONFLICT (agent_id) DO UPDATE SET session_name = EXCLUDED.session_name, cwd = EXCLUDED.cwd,
                    capabilities = EXCLUDED.capabilities, metadata = EXCLUDED.metadata,
                    registered = EXCLUDED.registered, busy = EXCLUDED.busy, last_activity = EXCLUDED.last_activity,
                    register_time = EXCLUDED.register_time, heartbeat = EXCLUDED.heartbeat,
                    unread_count = EXCLUDED.unread_count, last_seq = EXCLUDED.last_seq,
                    revision = EXCLUDED.revision, change = EXCLUDED.change, looks = EXCLUDED.looks""",
                *d.entry_args(e), d.looks_of(e))
        self._dirty.clear()

