"""The events of an A2A task, rebuilt from its ticket: what its streams send and a resumed SubscribeToTask replays.

A task's events are a function of its stored ticket (its turns, state, outcome and reply) and its place in
the FIFO, so the events a caller missed are read from storage again, on any node and after a restart, and
the generation needs no counter of its own. Each turn takes these generations from its base
(fabricd.rpc.a2a_convert.turn_base: 1, then 3 more per earlier turn, each ended INPUT_REQUIRED):

    base      SUBMITTED      the turn queued (turn 1: the task created)
    base + 1  WORKING        at the head of the FIFO, or answered from further back (the agent took it)
    base + 2  the answer     INPUT_REQUIRED, REJECTED or FAILED; COMPLETED's artifact; or the abort
    base + 3  COMPLETED      after its artifact; or CANCELED after an INPUT_REQUIRED question

Invariants: one event per generation, in generation order; the last one's generation is
a2a_convert.generation. A turn aborted before it reached the head has no WORKING: its abort is base + 2,
and a client sees the gap the A2A spec tells it to answer with a GetTask.
"""

from __future__ import annotations

import dataclasses

from fabricd.a2a import a2a_pb2 as a2a
from fabricd.core.model import Ticket, TicketOutcome, TicketState
from fabricd.core.rendezvous import TicketView
from fabricd.rpc import a2a_convert as convert


def after(view: TicketView, seen: int) -> list[a2a.StreamResponse]:
    """The task's events with a generation above `seen`, oldest first."""
    ticket = view.ticket
    out = []
    for stood in _turns(ticket):
        current = stood is ticket
        if not current and convert.turn_base(stood) + convert.TURN_GENERATIONS - 1 <= seen:
            continue  # an earlier turn the caller saw whole
        out += [event for generation, event in _turn(stood, view.position if current else -1) if generation > seen]
    return out


def _turns(ticket: Ticket) -> list[Ticket]:
    """The ticket as it stood at the end of each earlier turn (answered INPUT_REQUIRED), then as it is."""
    stood = [dataclasses.replace(ticket, task=turn.task, data=turn.data, headers=turn.headers,
                                 state=TicketState.ANSWERED, outcome=TicketOutcome.INPUT_REQUIRED, result=turn.result,
                                 result_data=turn.result_data, result_headers=turn.result_headers, reason="",
                                 finish_ns=0, enqueue_ns=0, earlier=ticket.earlier[:n])
             for n, turn in enumerate(ticket.earlier)]
    return [*stood, ticket]


def _turn(ticket: Ticket, position: int) -> list[tuple[int, a2a.StreamResponse]]:
    """One turn's events with their generations (`position`: the ticket's place while queued, -1 unknown)."""
    base = convert.turn_base(ticket)
    queued = dataclasses.replace(ticket, state=TicketState.QUEUED)
    events = [(base, _status(ticket, base, convert.status(TicketView(queued, position if position > 0 else -1))))]
    worked = (ticket.state == TicketState.ANSWERED or convert.withdrawn_question(ticket)
              or (ticket.state == TicketState.QUEUED and position == 0))
    if worked:
        events.append((base + 1, _status(ticket, base + 1, convert.status(TicketView(queued, 0)))))
    if ticket.state == TicketState.QUEUED:
        return events
    final = convert.status(TicketView(ticket, -1))
    if convert.completed(ticket):
        events.append((base + 2, a2a.StreamResponse(artifact_update=a2a.TaskArtifactUpdateEvent(
            task_id=ticket.ticket_id, context_id=ticket.conversation_id, artifact=convert.artifact(ticket),
            last_chunk=True, generation=base + 2))))
        events.append((base + 3, _status(ticket, base + 3, final)))
    elif convert.withdrawn_question(ticket):
        asked = dataclasses.replace(ticket, state=TicketState.ANSWERED, outcome=TicketOutcome.INPUT_REQUIRED,
                                    reason="", finish_ns=0)
        events.append((base + 2, _status(ticket, base + 2, convert.status(TicketView(asked, -1)))))
        events.append((base + 3, _status(ticket, base + 3, final)))
    else:
        events.append((base + 2, _status(ticket, base + 2, final)))
    return events


def _status(ticket: Ticket, generation: int, status: a2a.TaskStatus) -> a2a.StreamResponse:
    return a2a.StreamResponse(status_update=a2a.TaskStatusUpdateEvent(
        task_id=ticket.ticket_id, context_id=ticket.conversation_id, status=status, generation=generation))
