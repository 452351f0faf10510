"""Channels: a team's shared, durable conversation (fabricd.v1.ChannelService) over the store's ChannelPort.

This checks what a caller sends and hands each operation to the store, whose scripts decide with
fabricd.core.channels. `caller` is the calling agent's id, or None for a trusted caller (an admin token,
a local caller). `subscribe` keeps the shape of the mailbox's: read the version, read the log, then wait,
so a slow reader catches up from storage and a stream holds one batch at most.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

from fabricd.core import channel_search, paging, validate
from fabricd.core import channels as rules
from fabricd.core.errors import InvalidArgument
from fabricd.core.mailbox import digest_of
from fabricd.core.model import Address, Message
from fabricd.core.model_channels import Channel, Delivery, Hit, Member, Post, Published, SearchQuery
from fabricd.core.paging import Listed
from fabricd.core.ports import Service

MAX_DESCRIPTION_BYTES = 4096
DEFAULT_HITS, MAX_HITS = 20, 100


class Channels(Service):
    """The channel contract over a Store."""

    def _name(self, name: str, field: str = "channel") -> str:
        return rules.channel_name(name, self.limits, field)

    async def create(self, request: Channel, caller: str | None, agent_token: bool = False) -> Channel:
        validate.name(self._name(request.name, "channel.name"), "channel.name")  # NFC, nothing invisible
        validate.stored_text(request.description, "channel.description")
        validate.text_bytes(request.description, "channel.description", MAX_DESCRIPTION_BYTES)
        rules.retention(request.retention)
        return await self._store.channels.create(request, caller or "", self.limits.quotas_for(agent_token))

    async def get(self, name: str) -> Channel:
        return await self._store.channels.get(self._name(name, "name"))

    async def listed(self, page_size: int, page_token: str) -> Listed[Channel]:
        return await paging.read("channels", "", page_size, page_token, self._store.channels.page)

    async def delete(self, name: str, purge: bool, caller: str | None) -> int:
        return await self._store.channels.delete(self._name(name, "name"), purge, caller)

    async def join(self, name: str, agent: str, delivery: int, caller: str | None) -> tuple[Member, bool]:
        self._name(name)
        if agent:
            validate.agent_id(agent, self.limits)
        elif caller is None:
            raise InvalidArgument("agent_id is required for an admin or local caller: name the agent that joins",
                                  reason="MISSING_FIELD", field="agent_id")
        if delivery not in Delivery._value2member_map_:
            raise InvalidArgument(f"delivery {int(delivery)} is not a ChannelDelivery", reason="INVALID_FIELD",
                                  field="delivery")
        return await self._store.channels.join(name, agent, Delivery(delivery), caller)

    async def leave(self, name: str, agent: str, caller: str | None) -> bool:
        self._name(name)
        if agent:
            validate.agent_id(agent, self.limits)
        elif caller is None:
            raise InvalidArgument("agent_id is required for an admin or local caller", reason="MISSING_FIELD",
                                  field="agent_id")
        return await self._store.channels.leave(name, agent, caller)

    async def members(self, name: str, caller: str | None, page_size: int, page_token: str) -> Listed[Member]:
        self._name(name)

        async def fetch(after: str, limit: int, max_bytes: int) -> paging.Page[Member]:
            return await self._store.channels.members(name, caller, after, limit, max_bytes)

        return await paging.read("members", name, page_size, page_token, fetch)

    async def publish(self, name: str, msg: Message, caller: str | None, agent_token: bool = False) -> Published:
        self._name(name)
        msg = Message(msg.id, msg.sender, Address(rules.SIGIL + name), msg.reply_to, msg.thread_id, msg.text,
                      msg.data, msg.headers, msg.kind, msg.hops)
        validate.message(msg, self.limits)
        digest = digest_of(msg) if msg.id else b""
        return await self._store.channels.publish(name, msg, digest, caller, self.limits.max_unread,
                                                  self.limits.quotas_for(agent_token))

    async def read(self, name: str, caller: str | None, after_seq: int, page_size: int,
                   max_bytes: int = 0) -> tuple[list[Post], Channel]:
        self._name(name)
        limit = paging.page_size(page_size)
        budget = validate.response_bytes(max_bytes, self.limits)
        return await self._store.channels.read(name, caller, after_seq, limit, budget)

    async def subscribe(self, name: str, caller: str | None, after_seq: int,
                        batch: int = 512) -> AsyncIterator[list[Post]]:
        """Posts after `after_seq`, then new ones as they commit; [] is a keepalive. A batch holds at most
        `limits.stream_buffer_bytes` of posts (one larger post alone); the next is read when the consumer
        asks. A channel deleted ends the stream with CHANNEL_NOT_FOUND."""
        self._name(name)
        wakeups, store = self._wakeups, self._store.channels
        key = rules.wake_key(name)
        cursor = after_seq
        while True:
            seen = wakeups.version(key)
            posts, _ = await store.read(name, caller, cursor, batch, self.limits.stream_buffer_bytes)
            if posts:
                cursor = posts[-1].seq
                yield posts
                continue
            woke = await wakeups.wait(key, seen, self._keepalive_s)
            if wakeups.closed:
                return
            if not woke:
                yield []

    async def search(self, query: str, channel: str, sender: str, after_ns: int, before_ns: int, page_size: int,
                     page_token: str, caller: str | None) -> tuple[list[Hit], str]:
        """Hits newest first (by post time, then channel name, then seq, highest first), and the next page's
        token ("" at the end). The token holds the last hit's place, so posts published while a caller pages
        neither repeat nor shift a hit: each hit is handed out once."""
        channel_search.parse(query)  # EMPTY_QUERY before anything is read
        if channel:
            self._name(channel)
        if sender:
            validate.agent_id(sender, self.limits, "sender")
        size = DEFAULT_HITS if page_size == 0 else min(paging.page_size(page_size), MAX_HITS)
        scope = "\n".join((query, channel, sender, str(after_ns), str(before_ns)))
        below, seen = _below(page_token, scope) if page_token else (None, 0)
        store = self._store.channels
        if channel:
            await store.read(channel, caller, 0, 1, 1)  # NOT_A_MEMBER, CHANNEL_NOT_FOUND
            names: tuple[str, ...] | None = (channel,)
        else:
            readable = await store.readable(caller)
            names = None if readable is None else tuple(readable)
        if names == ():
            return [], ""
        hits = await store.search(SearchQuery(query, names, sender, after_ns, before_ns, size + 1, below))
        hits = hits[:size + 1]
        more = len(hits) > size
        token = paging.encode("search", scope, json.dumps(hits[size - 1].order), seen + size) if more else ""
        return hits[:size], token


def _below(token: str, scope: str) -> tuple[tuple[int, str, int], int]:
    """The last hit's place (send_ns, channel, seq) a search token holds, and the hits handed out before."""
    cursor, seen = paging.decode(token, "search", scope)
    try:
        send_ns, channel, seq = json.loads(cursor)
    except (ValueError, TypeError):
        raise paging.bad_token("is not one this daemon handed out") from None
    if not (isinstance(send_ns, int) and isinstance(channel, str) and isinstance(seq, int)):
        raise paging.bad_token("is not one this daemon handed out")
    return (send_ns, channel, seq), seen
