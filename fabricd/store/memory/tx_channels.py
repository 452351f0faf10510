"""Channel records of MemoryTx (a mixin): channels by name, members by (channel, agent id), posts by
(channel, seq) with an index of (channel, sender, message id), and the look-alike index of names (table
name_looks: (kind, look-alike key) -> the holders of the names of that kind with that key, a tuple).
Records are copied in and out."""

from __future__ import annotations

import copy
from collections.abc import Iterator, Sequence
from typing import Any

from fabricd.core import lookalike
from fabricd.core.model_channels import Channel, Member, Post
from fabricd.store.usage import counter_name

CHANNEL_TABLES = ("channels", "members", "posts", "post_ids", "name_looks")


def _hex(name: str) -> str:
    return name.encode("utf-8", "surrogatepass").hex()


def _unhex(cursor: str) -> str:
    return bytes.fromhex(cursor).decode("utf-8", "surrogatepass")  # ValueError: not a cursor of ours


class MemoryChannelRecords:
    def _t(self, name: str) -> dict[Any, Any]:
        raise NotImplementedError  # MemoryTx's

    def _w(self, name: str) -> dict[Any, Any]:
        raise NotImplementedError

    def _meta(self, key: str, default: int = 0) -> int:
        raise NotImplementedError

    def get_channel(self, name: str) -> Channel | None:
        return copy.deepcopy(self._t("channels").get(name))

    def index_name(self, kind: str, holder: str, before: frozenset[str], after: frozenset[str]) -> None:
        """Index `holder` (a channel's name, an agent's id) under the look-alike keys `after` of its name of
        `kind` ("channel", "agent") instead of `before`."""
        index = self._w("name_looks")
        for key in before - after:
            index[(kind, key)] = tuple(h for h in index.get((kind, key), ()) if h != holder)
        for key in after - before:
            index[(kind, key)] = (*index.get((kind, key), ()), holder)

    def named_like(self, kind: str, looks: frozenset[str]) -> list[str]:
        index = self._t("name_looks")
        return list(dict.fromkeys(h for key in sorted(looks) for h in index.get((kind, key), ())))

    def put_channel(self, channel: Channel) -> None:
        if channel.name not in self._t("channels"):
            self.index_name("channel", channel.name, frozenset(), lookalike.keys(channel.name))
        self._w("channels")[channel.name] = copy.deepcopy(channel)

    def delete_channel(self, name: str) -> None:
        if name in self._t("channels"):
            self.index_name("channel", name, lookalike.keys(name), frozenset())
        self._w("channels").pop(name, None)
        members = self._w("members")
        for key in [k for k in members if k[0] == name]:
            del members[key]
        self.delete_posts(name, self.posts(name, 0, 1 << 62))

    def hold_looks(self, space: str, looks: frozenset[str]) -> None:
        pass  # one writer at a time

    def channels_looking_like(self, looks: frozenset[str]) -> list[str]:
        return self.named_like("channel", looks)

    def channels_from(self, after: str) -> Iterator[tuple[str, Channel]]:
        start = _unhex(after)
        for name in sorted(n for n in self._t("channels") if n > start):
            yield _hex(name), copy.deepcopy(self._t("channels")[name])

    def get_member(self, channel: str, agent_id: str) -> Member | None:
        return copy.deepcopy(self._t("members").get((channel, agent_id)))

    def put_member(self, member: Member) -> None:
        self._w("members")[(member.channel, member.agent_id)] = copy.deepcopy(member)

    def delete_member(self, channel: str, agent_id: str) -> None:
        self._w("members").pop((channel, agent_id), None)

    def members_from(self, channel: str, after: str) -> Iterator[tuple[str, Member]]:
        start = _unhex(after)
        table = self._t("members")
        for c, agent_id in sorted(k for k in table if k[0] == channel and k[1] > start):
            yield _hex(agent_id), copy.deepcopy(table[(c, agent_id)])

    def put_post(self, post: Post) -> None:
        self._w("posts")[(post.channel, post.seq)] = copy.deepcopy(post)
        m = post.message
        self._w("post_ids")[(post.channel, m.sender.agent_id, m.id)] = post.seq

    def posts(self, channel: str, after_seq: int, limit: int) -> list[Post]:
        table = self._t("posts")
        seqs = sorted(s for c, s in table if c == channel and s > after_seq)[:limit]
        return [copy.deepcopy(table[(channel, s)]) for s in seqs]

    def post_by_id(self, channel: str, sender: str, message_id: str) -> Post | None:
        seq = self._t("post_ids").get((channel, sender, message_id))
        return copy.deepcopy(self._t("posts").get((channel, seq))) if seq is not None else None

    def delete_posts(self, channel: str, posts: Sequence[Post]) -> None:
        table, ids = self._w("posts"), self._w("post_ids")
        for p in posts:
            table.pop((channel, p.seq), None)
            ids.pop((channel, p.message.sender.agent_id, p.message.id), None)

    def usage_of(self, agent_id: str, quota: str) -> int:
        return self._meta(counter_name(quota, agent_id))
