"""Publish on PostgreSQL: one short transaction, fabricd.core.channels deciding the post and retention, and
the copies appended by the mailbox's own hot path (hot_append.append_in, deciding each copy with
fabricd.core.mailbox_writes.append) inside the same transaction.

    BEGIN
      the channel's row FOR UPDATE, the sender's membership, the post its id names, the sender's posts held
      -> fabricd.core.channels.publish decides (a refusal: nothing written; a resend: the stored post)
      the post, its sender's usage, the copies (append_in: their facts locked, decided, one write)
      the oldest posts -> fabricd.core.channels.expire decides what retention drops; the channel's row
    COMMIT
A post's id is minted before the first run, so a run again after a lost connection finds its own post and
answers it as stored (rerun-safe); a copy's id is derived from the post, so no copy is stored twice.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from fabricd.core import channels as rules
from fabricd.core import quota as quotas
from fabricd.core.errors import FabricError
from fabricd.core.mailbox import digest_of
from fabricd.core.model import Address, Message, Sent
from fabricd.core.model_channels import Channel, Post, Published
from fabricd.store.postgres import hot_append
from fabricd.store.postgres import tx_channels as ch
from fabricd.store.postgres.engine import Attempt, PgEngine
from fabricd.store.usage import counter_name

if TYPE_CHECKING:
    from fabricd.store.postgres.conn import Conn

_FACTS = f"""
SELECT (SELECT row_to_json(c) FROM (SELECT {ch.CHANNEL_COLUMNS} FROM channels WHERE name = $1 FOR UPDATE) c) AS channel,
       (SELECT row_to_json(m) FROM channel_members m WHERE channel = $1 AND agent_id = $2) AS member,
       (SELECT seq FROM channel_posts WHERE channel = $1 AND sender = $2 AND id = $3) AS prior,
       (SELECT value FROM counters WHERE name = $4 FOR UPDATE) AS held
"""
_COPIED_TO = "SELECT * FROM channel_members WHERE channel = $1 AND delivery <> 2 AND agent_id <> $2 ORDER BY agent_id"
_OLDEST = "SELECT seq, sender, send_ns, size FROM channel_posts WHERE channel = $1 AND seq > $2 ORDER BY seq LIMIT $3"
EXPIRE_BATCH = 256


def _channel(row: dict[str, Any]) -> Channel:
    return ch.channel_of(row)


async def _post(conn: Conn, name: str, seq: int) -> Post:
    r = await conn.fetchrow("SELECT channel, seq, size, body FROM channel_posts WHERE channel = $1 AND seq = $2",
                            name, seq)
    return ch.post_of(r)


async def publish_in(conn: Conn, name: str, msg: Message, digest: bytes, message_id: str, caller: str | None,
                     now: int, mint: Callable[[int], str], max_unread: int,
                     quota: quotas.Quotas | None) -> tuple[Published, dict[str, None]]:
    """One publish inside the caller's transaction: what it answers, and the wake-up keys of its commit."""
    sender = msg.sender.agent_id
    row = await conn.fetchrow(_FACTS, name, sender, msg.id or message_id, counter_name(quotas.POSTS, sender))
    assert row is not None  # its SELECT has no FROM: always one row
    if row["channel"] is None:
        names = [r["name"] for r in await conn.fetch("SELECT name FROM channels ORDER BY name LIMIT 10000")]
        raise rules.not_found(name, rules.close_names(name, names))
    found = _channel(json.loads(row["channel"]))
    member = ch.member_of(json.loads(row["member"])) if row["member"] is not None and sender else None
    prior = await _post(conn, name, row["prior"]) if row["prior"] is not None else None
    post, after = rules.publish(found, msg, digest, message_id, prior, member, caller, row["held"] or 0, quota, now)
    if after is None:
        return Published(post, duplicate=True), {}
    await conn.execute("INSERT INTO channel_posts (channel, seq, sender, id, send_ns, size, body, text) "
                       "VALUES ($1, $2, $3, $4, $5, $6, $7, $8)", *ch.post_args(post))
    if sender:
        await conn.execute("INSERT INTO counters (name, value) VALUES ($1, 1) ON CONFLICT (name) DO UPDATE SET "
                           "value = counters.value + 1", counter_name(quotas.POSTS, sender))
    members = [ch.member_of(r) for r in await conn.fetch(_COPIED_TO, name, sender)]
    copies = [rules.copy_of(after, post, m) for m in rules.copies_to(members, sender)]
    woken: dict[str, None] = {rules.wake_key(name): None}
    delivered, skipped = 0, []
    if copies:
        group = hot_append.prepare([(c, digest_of(c)) for c in copies], mint, now, create=False, atomic=False,
                                   max_unread=max_unread, quota=quota)
        done = await hot_append.append_in(conn, group)
        woken.update(done.woken)
        for copy, result in zip(copies, done.results, strict=True):
            if isinstance(result, FabricError):  # refused before it wrote: the member reads the log
                skipped.append((copy.recipient.agent_id, result.reason))
            elif isinstance(result, Sent):
                delivered += 1
    after = await _expire(conn, now, after)
    await conn.execute(f"UPDATE channels SET ({ch.CHANNEL_COLUMNS}) = ROW({', '.join(f'${i}' for i in range(1, 15))}) "
                       "WHERE name = $1", *ch.channel_args(after))
    return Published(post, False, delivered, tuple(skipped)), woken


async def _expire(conn: Conn, now: int, found: Channel) -> Channel:
    """Retention as fabricd.core.channels.expire decides, oldest first; the channel after (not stored here)."""
    batch = 1  # the oldest post first: most publishes drop nothing
    while True:
        rows = await conn.fetch(_OLDEST, found.name, found.first_seq - 1, batch)
        batch = EXPIRE_BATCH
        oldest = [Post(found.name, r["seq"], Message(sender=Address(r["sender"]), send_time_ns=r["send_ns"]),
                       r["size"]) for r in rows]
        dropped, found = rules.expire(found, oldest, now)
        if dropped:
            gone = oldest[:dropped]
            await conn.execute("DELETE FROM channel_posts WHERE channel = $1 AND seq <= $2", found.name,
                               gone[-1].seq)
            held: dict[str, int] = {}
            for p in gone:
                if p.message.sender.agent_id:
                    held[counter_name(quotas.POSTS, p.message.sender.agent_id)] = held.get(
                        counter_name(quotas.POSTS, p.message.sender.agent_id), 0) + 1
            await conn.executemany("UPDATE counters SET value = greatest(0, value - $2) WHERE name = $1",
                                   sorted(held.items()))
        if dropped < len(oldest) or not oldest:
            return found


async def publish(engine: PgEngine, clock: Callable[[], int], mint: Callable[[int], str], name: str, msg: Message,
                  digest: bytes, caller: str | None, max_unread: int, quota: quotas.Quotas | None) -> Published:
    """The channels port's publish on PostgreSQL (see the module docstring)."""
    now = clock()
    message_id = msg.id or mint(now)  # once: a run again finds its own post, the same post (its digest)
    digest = digest or digest_of(msg)

    async def run(conn: Conn, attempt: Attempt) -> tuple[Published, dict[str, None]]:
        async with conn.transaction():
            done = await publish_in(conn, name, msg, digest, message_id, caller, now, mint, max_unread, quota)
            attempt.committing = True
        return done

    published, woken = await engine.op(run, rerun_safe=True)
    if woken:
        engine.committed(woken, published.delivered)
    return published
