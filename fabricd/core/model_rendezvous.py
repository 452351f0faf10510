"""Rendezvous types: what an asker sends (TicketRequest), what a replier answers (Answer), a ticket with its
place in the queue (TicketView) and a list's filter (TicketQuery).

Plain values shared by the service (fabricd.core.rendezvous), the port (fabricd.core.ports) and the backends.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fabricd.core.model import Ticket, TicketOutcome, TicketSourceKind, TicketState


@dataclass(frozen=True, slots=True)
class TicketRequest:
    """What an asker sends: the fields of Ask and EnqueueTicket."""

    target: str
    task: str
    requester: str = ""
    source_kind: int = TicketSourceKind.HUMAN
    """A TicketSourceKind; an int here, so an unknown value from the wire can be refused."""
    source_agent: str = ""
    conversation_id: str = ""
    idempotency_key: str = ""
    """When set, the same key to the same target names the same ticket: a resend returns it, enqueues nothing."""
    agent_token: bool = False
    """The caller is an agent token: the asking agent is held to its quotas (fabricd.core.quota)."""
    data: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    """Delivered with the task message; keys starting with fabricd- are the daemon's and refused."""
    continues: str = ""
    """A ticket answered INPUT_REQUIRED that this task answers: the ticket is queued again (same id and
    conversation) with this as its next turn, instead of a new ticket. The idempotency key then names the
    follow-up: a resend continues nothing twice."""
    continues_turn: int = 0
    """With `continues`: the turn the continued ticket must be at (its earlier turns + 1), checked in the write
    (TICKET_TURN_MOVED otherwise); 0 takes any. A2A's if_generation_match, held across the read and the write."""


@dataclass(frozen=True, slots=True)
class Answer:
    """What a replier sends: the result, how the task ended (COMPLETED unless said), and optional bytes."""

    result: str
    outcome: TicketOutcome = TicketOutcome.COMPLETED
    data: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class TicketView:
    """A ticket and where it stands in its target's FIFO (0: the head; -1 once finished)."""

    ticket: Ticket
    position: int


@dataclass(frozen=True, slots=True)
class TicketQuery:
    """Which of a target's tickets to list: newest first, before `before_seq` (0: from the newest)."""

    conversation_id: str = ""
    states: tuple[TicketState, ...] = ()
    before_seq: int = 0
    limit: int = 100
    source_agent: str = ""
    """Only tickets this agent asked (an agent listing another's tickets sees only its own)."""
