"""The mailbox's write rules: one plain function per write, deciding from facts the backend gathered.

    append(msg, digest, message_id, now, facts, ...)   -> Sent (a duplicate) | FabricError | Append | More
    drains(unread, deliverable) / take(sizes, max_bytes)   whether a drain writes, how many it takes
    put_back(revision, drained_revision, removed_since) -> whether drained messages go back | More

No storage library, no SQL, no I/O: a backend gathers the facts in its write transaction (LMDB and memory:
record reads, fabricd.core.kv.mailbox; PostgreSQL: one statement for a whole group of callers,
fabricd.store.postgres.hot), calls the decider, and applies what it returns (PostgreSQL: one write
statement). What a backend computes itself is mechanical: the stored encoding and its size (what the
sender is charged), the next seq once the decider says which mailbox, lock order.

A decider that lacks a fact returns `More`, naming what it needs (a name to resolve beyond agent ids, the
seq floor of a mailbox to create, names close to an unknown one, the sender's usage); the backend gathers
it in the same transaction and asks again. Every refusal is decided before anything is written.

Box, AppendFacts and Append are made for every send, so they are slotted but not frozen (a frozen
dataclass sets each field through object.__setattr__, about a tenth of a batched send's cost on LMDB);
no one changes them once made: a new fact is a new AppendFacts (dataclasses.replace).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Protocol

from fabricd.core import directory as directory_rules
from fabricd.core import quota as quotas
from fabricd.core.errors import FabricError
from fabricd.core.mailbox import as_stored, mailbox_full, message_id_reused
from fabricd.core.model import Address, IdRecord, MailboxEntry, Message, Sent
from fabricd.core.paging import approx_size


class Counters(Protocol):
    """A mailbox's counters as a write sees them (a MailboxEntry, or a Box of the counters alone)."""

    @property
    def agent_id(self) -> str: ...

    @property
    def unread_count(self) -> int:
        """Its unread messages."""

    @property
    def last_seq(self) -> int:
        """The highest seq it ever assigned."""


@dataclass(slots=True)
class Box:
    """A mailbox's counters alone (Counters), for a backend that does not read whole entries."""

    agent_id: str
    unread_count: int
    last_seq: int


@dataclass(slots=True)
class AppendFacts:
    """What one append reads, gathered in the write's transaction (None: not gathered yet)."""

    prior: IdRecord | None = None
    """The record of the message's id in its sender's scope; None when the id is unused (or the message has
    none: the store mints one)."""
    box: Counters | FabricError | None = None
    """The mailbox the recipient's name names (an ambiguous name: its refusal); None when none is found."""
    resolved: bool = False
    """`box` is the name fully resolved (session names too), not only looked up as an agent id."""
    usage: quotas.Usage | None = None
    """The sender's usage; needed only when a quota holds it."""
    seq_floor: int | None = None
    """Where a new mailbox starts numbering; needed only to create one."""
    similar: tuple[str, ...] | None = None
    """Known names close to the recipient's; needed only to refuse an unknown one."""


@dataclass(frozen=True, slots=True)
class More:
    """The facts a decider needs before it can decide: the backend gathers them and asks again."""

    names: bool = False
    """Resolve the recipient's name fully (a session name, `session/segment`), and give `resolved`."""
    seq_floor: bool = False
    usage: bool = False
    similar: bool = False
    removed: bool = False
    """Whether the mailbox was removed since a given directory revision."""


@dataclass(slots=True)
class Append:
    """Store `message` (its id, resolved recipient, send time and seq set) in its recipient's mailbox."""

    message: Message
    unread: int
    """The mailbox's unread count after this message (its last seq is the message's)."""
    created: bool
    """The mailbox is new: made by this write (directory change CREATED)."""
    creator: str
    """The agent charged for the new mailbox (its metadata names it, quota MAILBOXES); "" none."""
    active: str
    """The sender whose own mailbox, if it has one, records the send as its activity; "" none."""

    @property
    def box(self) -> Box:
        """The mailbox after this write, for the next decision of the same transaction."""
        return Box(self.message.recipient.agent_id, self.unread, self.message.seq)

    @property
    def charged(self) -> str:
        """The agent whose unread bytes the stored message counts against (its sender; "" none)."""
        return self.message.sender.agent_id


def append(msg: Message, digest: bytes, message_id: str, now: int, facts: AppendFacts, *, create: bool,
           max_unread: int, quota: quotas.Quotas | None) -> Sent | FabricError | Append | More:
    """Decide one send (a batch asks once per message, its facts moved by the decisions before).

    A used id (in its sender's scope) answers the original when the message is the same and names the
    same recipient (MESSAGE_ID_REUSED otherwise). A name that is neither an agent's nor a mailbox's gets a
    new mailbox only with `create` (UNKNOWN_RECIPIENT otherwise, with close names). A full mailbox is
    MAILBOX_FULL; with a `quota`, the sender is held to it: the mailbox it would create and the message's
    size bound (approx_size: never below what the backend stores) count against its usage.
    """
    name = msg.recipient.agent_id
    prior = facts.prior
    if prior is not None:
        if prior.digest != digest:
            return message_id_reused(msg.id)
        if prior.recipient != name:
            if not facts.resolved:
                return More(names=True)
            if facts.box is None or isinstance(facts.box, FabricError) or facts.box.agent_id != prior.recipient:
                return message_id_reused(msg.id)
        return Sent(as_stored(msg, prior), duplicate=True)
    box = facts.box
    if isinstance(box, FabricError):
        return box
    created = box is None
    if box is None:
        if not facts.resolved:
            return More(names=True)
        if not create:
            if facts.similar is None:
                return More(similar=True)
            return directory_rules.unknown_recipient(name, list(facts.similar))
        if facts.seq_floor is None:
            return More(seq_floor=True)
        box = Box(name, 0, facts.seq_floor)
    if max_unread and box.unread_count >= max_unread:
        return mailbox_full(box.agent_id, box.unread_count, max_unread)
    sender = msg.sender.agent_id
    if quota is not None and sender and (quota.unread_bytes or quota.unread_messages
                                         or (created and quota.mailboxes)):
        usage = facts.usage
        if usage is None:
            return More(usage=True)
        if created and quota.mailboxes and usage.mailboxes + 1 > quota.mailboxes:
            return quotas.exceeded(quotas.MAILBOXES, sender, quota.mailboxes, usage.mailboxes, 1)
        refused = quotas.unread_refusal(sender, quota, usage, approx_size(msg) if quota.unread_bytes else 0)
        if refused is not None:
            return refused
    recipient = msg.recipient if box.agent_id == name else Address(box.agent_id, msg.recipient.session_id)
    seq = box.last_seq + 1
    stored = Message(message_id, msg.sender, recipient, msg.reply_to, msg.thread_id, msg.text, msg.data,
                     msg.headers, msg.kind, msg.hops, now, seq, msg.ticket_id)
    return Append(stored, box.unread_count + 1, created, sender if created and sender and sender != name else "",
                  sender if sender and sender != box.agent_id else "")


def resolve(name: str, candidates: list[MailboxEntry]) -> MailboxEntry | None:
    """What `name` names among `candidates` (every entry whose agent id is `name`, or whose session name is
    `name` or, for `session/segment`, `session`): an agent id first, then a session name, then
    `session/segment` (see `named_by`). None when nothing matches; AMBIGUOUS_NAME when several do."""
    for entry in candidates:
        if entry.agent_id == name:
            return entry
    session, named = named_by(name, candidates)
    if len(named) > 1:
        raise directory_rules.ambiguous_name(name, session, named)
    return named[0] if named else None


def named_by(name: str, candidates: list[MailboxEntry]) -> tuple[str, list[MailboxEntry]]:
    """The entries among `candidates` that `name` reaches as a name, not as an id, and the session it names:
    those whose session name is `name`; failing that, for `session/segment`, those of `session` whose id's
    last '/'-separated segment is `segment`, failing that those whose id ends with it."""
    named = [e for e in candidates if e.session_name == name]
    session = name
    if not named and "/" in name:
        session, suffix = name.rsplit("/", 1)
        if session and suffix:
            in_session = [e for e in candidates if e.session_name == session]
            named = [e for e in in_session if directory_rules.last_segment(e.agent_id) == suffix]
            if not named:
                named = [e for e in in_session if e.agent_id.endswith(suffix)]
    return session, named


def sessions_of(name: str) -> list[str]:
    """The session names whose entries `resolve` needs beside the agent id `name`."""
    if "/" in name:
        session, suffix = name.rsplit("/", 1)
        if session and suffix:
            return [name, session]
    return [name]


def close_names(name: str, entries: list[MailboxEntry], limit: int = 3) -> tuple[str, ...]:
    """Registered agent ids and session names among `entries` closest to `name`, best first (the "did you
    mean" of UNKNOWN_RECIPIENT)."""
    known: set[str] = set()
    for entry in entries:
        if entry.registered:
            known.add(entry.agent_id)
            if entry.session_name:
                known.add(entry.session_name)
    known.discard(name)
    return tuple(difflib.get_close_matches(name, sorted(known), n=limit, cutoff=0.6))


def drains(unread: int, deliverable: bool) -> bool:
    """Whether a drain writes at all: only with mail unread and a caller that can still take delivery
    (asked as the write runs: a caller gone or out of time takes nothing). A drain that writes is its
    agent's activity."""
    return unread > 0 and deliverable


def take(sizes: list[int], max_bytes: int) -> int:
    """How many of the oldest unread messages (their stored sizes, up to the caller's limit) a drain or a
    read returns: those within `max_bytes` (0: no budget), and always the first, so a message larger than
    the budget is never stuck."""
    if not max_bytes:
        return len(sizes)
    total = 0
    for i, size in enumerate(sizes):
        total += size
        if i and total > max_bytes:
            return i
    return len(sizes)


def put_back(revision: int | None, drained_revision: int, removed_since: bool | None) -> bool | More:
    """Whether drained messages go back, unread, to their places (a drain whose caller left).

    `revision`: the mailbox's directory revision now (None: it is gone); `drained_revision`: the drain's.
    Not when the mailbox was removed since the drain (`removed_since`, asked only when the revision
    moved): a mailbox made again under that id numbers its mail above them, so they would sit below its
    first seq, behind its subscribers' cursors. Each goes back only if it is not unread already.
    """
    if revision is None:
        return False
    if revision == drained_revision:
        return True
    if removed_since is None:
        return More(removed=True)
    return not removed_since
