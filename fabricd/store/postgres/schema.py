"""The PostgreSQL schema: every table in one place, created and upgraded by numbered migrations.

    table           key                         holds
    schema_version  version                     one row per applied migration (the highest is the schema)
    counters        name                        daemon-wide counters that move in commit order: 'revision'
                                                (mailbox directory), 'ticket', 'thread', 'request', ...
    mailboxes       agent_id                    the entry, unread_count, last_seq (the mailbox's seq counter),
                                                revision + change (its last directory change), looks (the
                                                look-alike keys of an agent's id and session name,
                                                fabricd.core.lookalike.entry_keys; GIN-indexed)
    removals        revision                    agent_id of a mailbox removed by Unregister (the tombstone a
                                                watcher resuming from an older revision is shown)
    messages        (agent_id, seq)             unread messages: id, body = fabricd.v1.Message bytes without seq,
                                                sender (its sender's agent id, whose quota it counts against)
    message_ids     (id, sender)                every id, read or unread: recipient, seq, send_ns, digest (NULL
                                                for server-minted ids); forgotten once consumed and older than
                                                the dedupe window. An id is its sender's: two senders may use
                                                one id (an ack by id takes the recipient's oldest unread one);
                                                ids consumed before migration 5 are kept under sender ''.
    tickets         ticket_id                   rendezvous tickets; (target, queue_seq) WHERE state = QUEUED is
                                                the target's FIFO; queue_seq is the ticket's seq (a counter);
                                                (target, queue_seq) and (source_agent, queue_seq) list a
                                                target's tickets and an asking agent's, newest first;
                                                headers, result_headers (JSON) and earlier (JSON turns) are text
                                                reattached counts resent Asks that found it queued
    outbox          (key, sender_agent)         the settling agent's reply to deliver (state PENDING, due by next_attempt_ns), a
                                                dead letter, or its receipt (state DELIVERED, seq, deliver_ns)
    ad_data         one row                     the agent directory's DirectoryData (protobuf) and its sequence
    ad_history      sequence                    DirectoryData as of each recent sequence (a watchable history)
    ad_agents       agent_id (name unique)      fabricd.v1.Agent
    ad_threads      thread_id                   fabricd.v1.Thread; (agent_id, ordinal) lists an agent's threads
    ad_requests     request_id                  fabricd.v1.Request, its admission seq and its list flags
    ad_repairs      key                         generation, request_id
    tokens          digest (SHA-256)            token_id, scope, agent, label, times, bound session names
                                                (newline-separated); never the token itself
    request_keys    (scope, key)                idempotency keys of Admit and CreateThread: digest, created id
    node_ids        (a sequence)                each node takes one at start for its minted ids (fabricd.core.ids)
    wake_hooks      agent_id                    body = the hook and its firing state, JSON (fabricd.core.wake)
    leases          lease_id                    body = the lease, live or ended, JSON (fabricd.core.model_leases);
                                                anchors (GIN) and agent_id index the live ones, revision every
                                                change; grants
                                                serialise on the 'lease' counter's row
    lease_waiters   waiter_id                   body = a waiting Acquire's place in line, JSON
                                                (fabricd.core.model_leases.Waiter); ord its place (the 'lease'
                                                counter's value when it queued), expire_ns when it dies unless
                                                its call tries again; never copied (calls in flight)

Decisions, and why:
- Times are bigint Unix nanoseconds, as in the core: timestamptz keeps microseconds, so a
  send_time would not round-trip and idempotent resends would answer a different time.
- A mailbox's seq is `UPDATE mailboxes SET last_seq = last_seq + 1 ... RETURNING` inside the
  send's statement, not a sequence: the row lock orders concurrent senders on every node, so
  seqs are gap-free and commit in seq order, and a subscriber reading `seq > cursor` never
  skips a seq that commits late. The same holds for `counters` (directory revision).
- A message's body is stored without its seq, which the database assigns in the same statement;
  readers append the seq field (statements.envelope), so a send is one statement with no round
  trip while the mailbox row is locked.
- No foreign keys between messages, ids and mailboxes: each statement keeps them consistent
  under the mailbox's row lock, and a foreign key would add a lookup to every insert.
- Tables live in the connection's current schema (normally public): give fabricd a database
  of its own.

A database whose schema is ahead of this fabricd (a newer one migrated it) is refused, never
written; one that is behind is migrated up, each step in its own transaction under an
advisory lock, so nodes starting together migrate once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from fabricd.core import lookalike
from fabricd.store.postgres.errors import SchemaAhead
from fabricd.store.postgres.locks import MIGRATE, xact_lock
from fabricd.store.usage import sender_of

if TYPE_CHECKING:
    from fabricd.store.postgres.conn import Conn

SEQ_FLOOR_SQL = """SELECT coalesce(
    (SELECT value FROM counters WHERE name = 'seq-floor/' || $1),
    (SELECT value FROM counters WHERE name = 'seq-floor' AND EXISTS (SELECT 1 FROM removals WHERE agent_id = $1)),
    0)"""
"""The seq a new mailbox of the id $1 starts above (RecordTx.seq_floor); migration 7's trigger computes the same."""


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    description: str
    sql: str


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "mailboxes, messages, ids, tickets, outbox, agent directory, tokens", """
CREATE TABLE counters (
    name  text PRIMARY KEY,
    value bigint NOT NULL
);
INSERT INTO counters (name, value) VALUES ('revision', 0), ('ticket', 0), ('thread', 0), ('request', 0);

CREATE TABLE mailboxes (
    agent_id      text PRIMARY KEY,
    session_name  text NOT NULL DEFAULT '',
    cwd           text NOT NULL DEFAULT '',
    capabilities  jsonb NOT NULL DEFAULT '[]',
    metadata      jsonb NOT NULL DEFAULT '{}',
    registered    boolean NOT NULL DEFAULT false,
    busy          boolean NOT NULL DEFAULT false,
    last_activity bigint NOT NULL DEFAULT 0,
    register_time bigint NOT NULL DEFAULT 0,
    heartbeat     bigint NOT NULL DEFAULT 0,
    unread_count  bigint NOT NULL DEFAULT 0 CHECK (unread_count >= 0),
    last_seq      bigint NOT NULL DEFAULT 0,
    revision      bigint NOT NULL DEFAULT 0,
    change        smallint NOT NULL DEFAULT 0
);
CREATE INDEX mailboxes_session ON mailboxes (session_name) WHERE session_name <> '';
CREATE UNIQUE INDEX mailboxes_revision ON mailboxes (revision) WHERE revision > 0;

CREATE TABLE removals (
    revision bigint PRIMARY KEY,
    agent_id text NOT NULL
);

CREATE TABLE messages (
    agent_id text NOT NULL,
    seq      bigint NOT NULL,
    id       text NOT NULL,
    body     bytea NOT NULL,
    PRIMARY KEY (agent_id, seq)
);

CREATE TABLE message_ids (
    id       text PRIMARY KEY,
    agent_id text NOT NULL,
    seq      bigint NOT NULL,
    send_ns  bigint NOT NULL,
    digest   bytea
);
CREATE INDEX message_ids_send ON message_ids (send_ns);

CREATE TABLE tickets (
    ticket_id       text PRIMARY KEY,
    target          text NOT NULL,
    queue_seq       bigint NOT NULL,
    state           smallint NOT NULL,
    source_kind     smallint NOT NULL,
    source_agent    text NOT NULL DEFAULT '',
    requester       text NOT NULL DEFAULT '',
    conversation_id text NOT NULL DEFAULT '',
    task            text NOT NULL,
    enqueue_ns      bigint NOT NULL,
    finish_ns       bigint NOT NULL DEFAULT 0,
    result          text NOT NULL DEFAULT '',
    reason          text NOT NULL DEFAULT ''
);
CREATE INDEX tickets_queue ON tickets (target, queue_seq) WHERE state = 1;
CREATE INDEX tickets_finished ON tickets (finish_ns) WHERE state <> 1;

CREATE TABLE outbox (
    key               text COLLATE "C" PRIMARY KEY,  -- listed in byte order, as on LMDB
    state             smallint NOT NULL,
    recipient_agent   text NOT NULL,
    recipient_session text NOT NULL DEFAULT '',
    sender_agent      text NOT NULL DEFAULT '',
    sender_session    text NOT NULL DEFAULT '',
    job_id            text NOT NULL DEFAULT '',
    content           text NOT NULL DEFAULT '',
    attempts          integer NOT NULL DEFAULT 0,
    next_attempt_ns   bigint NOT NULL DEFAULT 0,
    last_error        text NOT NULL DEFAULT '',
    create_ns         bigint NOT NULL,
    deliver_ns        bigint NOT NULL DEFAULT 0,
    seq               bigint NOT NULL DEFAULT 0
);
CREATE INDEX outbox_due ON outbox (next_attempt_ns) WHERE state = 1;
CREATE INDEX outbox_receipts ON outbox (deliver_ns) WHERE state = 3;

CREATE TABLE ad_data (
    one      boolean PRIMARY KEY DEFAULT true CHECK (one),
    sequence bigint NOT NULL,
    body     bytea NOT NULL
);
INSERT INTO ad_data (sequence, body) VALUES (0, '');

CREATE TABLE ad_history (
    sequence bigint PRIMARY KEY,
    body     bytea NOT NULL
);

CREATE TABLE ad_agents (
    agent_id text PRIMARY KEY,
    name     text NOT NULL UNIQUE,
    body     bytea NOT NULL
);

CREATE TABLE ad_threads (
    thread_id text PRIMARY KEY,
    agent_id  text NOT NULL,
    ordinal   bigint NOT NULL,
    body      bytea NOT NULL
);
CREATE INDEX ad_threads_agent ON ad_threads (agent_id, ordinal);

CREATE TABLE ad_requests (
    request_id        text PRIMARY KEY,
    seq               bigint NOT NULL UNIQUE,
    pending           boolean NOT NULL,
    owes_notification boolean NOT NULL,
    body              bytea NOT NULL
);
CREATE INDEX ad_requests_pending ON ad_requests (seq) WHERE pending;
CREATE INDEX ad_requests_notifications ON ad_requests (seq) WHERE owes_notification;

CREATE TABLE ad_repairs (
    key        text PRIMARY KEY,
    generation bigint NOT NULL,
    request_id text NOT NULL
);

CREATE TABLE tokens (
    digest    bytea PRIMARY KEY,
    token_id  text NOT NULL UNIQUE,
    scope     text NOT NULL,
    agent_id  text NOT NULL DEFAULT '',
    label     text NOT NULL DEFAULT '',
    create_ns bigint NOT NULL,
    revoke_ns bigint NOT NULL DEFAULT 0
);
"""),
    Migration(2, "node ids, request keys, token session names", """
CREATE SEQUENCE node_ids MINVALUE 1 MAXVALUE 65535 CYCLE;
CREATE TABLE request_keys (
    scope      text NOT NULL,
    key        text NOT NULL,
    digest     bytea NOT NULL,
    created_id text NOT NULL,
    PRIMARY KEY (scope, key)
);
ALTER TABLE tokens ADD COLUMN session_names text NOT NULL DEFAULT '';
"""),
    Migration(3, "ticket outcomes, data and headers, earlier turns; tickets listed by target and by asker", """
ALTER TABLE tickets ADD COLUMN outcome smallint NOT NULL DEFAULT 0,
                    ADD COLUMN data bytea NOT NULL DEFAULT '',
                    ADD COLUMN headers text NOT NULL DEFAULT '{}',
                    ADD COLUMN result_data bytea NOT NULL DEFAULT '',
                    ADD COLUMN result_headers text NOT NULL DEFAULT '{}',
                    ADD COLUMN earlier text NOT NULL DEFAULT '[]';
CREATE INDEX tickets_by_target ON tickets (target, queue_seq);
CREATE INDEX tickets_by_source ON tickets (source_agent, queue_seq) WHERE source_agent <> '';
"""),
    Migration(4, "wake hooks", """
CREATE TABLE wake_hooks (
    agent_id text PRIMARY KEY,
    body     bytea NOT NULL
);
"""),
    Migration(5, "message ids keyed by their sender, outbox rows by their settling agent and counted per sender; "
                 "tickets count the resent Asks that re-attached to them", """
ALTER TABLE message_ids ADD COLUMN sender text NOT NULL DEFAULT '';
ALTER TABLE outbox ALTER COLUMN sender_agent TYPE text COLLATE "C";
ALTER TABLE outbox DROP CONSTRAINT outbox_pkey, ADD PRIMARY KEY (key, sender_agent);
ALTER TABLE tickets ADD COLUMN reattached integer NOT NULL DEFAULT 0;
INSERT INTO counters (name, value)
    SELECT 'usage/outbox_rows/' || sender_agent, count(*) FROM outbox
    WHERE state IN (1, 2) AND sender_agent <> '' AND key NOT LIKE 'wake:%' GROUP BY sender_agent
    ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value;
"""),
    Migration(6, "a mailbox removed and made again numbers its mail above every seq used before", """
INSERT INTO counters (name, value) VALUES ('seq-floor', 0) ON CONFLICT (name) DO NOTHING;
CREATE FUNCTION fabricd_new_mailbox() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- Every path that makes a mailbox (a send that creates one, register, touch, outbox replies, a copy)
    -- starts its seq counter above the seq-floor, unless it brings a counter of its own. Read without a
    -- lock: a mailbox made again in the very moment its old self is removed on another node may still
    -- start below (a lock here would deadlock with that removal).
    IF NEW.last_seq = 0 THEN
        NEW.last_seq := coalesce((SELECT value FROM counters WHERE name = 'seq-floor'), 0);
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER mailboxes_numbered_above_the_removed BEFORE INSERT ON mailboxes
    FOR EACH ROW EXECUTE FUNCTION fabricd_new_mailbox();
CREATE FUNCTION fabricd_mailbox_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE counters SET value = OLD.last_seq WHERE name = 'seq-floor' AND value < OLD.last_seq;
    RETURN NULL;
END $$;
CREATE TRIGGER mailboxes_removed_raise_the_seq_floor AFTER DELETE ON mailboxes
    FOR EACH ROW EXECUTE FUNCTION fabricd_mailbox_removed();
"""),
    # Migration 7 only replaces migration 6's two trigger functions and adds an index.
    Migration(7, "a mailbox no one had numbers its first message 1; one made again, above its own old seqs", f"""
CREATE INDEX IF NOT EXISTS removals_agent ON removals (agent_id);
CREATE OR REPLACE FUNCTION fabricd_new_mailbox() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- The id's own floor; an id removed before ids had one (a row in removals), the store-wide floor;
    -- an id no mailbox ever had, 0: its first message is #1.
    IF NEW.last_seq = 0 THEN
        NEW.last_seq := ({SEQ_FLOOR_SQL.replace("$1", "NEW.agent_id")});
    END IF;
    RETURN NEW;
END $$;
CREATE OR REPLACE FUNCTION fabricd_mailbox_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE counters SET value = OLD.last_seq WHERE name = 'seq-floor' AND value < OLD.last_seq;
    INSERT INTO counters (name, value) VALUES ('seq-floor/' || OLD.agent_id, OLD.last_seq)
        ON CONFLICT (name) DO UPDATE SET value = greatest(counters.value, EXCLUDED.value);
    RETURN NULL;
END $$;
"""),
    # Migration 8 adds the channels (issue 28): channel records, members, each channel's log with its search
    # column and GIN index. Self-contained: it reads and changes no table of the earlier migrations.
    Migration(8, "channels: records, members, a log per channel with full-text search", """
CREATE TABLE IF NOT EXISTS channels (
    name         text PRIMARY KEY,
    uid          text NOT NULL,
    description  text NOT NULL DEFAULT '',
    open         boolean NOT NULL DEFAULT true,
    max_messages bigint NOT NULL DEFAULT 0,
    max_bytes    bigint NOT NULL DEFAULT 0,
    max_age_ns   bigint NOT NULL DEFAULT 0,
    creator      text NOT NULL DEFAULT '',
    create_ns    bigint NOT NULL DEFAULT 0,
    last_seq     bigint NOT NULL DEFAULT 0,
    first_seq    bigint NOT NULL DEFAULT 1,
    count        bigint NOT NULL DEFAULT 0,
    size         bigint NOT NULL DEFAULT 0,
    members      bigint NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS channel_members (
    channel          text NOT NULL,
    agent_id         text NOT NULL,
    delivery         smallint NOT NULL,
    join_ns          bigint NOT NULL,
    joined_after_seq bigint NOT NULL,
    PRIMARY KEY (channel, agent_id)
);
CREATE TABLE IF NOT EXISTS channel_posts (
    channel  text NOT NULL,
    seq      bigint NOT NULL,
    sender   text NOT NULL,
    id       text NOT NULL,
    send_ns  bigint NOT NULL,
    size     bigint NOT NULL,
    body     bytea NOT NULL,
    text     text NOT NULL,
    search   tsvector GENERATED ALWAYS AS (to_tsvector('simple', text)) STORED,
    PRIMARY KEY (channel, seq)
);
CREATE UNIQUE INDEX IF NOT EXISTS channel_posts_ids ON channel_posts (channel, sender, id);
CREATE INDEX IF NOT EXISTS channel_posts_search ON channel_posts USING GIN (search);
"""),
    # Migration 9 (leases) is self-contained: one table, no change to the others.
    Migration(9, "leases: one row per lease, live or ended", """
CREATE TABLE IF NOT EXISTS leases (
    lease_id text PRIMARY KEY,
    agent_id text NOT NULL,
    anchors  text[] NOT NULL,  -- fabricd.core.model_leases.anchors: empty once the lease ended
    revision bigint NOT NULL,  -- the lease counter's value at its last change (watchers read what changed)
    body     text NOT NULL
);
CREATE INDEX IF NOT EXISTS leases_since ON leases (revision);
CREATE INDEX IF NOT EXISTS leases_near ON leases USING gin (anchors);
CREATE INDEX IF NOT EXISTS leases_of ON leases (agent_id) WHERE anchors <> '{}';
"""),
    # Migration 11 adds the look-alike keys of agents' entries (filled by `_looks_of_agents`); like 7,
    # it may run again over itself (a test's downgrade forgets the version rows, not the column).
    Migration(11, "agents' mailboxes are found by the look-alike keys of their id and session name", """
ALTER TABLE mailboxes ADD COLUMN IF NOT EXISTS looks text[] NOT NULL DEFAULT '{}';
CREATE INDEX IF NOT EXISTS mailboxes_looks ON mailboxes USING gin (looks);
"""),
    # Migration 12 (fair waiting across nodes, issue 30) is self-contained: one table, no change to the others.
    Migration(12, "lease waiters: the line of waiting Acquire calls, shared by every node", """
CREATE TABLE IF NOT EXISTS lease_waiters (
    waiter_id text PRIMARY KEY,
    ord       bigint NOT NULL,  -- its place in line: the lease counter's value when it queued
    expire_ns bigint NOT NULL,  -- it dies then unless its call tries again (a dead node's waiters end)
    body      text NOT NULL
);
CREATE INDEX IF NOT EXISTS lease_waiters_line ON lease_waiters (ord);
"""),
    # Migration 13: SearchMessages answers newest first, one page at a time. For words most posts hold,
    # walking a channel's posts backwards in this index and stopping after a page beats the GIN index's
    # every match sorted; PostgreSQL picks one or the other by the words' frequency.
    Migration(13, "channel posts are searched newest first by an index on (channel, send_ns, seq)", """
CREATE INDEX IF NOT EXISTS channel_posts_newest ON channel_posts (channel, send_ns, seq);
"""),
    # Migration 14: each unread message names its sender, so a statement consuming messages sums their quota
    # moves (fabricd.core.quota.MESSAGE_MOVES) by a column instead of reading the sender out of the body.
    Migration(14, "each unread message keeps its sender's agent id in a column", """
ALTER TABLE messages ADD COLUMN IF NOT EXISTS sender text NOT NULL DEFAULT '';
"""),
)


async def _looks_of_agents(conn: Conn) -> None:
    """Migration 11: the look-alike keys of every agent's entry, registered or heard from (lookalike.is_agent;
    computed here: SQL has no confusables)."""
    rows = await conn.fetch("SELECT agent_id, session_name FROM mailboxes WHERE registered OR heartbeat > 0")
    if rows:
        await conn.executemany("UPDATE mailboxes SET looks = $2 WHERE agent_id = $1", [
            (r["agent_id"], sorted(lookalike.entry_keys(r["agent_id"], r["session_name"], True))) for r in rows])


async def refresh_looks(conn: Conn) -> bool:
    """Compute `mailboxes.looks` again if it was computed with other confusables data (a newer or older
    Unicode; the column's comment holds lookalike.data_version()); whether it did. Under the migration lock."""
    version = str(lookalike.data_version())
    if await conn.fetchval(_LOOKS_VERSION) == version:
        return False
    async with conn.transaction():
        await xact_lock(conn, MIGRATE)
        if await conn.fetchval(_LOOKS_VERSION) == version:
            return False
        await _looks_of_agents(conn)
        await conn.execute(f"COMMENT ON COLUMN mailboxes.looks IS '{version}'")
    return True


_LOOKS_VERSION = "SELECT col_description('mailboxes'::regclass, (SELECT attnum FROM pg_attribute " \
                 "WHERE attrelid = 'mailboxes'::regclass AND attname = 'looks'))"


async def _senders_of_unread(conn: Conn) -> None:
    """Migration 5: give the id of every unread message its sender (from the message), then key ids by both."""
    moved: list[tuple[str, str, int, str]] = []
    async for r in conn.cursor("SELECT agent_id, seq, id, body FROM messages"):
        sender = sender_of(r["body"])
        if sender:
            moved.append((r["id"], r["agent_id"], r["seq"], sender))
    if moved:
        await conn.executemany("UPDATE message_ids SET sender = $4 WHERE id = $1 AND agent_id = $2 AND seq = $3",
                               moved)
    await conn.execute("ALTER TABLE message_ids DROP CONSTRAINT message_ids_pkey, ADD PRIMARY KEY (id, sender)")


async def _message_senders(conn: Conn) -> None:
    """Migration 14: the sender column of every unread message, read from its body (as the quota counted it)."""
    moved: list[tuple[str, int, str]] = []
    async for r in conn.cursor("SELECT agent_id, seq, body FROM messages"):
        sender = sender_of(r["body"])
        if sender:
            moved.append((r["agent_id"], r["seq"], sender))
    if moved:
        await conn.executemany("UPDATE messages SET sender = $3 WHERE agent_id = $1 AND seq = $2", moved)


AFTER = {5: _senders_of_unread, 11: _looks_of_agents, 14: _message_senders}
"""Steps of a migration that SQL alone cannot do (decoding stored messages), run in its transaction after its SQL."""

LATEST = MIGRATIONS[-1].version

_VERSION_TABLE = """
CREATE TABLE IF NOT EXISTS schema_version (
    version     integer PRIMARY KEY,
    description text NOT NULL,
    applied_at  timestamptz NOT NULL DEFAULT now()
)"""


async def version(conn: Conn) -> int:
    """The database's schema version; 0 for a database fabricd never migrated."""
    exists = await conn.fetchval("SELECT to_regclass('schema_version') IS NOT NULL")
    if not exists:
        return 0
    return int(await conn.fetchval("SELECT coalesce(max(version), 0) FROM schema_version"))


def check(current: int, url: str = "the database") -> None:
    """SchemaAhead when `current` is newer than this fabricd knows."""
    if current > LATEST:
        raise SchemaAhead(f"{url} holds fabricd schema version {current}; this fabricd knows versions up to "
                          f"{LATEST}. Run a fabricd at least as new as the one that migrated it",
                          current=current, latest=LATEST)


async def migrate(conn: Conn, target: int = LATEST) -> list[int]:
    """Apply every migration above the database's version up to `target`; the versions applied.

    Each step runs in its own transaction holding the migration advisory lock, and
    reads the version again under the lock, so a node that lost the race applies nothing.
    """
    applied: list[int] = []
    check(await version(conn))
    for step in MIGRATIONS:
        if step.version > target:
            break
        async with conn.transaction():
            await xact_lock(conn, MIGRATE)
            await conn.execute(_VERSION_TABLE)
            current = await conn.fetchval("SELECT coalesce(max(version), 0) FROM schema_version")
            check(current)
            if current >= step.version:
                continue
            await conn.execute(step.sql)
            if step.version in AFTER:
                await AFTER[step.version](conn)
            await conn.execute("INSERT INTO schema_version (version, description) VALUES ($1, $2)",
                               step.version, step.description)
            applied.append(step.version)
    return applied
