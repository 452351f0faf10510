"""Tickets as A2A tasks, mailbox entries as agent cards, and the A2A binding's error table.

A ticket is a task: id = ticket id, context id = conversation id. Its state:
  QUEUED behind others -> SUBMITTED (the status message says the position), QUEUED at the head -> WORKING,
  ANSWERED -> the reply's outcome: COMPLETED with one artifact ("reply") holding the reply's parts,
  INPUT_REQUIRED, REJECTED or FAILED with the reply as the status message,
  ABORTED by CancelTask -> CANCELED, ABORTED otherwise (queue closed, expired, abandoned) -> FAILED.
A ticket continued after INPUT_REQUIRED keeps its earlier turns: the history shows each
turn's task (user) and question (agent). Parts map onto text, data and headers as
fabricd.rpc.a2a_parts says. A task's generation (A2A 1.1) is derived from its ticket too:
see `generation`, and fabricd.rpc.a2a_events for the events each generation stands for.
"""

from __future__ import annotations

import grpc
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2

from fabricd.a2a import a2a_pb2 as a2a
from fabricd.core import errors
from fabricd.core.model import MailboxEntry, Ticket, TicketOutcome, TicketState
from fabricd.core.rendezvous import CANCELLED, TicketView
from fabricd.rpc import a2a_parts as parts
from fabricd.rpc.errors import DOMAIN, code_of

A2A_DOMAIN = "a2a-protocol.org"
PROTOCOL_VERSION = "1.0"
ARTIFACT_ID = "reply"
TURN_GENERATIONS = 3
"""The generations an earlier turn took: SUBMITTED, WORKING, INPUT_REQUIRED (only that outcome is continued)."""


class A2AProblem(errors.FabricError):
    """An error the A2A binding names: sent with domain a2a-protocol.org and the spec's reason."""

    def __init__(self, code: grpc.StatusCode, a2a_reason: str, message: str, **metadata: object) -> None:
        super().__init__(message, reason=a2a_reason, **metadata)
        self.code = code


def task_not_found(task_id: str) -> A2AProblem:
    return A2AProblem(grpc.StatusCode.NOT_FOUND, "TASK_NOT_FOUND", f"no task {task_id!r} for this tenant (never "
                      "created, or expired)", task_id=task_id)


def generation_mismatch(task_id: str, expected: int, generation: int) -> A2AProblem:
    return A2AProblem(grpc.StatusCode.ABORTED, "TASK_GENERATION_MISMATCH",
                      f"task {task_id} is at generation {generation}, not {expected} (if_generation_match): "
                      "GetTask, and send again on what it shows now", task_id=task_id, generation=generation,
                      expected=expected)


def unsupported(what: str) -> A2AProblem:
    return A2AProblem(grpc.StatusCode.FAILED_PRECONDITION, "UNSUPPORTED_OPERATION", what)


def invalid_params(message: str, **metadata: object) -> A2AProblem:
    return A2AProblem(grpc.StatusCode.INVALID_ARGUMENT, "INVALID_PARAMS", message, **metadata)


# fabricd reasons an A2A client should see as the spec's errors; the rest keep fabricd's domain.
_AS_A2A = {
    "TICKET_NOT_FOUND": (grpc.StatusCode.NOT_FOUND, "TASK_NOT_FOUND"),
    "UNKNOWN_TARGET": (grpc.StatusCode.NOT_FOUND, "INVALID_PARAMS"),
    "NAME_NOT_FOUND": (grpc.StatusCode.NOT_FOUND, "INVALID_PARAMS"),
    "AMBIGUOUS_NAME": (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_PARAMS"),
    "TICKET_NOT_CONTINUABLE": (grpc.StatusCode.FAILED_PRECONDITION, "UNSUPPORTED_OPERATION"),
    "TICKET_TURN_MOVED": (grpc.StatusCode.ABORTED, "TASK_GENERATION_MISMATCH"),
}
_ANSWERED = {
    TicketOutcome.INPUT_REQUIRED: a2a.TASK_STATE_INPUT_REQUIRED, TicketOutcome.REJECTED: a2a.TASK_STATE_REJECTED,
    TicketOutcome.FAILED: a2a.TASK_STATE_FAILED,
}


def status_of(exc: errors.FabricError) -> tuple[grpc.StatusCode, status_pb2.Status]:
    """The gRPC code and google.rpc.Status of an error, in the A2A binding's terms where it has them."""
    if isinstance(exc, A2AProblem):
        code, reason, domain = exc.code, exc.reason, A2A_DOMAIN
    elif exc.reason in _AS_A2A:
        (code, reason), domain = _AS_A2A[exc.reason], A2A_DOMAIN
    elif isinstance(exc, errors.InvalidArgument):
        code, reason, domain = grpc.StatusCode.INVALID_ARGUMENT, "INVALID_PARAMS", A2A_DOMAIN
    else:
        code, reason, domain = code_of(exc), exc.reason, DOMAIN
    detail = any_pb2.Any()
    detail.Pack(error_details_pb2.ErrorInfo(reason=reason, domain=domain,
                                            metadata={**exc.metadata, "fabricd_reason": exc.reason}))
    return code, status_pb2.Status(code=code.value[0], message=exc.message, details=[detail])


def _timestamp(message: a2a.TaskStatus, ns: int) -> None:
    if ns:
        message.timestamp.FromNanoseconds(ns)


def task_state(view: TicketView) -> a2a.TaskState:
    ticket = view.ticket
    if ticket.state == TicketState.QUEUED:
        return a2a.TASK_STATE_WORKING if view.position == 0 else a2a.TASK_STATE_SUBMITTED
    if ticket.state == TicketState.ANSWERED:
        return _ANSWERED.get(ticket.outcome, a2a.TASK_STATE_COMPLETED)
    return a2a.TASK_STATE_CANCELED if ticket.reason == CANCELLED else a2a.TASK_STATE_FAILED


def turn_base(ticket: Ticket) -> int:
    """The generation of the current turn's SUBMITTED: 1 for a new task, 3 more for each earlier turn."""
    return 1 + TURN_GENERATIONS * len(ticket.earlier)


def generation(view: TicketView) -> int:
    """The task's generation: its turn's base, +1 at the head (WORKING), +2 for an answer or an abort, +3 for
    COMPLETED (after its artifact) or a withdrawn question (CANCELED after INPUT_REQUIRED).

    Never decreases: turns only grow, and a queued ticket's position only falls (later tickets queue behind it)."""
    ticket = view.ticket
    base = turn_base(ticket)
    if ticket.state == TicketState.QUEUED:
        return base + (1 if view.position == 0 else 0)
    if ticket.state == TicketState.ANSWERED:
        return base + (3 if completed(ticket) else 2)
    return base + (3 if withdrawn_question(ticket) else 2)


def withdrawn_question(ticket: Ticket) -> bool:
    """An aborted ticket that had been answered INPUT_REQUIRED: a withdrawn question keeps its reply."""
    return ticket.state == TicketState.ABORTED and bool(ticket.result or ticket.result_data or ticket.result_headers)


def status(view: TicketView) -> a2a.TaskStatus:
    """The task status; while queued, its message says the position (metadata fabricd.position, 0 = head;
    a position below 0 is not known: a status rebuilt for a replayed event)."""
    ticket = view.ticket
    out = a2a.TaskStatus(state=task_state(view))
    if ticket.state == TicketState.QUEUED:
        text = ("at the head of the agent's queue: the agent is on it" if view.position == 0
                else f"queued behind {view.position} other task(s)" if view.position > 0 else "queued")
        out.message.CopyFrom(_agent_message(ticket, f"{ticket.ticket_id}/status", text))
        if view.position >= 0:
            out.message.metadata.update({"fabricd": {"position": view.position}})
        _timestamp(out, status_ns(ticket))
    else:
        if ticket.state == TicketState.ABORTED:
            out.message.CopyFrom(_agent_message(ticket, f"{ticket.ticket_id}/status", ticket.reason))
        elif not completed(ticket):  # the agent's question or reason is the status message
            out.message.CopyFrom(_reply_message(ticket, ticket.message_id, ticket.result, ticket.result_data,
                                                ticket.result_headers))
        _timestamp(out, status_ns(ticket))
    return out


def status_ns(ticket: Ticket) -> int:
    """When a task's status last changed (its status timestamp): queued, or finished."""
    return ticket.enqueue_ns if ticket.state == TicketState.QUEUED else ticket.finish_ns


def completed(ticket: Ticket) -> bool:
    return ticket.state == TicketState.ANSWERED and ticket.outcome not in _ANSWERED


def _agent_message(ticket: Ticket, message_id: str, text: str) -> a2a.Message:
    return a2a.Message(message_id=message_id, context_id=ticket.conversation_id, task_id=ticket.ticket_id,
                       role=a2a.ROLE_AGENT, parts=[a2a.Part(text=text)])


def _reply_message(ticket: Ticket, turn_id: str, text: str, data: bytes, headers: dict[str, str]) -> a2a.Message:
    return a2a.Message(message_id=f"{turn_id}/reply", context_id=ticket.conversation_id, task_id=ticket.ticket_id,
                       role=a2a.ROLE_AGENT, parts=parts.join(text, data, headers))


def _user_message(ticket: Ticket, turn_id: str, text: str, data: bytes, headers: dict[str, str]) -> a2a.Message:
    return a2a.Message(message_id=turn_id, context_id=ticket.conversation_id, task_id=ticket.ticket_id,
                       role=a2a.ROLE_USER, parts=parts.join(text, data, headers))


def artifact(ticket: Ticket) -> a2a.Artifact:
    return a2a.Artifact(artifact_id=ARTIFACT_ID, name="reply",
                        parts=parts.join(ticket.result, ticket.result_data, ticket.result_headers))


def task(view: TicketView, history_length: int | None = None, artifacts: bool = True) -> a2a.Task:
    ticket = view.ticket
    out = a2a.Task(id=ticket.ticket_id, context_id=ticket.conversation_id, status=status(view),
                   generation=generation(view))
    if artifacts and completed(ticket):
        out.artifacts.append(artifact(ticket))
    history = []
    for n, turn in enumerate(ticket.earlier, 1):  # each earlier turn: its task, then the agent's question
        turn_id = ticket.ticket_id if n == 1 else f"{ticket.ticket_id}/{n}"
        history.append(_user_message(ticket, turn_id, turn.task, turn.data, turn.headers))
        history.append(_reply_message(ticket, turn_id, turn.result, turn.result_data, turn.result_headers))
    history.append(_user_message(ticket, ticket.message_id, ticket.task, ticket.data, ticket.headers))
    if ticket.state == TicketState.ANSWERED or withdrawn_question(ticket):
        history.append(_reply_message(ticket, ticket.message_id, ticket.result, ticket.result_data,
                                      ticket.result_headers))
    if history_length is not None:
        history = history[len(history) - history_length:] if history_length > 0 else []
    out.history.extend(history)
    out.metadata.update({"fabricd": {"target": ticket.target, "requester": ticket.requester}})
    return out


def message_content(message: a2a.Message) -> tuple[str, bytes, dict[str, str]]:
    """The task text, data and headers of an A2A message (see fabricd.rpc.a2a_parts)."""
    try:
        return parts.split(list(message.parts))
    except ValueError as exc:
        raise invalid_params(str(exc), field="message.parts") from None


def card(entry: MailboxEntry, listeners: list[str], mutual_tls: bool, version: str) -> a2a.AgentCard:
    """The agent card of a mailbox entry: one GRPC interface per listener, with the agent id as tenant."""
    skills = [a2a.AgentSkill(id=c.name, name=c.name, description=c.description or c.name, tags=[c.name])
              for c in entry.capabilities]
    if not skills:
        skills = [a2a.AgentSkill(id="ask", name="ask", description="Any task, answered in text by the agent",
                                 tags=["ask"])]
    out = a2a.AgentCard(
        name=entry.session_name or entry.agent_id,
        description=entry.metadata.get("description") or f"Agent {entry.agent_id} on a fabricd fabric",
        version=version,
        capabilities=a2a.AgentCapabilities(streaming=True, push_notifications=False, extended_agent_card=True),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=skills,
    )
    for address in listeners:
        out.supported_interfaces.append(a2a.AgentInterface(url=address, protocol_binding="GRPC",
                                                           tenant=entry.agent_id, protocol_version=PROTOCOL_VERSION))
    out.security_schemes["bearer"].http_auth_security_scheme.CopyFrom(a2a.HTTPAuthSecurityScheme(
        scheme="Bearer", bearer_format="fabricd token (fabric token issue)",
        description="authorization: Bearer <token>; not needed on the daemon's unix socket"))
    requirements = [a2a.SecurityRequirement(schemes={"bearer": a2a.StringList()})]
    if mutual_tls:
        out.security_schemes["mtls"].mtls_security_scheme.CopyFrom(a2a.MutualTlsSecurityScheme(
            description="a client certificate whose CN names the calling agent"))
        requirements.append(a2a.SecurityRequirement(schemes={"mtls": a2a.StringList()}))
    out.security_requirements.extend(requirements)
    return out
