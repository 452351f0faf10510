"""Who is calling, and may they: tokens, client certificates, scopes and rate limits.

Every fabricd.v1 call passes the guard before its servicer runs:
  1. identify: a bearer token (`authorization: Bearer fdt_...`), else a client
     certificate's name (mutual TLS), else a local caller on a unix socket when
     tokens are not required there;
  2. rate-limit the token;
  3. check the call against POLICIES: an agent identity may act only as its
     own agent, and register only under session names bound to its token;
     admin and trusted local callers may do everything. Where the core reads
     the request's agent as a name (an id, a session name or `session/segment`),
     access is decided on the agent the name resolves to
     (fabricd.core.directory.check_own_name), not on the string;
  4. publish the identity for the call (`caller()`), so a servicer can pass
     what the core must know of it (an agent token's name claim is exclusive;
     what it may read of others' queues, see fabricd.rpc.visibility).
Refusals are UNAUTHENTICATED (no or bad token, a certificate without a
usable name) or PERMISSION_DENIED (out of scope), before anything runs, so a
refused call changes nothing. An agent identity always has a non-empty
agent id: the empty id matches nothing (a human's ticket has no source agent).
Revoking a token ends the calls it has open (streams included) at once, with
UNAUTHENTICATED. Tokens are never logged: only their public token_id. The
interceptor that runs all this is fabricd.rpc.interceptor.
"""

from __future__ import annotations

import asyncio
import contextvars
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import grpc

from fabricd.core import lanes, validate
from fabricd.core.directory import check_own_name
from fabricd.core.errors import InvalidArgument, PermissionDenied, ResourceExhausted, Unauthenticated
from fabricd.core.model import MailboxEntry, Ticket
from fabricd.core.tokens import Tokens
from fabricd.v1 import channel_service_pb2 as channel_pb
from fabricd.v1 import directory_service_pb2 as directory_pb
from fabricd.v1 import lease_service_pb2 as lease_pb
from fabricd.v1 import mailbox_service_pb2 as mailbox_pb
from fabricd.v1 import outbox_service_pb2 as outbox_pb
from fabricd.v1 import rendezvous_service_pb2 as rendezvous_pb
from fabricd.v1 import types_pb2


def certificate_name(raw: bytes) -> str:
    """The agent id a client certificate's common name names, as it is: "" when it is not a name an agent id
    could be. Never trimmed or repaired: a CA that issued 'alice ' (or 'alice' and a no-break space, or bytes
    that are not UTF-8) issued another name, which must not act as alice."""
    try:
        name = raw.decode("utf-8")
    except UnicodeDecodeError:
        return ""
    if not name or name != name.strip() or not name.isprintable():
        return ""
    try:
        validate.name(name, "CN")
    except InvalidArgument:
        return ""
    return name


@dataclass(frozen=True, slots=True)
class Identity:
    kind: str
    """"admin", "agent" or "local" (a trusted caller on a unix socket without tokens)."""
    agent_id: str = ""
    token_id: str = ""
    session_names: tuple[str, ...] = ()
    """Session names the token lets its agent register under."""

    @property
    def trusted(self) -> bool:
        return self.kind in ("admin", "local")

    def __str__(self) -> str:
        return f"{self.kind}:{self.agent_id}" if self.agent_id else self.kind


LOCAL = Identity("local")
_CALLER: contextvars.ContextVar[Identity] = contextvars.ContextVar("fabricd_caller", default=LOCAL)
_TICKET: contextvars.ContextVar[tuple[str, Ticket | None] | None] = contextvars.ContextVar("fabricd_ticket", default=None)
"""The ticket the running call's policy is about, read by Guard.admit before the (synchronous) policy runs."""
"""Without a guard (a server built with none) every caller is trusted, as the servicers see it."""


def caller() -> Identity:
    """The identity of the call being served (set by the guard before the servicer runs)."""
    return _CALLER.get()


def agent_token() -> bool:
    """Whether the call being served is an agent token's (or an agent's mTLS certificate): held to quotas."""
    return _CALLER.get().kind == "agent"


def _deny(identity: Identity, what: str) -> PermissionDenied:
    return PermissionDenied(f"{identity} may not {what}", reason="OUT_OF_SCOPE", identity=str(identity))


Policy = Callable[[Any, "Identity", "Guard"], "str | None"]
"""A call's access rule: raises PermissionDenied, or returns the name the core will resolve as the caller's own
agent (the guard then checks what it resolves to), or None. Its request is Any here so that each rule can name
the request message it reads (POLICIES maps a method to the rule of that method's request)."""


def own(field: str) -> Policy:
    """The request's `field` must be the caller's own agent id (the core reads it as an id, never a name)."""

    def check(request: object, identity: Identity, guard: Guard) -> str | None:
        if not identity.agent_id or getattr(request, field) != identity.agent_id:
            raise _deny(identity, f"act on agent {getattr(request, field)!r} ({field})")
        return None

    return check


def own_name(field: str) -> Policy:
    """As `own`, for a field the core resolves as a name: it must also resolve to the caller's agent, or none."""
    exact = own(field)

    def check(request: object, identity: Identity, guard: Guard) -> str | None:
        exact(request, identity, guard)
        return identity.agent_id

    return check


def register_own(request: directory_pb.RegisterRequest, identity: Identity, guard: Guard) -> None:
    """Register as its own agent, under no session name or one bound to its token (see fabricd token issue).
    An id that is another agent's name is refused by the core's rule (NAME_COLLISION), for every caller."""
    own("agent_id")(request, identity, guard)
    name = request.session_name
    if name and name != identity.agent_id and name not in identity.session_names:
        bound = ", ".join(repr(n) for n in identity.session_names) or "none"
        raise PermissionDenied(
            f"{identity} may not register under session name {name!r}: it is not bound to its token (bound: "
            f"{bound}); an admin binds names when issuing the token: fabric token issue --agent "
            f"{identity.agent_id} --name {name}", reason="OUT_OF_SCOPE", identity=str(identity), name=name)


def set_wake_hook(request: directory_pb.SetWakeHookRequest, identity: Identity, guard: Guard) -> None:
    """Its own agent's hook, and a URL one: a command runs as the daemon's user, so it is an admin's to set."""
    own("agent_id")(request, identity, guard)
    if request.hook.command:
        raise PermissionDenied(f"{identity} may not set a command wake hook: commands run as the daemon's user, "
                               "so only an admin or a local caller may set one; use a URL hook (--url)",
                               reason="WAKE_COMMAND_ADMIN_ONLY", identity=str(identity))


def anyone(request: object, identity: Identity, guard: Guard) -> None:
    return None


def member_checked(request: object, identity: Identity, guard: Guard) -> None:
    """Any identity passes the guard; the core decides on its agent (fabricd.core.channels: a member reads,
    posts and lists members; an agent joins an open channel itself; a channel's creator deletes it)."""
    return None


def admin_only(request: object, identity: Identity, guard: Guard) -> None:
    raise _deny(identity, "make this call: it is for admin tokens")


def _send_as_self(message: types_pb2.Message, identity: Identity) -> None:
    sender = message.sender
    if not sender.agent_id:
        sender.agent_id = identity.agent_id  # the token says who sends
    elif sender.agent_id != identity.agent_id:
        raise _deny(identity, f"send as {sender.agent_id!r}")


def send_message(request: mailbox_pb.SendMessageRequest, identity: Identity, guard: Guard) -> None:
    _send_as_self(request.message, identity)


def send_messages(request: mailbox_pb.SendMessagesRequest, identity: Identity, guard: Guard) -> None:
    for message in request.messages:
        _send_as_self(message, identity)


def publish_as_self(request: channel_pb.PublishRequest, identity: Identity, guard: Guard) -> None:
    """A post's sender is the token's agent; where it may post (a member) is the core's rule."""
    _send_as_self(request.message, identity)


def ask_as_self(request: rendezvous_pb.AskRequest | rendezvous_pb.EnqueueTicketRequest, identity: Identity,
                guard: Guard) -> None:
    source = request.source
    agent, unset = rendezvous_pb.TICKET_SOURCE_KIND_AGENT, rendezvous_pb.TICKET_SOURCE_KIND_UNSPECIFIED
    if source.kind in (unset, agent) and source.agent_id in ("", identity.agent_id):
        source.kind, source.agent_id = agent, identity.agent_id
        return
    raise _deny(identity, "ask on behalf of a human or another agent")


def own_ticket(request: rendezvous_pb.AwaitReplyRequest, identity: Identity, guard: Guard) -> None:
    ticket = guard.ticket(request.ticket_id)
    if ticket is not None and identity.agent_id and identity.agent_id in (ticket.source_agent, ticket.target):
        return
    if ticket is None:
        return  # the servicer answers NOT_FOUND; nothing to protect
    raise _deny(identity, f"wait on ticket {request.ticket_id!r}, which another agent asked")


def party_to_ticket(request: rendezvous_pb.GetTicketRequest | rendezvous_pb.CancelTicketRequest, identity: Identity,
                    guard: Guard) -> None:
    """The caller asked the ticket or is its target (GetTicket, CancelTicket); an unknown one is NOT_FOUND later."""
    ticket = guard.ticket(request.ticket_id)
    if ticket is None or identity.agent_id in (ticket.source_agent, ticket.target):
        return
    raise _deny(identity, f"read or cancel ticket {request.ticket_id!r}: it neither asked it nor is its "
                "target")


def list_tickets(request: rendezvous_pb.ListTicketsRequest, identity: Identity, guard: Guard) -> str | None:
    """Its own tickets whole (the name resolved to its agent); another agent's only those it asked
    (source_agent_id is set to it)."""
    if request.agent_id == identity.agent_id:
        return identity.agent_id
    if request.source_agent_id not in ("", identity.agent_id):
        raise _deny(identity, f"list tickets asked by {request.source_agent_id!r}")
    request.source_agent_id = identity.agent_id
    return None


def cancel_own(request: rendezvous_pb.CancelHeadRequest, identity: Identity, guard: Guard) -> str | None:
    """The head of its own queue (the name resolved to its agent), or a ticket it asked at another's head."""
    if identity.agent_id and request.agent_id == identity.agent_id:
        return identity.agent_id
    ticket = guard.ticket(request.ticket_id)
    if ticket is None or not identity.agent_id or ticket.source_agent != identity.agent_id:
        raise _deny(identity, "cancel a ticket it did not ask")
    return None


def fan_out_own(request: outbox_pb.FanOutRequest, identity: Identity, guard: Guard) -> None:
    if request.job.agent.agent_id != identity.agent_id:
        raise _deny(identity, "settle a job another agent ran")


def lease_of_own(request: object, identity: Identity, guard: Guard) -> None:
    """A lease named by id: the core refuses another agent's (PERMISSION_DENIED) once it has read its holder,
    before writing anything (fabricd.rpc.leases passes the caller's agent)."""


def release_own(request: lease_pb.ReleaseRequest, identity: Identity, guard: Guard) -> None:
    """All of its own agent's leases (agent_id), or one lease by id (checked as lease_of_own)."""
    if not request.lease_id:
        own("agent_id")(request, identity, guard)


def per_frame(request: object, identity: Identity, guard: Guard) -> None:
    """A bidirectional stream: opened by any identity, each frame checked by FRAME_POLICIES as it arrives."""


def serve_frame(frame: rendezvous_pb.ServeRequest, identity: Identity, guard: Guard) -> str | None:
    """A replier serves its own agent: the open frame names it, as Reply's agent_id (the answers are bound
    to the stream's agent)."""
    if frame.WhichOneof("frame") == "open":
        return own_name("agent_id")(frame.open, identity, guard)
    return None


_SENT_FRAMES: dict[str, Policy] = {
    "send": send_message, "send_many": send_messages, "ack": own("agent_id"), "ask": ask_as_self}


def send_stream_frame(frame: mailbox_pb.SendStreamRequest, identity: Identity, guard: Guard) -> str | None:
    """Each frame as its unary call (SendMessage, SendMessages, AckMessages, Ask)."""
    kind = frame.WhichOneof("request")
    return None if kind is None else _SENT_FRAMES[kind](getattr(frame, kind), identity, guard)


FRAME_POLICIES: dict[str, Policy] = {
    "Serve": serve_frame, "SendStream": send_stream_frame}
"""The check of each request frame of a bidirectional stream (a refusal fails that frame only)."""


POLICIES: dict[str, Policy] = {
    # DirectoryService
    "Register": register_own, "Touch": own("agent_id"), "Unregister": own_name("agent_id"), "ListMailboxes": anyone,
    "ResolveName": anyone,
    "WatchMailboxes": anyone, "SetWakeHook": set_wake_hook, "GetWakeHook": own("agent_id"),
    # MailboxService
    "SendMessage": send_message, "SendMessages": send_messages, "PeekMessages": own("agent_id"),
    "DrainMessages": own("agent_id"), "Subscribe": own("agent_id"), "AckMessages": own("agent_id"),
    "SendStream": per_frame,
    # RendezvousService
    "Ask": ask_as_self, "EnqueueTicket": ask_as_self, "AwaitReply": own_ticket, "Reply": own_name("agent_id"),
    "CancelHead": cancel_own, "CloseQueue": own_name("agent_id"), "GetQueue": anyone, "WatchQueue": anyone,
    "GetTicket": party_to_ticket, "CancelTicket": party_to_ticket, "ListTickets": list_tickets,
    "Serve": per_frame,
    # OutboxService
    "FanOut": fan_out_own,
    # AgentDirectoryService: reads for every caller; changes are the host's (admin)
    "GetAgent": anyone, "ListAgents": anyone, "ListThreads": anyone, "ListRequests": anyone,
    "GetDirectoryData": anyone, "WatchDirectoryData": anyone,
    # ChannelService: channels' names and settings are public; the rest the core decides on the caller's agent
    "GetChannel": anyone, "ListChannels": anyone, "Publish": publish_as_self, **{name: member_checked for name in (
        "CreateChannel", "DeleteChannel", "JoinChannel", "LeaveChannel", "ListMembers", "ReadChannel",
        "SubscribeChannel", "SearchMessages")},
    # LeaseService: its own agent's leases (a lease named by id is checked against its holder in the core);
    # anyone may list, check and watch
    "Acquire": own("agent_id"), "Renew": lease_of_own, "Release": release_own, "ListLeases": anyone,
    "CheckLeases": anyone, "WatchLeases": anyone,
    # AdminService
    "GetStatus": anyone,
    # lf.a2a.v1.A2AService: any identity may call any tenant, as itself; the servicer shows an agent
    # only the tasks it sent or that are queued for it, and answering stays RendezvousService.Reply's.
    **{f"A2AService/{name}": anyone for name in (
        "SendMessage", "SendStreamingMessage", "GetTask", "ListTasks", "CancelTask", "SubscribeToTask",
        "CreateTaskPushNotificationConfig", "GetTaskPushNotificationConfig", "ListTaskPushNotificationConfigs",
        "DeleteTaskPushNotificationConfig", "GetExtendedAgentCard")},
}
"""Calls an agent identity may make, and on what condition. Anything else is admin only.

`own` fields are read by the core as agent ids only (mailboxes, wake hooks, senders, a FanOut's agent), so the
string is the agent; `own_name` fields (and the own-queue forms of ListTickets and CancelHead) are resolved as
names, so the guard resolves them too and decides on the agent they reach. Register and Touch make an entry
under the id, which the core refuses when the id is already another agent's name."""


class RateLimiter:
    """A token bucket per token: `rate` calls a second, up to `burst` at once."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = burst
        self._buckets: dict[str, tuple[float, float]] = {}

    def take(self, key: str) -> float:
        """0 when the call may go; else the seconds until it may."""
        if self.rate <= 0:
            return 0.0
        now = time.monotonic()
        tokens, last = self._buckets.get(key, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - last) * self.rate)
        if tokens >= 1:
            self._buckets[key] = (tokens - 1, now)
            return 0.0
        self._buckets[key] = (tokens, now)
        return (1 - tokens) / self.rate


class OpenCall:
    """A call made with a token: its task, and whether it is running our code (safe to cancel) or gRPC's."""

    __slots__ = ("task", "inside", "revoked")

    def __init__(self, task: asyncio.Task[object]) -> None:
        self.task = task
        self.inside = True
        self.revoked = False


def revoked() -> Unauthenticated:
    return Unauthenticated("the token of this call was revoked", reason="TOKEN_REVOKED")


CERT_RECHECK_S = 2.0
"""How long the guard trusts what it read about a certificate name's look-alikes (tokens are re-read as often)."""
CERT_NAMES_KEPT = 4096
"""At most this many certificate names' readings are kept (all forgotten at once beyond it)."""


class Guard:
    """Identifies and authorizes each call (see the module docstring)."""

    def __init__(self, tokens: Tokens, *, mode: str = "auto", admin_names: tuple[str, ...] = (),
                 limiter: RateLimiter | None = None,
                 ticket: Callable[[str], Awaitable[Ticket | None]] | None = None,
                 resolve: Callable[[str], Awaitable[MailboxEntry | None]] | None = None,
                 look_alike: Callable[[str], Awaitable[tuple[str, str, str] | None]] | None = None) -> None:
        self.tokens = tokens
        self.mode = mode
        self.admin_names = admin_names
        self.limiter = limiter or RateLimiter(0, 1)
        self._ticket = ticket
        self._resolve = resolve
        self._look_alike = look_alike
        self._cert_names: dict[str, tuple[float, tuple[str, str, str] | None]] = {}
        """Certificate names by what they look like (see check_certificate), each read again after CERT_RECHECK_S."""
        self._calls: dict[str, set[OpenCall]] = {}
        """Open calls by token_id, ended when the token is revoked."""
        tokens.on_revoke.append(self.end_calls)

    def end_calls(self, token_id: str) -> None:
        """End every call open with `token_id` (UNAUTHENTICATED; see GuardInterceptor)."""
        for call in self._calls.pop(token_id, ()):
            call.revoked = True
            if call.inside:  # waiting in our code: cancel it there. Else it stops when gRPC hands it back.
                call.task.cancel()

    def track(self, identity: Identity) -> OpenCall | None:
        """Register the running call of a token-bearing identity, so revoking the token can end it."""
        task = asyncio.current_task()
        if not identity.token_id or identity.token_id.startswith("cert:") or task is None:
            return None
        call = OpenCall(task)
        self._calls.setdefault(identity.token_id, set()).add(call)
        return call

    def untrack(self, identity: Identity, call: OpenCall | None) -> None:
        calls = self._calls.get(identity.token_id) if call is not None else None
        if calls is not None:
            calls.discard(call)
            if not calls:
                del self._calls[identity.token_id]

    def ticket(self, ticket_id: str) -> Ticket | None:
        """The ticket `admit` read for this call's policy (None when unknown)."""
        found = _TICKET.get()
        return found[1] if found is not None and found[0] == ticket_id else None

    def identify(self, context: grpc.aio.ServicerContext) -> Identity:
        secret = ""
        for key, value in context.invocation_metadata() or ():
            if key == "authorization" and isinstance(value, str):  # bytes only under a key ending -bin
                secret = value.removeprefix("Bearer ").strip()
        if secret:
            token = self.tokens.verify(secret)
            if token is None:
                raise Unauthenticated("the token is unknown or revoked", reason="BAD_TOKEN")
            return Identity(token.scope, token.agent_id, token.token_id, token.session_names)
        auth = context.auth_context() or {}
        names = list(auth.get("x509_common_name") or ())
        if names or auth.get("x509_pem_cert"):
            name = certificate_name(names[0]) if names else ""
            if not name:
                raise Unauthenticated("the client certificate has no usable common name (CN), so it names no "
                                      "agent (a CN with spaces around it, control or invisible characters, "
                                      "decomposed accents or bytes that are not UTF-8 names none); issue it with "
                                      "CN=<agent id>, or use a token", reason="CERTIFICATE_WITHOUT_NAME")
            return Identity("admin", "", f"cert:{name}") if name in self.admin_names else Identity(
                "agent", name, f"cert:{name}")
        peer = context.peer() or ""
        if self.mode == "off" or (self.mode == "auto" and peer.startswith("unix:")):
            return LOCAL
        raise Unauthenticated("this listener requires a token: send 'authorization: Bearer <token>' "
                              "(issue one with `fabric token issue`)", reason="MISSING_TOKEN")

    async def check_certificate(self, identity: Identity) -> None:
        """Refuse an agent certificate whose CN only looks like another agent's id or session name (the rule
        Register and token issue apply: NAME_COLLISION), so it cannot act as a new agent people would take for
        the other (PermissionDenied CERTIFICATE_NAME_LOOKS_TAKEN). Read at most every CERT_RECHECK_S per name."""
        if self._look_alike is None or identity.kind != "agent" or not identity.token_id.startswith("cert:"):
            return
        name, now = identity.agent_id, time.monotonic()
        known = self._cert_names.get(name)
        if known is None or known[0] <= now:
            if len(self._cert_names) >= CERT_NAMES_KEPT:
                self._cert_names.clear()
            known = self._cert_names[name] = (now + CERT_RECHECK_S, await self._look_alike(name))
        found = known[1]
        if found is not None:
            other, holder, kind = found
            raise PermissionDenied(
                f"the client certificate's name {ascii(name)} looks like {kind} {ascii(other)} of agent "
                f"{ascii(holder)}: the two would read the same in listings and in mail's 'from' lines, so it may "
                "not act as an agent; issue the certificate with CN=<the agent's exact id>, or a name that "
                "differs in more than look-alike letters or case", reason="CERTIFICATE_NAME_LOOKS_TAKEN",
                name=name, held_by=holder, looks_like=other)

    def _limit(self, identity: Identity) -> None:
        if identity.token_id:
            wait = self.limiter.take(identity.token_id)
            if wait:
                raise ResourceExhausted(f"rate limit of {self.limiter.rate:g} calls/s for this token; retry in "
                                        f"{wait:.2f}s", reason="RATE_LIMITED", retry_after_s=f"{wait:.3f}")

    def open_stream(self, method: str, context: grpc.aio.ServicerContext) -> Identity:
        """Admit the opening of a bidirectional stream (identity and rate); its frames pass `check_frame`."""
        identity = self.identify(context)
        self._limit(identity)
        _CALLER.set(identity)
        lanes.LANE.set(identity.token_id)  # its frames' writes share the store in its token's turn, as calls do
        if not identity.trusted:
            if not identity.agent_id:
                raise Unauthenticated("this identity names no agent", reason="NO_IDENTITY")
            POLICIES.get(method, admin_only)(None, identity, self)
        return identity

    async def check_frame(self, method: str, frame: object, identity: Identity) -> None:
        """One request frame of a bidirectional stream, as its unary call would be checked (rate included)."""
        self._limit(identity)
        if identity.trusted:
            return
        await self.check_certificate(identity)
        name = FRAME_POLICIES[method](frame, identity, self)
        if name is not None and self._resolve is not None:
            await check_own_name(self._resolve, name, identity.agent_id, str(identity))

    async def admit(self, method: str, request: object, context: grpc.aio.ServicerContext | None,
                    identity: Identity | None = None) -> Identity:
        """Rate-limit and authorize the call of `identity` (identified from `context` when not given: the
        overseer page, which has no gRPC context, passes its session's identity)."""
        if identity is None:
            assert context is not None, "admit needs the call's context or the caller's identity"
            identity = self.identify(context)
        self._limit(identity)
        _CALLER.set(identity)
        lanes.LANE.set(identity.token_id)  # the store serves each token's writes in turn (fabricd.store.fair)
        await self.check_certificate(identity)
        await self.authorize(method, request, identity)
        return identity

    async def authorize(self, method: str, request: object, identity: Identity) -> None:
        """POLICIES' decision on `method` with `request` for `identity` (no rate limit): raises PermissionDenied
        or Unauthenticated, and may fill the request's own fields (a sender left empty), as for a call. The
        overseer page (fabricd.http) checks each of its reads and actions here, as the RPC it stands for."""
        if identity.trusted:
            return
        if not identity.agent_id:  # defence in depth: no policy may see an agent without a name
            raise Unauthenticated("this identity names no agent", reason="NO_IDENTITY")
        policy = POLICIES.get(method, admin_only)
        ticket_id = getattr(request, "ticket_id", "") if policy in (own_ticket, cancel_own, party_to_ticket) else ""
        if ticket_id and self._ticket is not None:  # read through the async port: any backend, any node
            _TICKET.set((ticket_id, await self._ticket(ticket_id)))
        name = policy(request, identity, self)
        if name is not None and self._resolve is not None:  # read through the async port, as the ticket is
            await check_own_name(self._resolve, name, identity.agent_id, str(identity))
