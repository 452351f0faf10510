"""Channels' domain objects: a channel, its members and its posts (fabricd.v1.ChannelService).

A channel's counters (`last_seq`, `first_seq`, `count`, `size`) live in its record and move in the
transaction that appends or drops posts, so they are exact on every backend. `uid` is minted when the
channel is made: a channel deleted and made again under its name is another channel (its posts' ids,
its copies' ids, its idempotency scope).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from fabricd.core.model import Message

DAY_NS = 86_400 * 1_000_000_000
DEFAULT_MAX_AGE_NS = 30 * DAY_NS
"""A channel's posts are kept 30 days unless its retention says otherwise."""


class Delivery(enum.IntEnum):
    """fabricd.v1.ChannelDelivery."""

    UNSPECIFIED = 0
    MAILBOX = 1
    LOG = 2


@dataclass(frozen=True, slots=True)
class Retention:
    """Bounds of a channel's log; 0 is no bound (max_age_ns 0 is the 30-day default)."""

    max_messages: int = 0
    max_bytes: int = 0
    max_age_ns: int = 0

    @property
    def age_ns(self) -> int:
        return self.max_age_ns or DEFAULT_MAX_AGE_NS


@dataclass(slots=True)
class Channel:
    name: str
    uid: str = ""
    description: str = ""
    open: bool = True
    retention: Retention = field(default_factory=Retention)
    creator: str = ""
    create_ns: int = 0
    last_seq: int = 0
    first_seq: int = 1
    """The oldest retained post's seq (last_seq + 1 when none is)."""
    count: int = 0
    size: int = 0
    """Bytes of the retained posts (their text, data and headers)."""
    members: int = 0


@dataclass(slots=True)
class Member:
    channel: str
    agent_id: str
    delivery: Delivery = Delivery.MAILBOX
    join_ns: int = 0
    joined_after_seq: int = 0


@dataclass(slots=True)
class Post:
    """One post of a channel's log: its message (recipient `#<channel>`, id, sender, time, seq = the post's)."""

    channel: str
    seq: int
    message: Message
    size: int
    """What it counts against the channel's max_bytes: its text, data and headers in bytes."""


@dataclass(frozen=True, slots=True)
class Published:
    """What Publish answers."""

    post: Post
    duplicate: bool = False
    delivered: int = 0
    skipped: tuple[tuple[str, str], ...] = ()
    """(agent id, reason) of each member whose copy was skipped."""


@dataclass(frozen=True, slots=True)
class SearchQuery:
    query: str
    channels: tuple[str, ...] | None = None
    """The channels searched (None: all of them, for a trusted caller)."""
    sender: str = ""
    after_ns: int = 0
    before_ns: int = 0
    limit: int = 20
    below: tuple[int, str, int] | None = None
    """Only hits older than this one (its `Hit.order`): the last hit of the page before (None: from the newest)."""


@dataclass(frozen=True, slots=True)
class Hit:
    """A search hit. Hits come newest first: by `order` = (send_ns, channel, seq), highest first."""

    channel: str
    seq: int
    sender: str
    send_ns: int
    snippet: str
    message_id: str

    @property
    def order(self) -> tuple[int, str, int]:
        return (self.send_ns, self.channel, self.seq)
