"""What a person does from the overseer page, each as the RPC it stands for.

Every action builds that RPC's request, passes it to the guard as a call of the session's identity would be
(Guard.admit: rate limit and POLICIES, which may fill the sender), then calls the same core service the
servicer calls. So an agent token does from the page exactly what it may do over gRPC, and nothing is
written when the guard or the core refuses. The session's agent (`acting_as`) is the one it acts as: its
mailbox, its queue, its name as the sender.
"""

from __future__ import annotations

from typing import Any

from fabricd import wire
from fabricd.core.errors import InvalidArgument
from fabricd.core.model import MessageKind, TicketOutcome
from fabricd.core.rendezvous import Answer
from fabricd.http.sessions import Session
from fabricd.http.views import messages
from fabricd.rpc.auth import Guard
from fabricd.rpc.server import Core
from fabricd.v1 import channel_service_pb2 as ch_pb
from fabricd.v1 import mailbox_service_pb2 as mb_pb
from fabricd.v1 import outbox_service_pb2 as ob_pb
from fabricd.v1 import rendezvous_service_pb2 as rv_pb
from fabricd.v1 import types_pb2

INBOX_SHOWN = 100
OUTCOMES = {"completed": TicketOutcome.COMPLETED, "input_required": TicketOutcome.INPUT_REQUIRED,
            "rejected": TicketOutcome.REJECTED, "failed": TicketOutcome.FAILED}


def _text(body: dict[str, Any], name: str, required: bool = True) -> str:
    value = body.get(name, "")
    if not isinstance(value, str) or (required and not value.strip()):
        raise InvalidArgument(f"{name} is required: a non-empty string", reason="MISSING_FIELD", field=name)
    return value


def _acting(session: Session) -> str:
    if not session.acting_as:
        raise InvalidArgument("this session watches only: sign in with act_as (a person's name) to act",
                              reason="MISSING_FIELD", field="act_as")
    return session.acting_as


class Actions:
    def __init__(self, core: Core, guard: Guard) -> None:
        self._core = core
        self._guard = guard

    async def send(self, session: Session, body: dict[str, Any]) -> dict[str, Any]:
        """SendMessage from the session's agent to `to` (an id or a name), with `text` and an optional thread."""
        request = mb_pb.SendMessageRequest(message=types_pb2.Message(
            sender=types_pb2.Address(agent_id=_acting(session)), recipient=types_pb2.Address(
                agent_id=_text(body, "to")), text=_text(body, "text"), thread_id=_text(body, "thread_id", False),
            kind=f"MESSAGE_KIND_{(MessageKind.USER if session.human else MessageKind.AGENT).name}"))
        identity = await self._guard.admit("SendMessage", request, None, session.identity)
        sent = await self._core.mailboxes.send(wire.message_in(request.message), False, identity.kind == "agent")
        return {"message_id": sent.message.id, "duplicate": sent.duplicate}

    async def post(self, session: Session, channel: str, body: dict[str, Any]) -> dict[str, Any]:
        """Publish to `channel` as the session's agent (an agent token: where it is a member, the core's rule)."""
        if self._core.channels is None:
            raise InvalidArgument("this daemon has no channels", reason="INVALID_FIELD", field="channel")
        request = ch_pb.PublishRequest(channel=channel, message=types_pb2.Message(
            sender=types_pb2.Address(agent_id=_acting(session)), text=_text(body, "text"),
            thread_id=_text(body, "thread_id", False)))
        identity = await self._guard.admit("Publish", request, None, session.identity)
        done = await self._core.channels.publish(request.channel, wire.message_in(request.message),
                                                 None if identity.trusted else identity.agent_id,
                                                 identity.kind == "agent")
        return {"seq": done.post.seq, "duplicate": done.duplicate, "delivered": done.delivered}

    async def reply(self, session: Session, ticket_id: str, body: dict[str, Any]) -> dict[str, Any]:
        """Reply to a ticket waiting in the session's own queue (the asker's Ask returns with the result)."""
        outcome = OUTCOMES.get(str(body.get("outcome") or "completed"))
        if outcome is None:
            raise InvalidArgument(f"outcome is one of {', '.join(OUTCOMES)}", reason="INVALID_FIELD",
                                  field="outcome")
        request = rv_pb.ReplyRequest(agent_id=_acting(session), ticket_id=ticket_id, result=_text(body, "result"),
                                     outcome=f"TICKET_OUTCOME_{outcome.name}")
        await self._guard.admit("Reply", request, None, session.identity)
        answered = await self._core.rendezvous.reply(request.agent_id, Answer(request.result, outcome),
                                                     request.ticket_id)
        return {"ticket_id": answered}

    async def cancel(self, session: Session, ticket_id: str) -> dict[str, Any]:
        """CancelTicket: withdraw a ticket the session's agent asked or that waits in its queue."""
        request = rv_pb.CancelTicketRequest(ticket_id=ticket_id)
        await self._guard.admit("CancelTicket", request, None, session.identity)
        ticket, cancelled = await self._core.rendezvous.cancel_ticket(ticket_id)
        return {"ticket_id": ticket.ticket_id, "cancelled": cancelled}

    async def retry(self, session: Session, body: dict[str, Any]) -> dict[str, Any]:
        """RetryDeadLetters (admin): the dead-letter rows `keys` go back to pending."""
        keys = body.get("keys")
        if not isinstance(keys, list) or not keys or not all(isinstance(k, str) and k for k in keys):
            raise InvalidArgument("keys is required: a list of dead-letter row keys", reason="MISSING_FIELD",
                                  field="keys")
        request = ob_pb.RetryDeadLettersRequest(keys=keys)
        await self._guard.admit("RetryDeadLetters", request, None, session.identity)
        return {"retried": await self._core.outbox.retry_dead_letters(list(request.keys))}

    async def inbox(self, session: Session) -> dict[str, Any]:
        """PeekMessages of the session's own mailbox: its unread mail, oldest first (nothing is consumed)."""
        if not session.acting_as:
            return {"agent_id": "", "messages": [], "unread": 0}
        return await self.mailbox(session, session.acting_as)

    async def mailbox(self, session: Session, agent_id: str) -> dict[str, Any]:
        """PeekMessages of `agent_id`'s mailbox: an admin may look into any, an agent only into its own."""
        request = mb_pb.PeekMessagesRequest(agent_id=agent_id, limit=INBOX_SHOWN)
        await self._guard.authorize("PeekMessages", request, session.identity)
        envelopes, unread = await self._core.mailboxes.peek(request.agent_id, request.limit)
        return {"agent_id": agent_id, "messages": messages(envelopes), "unread": unread}
