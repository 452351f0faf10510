"""A task's events rebuilt from its ticket: one per generation, in order, the last one the task's generation."""

from __future__ import annotations

import pytest

from fabricd.a2a import a2a_pb2 as a2a
from fabricd.core.model import Ticket, TicketOutcome, TicketState, Turn
from fabricd.core.rendezvous import CANCELLED, TicketView
from fabricd.rpc import a2a_convert as convert
from fabricd.rpc import a2a_events as events

QUESTION = Turn("book a table", result="for how many?")


def ticket(state: TicketState = TicketState.QUEUED, outcome: TicketOutcome = TicketOutcome.UNSPECIFIED,
           earlier: tuple[Turn, ...] = (), **fields: object) -> Ticket:
    return Ticket(ticket_id="t", target="agent", task="now", conversation_id="c", enqueue_ns=1, state=state,
                  outcome=outcome, earlier=list(earlier), finish_ns=0 if state == TicketState.QUEUED else 2,
                  **fields)


def generations(view: TicketView, seen: int = 0) -> list[int]:
    return [getattr(e, e.WhichOneof("payload")).generation for e in events.after(view, seen)]


def states(view: TicketView) -> list[object]:
    return [e.status_update.status.state if e.HasField("status_update") else "artifact"
            for e in events.after(view, 0)]


CASES = {
    "submitted": (TicketView(ticket(), 3), [1], [a2a.TASK_STATE_SUBMITTED]),
    "working": (TicketView(ticket(), 0), [1, 2], [a2a.TASK_STATE_SUBMITTED, a2a.TASK_STATE_WORKING]),
    "completed": (TicketView(ticket(TicketState.ANSWERED, TicketOutcome.COMPLETED, result="ok"), -1), [1, 2, 3, 4],
                  [a2a.TASK_STATE_SUBMITTED, a2a.TASK_STATE_WORKING, "artifact", a2a.TASK_STATE_COMPLETED]),
    "rejected": (TicketView(ticket(TicketState.ANSWERED, TicketOutcome.REJECTED, result="no"), -1), [1, 2, 3],
                 [a2a.TASK_STATE_SUBMITTED, a2a.TASK_STATE_WORKING, a2a.TASK_STATE_REJECTED]),
    "cancelled in the queue": (TicketView(ticket(TicketState.ABORTED, reason=CANCELLED), -1), [1, 3],
                               [a2a.TASK_STATE_SUBMITTED, a2a.TASK_STATE_CANCELED]),
    "question withdrawn": (TicketView(ticket(TicketState.ABORTED, reason=CANCELLED, result="which?"), -1),
                           [1, 2, 3, 4], [a2a.TASK_STATE_SUBMITTED, a2a.TASK_STATE_WORKING,
                                          a2a.TASK_STATE_INPUT_REQUIRED, a2a.TASK_STATE_CANCELED]),
    "follow-up queued": (TicketView(ticket(earlier=(QUESTION,)), 2), [1, 2, 3, 4],
                         [a2a.TASK_STATE_SUBMITTED, a2a.TASK_STATE_WORKING, a2a.TASK_STATE_INPUT_REQUIRED,
                          a2a.TASK_STATE_SUBMITTED]),
    "follow-up answered": (TicketView(ticket(TicketState.ANSWERED, TicketOutcome.COMPLETED, (QUESTION, QUESTION),
                                             result="booked"), -1), list(range(1, 11)),
                           [a2a.TASK_STATE_SUBMITTED, a2a.TASK_STATE_WORKING, a2a.TASK_STATE_INPUT_REQUIRED] * 2
                           + [a2a.TASK_STATE_SUBMITTED, a2a.TASK_STATE_WORKING, "artifact",
                              a2a.TASK_STATE_COMPLETED]),
}


@pytest.mark.parametrize("case", CASES)
def test_one_event_per_generation_in_order_and_the_last_is_the_tasks_generation(case: str) -> None:
    view, expected, expected_states = CASES[case]
    assert generations(view) == expected
    assert states(view) == expected_states
    assert convert.generation(view) == convert.task(view).generation == expected[-1]


@pytest.mark.parametrize("case", CASES)
def test_a_resume_replays_exactly_the_generations_after_the_cursor(case: str) -> None:
    view, expected, _ = CASES[case]
    for seen in range(expected[-1] + 1):
        assert generations(view, seen) == [g for g in expected if g > seen]


def test_an_earlier_turns_question_is_replayed_with_its_text() -> None:
    view = CASES["follow-up queued"][0]
    (question,) = events.after(view, 2)[:1]
    assert [p.text for p in question.status_update.status.message.parts] == ["for how many?"]
