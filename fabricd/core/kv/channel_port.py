"""KvChannels: the channels' port (fabricd.core.ports_channels) over a key-value Engine, by running the
scripts of fabricd.core.kv.channels. Search is answered by the backend's SearchIndex (LMDB: SQLite FTS5
beside the store); without one (the in-memory reference) it scans the retained log. PostgreSQL answers
it with its own full-text search (fabricd.store.postgres.channels)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol, TypeVar

from fabricd.core import channel_search
from fabricd.core.channel_search import Term
from fabricd.core.kv import channels
from fabricd.core.kv.tx import Engine, RecordTx
from fabricd.core.model import Message
from fabricd.core.model_channels import Channel, Delivery, Hit, Member, Post, Published, SearchQuery
from fabricd.core.paging import Page
from fabricd.core.quota import Quotas

T = TypeVar("T")


class SearchIndex(Protocol):
    """A full-text index a key-value backend keeps beside its store (LMDB: SQLite FTS5). The channels' logs
    are the truth: before it answers, the index catches up with them through `read` (a short read
    transaction of the store), adding what it lacks and dropping what retention dropped."""

    async def search(self, read: Callable[[Callable[[RecordTx], T]], Awaitable[T]], terms: list[Term],
                     query: SearchQuery) -> list[Hit]: ...

    async def catch_up(self, read: Callable[[Callable[[RecordTx], T]], Awaitable[T]]) -> int: ...

    def close(self) -> None: ...


class KvChannels:
    __slots__ = ("_e", "_clock", "_mint", "_index")

    def __init__(self, engine: Engine, clock: Callable[[], int], mint: Callable[[int], str],
                 index: SearchIndex | None = None) -> None:
        self._e = engine
        self._clock = clock
        self._mint = mint
        self._index = index

    async def create(self, request: Channel, creator: str, quota: Quotas | None) -> Channel:
        now = self._clock()
        uid = self._mint(now)
        return await self._e.write(lambda tx: channels.create(tx, now, uid, request, creator, quota))

    async def get(self, name: str) -> Channel:
        return await self._e.read(lambda tx: channels.get(tx, name))

    async def page(self, after: str, limit: int, max_bytes: int) -> Page[Channel]:
        return await self._e.read(lambda tx: channels.channels_page(tx, after, limit, max_bytes))

    async def delete(self, name: str, purge: bool, caller: str | None) -> int:
        return await self._e.write(lambda tx: channels.delete(tx, name, purge, caller))

    async def join(self, name: str, agent: str, delivery: Delivery, caller: str | None) -> tuple[Member, bool]:
        return await self._e.write(lambda tx: channels.join(tx, self._clock(), name, agent, delivery, caller))

    async def leave(self, name: str, agent: str, caller: str | None) -> bool:
        return await self._e.write(lambda tx: channels.leave(tx, name, agent, caller))

    async def members(self, name: str, caller: str | None, after: str, limit: int, max_bytes: int) -> Page[Member]:
        return await self._e.read(lambda tx: channels.members_page(tx, name, caller, after, limit, max_bytes))

    async def publish(self, name: str, msg: Message, digest: bytes, caller: str | None, max_unread: int,
                      quota: Quotas | None) -> Published:
        return await self._e.write(lambda tx: channels.publish(tx, self._clock(), self._mint, name, msg, digest,
                                                               caller, max_unread, quota))

    async def read(self, name: str, caller: str | None, after_seq: int, limit: int,
                   max_bytes: int) -> tuple[list[Post], Channel]:
        return await self._e.read(lambda tx: channels.read(tx, name, caller, after_seq, limit, max_bytes))

    async def readable(self, caller: str | None) -> list[str] | None:
        return await self._e.read(lambda tx: channels.readable_names(tx, caller))

    async def search(self, query: SearchQuery) -> list[Hit]:
        terms = channel_search.parse(query.query)
        if self._index is not None:
            return await self._index.search(self._e.read, terms, query)
        return await self._e.read(lambda tx: channels.scan_search(tx, terms, query))

    async def expire(self, limit: int) -> int:
        return await self._e.write(lambda tx: channels.expire_all(tx, self._clock(), limit))

    async def catch_up(self) -> int:
        return await self._index.catch_up(self._e.read) if self._index is not None else 0
