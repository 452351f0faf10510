"""The channels' port (fabricd.core.ports.Store.channels): what the core needs from storage for channels.

Every write is one operation, atomic, acknowledged after its commit (see fabricd.core.ports). `caller` is
None for a trusted caller (an admin token, a local caller), else the calling agent's id: the backend
gathers the membership facts in the same transaction and fabricd.core.channels decides.
"""

from __future__ import annotations

from typing import Protocol

from fabricd.core.model import Message
from fabricd.core.model_channels import Channel, Delivery, Hit, Member, Post, Published, SearchQuery
from fabricd.core.paging import Page
from fabricd.core.quota import Quotas


class ChannelPort(Protocol):
    async def create(self, request: Channel, creator: str, quota: Quotas | None) -> Channel:
        """Make a channel (its creator, when an agent, its first member)."""

    async def get(self, name: str) -> Channel: ...

    async def page(self, after: str, limit: int, max_bytes: int) -> Page[Channel]:
        """Channels by name after a cursor."""

    async def delete(self, name: str, purge: bool, caller: str | None) -> int:
        """Delete a channel, its members and its log; the posts deleted."""

    async def join(self, name: str, agent: str, delivery: Delivery, caller: str | None) -> tuple[Member, bool]: ...

    async def leave(self, name: str, agent: str, caller: str | None) -> bool: ...

    async def members(self, name: str, caller: str | None, after: str, limit: int,
                      max_bytes: int) -> Page[Member]: ...

    async def publish(self, name: str, msg: Message, digest: bytes, caller: str | None, max_unread: int,
                      quota: Quotas | None) -> Published:
        """Append a post and copy it to the MAILBOX members, in one transaction."""

    async def read(self, name: str, caller: str | None, after_seq: int, limit: int,
                   max_bytes: int) -> tuple[list[Post], Channel]:
        """Retained posts after `after_seq`, oldest first, and the channel as of the read."""

    async def readable(self, caller: str | None) -> list[str] | None:
        """The channels `caller` may read (None: every channel, for a trusted caller)."""

    async def search(self, query: SearchQuery) -> list[Hit]:
        """Full-text hits, newest first (Hit.order) below query.below, at most query.limit of them, answered
        from the backend's index one page at a time (never every match ranked or highlighted)."""

    async def expire(self, limit: int) -> int:
        """Retention applied to every channel (the maintenance sweep); posts dropped."""

    async def catch_up(self) -> int:
        """Bring a search index kept beside the store level with the logs (the daemon's start and housekeeping
        call it); the posts it added. 0 where the database is the index."""

