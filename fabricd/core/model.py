"""The domain's data: addresses, messages, mailbox entries. Times are Unix nanoseconds."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


@dataclass(slots=True, frozen=True)
class Address:
    agent_id: str = ""
    session_id: str = ""


NO_ADDRESS = Address()


class MessageKind(enum.IntEnum):
    UNSPECIFIED = 0
    AGENT = 1
    USER = 2


@dataclass(slots=True)
class Message:
    id: str = ""
    sender: Address = NO_ADDRESS
    recipient: Address = NO_ADDRESS
    reply_to: tuple[Address, ...] = ()
    thread_id: str = ""
    text: str = ""
    data: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    kind: MessageKind = MessageKind.AGENT
    hops: int = 0
    send_time_ns: int = 0
    seq: int = 0
    ticket_id: str = ""


@dataclass(slots=True)
class Sent:
    """The outcome of one send: the stored message, or the earlier one it duplicates."""

    message: Message
    duplicate: bool = False
    encoded: bytes = b""
    """The store's encoding of `message` when it was just stored (opaque to the core), so
    the answer need not encode it again; empty for a duplicate."""


@dataclass(slots=True)
class Envelope:
    """A stored message as read back: its place in the mailbox and its stored encoding.

    The core orders, consumes and acknowledges messages by `seq` and never looks
    inside them on the way out, so reads hand the encoding through undecoded.
    """

    seq: int
    encoded: bytes


@dataclass(slots=True, frozen=True)
class Capability:
    name: str
    description: str = ""
    payload: str = ""


class Presence(enum.IntEnum):
    UNSPECIFIED = 0
    LIVE = 1
    BUSY = 2
    OFFLINE = 3


class Change(enum.IntEnum):
    """What last changed in a mailbox entry (the directory watch reports it)."""

    UNSPECIFIED = 0
    SNAPSHOT = 1
    CREATED = 2
    REGISTERED = 3
    TOUCHED = 4
    BUSY_CHANGED = 5
    CAPABILITIES_CHANGED = 6
    UNREGISTERED = 7


@dataclass(slots=True)
class MailboxEntry:
    agent_id: str
    session_name: str = ""
    cwd: str = ""
    capabilities: tuple[Capability, ...] = ()
    metadata: dict[str, str] = field(default_factory=dict)
    registered: bool = False
    busy: bool = False
    last_activity_ns: int = 0
    register_time_ns: int = 0
    heartbeat_ns: int = 0
    unread_count: int = 0
    # Highest seq ever assigned in this mailbox; the next message gets next_seq + 1.
    last_seq: int = 0
    revision: int = 0
    change: Change = Change.UNSPECIFIED


@dataclass(slots=True, frozen=True)
class IdRecord:
    """What the store keeps of every message id, read or unread, for idempotency and acks."""

    recipient: str
    seq: int
    send_time_ns: int
    digest: bytes


def presence(entry: MailboxEntry, now_ns: int, live_window_ns: int) -> Presence:
    """LIVE, BUSY or OFFLINE: a display policy computed at read time, never stored.

    Presence follows the agent's own last activity (registering, a heartbeat,
    sending, reading or acknowledging its mail, replying); mail arriving is not
    the agent's activity. No activity inside the live window is OFFLINE, and
    that wins over the busy flag, so an agent that crashed mid-run does not stay
    BUSY forever and a mailbox that only ever received mail is OFFLINE.
    """
    if not entry.last_activity_ns or now_ns - entry.last_activity_ns > live_window_ns:
        return Presence.OFFLINE
    return Presence.BUSY if entry.busy else Presence.LIVE


class TicketSourceKind(enum.IntEnum):
    UNSPECIFIED = 0
    HUMAN = 1
    AGENT = 2


class TicketState(enum.IntEnum):
    UNSPECIFIED = 0
    QUEUED = 1
    ANSWERED = 2
    ABORTED = 3


class TicketOutcome(enum.IntEnum):
    """How the target answered a ticket (ANSWERED tickets only; UNSPECIFIED before that)."""

    UNSPECIFIED = 0
    COMPLETED = 1
    INPUT_REQUIRED = 2
    """The result is a question: the asker may continue the ticket with a follow-up task."""
    REJECTED = 3
    FAILED = 4


@dataclass(slots=True)
class Turn:
    """An earlier exchange of a continued ticket: the task, and the INPUT_REQUIRED answer that asked for more."""

    task: str
    data: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    result: str = ""
    result_data: bytes = b""
    result_headers: dict[str, str] = field(default_factory=dict)
    followup_key: str = ""
    """The idempotency key of the follow-up that continued the ticket after this turn (a resend continues nothing)."""


@dataclass(slots=True)
class Ticket:
    """One rendezvous request: queued for its target, then answered or aborted."""

    ticket_id: str
    target: str
    task: str
    source_kind: TicketSourceKind = TicketSourceKind.HUMAN
    source_agent: str = ""
    requester: str = ""
    conversation_id: str = ""
    seq: int = 0
    """Order in the target's FIFO (a daemon-wide counter, so it only grows)."""
    enqueue_ns: int = 0
    state: TicketState = TicketState.QUEUED
    result: str = ""
    reason: str = ""
    """Why an aborted ticket was retired."""
    finish_ns: int = 0
    data: bytes = b""
    """The task's bytes, delivered as the task message's data (A2A: its raw, data and url parts)."""
    headers: dict[str, str] = field(default_factory=dict)
    """The task's headers, delivered with the task message (besides the fabricd-* ones the daemon sets)."""
    outcome: TicketOutcome = TicketOutcome.UNSPECIFIED
    result_data: bytes = b""
    result_headers: dict[str, str] = field(default_factory=dict)
    earlier: list[Turn] = field(default_factory=list)
    """The turns before the current one, oldest first, when the ticket was continued after INPUT_REQUIRED."""
    reattached: int = 0
    """How often a resend of its request_key found it queued (an Ask re-attaching after a dropped connection).
    A dropped Ask retires a keyed ticket after the grace period only if this did not move since that Ask
    attached, so a re-sent Ask waiting on another node keeps it (fabricd.core.rendezvous)."""

    @property
    def message_id(self) -> str:
        """The id of the current turn's task message: the ticket id, then `<ticket id>/<turn>` for follow-ups."""
        return self.ticket_id if not self.earlier else f"{self.ticket_id}/{len(self.earlier) + 1}"


class JobOutcome(enum.IntEnum):
    UNSPECIFIED = 0
    COMPLETED = 1
    FAILED = 2
    OUTCOME_UNKNOWN = 3
    INTERRUPTED = 4
    CANCELLED = 5


@dataclass(slots=True, frozen=True)
class Mail:
    """A request as a job carries it; every reply key derives from `key`."""

    key: str
    sender: Address = NO_ADDRESS
    recipient: Address = NO_ADDRESS
    reply_to: tuple[Address, ...] = ()
    content: str = ""
    create_ns: int = 0


@dataclass(slots=True, frozen=True)
class SettledJob:
    job_id: str
    outcome: int
    """A JobOutcome; an int here, so an unknown value from the wire can be refused."""
    agent: Address = NO_ADDRESS
    mail: Mail | None = None


class RowState(enum.IntEnum):
    UNSPECIFIED = 0
    PENDING = 1
    DEAD_LETTER = 2
    DELIVERED = 3


@dataclass(slots=True)
class OutboxRow:
    """One reply to deliver, or, once delivered, its receipt."""

    key: str
    state: RowState
    recipient: Address
    sender: Address = NO_ADDRESS
    job_id: str = ""
    content: str = ""
    attempts: int = 0
    next_attempt_ns: int = 0
    last_error: str = ""
    create_ns: int = 0
    deliver_ns: int = 0
    seq: int = 0
    """The delivered message's place in the recipient's mailbox."""


@dataclass(frozen=True, slots=True)
class PostgresInfo:
    """What GetStatus and `fabric doctor` say of a PostgreSQL store (fabricd.v1.PostgresStatus)."""

    url: str
    """Without its password."""
    server_version: str
    database: str
    schema_version: int
    pool_size: int
    pool_max_size: int
    pool_idle: int
    in_recovery: bool
    """A standby: it refuses writes."""
    replicas: int
    database_bytes: int
