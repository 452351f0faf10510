"""What one identity sees of a snapshot, as the JSON the page reads.

Each part of the page stands for the RPC that reads the same thing, and is shown only to an identity that
RPC's access rule admits (fabricd.rpc.auth.POLICIES through Guard.authorize): agents and mailboxes
(ListMailboxes), queues (GetQueue, with fabricd.rpc.visibility's withholding: an agent sees the task text of
tickets it asked or that wait for it only), the outbox (ListOutbox: admin), tokens (ListTokens: admin), the
status (GetStatus). The JSON of a snapshot is made once per audience (trusted callers share one; each agent has
its own) and kept on the snapshot. Texts are sent as they are: the page sets them as textContent, never as HTML.
"""

from __future__ import annotations

import json
from typing import Any

from google.protobuf import message as pb_message

from fabricd.core.errors import PermissionDenied, Unauthenticated
from fabricd.core.model import Envelope, OutboxRow
from fabricd.core.model_tokens import Token
from fabricd.http.live import Picture
from fabricd.rpc import visibility
from fabricd.rpc.auth import Guard, Identity
from fabricd.v1 import admin_service_pb2 as adm_pb
from fabricd.v1 import directory_service_pb2 as dir_pb
from fabricd.v1 import outbox_service_pb2 as ob_pb
from fabricd.v1 import rendezvous_service_pb2 as rv_pb
from fabricd.v1 import types_pb2

PARTS: dict[str, tuple[str, pb_message.Message]] = {
    "agents": ("ListMailboxes", dir_pb.ListMailboxesRequest()),
    "queues": ("GetQueue", rv_pb.GetQueueRequest()),
    "outbox": ("ListOutbox", ob_pb.ListOutboxRequest()),
    "tokens": ("ListTokens", adm_pb.ListTokensRequest()),
    "status": ("GetStatus", adm_pb.GetStatusRequest()),
}
"""Each part of the page and the RPC (with an empty request) whose access rule decides who sees it."""

_withhold_queue = visibility.for_agent("GetQueue")


def _ms(ns: int) -> int:
    return ns // 1_000_000


async def may(guard: Guard, identity: Identity, method: str, request: object) -> bool:
    try:
        await guard.authorize(method, request, identity)
    except (PermissionDenied, Unauthenticated):
        return False
    return True


def audience(identity: Identity) -> str:
    return "trusted" if identity.trusted else f"agent:{identity.agent_id}"


async def encode(snapshot: Picture, identity: Identity, guard: Guard) -> bytes:
    """The JSON of `snapshot` as `identity` may see it (made once per audience)."""
    key = audience(identity)
    done = snapshot.encoded.get(key)
    if done is not None:
        return done
    out: dict[str, Any] = {"version": snapshot.version, "now_ms": _ms(snapshot.now_ns)}
    if await may(guard, identity, *PARTS["agents"]):
        out["agents"] = [_entry(snapshot, e) for e in snapshot.entries]
    if await may(guard, identity, *PARTS["queues"]):
        out["queues"] = [_queue(target, r, identity) for target, r in sorted(snapshot.queues.items())]
    if await may(guard, identity, *PARTS["outbox"]):
        o = snapshot.outbox
        out["outbox"] = {"pending": [row(r) for r in o["pending"]], "dead": [row(r) for r in o["dead"]],
                         "more_pending": o["more_pending"], "more_dead": o["more_dead"]}
    if await may(guard, identity, *PARTS["tokens"]):
        out["tokens"] = [_token(t) for t in snapshot.tokens]
    if await may(guard, identity, *PARTS["status"]):
        s = snapshot.status
        out["status"] = {"version": s.version, "mailboxes": s.mailboxes, "queued_tickets": s.queued_tickets,
                         "outbox_pending": s.outbox_pending, "open_streams": s.open_streams,
                         "auth_tokens": s.auth_tokens, "start_ms": _ms(s.start_time_ns)}
    extra = {}
    for name, (panel, data) in snapshot.sections.items():
        if await may(guard, identity, panel.method, None):
            extra[name] = data if identity.trusted or panel.withhold is None else panel.withhold(data,
                                                                                                 identity.agent_id)
    if extra:
        out["sections"] = extra
    data = snapshot.encoded[key] = json.dumps(out, separators=(",", ":")).encode()
    return data


def _entry(snapshot: Picture, e: Any) -> dict[str, Any]:
    return {"id": e.agent_id, "session": e.session_name, "presence": snapshot.presence[e.agent_id].name,
            "busy": e.busy, "cwd": e.cwd, "capabilities": [c.name for c in e.capabilities],
            "last_activity_ms": _ms(e.last_activity_ns), "unread": e.unread_count,
            "oldest_unread_ms": _ms(snapshot.oldest_unread_ns.get(e.agent_id, 0)),
            "human": e.agent_id.startswith("human:")}


def _queue(target: str, response: rv_pb.GetQueueResponse, identity: Identity) -> dict[str, Any]:
    if not identity.trusted and _withhold_queue is not None:
        response = _withhold_queue(response, identity.agent_id)
    return {"target": target, "more": bool(response.next_page_token), "tickets": [
        {"ticket_id": t.ticket_id, "position": t.position, "task": t.task, "requester": t.requester,
         "asker": t.source.agent_id if t.source.kind == rv_pb.TICKET_SOURCE_KIND_AGENT else "(a person)",
         "conversation_id": t.conversation_id, "enqueue_ms": _ms(t.enqueue_time.ToNanoseconds())}
        for t in response.tickets]}


def row(r: OutboxRow) -> dict[str, Any]:
    return {"key": r.key, "state": r.state.name, "recipient": r.recipient.agent_id, "sender": r.sender.agent_id,
            "job_id": r.job_id, "content": r.content, "attempts": r.attempts,
            "next_attempt_ms": _ms(r.next_attempt_ns), "last_error": r.last_error, "create_ms": _ms(r.create_ns)}


def _token(t: Token) -> dict[str, Any]:
    return {"token_id": t.token_id, "scope": t.scope, "agent_id": t.agent_id, "label": t.label,
            "create_ms": _ms(t.create_ns), "revoked": bool(t.revoke_ns)}


def messages(envelopes: list[Envelope]) -> list[dict[str, Any]]:
    """Messages of an inbox as the page shows them (its message and thread views)."""
    out = []
    for e in envelopes:
        m = types_pb2.Message.FromString(e.encoded)
        out.append({"id": m.id, "seq": e.seq, "sender": m.sender.agent_id, "recipient": m.recipient.agent_id,
                    "thread_id": m.thread_id, "text": m.text, "kind": types_pb2.MessageKind.Name(m.kind),
                    "send_ms": _ms(m.send_time.ToNanoseconds()), "ticket_id": m.ticket_id,
                    "headers": dict(m.headers)})
    return out
