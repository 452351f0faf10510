"""The channels' part of PgTx (a mixin): rows of `channels`, `channel_members` and `channel_posts`
(migration 8); a channel's `looks` (migration 15) are its name's look-alike keys, written with its row. A write locks the channel's row it reads (FOR UPDATE), so publishes to one channel take
turns across nodes and each post's seq is its channel's last_seq + 1. A post's `search` column is
generated from its text, so retention deleting the row removes it from the search index too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from fabricd import wire
from fabricd.core import lookalike
from fabricd.core.model_channels import Channel, Delivery, Member, Post, Retention
from fabricd.store.postgres.locks import LOOKS
from fabricd.store.usage import counter_name
from fabricd.v1 import types_pb2 as pb

if TYPE_CHECKING:
    from asyncpg import Record

CHUNK = 200
CHANNEL_COLUMNS = ("name, uid, description, open, max_messages, max_bytes, max_age_ns, creator, create_ns, last_seq, "
                   "first_seq, count, size, members")
_CHANNEL = CHANNEL_COLUMNS


def _text(cursor: str) -> str:
    return bytes.fromhex(cursor).decode("utf-8", "surrogatepass")


def _hex(key: str) -> str:
    return key.encode("utf-8", "surrogatepass").hex()


def channel_of(r: Any) -> Channel:
    return Channel(r["name"], r["uid"], r["description"], r["open"],
                   Retention(r["max_messages"], r["max_bytes"], r["max_age_ns"]), r["creator"], r["create_ns"],
                   r["last_seq"], r["first_seq"], r["count"], r["size"], r["members"])


def member_of(r: Any) -> Member:
    return Member(r["channel"], r["agent_id"], Delivery(r["delivery"]), r["join_ns"], r["joined_after_seq"])


def channel_args(c: Channel) -> tuple[Any, ...]:
    r = c.retention
    return (c.name, c.uid, c.description, c.open, r.max_messages, r.max_bytes, r.max_age_ns, c.creator, c.create_ns,
            c.last_seq, c.first_seq, c.count, c.size, c.members)


def looks_of(name: str) -> list[str]:
    """A channel's `looks` column (migration 15): its name's look-alike keys (fabricd.core.lookalike.keys)."""
    return sorted(lookalike.keys(name))


def post_args(p: Post) -> tuple[Any, ...]:
    m = p.message
    return (p.channel, p.seq, m.sender.agent_id, m.id, m.send_time_ns, p.size, wire.message_out(m).SerializeToString(),
            m.text.replace("\0", " "))


def post_of(r: Any) -> Post:
    return Post(r["channel"], r["seq"], wire.message_in(pb.Message.FromString(r["body"])), r["size"])


class PgChannelRecords:
    """Mixed into PgTx, which provides the queries and `_lock` (FOR UPDATE in a write)."""

    _fetch: Callable[..., list[Record]]
    _row: Callable[..., Record | None]
    _val: Callable[..., Any]
    _exec: Callable[..., str]
    _lock: str

    def get_channel(self, name: str) -> Channel | None:
        r = self._row(f"SELECT {_CHANNEL} FROM channels WHERE name = $1{self._lock}", name)
        return channel_of(r) if r is not None else None

    def put_channel(self, c: Channel) -> None:
        self._exec(f"""
            INSERT INTO channels ({_CHANNEL}, looks)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
            ON CONFLICT (name) DO UPDATE SET uid = $2, description = $3, open = $4, max_messages = $5,
                max_bytes = $6, max_age_ns = $7, creator = $8, create_ns = $9, last_seq = $10, first_seq = $11,
                count = $12, size = $13, members = $14""", *channel_args(c), looks_of(c.name))

    def delete_channel(self, name: str) -> None:
        self._exec("WITH a AS (DELETE FROM channel_members WHERE channel = $1), "
                   "b AS (DELETE FROM channel_posts WHERE channel = $1) DELETE FROM channels WHERE name = $1", name)

    def hold_looks(self, space: str, looks: frozenset[str]) -> None:
        # transaction-scoped advisory locks, in one order (no deadlock between two makers); a space's keys are
        # kept apart from the others' and from mailbox agents' (locks.py) by their prefix. READ COMMITTED: the
        # names read next see the name a look-alike maker committed while this one waited.
        for key in sorted(looks):
            self._exec("SELECT pg_advisory_xact_lock($1, hashtext($2))", LOOKS, f"{space}:{key}")

    def channels_looking_like(self, looks: frozenset[str]) -> list[str]:
        return [r["name"] for r in self._fetch("SELECT name FROM channels WHERE looks && $1::text[] ORDER BY name",
                                               sorted(looks))]

    def channels_from(self, after: str) -> Iterator[tuple[str, Channel]]:
        last = _text(after)
        while True:
            rows = self._fetch(f"SELECT {_CHANNEL} FROM channels WHERE name COLLATE \"C\" > $1 "
                               "ORDER BY name COLLATE \"C\" LIMIT $2", last, CHUNK)
            for r in rows:
                yield _hex(r["name"]), channel_of(r)
            if len(rows) < CHUNK:
                return
            last = rows[-1]["name"]

    def get_member(self, channel: str, agent_id: str) -> Member | None:
        r = self._row(f"SELECT * FROM channel_members WHERE channel = $1 AND agent_id = $2{self._lock}", channel,
                      agent_id)
        return member_of(r) if r is not None else None

    def put_member(self, m: Member) -> None:
        self._exec("INSERT INTO channel_members (channel, agent_id, delivery, join_ns, joined_after_seq) "
                   "VALUES ($1, $2, $3, $4, $5) ON CONFLICT (channel, agent_id) DO UPDATE SET delivery = $3",
                   m.channel, m.agent_id, int(m.delivery), m.join_ns, m.joined_after_seq)

    def delete_member(self, channel: str, agent_id: str) -> None:
        self._exec("DELETE FROM channel_members WHERE channel = $1 AND agent_id = $2", channel, agent_id)

    def members_from(self, channel: str, after: str) -> Iterator[tuple[str, Member]]:
        last = _text(after)
        while True:
            rows = self._fetch("SELECT * FROM channel_members WHERE channel = $1 AND agent_id COLLATE \"C\" > $2 "
                               "ORDER BY agent_id COLLATE \"C\" LIMIT $3", channel, last, CHUNK)
            for r in rows:
                yield _hex(r["agent_id"]), member_of(r)
            if len(rows) < CHUNK:
                return
            last = rows[-1]["agent_id"]

    def put_post(self, p: Post) -> None:
        self._exec("INSERT INTO channel_posts (channel, seq, sender, id, send_ns, size, body, text) "
                   "VALUES ($1, $2, $3, $4, $5, $6, $7, $8)", *post_args(p))

    def posts(self, channel: str, after_seq: int, limit: int) -> list[Post]:
        rows = self._fetch("SELECT channel, seq, size, body FROM channel_posts WHERE channel = $1 AND seq > $2 "
                           "ORDER BY seq LIMIT $3", channel, after_seq, limit)
        return [post_of(r) for r in rows]

    def post_by_id(self, channel: str, sender: str, message_id: str) -> Post | None:
        r = self._row("SELECT channel, seq, size, body FROM channel_posts WHERE channel = $1 AND sender = $2 "
                      "AND id = $3", channel, sender, message_id)
        return post_of(r) if r is not None else None

    def delete_posts(self, channel: str, posts: Sequence[Post]) -> None:
        self._exec("DELETE FROM channel_posts WHERE channel = $1 AND seq = ANY($2::bigint[])", channel,
                   [p.seq for p in posts])

    def usage_of(self, agent_id: str, quota: str) -> int:
        return int(self._val(f"SELECT coalesce((SELECT value FROM counters WHERE name = $1{self._lock}), 0)",
                             counter_name(quota, agent_id)))
