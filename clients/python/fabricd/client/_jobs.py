"""Agent jobs: the queued description of work for an agent session, and its decoding.

The payload is a fabricd.v1.AgentJobPayload, so an executor in any language
decodes it with the generated code of its own language.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fabricd.client._errors import InvalidArgument
from fabricd.v1 import outbox_service_pb2 as ob_pb
from fabricd.v1 import types_pb2 as pb

MAX_CHARS = 256


@dataclass(frozen=True, slots=True)
class AgentWork:
    session_id: str
    """The agent session that runs the job: the job's queue."""
    command_fact_id: str
    """The command this job carries out."""
    recovery: Any = None
    """Passed through to the job unchanged."""


@dataclass(frozen=True, slots=True)
class QueuedJob:
    queue: str
    lane: str
    priority: int
    payload: bytes
    """A serialized fabricd.v1.AgentJobPayload."""
    recovery: Any = None


def _field(work: Any, name: str) -> Any:
    return work.get(name) if isinstance(work, Mapping) else getattr(work, name, None)


def _check_text(value: Any, field: str, *, required: bool = True) -> str:
    if not isinstance(value, str):
        raise InvalidArgument(f"{field} must be a string", reason="INVALID_FIELD", metadata={"field": field})
    if required and not value:
        raise InvalidArgument(f"{field} is required", reason="MISSING_FIELD", metadata={"field": field})
    if len(value) > MAX_CHARS:
        raise InvalidArgument(f"{field} is {len(value)} characters; the limit is {MAX_CHARS}",
                              reason="FIELD_TOO_LONG", metadata={"field": field})
    return value


def _check_mail(mail: pb.Mail) -> None:
    if not isinstance(mail, pb.Mail):
        raise InvalidArgument("mail must be a fabricd.v1.Mail", reason="INVALID_FIELD", metadata={"field": "mail"})
    _check_text(mail.key, "mail.key")
    for i, address in enumerate(mail.reply_to):
        _check_text(address.agent_id, f"mail.reply_to[{i}].agent_id")
        _check_text(address.session_id, f"mail.reply_to[{i}].session_id")


def agent_job(work: AgentWork | Mapping[str, Any] | Any, mail: pb.Mail | None = None) -> QueuedJob:
    """The queued job for `work`: queue = its session, lane "default", priority 0.

    Checks its input at once and raises InvalidArgument; `work.recovery` is
    passed through unchanged.
    """
    session_id = _check_text(_field(work, "session_id"), "work.session_id")
    command_fact_id = _check_text(_field(work, "command_fact_id"), "work.command_fact_id")
    payload = ob_pb.AgentJobPayload(session_id=session_id, command_fact_id=command_fact_id)
    if mail is not None:
        _check_mail(mail)
        payload.mail.CopyFrom(mail)
    return QueuedJob(queue=session_id, lane="default", priority=0, payload=payload.SerializeToString(),
                     recovery=_field(work, "recovery"))


def decode_agent_job(job: QueuedJob | bytes) -> ob_pb.AgentJobPayload:
    """The payload of a job made by agent_job (on the executor's side)."""
    raw = job if isinstance(job, bytes) else job.payload
    try:
        return ob_pb.AgentJobPayload.FromString(raw)
    except Exception as exc:  # a DecodeError, whatever protobuf calls it
        raise InvalidArgument(f"not an agent job payload: {exc}", reason="INVALID_PAYLOAD") from exc
