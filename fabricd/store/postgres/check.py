"""`fabricd check --store URL`: decode every row of a fabricd database, as the daemon would read it.

PostgreSQL guards its pages itself when the cluster has data checksums
(`initdb --data-checksums`): a damaged page is an error, never wrong data. What
it cannot know is whether a row still decodes as fabricd reads it (a body a
tool or a hand-written UPDATE changed). This reads every row of every table
through the daemon's own decoders, in one read-only snapshot, a batch at a time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fabricd import wire
from fabricd.core import agentdir, model_leases, wake
from fabricd.store.postgres import directory as d
from fabricd.store.postgres import outbox as o
from fabricd.store.postgres import tickets as tk
from fabricd.store.postgres import tx_channels as ch
from fabricd.store.postgres.migrate import connect
from fabricd.v1 import agent_directory_service_pb2 as ad_pb
from fabricd.v1 import types_pb2 as pb

_BATCH = 500

TABLES: tuple[tuple[str, str, str, Callable[[Any], Any]], ...] = (
    # table, key column (as text), columns read, decoder
    ("mailboxes", "agent_id", d.ENTRY_COLUMNS, d.entry_of),
    ("messages", "agent_id || '/' || seq", "body", lambda r: pb.Message.FromString(r["body"])),
    ("tickets", "ticket_id", tk.TICKET_COLUMNS, tk.ticket_of),
    ("outbox", "key || ' of ' || sender_agent", o.COLUMNS, o.row_of),
    ("ad_data", "sequence", "body", lambda r: d.data_of(r["body"])),
    ("ad_history", "sequence", "body", lambda r: d.data_of(r["body"])),
    ("ad_agents", "agent_id", "body", lambda r: wire.from_pb(ad_pb.Agent.FromString(r["body"]), agentdir.Agent)),
    ("ad_threads", "thread_id", "body", lambda r: wire.from_pb(ad_pb.Thread.FromString(r["body"]), agentdir.Thread)),
    ("ad_requests", "request_id", "seq, body", lambda r: d.request_of(r["seq"], r["body"])),
    ("tokens", "token_id", d.TOKEN_COLUMNS, d.token_of),
    ("wake_hooks", "agent_id", "body", lambda r: wake.decode(r["body"])),
    ("channels", "name", ch.CHANNEL_COLUMNS, ch.channel_of),
    ("channel_members", "channel || ' ' || agent_id", "*", ch.member_of),
    ("channel_posts", "channel || ' #' || seq", "channel, seq, size, body", ch.post_of),
    ("leases", "lease_id", "body", lambda r: model_leases.decode(r["body"])),
)


@dataclass
class DatabaseReport:
    rows: int = 0
    bad: list[tuple[str, str, str]] = field(default_factory=list)
    """(table, key, why) of each row that does not decode."""


async def check(url: str) -> DatabaseReport:
    """Decode every row of the database at `url` (one REPEATABLE READ, READ ONLY snapshot)."""
    conn = await connect(url)
    report = DatabaseReport()
    try:
        async with conn.transaction(isolation="repeatable_read", readonly=True):
            for table, key, columns, decode in TABLES:
                cursor = await conn.cursor(f"SELECT ({key})::text AS fabricd_key, {columns} FROM {table}")
                while rows := await cursor.fetch(_BATCH):
                    for row in rows:
                        report.rows += 1
                        try:
                            decode(row)
                        except Exception as exc:  # any failure to decode is what we report
                            report.bad.append((table, row["fabricd_key"], f"{type(exc).__name__}: {exc}"))
    finally:
        await conn.close()
    return report


def describe(url: str, report: DatabaseReport) -> tuple[list[str], int]:
    lines = [f"undecodable row: table {table}, key {key}: {why}" for table, key, why in report.bad]
    lines.append(f"checked {report.rows} rows in {url}: {len(report.bad)} undecodable"
                 + ("; fix or delete them with SQL (the daemon fails on reading them)" if report.bad else ""))
    return lines, 1 if report.bad else 0
