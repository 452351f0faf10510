"""A replier's session: its tickets in as they reach the head of its FIFO, its answers out after their commits.

Invariants (every backend):
- Tickets come from `Rendezvous.serve_queue`: the first `window` of the FIFO, each once per
  turn; a replier that never answers is shown no more than its window.
- Answers are taken one at a time, in their order, each through the same rule as the unary
  Reply or CancelHead (fabricd.core.rendezvous), and reported only after its commit, with
  the error the unary call would raise; one answer's refusal does not end the session.
- Nothing is held but the window and the answer being committed: a cut session loses no
  committed answer, and its tickets still queued are shown again to the next session.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from fabricd.core import validate
from fabricd.core.errors import FabricError, InvalidArgument
from fabricd.core.model import Ticket
from fabricd.core.pipeline import merge
from fabricd.core.rendezvous import Answer, Rendezvous


@dataclass(frozen=True, slots=True)
class ReplyOp:
    """Reply: `ticket_id` (empty: the head) with `answer`; `agent_id` empty or the session's."""

    answer: Answer
    ticket_id: str = ""
    agent_id: str = ""


@dataclass(frozen=True, slots=True)
class CancelHeadOp:
    ticket_id: str
    agent_id: str = ""


@dataclass(frozen=True, slots=True)
class Shown:
    """Tickets that entered the window, head first, with their positions (0: the head), and the FIFO's length."""

    tickets: list[tuple[Ticket, int]]
    total: int


@dataclass(frozen=True, slots=True)
class Acknowledged:
    """The outcome of one answer frame: the ticket, or the error the unary call would have raised."""

    seq: int
    ticket_id: str = ""
    cancelled: bool = False
    error: FabricError | None = field(default=None)


ServeOp = ReplyOp | CancelHeadOp | FabricError
"""An answer frame; a FabricError is a frame refused before it reached the session (answered as is)."""


def other_agent(named: str, agent_id: str) -> InvalidArgument:
    return InvalidArgument(f"this frame names agent {named!r} but the stream serves {agent_id!r}: leave agent_id "
                           "empty, or open another stream for that agent", reason="INVALID_FIELD", field="agent_id")


async def serve(rv: Rendezvous, agent_id: str, window: int,
                frames: AsyncIterator[tuple[int, ServeOp]]) -> AsyncIterator[Shown | Acknowledged | None]:
    """The session of the replier `agent_id` (a name is resolved once): Shown, Acknowledged, None (keepalive)."""
    validate.agent_id(agent_id, rv.limits)
    resolved = await rv.target(agent_id)
    names = {agent_id, resolved}

    async def answers() -> AsyncIterator[Acknowledged]:
        async for seq, op in frames:
            if isinstance(op, FabricError):
                yield Acknowledged(seq, error=op)
                continue
            if op.agent_id and op.agent_id not in names:
                yield Acknowledged(seq, op.ticket_id, error=other_agent(op.agent_id, resolved))
                continue
            try:
                if isinstance(op, ReplyOp):
                    yield Acknowledged(seq, await rv.reply(resolved, op.answer, op.ticket_id))
                else:
                    yield Acknowledged(seq, op.ticket_id, await rv.cancel_head(resolved, op.ticket_id))
            except FabricError as exc:
                yield Acknowledged(seq, op.ticket_id, error=exc)

    async def tickets() -> AsyncIterator[Shown | None]:
        async for shown in rv.serve_queue(resolved, window):
            yield None if shown is None else Shown(*shown)

    async for item in merge(tickets(), answers()):
        yield item
