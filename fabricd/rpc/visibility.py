"""What an agent token may read of others: content only where it is a party.

The rule, applied to every response an agent identity gets (admins and trusted
local callers see everything):
- Mail: an agent reads only its own mailbox (Peek, Drain, Subscribe are refused
  on others' by the guard's POLICIES).
- Rendezvous: a ticket's task text is shown only to its target and to the agent
  that asked it; on other tickets GetQueue and WatchQueue show the ticket id,
  position, requester, source, conversation, target and time, with `task`
  empty. A result is read only by its asker or target (AwaitReply's policy).
  GetTicket and CancelTicket answer only the ticket's asker or target, and
  ListTickets of another agent's tickets is narrowed to those the caller asked
  (the guard's POLICIES), so every ticket they show is shown whole.
- Agent directory: submissions and what is derived from them are the host's.
  ListRequests shows ids, states and times, with the submission's text, data,
  publication, contexts and repair configuration empty unless the agent is the
  request's `response` agent; thread titles and contexts (a title is taken from
  the first words of a submission) and agents' instructions and settings are
  empty too. Names, descriptions, counts, profiles and availability stay.
- Directory entries (ListMailboxes, ResolveName, WatchMailboxes) are public
  addressing data and are shown whole.
Responses are copied before anything is withheld: a servicer may share one
response object between streams.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from google.protobuf.message import Message

from fabricd.v1 import rendezvous_service_pb2 as rv_pb

AGENT_SOURCE = rv_pb.TICKET_SOURCE_KIND_AGENT


def _queue(response, agent_id: str) -> None:  # noqa: ANN001 - GetQueueResponse or WatchQueueResponse
    for ticket in response.tickets:
        asked = ticket.source.kind == AGENT_SOURCE and ticket.source.agent_id == agent_id
        if ticket.target != agent_id and not asked:
            ticket.task = ""


def _agent(agent) -> None:  # noqa: ANN001 - any agent-directory message with these fields
    agent.instructions = ""
    agent.settings = ""


def _thread(thread) -> None:  # noqa: ANN001 - any agent-directory message with these fields
    thread.title = ""
    del thread.contexts[:]


def _requests(response, agent_id: str) -> None:  # noqa: ANN001 - any agent-directory message with these fields
    for request in response.requests:
        submission = request.submission
        if submission.HasField("response") and submission.response == agent_id:
            continue
        submission.text = ""
        for name in ("data", "publication"):
            submission.ClearField(name)
        del submission.contexts[:]
        request.repair.configuration = ""


def _data(response, agent_id: str) -> None:  # noqa: ANN001 - any agent-directory message with these fields
    if response.HasField("data"):
        if response.data.HasField("default_agent"):
            _agent(response.data.default_agent)
        if response.data.HasField("initial_thread"):
            _thread(response.data.initial_thread)


def _each(field: str, fix: Callable[[object], None]) -> Callable[[object, str], None]:
    def withhold(response, agent_id: str) -> None:  # noqa: ANN001 - any agent-directory message with these fields
        for item in getattr(response, field):
            fix(item)

    return withhold


def _one(field: str, fix: Callable[[object], None]) -> Callable[[object, str], None]:
    def withhold(response, agent_id: str) -> None:  # noqa: ANN001 - any agent-directory message with these fields
        fix(getattr(response, field))

    return withhold


WITHHELD: dict[str, Callable[[object, str], None]] = {
    "GetQueue": _queue,
    "WatchQueue": _queue,
    "ListRequests": _requests,
    "GetAgent": _one("agent", _agent),
    "ListAgents": _each("agents", _agent),
    "ListThreads": _each("threads", _thread),
    "GetDirectoryData": _data,
    "WatchDirectoryData": _data,
}
"""Per method, what an agent identity does not see of a response (see the module docstring)."""


Response = TypeVar("Response", bound=Message)


def for_agent(method: str) -> Callable[[Response, str], Response] | None:
    """A function giving an agent's view of `method`'s responses (a copy, of the same type); None when it sees
    them whole."""
    withhold = WITHHELD.get(method)
    if withhold is None:
        return None

    def view(response: Response, agent_id: str) -> Response:
        copy = type(response)()
        copy.CopyFrom(response)
        withhold(copy, agent_id)
        return copy

    return view
