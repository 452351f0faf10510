"""Channels' write rules as deciders: the facts of one write in, what to write (or the refusal) out.

Every backend runs these: the record scripts (fabricd.core.kv.channels: LMDB, memory, and PostgreSQL's
record transaction for all but Publish) gather the facts with record reads; PostgreSQL's Publish reads them
in one short transaction (store/postgres/hot_channels.py). No I/O here, and no input is changed: a decision
carries new objects.

    create       a new channel (its creator a member, charged to its quota of channels)
    may_read     whether a caller reads (and publishes to) a channel: trusted callers and members
    join/leave   membership: an open channel's own join, a member adding others, an admin everything
    publish      a new post (or a resend's answer) and the channel's counters after it
    copy_of      the message a MAILBOX member's mailbox gets: the send rules (mailbox_writes.append)
                 decide each copy, so a copy obeys exactly what a send does; a refused copy is skipped
    expire       how many of the oldest posts retention drops, and the channel after

A caller is None for a trusted one (an admin token, a local caller), else its agent id. Invariants: a
refusal is decided before anything is written; a post's seq is its channel's last_seq + 1; the newest
post is never dropped by retention, so a post is readable once Publish answered.
"""

from __future__ import annotations

import dataclasses
import difflib
import uuid
from collections.abc import Sequence

from fabricd.core import lookalike, validate
from fabricd.core import quota as quotas
from fabricd.core.errors import AlreadyExists, FailedPrecondition, InvalidArgument, NotFound, PermissionDenied
from fabricd.core.limits import Limits
from fabricd.core.mailbox import digest_of, message_id_reused
from fabricd.core.model import Address, Message
from fabricd.core.model_channels import Channel, Delivery, Member, Post, Retention

CHANNELS, POSTS = quotas.CHANNELS, quotas.POSTS
CHANNEL, CHANNEL_SEQ, CHANNEL_POST = "fabricd-channel", "fabricd-channel-seq", "fabricd-channel-post"
"""The headers of a member's copy of a post."""
SIGIL = "#"
COPY_NAMESPACE = uuid.UUID("0b7d5f0e-6c1b-4a8e-9a57-4c4e1f2f6a28")


def wake_key(name: str) -> str:
    """The wake-up key of a channel's log."""
    return "channel/" + name


# -- refusals


def not_found(name: str, similar: Sequence[str] = ()) -> NotFound:
    hint = f"; did you mean {', '.join(repr(s) for s in similar)}?" if similar else \
        "; `fabric channel ls` lists the channels"
    extra = {"suggestions": ",".join(similar)} if similar else {}
    return NotFound(f"no channel is named {name!r}{hint}", reason="CHANNEL_NOT_FOUND", channel=name, **extra)


def exists(name: str) -> AlreadyExists:
    return AlreadyExists(f"channel {name!r} exists; join it (fabric channel join '#{name}') or choose another name",
                         reason="CHANNEL_EXISTS", channel=name)


def not_a_member(name: str, agent_id: str) -> PermissionDenied:
    return PermissionDenied(f"agent {agent_id!r} is not a member of channel {name!r}; join it (fabric channel join "
                            f"'#{name}'), or ask a member to add it if the channel is closed",
                            reason="NOT_A_MEMBER", channel=name, agent_id=agent_id)


def closed(name: str, agent_id: str) -> PermissionDenied:
    return PermissionDenied(f"channel {name!r} is closed: agent {agent_id!r} may not join it; a member or an admin "
                            "adds members of a closed channel", reason="CHANNEL_CLOSED", channel=name,
                            agent_id=agent_id)


def not_empty(channel: Channel) -> FailedPrecondition:
    return FailedPrecondition(f"channel {channel.name!r} retains {channel.count} posts; delete it with purge "
                              "(fabric channel rm --purge) to delete them too", reason="CHANNEL_NOT_EMPTY",
                              channel=channel.name, messages=channel.count)


def not_the_creator(name: str, agent_id: str) -> PermissionDenied:
    return PermissionDenied(f"agent {agent_id!r} may not delete channel {name!r}: only its creator or an admin may",
                            reason="OUT_OF_SCOPE", identity=f"agent:{agent_id}")


def close_names(name: str, names: Sequence[str], limit: int = 3) -> tuple[str, ...]:
    return tuple(difflib.get_close_matches(name, sorted(set(names) - {name}), n=limit, cutoff=0.6))


# -- checks of what a caller sends


def channel_name(name: str, limits: Limits, field: str = "channel") -> str:
    """A channel's name: a session name's rules (1 to max_id_chars characters, no '/'), no leading '#', no
    NUL or control characters."""
    validate.text_field(name, field, limits, required=True)
    if name.startswith(SIGIL):
        raise InvalidArgument(f"{field} {name!r} starts with '#': the '#' is the CLI's sigil, not part of the name; "
                              f"send {name.lstrip(SIGIL)!r}", reason="INVALID_CHARACTERS", field=field)
    if "/" in name or not name.isprintable():
        raise InvalidArgument(f"{field} {name!r} may not contain '/' or control characters",
                              reason="INVALID_CHARACTERS", field=field)
    return name


def retention(value: Retention) -> Retention:
    if value.max_messages < 0 or value.max_bytes < 0 or value.max_age_ns < 0:
        raise InvalidArgument("channel.retention bounds may not be negative", reason="INVALID_FIELD",
                              field="channel.retention")
    return value


# -- deciders


def looks_taken(name: str, other: str) -> AlreadyExists:
    return AlreadyExists(
        f"channel {lookalike.shown(name)} looks like channel {lookalike.shown(other)}: the two would read the same "
        "in listings and in posts' copies, so a member could take one for the other; choose a name that differs in "
        "more than look-alike letters, case or spaces", reason="NAME_COLLISION", name=name, looks_like=other)


def create(request: Channel, existing: Channel | None, creator: str, created: int, now: int, uid: str,
           quota: quotas.Quotas | None, others: Sequence[str] = ()) -> Channel:
    """The new channel; `created` is the creator's usage of CHANNELS (its channels that exist); `others` the
    names of channels that exist (a name that only looks like one of them is refused: UTS #39 skeletons, case,
    spaces around it, as for agent names)."""
    if existing is not None:
        raise exists(request.name)
    twin = lookalike.look_alike(request.name, ((n, n, "channel") for n in others))
    if twin is not None:
        raise looks_taken(request.name, twin[0])
    if quota is not None and creator:
        quotas.check(CHANNELS, creator, quota.channels, created, 1)
    return dataclasses.replace(request, uid=uid, creator=creator, create_ns=now, last_seq=0, first_seq=1, count=0,
                               size=0, members=1 if creator else 0)


def may_read(channel: Channel, member: Member | None, caller: str | None) -> None:
    """Reads, publishes, searches and member lists: a trusted caller, or a member's agent."""
    if caller is not None and member is None:
        raise not_a_member(channel.name, caller)


def join(channel: Channel, agent_id: str, prior: Member | None, caller_member: Member | None, caller: str | None,
         delivery: Delivery, now: int) -> Member | None:
    """The member `agent_id` becomes (None: it is one already with this delivery). An agent joins an open
    channel itself; a member adds anyone; a trusted caller adds anyone."""
    if caller is not None and caller_member is None:
        if agent_id != caller:
            raise not_a_member(channel.name, caller)
        if not channel.open:
            raise closed(channel.name, caller)
    delivery = delivery or Delivery.MAILBOX
    if prior is not None:
        return None if prior.delivery == delivery else dataclasses.replace(prior, delivery=delivery)
    return Member(channel.name, agent_id, delivery, now, channel.last_seq)


def may_leave(channel: Channel, agent_id: str, caller: str | None) -> None:
    """An agent removes only itself; a trusted caller anyone."""
    if caller is not None and agent_id != caller:
        raise PermissionDenied(f"agent {caller!r} may not remove {agent_id!r} from channel {channel.name!r}: an "
                               "agent leaves by itself, an admin removes others", reason="OUT_OF_SCOPE",
                               identity=f"agent:{caller}")


def delete(channel: Channel, purge: bool, caller: str | None) -> None:
    if caller is not None and caller != channel.creator:
        raise not_the_creator(channel.name, caller)
    if channel.count and not purge:
        raise not_empty(channel)


def post_message(channel: str, msg: Message, message_id: str, now: int, seq: int) -> Message:
    """The message as the log keeps it: recipient `#<channel>`, id, time and seq set."""
    return Message(message_id, msg.sender, Address(SIGIL + channel), msg.reply_to, msg.thread_id, msg.text, msg.data,
                   dict(msg.headers), msg.kind, msg.hops, now, seq)


def size_of(msg: Message) -> int:
    """What a post counts against max_bytes: its text, data and headers in UTF-8 bytes."""
    return (validate.utf8_size(msg.text) + len(msg.data)
            + sum(validate.utf8_size(k) + validate.utf8_size(v) for k, v in msg.headers.items()))


def publish(channel: Channel, msg: Message, digest: bytes, message_id: str, prior: Post | None,
            sender_member: Member | None, caller: str | None, posts_held: int, quota: quotas.Quotas | None,
            now: int) -> tuple[Post, Channel | None]:
    """The post and the channel after it; a resend's answer is (the stored post, None).

    An agent caller must be a member (trusted callers publish as any sender). A used id (of this sender in
    this channel) answers the stored post when the message is the same, MESSAGE_ID_REUSED otherwise. With a
    quota the sender is held to its retained posts."""
    may_read(channel, sender_member, caller)
    if prior is not None:
        if digest_of(prior.message) != digest:
            raise message_id_reused(msg.id)
        return prior, None
    sender = msg.sender.agent_id
    if quota is not None and sender:
        quotas.check(POSTS, sender, quota.posts, posts_held, 1)
    seq = channel.last_seq + 1
    stored = post_message(channel.name, msg, message_id, now, seq)
    post = Post(channel.name, seq, stored, size_of(stored))
    first = channel.first_seq if channel.count else seq
    return post, dataclasses.replace(channel, last_seq=seq, first_seq=first, count=channel.count + 1,
                                     size=channel.size + post.size)


def copy_id(channel: Channel, seq: int, agent_id: str) -> str:
    """A member's copy's id: one per (channel incarnation, post, member), so a copy is never stored twice."""
    return str(uuid.uuid5(COPY_NAMESPACE, f"{channel.uid}\n{seq}\n{agent_id}"))


def copies_to(members: Sequence[Member], sender: str) -> list[Member]:
    """The members a post is copied to: MAILBOX ones but its sender."""
    return [m for m in members if m.delivery != Delivery.LOG and m.agent_id != sender]


def copy_of(channel: Channel, post: Post, member: Member) -> Message:
    """A member's copy: the post from its sender to the member's mailbox, its headers naming the channel."""
    m = post.message
    headers = {**m.headers, CHANNEL: channel.name, CHANNEL_SEQ: str(post.seq), CHANNEL_POST: m.id}
    return Message(copy_id(channel, post.seq, member.agent_id), m.sender, Address(member.agent_id), m.reply_to,
                   m.thread_id, m.text, m.data, headers, m.kind, m.hops)


def expire(channel: Channel, oldest: Sequence[Post], now: int) -> tuple[int, Channel]:
    """How many of `oldest` (the oldest retained posts, in seq order) retention drops, and the channel after:
    oldest first while the log holds more than max_messages or max_bytes, or the post is older than
    max_age; never the newest post."""
    r = channel.retention
    count, size, first = channel.count, channel.size, channel.first_seq
    dropped = 0
    for post in oldest:
        if post.seq >= channel.last_seq:
            break
        over = ((r.max_messages and count > r.max_messages) or (r.max_bytes and size > r.max_bytes)
                or post.message.send_time_ns < now - r.age_ns)
        if not over:
            break
        dropped += 1
        count -= 1
        size -= post.size
        first = post.seq + 1
    if not dropped:
        return 0, channel
    return dropped, dataclasses.replace(channel, count=count, size=max(0, size), first_seq=first)
