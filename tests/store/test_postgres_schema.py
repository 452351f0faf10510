"""The PostgreSQL schema: migrated up from empty, once, and refused when the database is ahead."""

from __future__ import annotations

import ast
import asyncio
import pathlib

import asyncpg
import pytest

from fabricd.core.model import Address, Message
from fabricd.store.postgres import schema, statements
from fabricd.store.postgres.errors import SchemaAhead

TABLES = {"schema_version", "counters", "mailboxes", "removals", "messages", "message_ids", "tickets", "outbox",
          "ad_data", "ad_history", "ad_agents", "ad_threads", "ad_requests", "ad_repairs", "tokens", "request_keys",
          "wake_hooks", "channels", "channel_members", "channel_posts", "leases", "lease_waiters"}


async def tables(conn: asyncpg.Connection) -> set[str]:
    rows = await conn.fetch("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")
    return {r["tablename"] for r in rows}


async def test_migration_5_counts_the_outbox_rows_each_sender_holds(pg_empty_url: str) -> None:
    conn = await asyncpg.connect(pg_empty_url)
    try:
        await schema.migrate(conn, 4)
        for key, state, sender in [("outbox:k:reply:0", 1, "m"), ("outbox:k:reply:1", 2, "m"),
                                   ("outbox:k:reply:2", 3, "m"), ("outbox:j:reply:0", 1, "n"),
                                   ("wake:m:000000000001", 1, "m")]:
            await conn.execute("INSERT INTO outbox (key, state, recipient_agent, recipient_session, sender_agent, "
                               "sender_session, job_id, content, next_attempt_ns, create_ns) "
                               "VALUES ($1, $2, 'r', 's', $3, 's', 'j', 'c', 0, 0)", key, state, sender)
        assert await schema.migrate(conn, 5) == [5]
        counted = dict(await conn.fetch("SELECT name, value FROM counters WHERE name LIKE 'usage/outbox_rows/%'"))
        assert counted == {"usage/outbox_rows/m": 2, "usage/outbox_rows/n": 1}  # pending and dead letters only
    finally:
        await conn.close()


async def test_migration_6_numbers_a_mailbox_made_again_above_its_removed_self(pg_empty_url: str) -> None:
    conn = await asyncpg.connect(pg_empty_url)
    try:
        await schema.migrate(conn, 5)
        await conn.execute("INSERT INTO mailboxes (agent_id, last_seq) VALUES ('kept', 9), ('gone', 4)")
        assert await schema.migrate(conn, 6) == [6]
        assert await conn.fetchval("SELECT last_seq FROM mailboxes WHERE agent_id = 'kept'") == 9  # left as it was
        await conn.execute("DELETE FROM mailboxes WHERE agent_id IN ('kept', 'gone')")
        await conn.execute("INSERT INTO mailboxes (agent_id) VALUES ('kept')")  # as every path that makes one
        await conn.execute("INSERT INTO mailboxes (agent_id, last_seq) VALUES ('copied', 3)")  # brings its own
        seqs = dict(await conn.fetch("SELECT agent_id, last_seq FROM mailboxes"))
        assert seqs == {"kept": 9, "copied": 3}
        await conn.execute("DELETE FROM mailboxes WHERE agent_id = 'copied'")  # a lower seq leaves the floor alone
        assert await conn.fetchval("SELECT value FROM counters WHERE name = 'seq-floor'") == 9
    finally:
        await conn.close()


async def test_migration_7_starts_a_mailbox_no_one_had_at_1_and_keeps_older_removals_above_the_floor(
        pg_empty_url: str) -> None:
    conn = await asyncpg.connect(pg_empty_url)
    try:
        await schema.migrate(conn, 6)
        await conn.execute("INSERT INTO mailboxes (agent_id, last_seq) VALUES ('old', 7)")
        await conn.execute("INSERT INTO removals (revision, agent_id) VALUES (1, 'old')")  # as Unregister does
        await conn.execute("DELETE FROM mailboxes WHERE agent_id = 'old'")  # the floor is 7, store-wide
        assert await schema.migrate(conn, 7) == [7]
        await conn.execute("INSERT INTO mailboxes (agent_id) VALUES ('never'), ('old')")
        await conn.execute("INSERT INTO mailboxes (agent_id, last_seq) VALUES ('gone', 4)")
        await conn.execute("DELETE FROM mailboxes WHERE agent_id = 'gone'")
        await conn.execute("INSERT INTO mailboxes (agent_id) VALUES ('gone')")
        seqs = dict(await conn.fetch("SELECT agent_id, last_seq FROM mailboxes"))
        assert seqs == {"never": 0, "old": 7, "gone": 4}  # no one's: 1 next; removed before 7: the floor; its own
    finally:
        await conn.close()


async def test_migration_14_gives_each_unread_message_its_senders_agent_id(pg_empty_url: str) -> None:
    conn = await asyncpg.connect(pg_empty_url)
    try:
        await schema.migrate(conn, 13)
        for seq, sender in ((1, "alice"), (2, ""), (3, "carol")):
            body = statements.encode(Message(id=f"m-{seq}", sender=Address(sender, "s-1"), recipient=Address("bob"),
                                             text="x" * seq))
            await conn.execute("INSERT INTO messages (agent_id, seq, id, body) VALUES ('bob', $1, $2, $3)",
                               seq, f"m-{seq}", body)
        assert await schema.migrate(conn, 14) == [14]
        senders = dict(await conn.fetch("SELECT seq, sender FROM messages WHERE agent_id = 'bob'"))
        assert senders == {1: "alice", 2: "", 3: "carol"}
    finally:
        await conn.close()


async def test_an_empty_database_is_migrated_to_the_latest_version(pg_empty_url: str) -> None:
    conn = await asyncpg.connect(pg_empty_url)
    try:
        assert await schema.version(conn) == 0
        assert await schema.migrate(conn) == [m.version for m in schema.MIGRATIONS]
        assert await schema.version(conn) == schema.LATEST
        assert await tables(conn) == TABLES
        assert await schema.migrate(conn) == []  # a second run finds nothing to do
    finally:
        await conn.close()


async def test_nodes_migrating_together_apply_each_step_once(pg_empty_url: str) -> None:
    conns = [await asyncpg.connect(pg_empty_url) for _ in range(3)]
    try:
        applied = await asyncio.gather(*(schema.migrate(c) for c in conns))
        assert sorted(v for a in applied for v in a) == [m.version for m in schema.MIGRATIONS]
        rows = await conns[0].fetch("SELECT version FROM schema_version ORDER BY version")
        assert [r["version"] for r in rows] == [m.version for m in schema.MIGRATIONS]
    finally:
        for c in conns:
            await c.close()


async def test_a_database_migrated_by_a_newer_fabricd_is_refused_and_left_alone(pg_url: str) -> None:
    conn = await asyncpg.connect(pg_url)
    try:
        await conn.execute("INSERT INTO schema_version (version, description) VALUES ($1, 'from the future')",
                           schema.LATEST + 1)
        before = await tables(conn)
        with pytest.raises(SchemaAhead) as caught:
            await schema.migrate(conn)
        assert f"version {schema.LATEST + 1}" in str(caught.value)
        assert caught.value.metadata == {"current": schema.LATEST + 1, "latest": schema.LATEST}
        assert await tables(conn) == before
        assert await schema.version(conn) == schema.LATEST + 1
    finally:
        await conn.close()


def test_only_the_postgres_backend_imports_a_postgres_driver() -> None:
    root = pathlib.Path(__file__).resolve().parents[2] / "fabricd"
    importers = set()
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            if any(n.split(".")[0] in {"asyncpg", "psycopg", "psycopg_pool"} for n in names):
                importers.add(path.parent.relative_to(root).as_posix())
    assert importers == {"store/postgres"}
