"""Transaction scripts of the channels: create, join, leave, delete, publish (log + copies), read, expire.

fabricd.core.channels decides each write; these gather its facts with record reads in the write
transaction and apply the decision. A post's copies go through the mailbox's own send script
(fabricd.core.kv.mailbox.store, deciding with fabricd.core.mailbox_writes.append), so a copy obeys every
rule a send does (without create_mailbox: a member whose mailbox is gone, unregistered, gets none); a copy
that rule refuses is skipped (the member reads the post from the log), and a refusal is decided before the
copy writes anything, so the post and the other copies commit.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from fabricd.core import channel_search, lookalike
from fabricd.core import channels as rules
from fabricd.core import quota as quotas
from fabricd.core.directory import unknown_recipient
from fabricd.core.errors import FabricError
from fabricd.core.kv import mailbox, paging
from fabricd.core.kv.directory import resolve_name, similar_names
from fabricd.core.kv.tx import RecordTx
from fabricd.core.mailbox import digest_of
from fabricd.core.model import Message
from fabricd.core.model_channels import Channel, Delivery, Hit, Member, Post, Published, SearchQuery
from fabricd.core.paging import Page

EXPIRE_BATCH = 256
"""Posts retention reads at once, oldest first."""
MAX_SCAN = 10_000
"""Channel names read to suggest close ones (look-alikes are found through an index: RecordTx.channels_looking_like)."""


def channel(tx: RecordTx, name: str) -> Channel:
    """The channel named `name`; CHANNEL_NOT_FOUND with close names."""
    found = tx.get_channel(name)
    if found is None:
        raise rules.not_found(name, rules.close_names(name, names(tx)))
    return found


def names(tx: RecordTx, limit: int = MAX_SCAN) -> list[str]:
    out = []
    for _, c in tx.channels_from(""):
        out.append(c.name)
        if len(out) >= limit:
            break
    return out


def create(tx: RecordTx, now: int, uid: str, request: Channel, creator: str, quota: quotas.Quotas | None) -> Channel:
    looks = lookalike.keys(request.name)
    tx.hold_looks("channel", looks)  # two nodes never both make look-alikes (PostgreSQL)
    held = tx.usage_of(creator, quotas.CHANNELS) if creator and quota is not None else 0
    existing = tx.get_channel(request.name)
    made = rules.create(request, existing, creator, held, now, uid, quota,
                        tx.channels_looking_like(looks) if existing is None else ())
    tx.put_channel(made)
    if creator:
        tx.count_usage(creator, quotas.CHANNELS, 1)
        tx.put_member(Member(made.name, creator, Delivery.MAILBOX, now, 0))
    return made


def get(tx: RecordTx, name: str) -> Channel:
    return channel(tx, name)


def delete(tx: RecordTx, name: str, purge: bool, caller: str | None) -> int:
    found = channel(tx, name)
    rules.delete(found, purge, caller)
    purged = 0
    while True:
        posts = tx.posts(name, 0, EXPIRE_BATCH)
        if not posts:
            break
        for p in posts:
            tx.count_usage(p.message.sender.agent_id, quotas.POSTS, -1)
        tx.delete_posts(name, posts)
        purged += len(posts)
    tx.count_usage(found.creator, quotas.CHANNELS, -1)
    tx.delete_channel(name)
    tx.wake(rules.wake_key(name))
    return purged


def join(tx: RecordTx, now: int, name: str, agent: str, delivery: Delivery, caller: str | None) -> tuple[Member, bool]:
    found = channel(tx, name)
    agent_id = agent or caller or ""
    if agent_id != caller:  # another agent, named as the directory names it
        entry = resolve_name(tx, agent_id)
        if entry is None:
            raise unknown_recipient(agent_id, similar_names(tx, agent_id))
        agent_id = entry.agent_id
    prior = tx.get_member(name, agent_id)
    caller_member = tx.get_member(name, caller) if caller is not None else None
    member = rules.join(found, agent_id, prior, caller_member, caller, delivery, now)
    if member is None:
        assert prior is not None
        return prior, False
    tx.put_member(member)
    if prior is None:
        found.members += 1
        tx.put_channel(found)
    return member, prior is None


def leave(tx: RecordTx, name: str, agent: str, caller: str | None) -> bool:
    found = channel(tx, name)
    agent_id = agent or caller or ""
    rules.may_leave(found, agent_id, caller)
    if tx.get_member(name, agent_id) is None:
        return False
    tx.delete_member(name, agent_id)
    found.members = max(0, found.members - 1)
    tx.put_channel(found)
    return True


def readable(tx: RecordTx, name: str, caller: str | None) -> Channel:
    """The channel, when `caller` may read it (NOT_A_MEMBER otherwise)."""
    found = channel(tx, name)
    rules.may_read(found, tx.get_member(name, caller) if caller is not None else None, caller)
    return found


def members_page(tx: RecordTx, name: str, caller: str | None, after: str, limit: int,
                 max_bytes: int) -> Page[Member]:
    readable(tx, name, caller)
    return paging.members(tx, name, after, limit, max_bytes)


def channels_page(tx: RecordTx, after: str, limit: int, max_bytes: int) -> Page[Channel]:
    return paging.channels(tx, after, limit, max_bytes)


def read(tx: RecordTx, name: str, caller: str | None, after_seq: int, limit: int,
         max_bytes: int) -> tuple[list[Post], Channel]:
    found = readable(tx, name, caller)
    out: list[Post] = []
    used = 0
    for post in tx.posts(name, max(after_seq, found.first_seq - 1), limit):
        if out and max_bytes and used + post.size > max_bytes:
            break
        out.append(post)
        used += post.size
    return out, found


def publish(tx: RecordTx, now: int, mint: Callable[[int], str], name: str, msg: Message, digest: bytes,
            caller: str | None, max_unread: int, quota: quotas.Quotas | None) -> Published:
    """Append a post and copy it to each MAILBOX member but its sender (fabricd.core.channels.publish decides
    the post; each copy is a send, decided by the send's rule); retention runs after."""
    found = channel(tx, name)
    sender = msg.sender.agent_id
    sender_member = tx.get_member(name, sender) if sender else None
    prior = tx.post_by_id(name, sender, msg.id) if msg.id else None
    held = tx.usage_of(sender, quotas.POSTS) if sender and quota is not None and prior is None else 0
    post, after = rules.publish(found, msg, digest, msg.id or mint(now), prior, sender_member, caller, held, quota,
                                now)
    if after is None:
        return Published(post, duplicate=True)
    tx.put_post(post)
    tx.count_usage(sender, quotas.POSTS, 1)
    delivered = 0
    skipped: list[tuple[str, str]] = []
    for member in rules.copies_to([m for _, m in tx.members_from(name, "")], sender):
        copy = rules.copy_of(after, post, member)
        try:
            mailbox.store(tx, now, mint, copy, digest_of(copy), False, max_unread, quota)
        except FabricError as exc:  # refused before it wrote: the member reads the post from the log
            skipped.append((member.agent_id, exc.reason))
        else:
            delivered += 1
    tx.put_channel(expire(tx, now, after))
    tx.wake(rules.wake_key(name))
    return Published(post, False, delivered, tuple(skipped))


def expire(tx: RecordTx, now: int, found: Channel) -> Channel:
    """The channel after retention dropped what it decides (fabricd.core.channels.expire); not stored here."""
    batch = 1  # the oldest post first: most publishes drop nothing, and read no more than that
    while True:
        oldest = tx.posts(found.name, found.first_seq - 1, batch)
        batch = EXPIRE_BATCH
        dropped, found = rules.expire(found, oldest, now)
        if dropped:
            gone = oldest[:dropped]
            for p in gone:
                tx.count_usage(p.message.sender.agent_id, quotas.POSTS, -1)
            tx.delete_posts(found.name, gone)
        if dropped < len(oldest) or not oldest:
            return found


def expire_all(tx: RecordTx, now: int, limit: int) -> int:
    """The maintenance sweep: retention applied to each channel (its max_age passes without a publish);
    posts dropped."""
    total = 0
    for _, c in list(tx.channels_from("")):
        before = c.count
        after = expire(tx, now, c)
        if after.count != before:
            tx.put_channel(after)
            tx.wake(rules.wake_key(c.name))
            total += before - after.count
        if total >= limit:
            break
    return total


def readable_names(tx: RecordTx, caller: str | None) -> list[str] | None:
    """The channels `caller` is a member of (None for a trusted caller: every channel)."""
    if caller is None:
        return None
    return [c.name for _, c in tx.channels_from("") if tx.get_member(c.name, caller) is not None]


def scan_search(tx: RecordTx, terms: list[channel_search.Term], query: SearchQuery) -> list[Hit]:
    """Search by reading every retained post of the channels searched: the in-memory reference only."""
    hits: list[Hit] = []
    names_ = query.channels if query.channels is not None else [c.name for _, c in tx.channels_from("")]
    for name in names_:
        after = 0
        while True:
            posts = tx.posts(name, after, EXPIRE_BATCH)
            if not posts:
                break
            after = posts[-1].seq
            for p in posts:
                m = p.message
                if query.sender and m.sender.agent_id != query.sender:
                    continue
                if (query.after_ns and m.send_time_ns <= query.after_ns) or (
                        query.before_ns and m.send_time_ns >= query.before_ns):
                    continue
                if query.below is not None and (m.send_time_ns, name, p.seq) >= query.below:
                    continue
                if channel_search.matches(terms, m.text):
                    hits.append(Hit(name, p.seq, m.sender.agent_id, m.send_time_ns, m.text, m.id))
    hits.sort(key=lambda h: h.order, reverse=True)  # newest first (see SearchQuery.below)
    return [dataclasses.replace(h, snippet=channel_search.snippet(terms, h.snippet)) for h in hits[:query.limit]]
