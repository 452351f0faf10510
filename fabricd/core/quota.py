"""Quotas per agent: what one agent token may hold in the store at once, and the refusals.

Usage is counted in the store, by agent id, in the same transaction as the
change it counts, so it is exact on every backend and across nodes sharing a
database (never an in-memory tally of one process):

    mailboxes      mailboxes created by the agent's mail (create_mailbox) that no agent has
                   registered yet; registering or removing such a mailbox gives it back
    unread_bytes   stored bytes of the agent's messages (sent mail and the tasks of its asks)
                   that are still unread, wherever they wait; reading them gives them back
    unread_messages  the number of those messages: many tiny messages cost the store per record,
                   whatever their bytes, so the count is held beside the bytes
    queued         tickets the agent asked that are still queued
    channels       channels the agent created that exist (deleting one gives it back)
    posts          the agent's posts still retained in channels' logs (retention gives them back)
    outbox_rows    reply rows of the agent's FanOut not yet delivered (pending or dead-lettered);
                   a delivery (the row becomes its receipt) gives one back. Wake rows are the
                   daemon's, never counted

Unread bytes are charged to the SENDER, not to the mailbox: a hostile agent
cannot dodge the quota by spreading its mail over mailboxes (its own, new
ones, or other agents'), and mail that other agents send to it never counts
against it. An agent token always sends as its own agent (the guard sets the
sender), so the counted agent is the token's. Open streams are bounded per
token by `max_streams_per_token` (TOO_MANY_STREAMS).

Usage is counted for every sender; only agent tokens are refused (admin tokens
and local callers too when `quota_all_callers` is set). A refusal is raised
before the operation writes anything.
"""

from __future__ import annotations

from dataclasses import dataclass

from fabricd.core.errors import ResourceExhausted
from fabricd.core.model import RowState, TicketState

CREATED_BY = "fabricd-created-by"
"""Metadata of a mailbox created by mail: the agent charged for it until the mailbox is registered or removed."""

MAILBOXES, UNREAD_BYTES, QUEUED, OUTBOX_ROWS = "mailboxes", "unread_bytes", "queued_tickets", "outbox_rows"
UNREAD_MESSAGES = "unread_messages"
CHANNELS, POSTS = "channels", "posts"


@dataclass(frozen=True, slots=True)
class Quotas:
    """The quotas one operation's caller is held to; 0 is no quota."""

    mailboxes: int = 0
    unread_bytes: int = 0
    queued_tickets: int = 0
    outbox_rows: int = 0
    unread_messages: int = 0
    channels: int = 0
    posts: int = 0


@dataclass(frozen=True, slots=True)
class Usage:
    """What the store counts for one agent (see the module docstring)."""

    mailboxes: int = 0
    unread_bytes: int = 0
    queued_tickets: int = 0
    outbox_rows: int = 0
    unread_messages: int = 0


_REASONS = {MAILBOXES: dict(reason="QUOTA_MAILBOXES"), UNREAD_BYTES: dict(reason="QUOTA_UNREAD_BYTES"),
            QUEUED: dict(reason="QUOTA_QUEUED_TICKETS"), OUTBOX_ROWS: dict(reason="QUOTA_OUTBOX_ROWS"),
            UNREAD_MESSAGES: dict(reason="QUOTA_UNREAD_MESSAGES"), CHANNELS: dict(reason="QUOTA_CHANNELS"),
            POSTS: dict(reason="QUOTA_POSTS")}
_WHAT = {MAILBOXES: "mailboxes created by its mail and not yet registered",
         UNREAD_BYTES: "bytes of its messages still unread", QUEUED: "tickets it asked that are still queued",
         OUTBOX_ROWS: "reply rows of its FanOut not yet delivered", UNREAD_MESSAGES: "its messages still unread",
         CHANNELS: "channels it created that exist", POSTS: "its posts still retained in channels"}
_NEXT = {MAILBOXES: "register or remove some of them (fabric unregister), or send only to existing mailboxes",
         UNREAD_BYTES: "retry once recipients have read some of its mail",
         QUEUED: "wait for answers or cancel some of its tickets",
         OUTBOX_ROWS: "retry once the outbox delivered some (fabric outbox ls shows them and their errors)",
         UNREAD_MESSAGES: "retry once recipients have read some of its mail; send fewer, larger messages",
         CHANNELS: "delete some of them (fabric channel rm), or have an admin create the channel",
         POSTS: "retry once channel retention dropped some of them"}
_KEYS = {MAILBOXES: "limits.quota_mailboxes", UNREAD_BYTES: "limits.quota_unread_bytes",
         QUEUED: "limits.quota_queued_tickets", OUTBOX_ROWS: "limits.quota_outbox_rows",
         UNREAD_MESSAGES: "limits.quota_unread_messages", CHANNELS: "limits.quota_channels",
         POSTS: "limits.quota_posts"}


def exceeded(quota: str, agent_id: str, limit: int, usage: int, adding: int) -> ResourceExhausted:
    """The refusal of an operation that would take `agent_id` over one quota."""
    return ResourceExhausted(
        f"agent {agent_id!r} is at its quota of {_WHAT[quota]} ({usage} of {limit}, this call adds {adding}); "
        f"{_NEXT[quota]}. An operator raises {_KEYS[quota]}",
        **_REASONS[quota], agent_id=agent_id, quota=quota, limit=limit, usage=usage)


def check(quota: str, agent_id: str, limit: int, usage: int, adding: int) -> None:
    """Refuse when `usage + adding` would pass `limit` (0: no quota)."""
    if limit and usage + adding > limit:
        raise exceeded(quota, agent_id, limit, usage, adding)


def unread_refusal(agent_id: str, quota: Quotas, usage: Usage, size: int,
                   count: int = 1) -> ResourceExhausted | None:
    """The rule of new unread mail from `agent_id` (`count` messages of `size` bytes at most): its unread
    bytes, then its unread messages, within their quotas; the refusal (QUOTA_UNREAD_BYTES,
    QUOTA_UNREAD_MESSAGES) or None."""
    if quota.unread_bytes and usage.unread_bytes + size > quota.unread_bytes:
        return exceeded(UNREAD_BYTES, agent_id, quota.unread_bytes, usage.unread_bytes, size)
    if quota.unread_messages and usage.unread_messages + count > quota.unread_messages:
        return exceeded(UNREAD_MESSAGES, agent_id, quota.unread_messages, usage.unread_messages, count)
    return None


def check_unread(agent_id: str, quota: Quotas, usage: Usage, size: int, count: int = 1) -> None:
    """unread_refusal, raised."""
    refused = unread_refusal(agent_id, quota, usage, size, count)
    if refused is not None:
        raise refused


@dataclass(frozen=True, slots=True)
class Move:
    """A usage counter an unread message moves for its sender: by the message's stored size, or by one."""

    quota: str
    by_size: bool


MESSAGE_MOVES = (Move(UNREAD_BYTES, True), Move(UNREAD_MESSAGES, False))
"""The counters each unread message moves for its sender (none for a message without one): up when it is
stored (a send, a ticket's task) or put back, down by as much when it is consumed (an ack, a drain, a ticket
answered or withdrawn, a purge). Its size is what the backend stores for it, the same both ways. Backends apply
these through `message_moves`; PostgreSQL's statements are written from this table (usage_sql.moved)."""


def message_moves(sender: str, size: int, sign: int, count: int = 1) -> list[tuple[str, str, int]]:
    """The (agent, quota, delta) moves of `count` unread messages of `sender`, `size` bytes stored in all,
    stored (`sign` 1) or consumed (-1): MESSAGE_MOVES."""
    if not sender:
        return []
    return [(sender, m.quota, sign * (size if m.by_size else count)) for m in MESSAGE_MOVES]


OUTBOX_HELD = (RowState.PENDING, RowState.DEAD_LETTER)
"""The states in which an outbox row counts against its sender (OUTBOX_ROWS)."""
QUEUED_HELD = (TicketState.QUEUED,)
"""The states in which a ticket counts against its asker (QUEUED)."""


def outbox_holder(key: str, state: int, sender: str) -> str:
    """The agent an outbox row counts against (OUTBOX_ROWS): its sender while the row is PENDING or
    DEAD_LETTER (OUTBOX_HELD); nobody ("") for a receipt or a wake row (`wake:`, the daemon's own)."""
    return sender if state in OUTBOX_HELD and not key.startswith(WAKE_ROW_PREFIX) else ""


def queued_holder(state: int, source_agent: str) -> str:
    """The agent a ticket counts against (QUEUED): its asker while the ticket waits in a queue; nobody once it
    ended (answered, withdrawn, expired), nor for a ticket no agent asked (source_agent "")."""
    return source_agent if state in QUEUED_HELD else ""


WAKE_ROW_PREFIX = "wake:"
"""The keys of wake rows (fabricd.core.wake.ROW_PREFIX is this one)."""
