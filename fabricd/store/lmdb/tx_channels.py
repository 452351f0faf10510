"""The channels' part of a transaction (a mixin of LmdbTx): channel records, members, each channel's log.

    database      key                                         value
    channels      ordered(name)                               channel record (JSON, records_channels)
    chan_members  H(channel) ordered(agent_id)                member record (JSON)
    chan_log      H(channel) u64 seq                          u64 size, fabricd.v1.Message bytes (the post)
    chan_ids      H(channel) H(sender) H(message id)          u64 seq   (a sender's ids in a channel's log)
    name_looks    b"c" H(look-alike key) H(channel)           channel name (fabricd.store.lmdb.looks)

`ordered(name)` is the name's UTF-8 when it fits a key, else its first bytes and H(name): lists come back
in name order. A post's search index lives beside the store (fabricd.store.lmdb.channel_index).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from fabricd.core import lookalike
from fabricd.core.model_channels import Channel, Member, Post
from fabricd.store.lmdb import keys, looks
from fabricd.store.lmdb import records_channels as rec
from fabricd.store.lmdb.tx_directory import rows_after, rows_under

ROOM = 400
"""Bytes of a name kept whole in a key (LMDB keys hold at most 511)."""


def ordered(name: str) -> bytes:
    raw = name.encode("utf-8", "surrogatepass")
    return raw if len(raw) <= ROOM else raw[:ROOM] + b"\xff" + keys.h(name)


def _cursor(after: str) -> bytes:
    return bytes.fromhex(after)  # ValueError: not a cursor of ours


class LmdbChannelRecords:
    __slots__ = ()
    _txn: Any
    _dbs: Any

    def count_usage(self, agent_id: str, name: str, delta: int) -> None:
        raise NotImplementedError

    def get_channel(self, name: str) -> Channel | None:
        raw = self._txn.get(ordered(name), db=self._dbs.channels)
        return rec.decode_channel(raw) if raw is not None else None

    def put_channel(self, channel: Channel) -> None:
        key = ordered(channel.name)
        if self._txn.raw.get(key, db=self._dbs.channels) is None:  # a new channel: its name's look-alike keys
            looks.move_name(self._txn, self._dbs, keys.CHANNEL_LOOKS, channel.name, frozenset(),
                            lookalike.keys(channel.name))
        self._txn.put(key, rec.encode_channel(channel), db=self._dbs.channels)

    def delete_channel(self, name: str) -> None:
        txn, dbs = self._txn, self._dbs
        if txn.raw.get(ordered(name), db=dbs.channels) is not None:
            looks.move_name(txn, dbs, keys.CHANNEL_LOOKS, name, lookalike.keys(name), frozenset())
        txn.delete(ordered(name), db=dbs.channels)
        prefix = keys.h(name)
        for db in (dbs.chan_members, dbs.chan_log, dbs.chan_ids):
            for key in [k for k, _ in rows_under(txn, db, prefix, b"")]:
                txn.delete(key, db=db)

    def hold_looks(self, space: str, looks: frozenset[str]) -> None:
        pass  # one writer at a time

    def channels_looking_like(self, looks_like: frozenset[str]) -> list[str]:
        return looks.holders(self._txn, self._dbs, keys.CHANNEL_LOOKS, looks_like)

    def channels_from(self, after: str) -> Iterator[tuple[str, Channel]]:
        for key, raw in rows_after(self._txn, self._dbs.channels, _cursor(after)):
            yield key.hex(), rec.decode_channel(raw)

    def get_member(self, channel: str, agent_id: str) -> Member | None:
        raw = self._txn.get(keys.h(channel) + ordered(agent_id), db=self._dbs.chan_members)
        return rec.decode_member(channel, raw) if raw is not None else None

    def put_member(self, member: Member) -> None:
        self._txn.put(keys.h(member.channel) + ordered(member.agent_id), rec.encode_member(member),
                      db=self._dbs.chan_members)

    def delete_member(self, channel: str, agent_id: str) -> None:
        self._txn.delete(keys.h(channel) + ordered(agent_id), db=self._dbs.chan_members)

    def members_from(self, channel: str, after: str) -> Iterator[tuple[str, Member]]:
        prefix = keys.h(channel)
        start = _cursor(after)
        for key, raw in rows_under(self._txn, self._dbs.chan_members, prefix, start):
            if start and key == prefix + start:
                continue
            yield key[len(prefix):].hex(), rec.decode_member(channel, raw)

    def put_post(self, post: Post) -> None:
        m = post.message
        self._txn.put(keys.h(post.channel) + keys.u64(post.seq), rec.encode_post(post), db=self._dbs.chan_log)
        self._txn.put(_id_key(post.channel, m.sender.agent_id, m.id), keys.u64(post.seq), db=self._dbs.chan_ids)

    def posts(self, channel: str, after_seq: int, limit: int) -> list[Post]:
        prefix = keys.h(channel)
        out = []
        for key, raw in rows_under(self._txn, self._dbs.chan_log, prefix, keys.u64(after_seq + 1)):
            out.append(rec.decode_post(channel, keys.read_u64(key, len(prefix)), raw))
            if len(out) >= limit:
                break
        return out

    def post_by_id(self, channel: str, sender: str, message_id: str) -> Post | None:
        raw = self._txn.get(_id_key(channel, sender, message_id), db=self._dbs.chan_ids)
        if raw is None:
            return None
        seq = keys.read_u64(raw)
        body = self._txn.get(keys.h(channel) + keys.u64(seq), db=self._dbs.chan_log)
        return rec.decode_post(channel, seq, body) if body is not None else None

    def delete_posts(self, channel: str, posts: Sequence[Post]) -> None:
        prefix = keys.h(channel)
        for p in posts:
            self._txn.delete(prefix + keys.u64(p.seq), db=self._dbs.chan_log)
            self._txn.delete(_id_key(channel, p.message.sender.agent_id, p.message.id), db=self._dbs.chan_ids)


def _id_key(channel: str, sender: str, message_id: str) -> bytes:
    return keys.h(channel) + keys.h(sender) + keys.h(message_id)
