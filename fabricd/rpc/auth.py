"""Who is calling, and may they: tokens, client certificates, scopes and rate limits.

Every fabricd.v1 call passes the guard before its servicer runs:
  1. identify: a bearer token (`authorization: Bearer fdt_...`), else a client
     certificate's name (mutual TLS), else a local caller on a unix socket when
     tokens are not required there;
  2. rate-limit the token;
  3. check the call against POLICIES: an agent identity may act only as its
     own agent; admin and trusted local callers may do everything.
Refusals are UNAUTHENTICATED (no or bad token, a certificate without a
usable name) or PERMISSION_DENIED (out of scope), before anything runs, so a
refused call changes nothing. An agent identity always has a non-empty
agent id: the empty id matches nothing (a human's ticket has no source agent).
Revoking a token ends the calls it has open (streams included) at once, with
UNAUTHENTICATED. Tokens are never logged: only their public token_id.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

import grpc

from fabricd.core.errors import FabricError, InvalidArgument, PermissionDenied, ResourceExhausted, Unauthenticated
from fabricd.core.tokens import Tokens
from fabricd.rpc import errors

log = logging.getLogger("fabricd.rpc")


@dataclass(frozen=True, slots=True)
class Identity:
    kind: str
    """"admin", "agent" or "local" (a trusted caller on a unix socket without tokens)."""
    agent_id: str = ""
    token_id: str = ""

    @property
    def trusted(self) -> bool:
        return self.kind in ("admin", "local")

    def __str__(self) -> str:
        return f"{self.kind}:{self.agent_id}" if self.agent_id else self.kind


LOCAL = Identity("local")
_CALLER: contextvars.ContextVar[Identity] = contextvars.ContextVar("fabricd_caller", default=LOCAL)


def caller() -> Identity:
    """Who makes the running call, as the guard identified them (LOCAL when no guard runs)."""
    return _CALLER.get()
HUMAN = 1  # TICKET_SOURCE_KIND_HUMAN
AGENT = 2  # TICKET_SOURCE_KIND_AGENT


def _deny(identity: Identity, what: str) -> PermissionDenied:
    return PermissionDenied(f"{identity} may not {what}", reason="OUT_OF_SCOPE", identity=str(identity))


def own(field: str) -> Callable[[object, Identity, Guard], None]:
    """The request's `field` must name the caller's own agent."""

    def check(request: object, identity: Identity, guard: Guard) -> None:
        if not identity.agent_id or getattr(request, field) != identity.agent_id:
            raise _deny(identity, f"act on agent {getattr(request, field)!r} ({field})")

    return check


def anyone(request: object, identity: Identity, guard: Guard) -> None:
    return None


def admin_only(request: object, identity: Identity, guard: Guard) -> None:
    raise _deny(identity, "make this call: it is for admin tokens")


def _send_as_self(message: object, identity: Identity) -> None:
    sender = message.sender  # type: ignore[attr-defined]
    if not sender.agent_id:
        sender.agent_id = identity.agent_id  # the token says who sends
    elif sender.agent_id != identity.agent_id:
        raise _deny(identity, f"send as {sender.agent_id!r}")


def send_message(request: object, identity: Identity, guard: Guard) -> None:
    _send_as_self(request.message, identity)  # type: ignore[attr-defined]


def send_messages(request: object, identity: Identity, guard: Guard) -> None:
    for message in request.messages:  # type: ignore[attr-defined]
        _send_as_self(message, identity)


def ask_as_self(request: object, identity: Identity, guard: Guard) -> None:
    source = request.source  # type: ignore[attr-defined]
    if source.kind in (0, AGENT) and source.agent_id in ("", identity.agent_id):
        source.kind, source.agent_id = AGENT, identity.agent_id
        return
    raise _deny(identity, "ask on behalf of a human or another agent")


def own_ticket(request: object, identity: Identity, guard: Guard) -> None:
    ticket = guard.ticket(request.ticket_id)  # type: ignore[attr-defined]
    if ticket is not None and identity.agent_id and identity.agent_id in (ticket.source_agent, ticket.target):
        return
    if ticket is None:
        return  # the servicer answers NOT_FOUND; nothing to protect
    raise _deny(identity, f"wait on ticket {request.ticket_id!r}, which another agent asked")  # type: ignore[attr-defined]


def cancel_own(request: object, identity: Identity, guard: Guard) -> None:
    if identity.agent_id and request.agent_id == identity.agent_id:  # type: ignore[attr-defined]
        return
    ticket = guard.ticket(request.ticket_id)  # type: ignore[attr-defined]
    if ticket is None or not identity.agent_id or ticket.source_agent != identity.agent_id:
        raise _deny(identity, "cancel a ticket it did not ask")


def fan_out_own(request: object, identity: Identity, guard: Guard) -> None:
    if request.job.agent.agent_id != identity.agent_id:  # type: ignore[attr-defined]
        raise _deny(identity, "settle a job another agent ran")


POLICIES: dict[str, Callable[[object, Identity, Guard], None]] = {
    # DirectoryService
    "Register": own("agent_id"), "Touch": own("agent_id"), "Unregister": own("agent_id"), "ListMailboxes": anyone,
    "ResolveName": anyone,
    "WatchMailboxes": anyone,
    # MailboxService
    "SendMessage": send_message, "SendMessages": send_messages, "PeekMessages": own("agent_id"),
    "DrainMessages": own("agent_id"), "Subscribe": own("agent_id"), "AckMessages": own("agent_id"),
    # RendezvousService
    "Ask": ask_as_self, "EnqueueTicket": ask_as_self, "AwaitReply": own_ticket, "Reply": own("agent_id"),
    "CancelHead": cancel_own, "CloseQueue": own("agent_id"), "GetQueue": anyone, "WatchQueue": anyone,
    # OutboxService
    "FanOut": fan_out_own,
    # AgentDirectoryService: reads for every caller; changes are the host's (admin)
    "GetAgent": anyone, "ListAgents": anyone, "ListThreads": anyone, "ListRequests": anyone,
    "GetDirectoryData": anyone, "WatchDirectoryData": anyone,
    # AdminService
    "GetStatus": anyone,
    # lf.a2a.v1.A2AService: any identity may call any tenant, as itself; the servicer shows an agent
    # only the tasks it sent or that are queued for it, and answering stays RendezvousService.Reply's.
    **{f"A2AService/{name}": anyone for name in (
        "SendMessage", "SendStreamingMessage", "GetTask", "ListTasks", "CancelTask", "SubscribeToTask",
        "CreateTaskPushNotificationConfig", "GetTaskPushNotificationConfig", "ListTaskPushNotificationConfigs",
        "DeleteTaskPushNotificationConfig", "GetExtendedAgentCard")},
}
"""Calls an agent identity may make, and on what condition. Anything else is admin only."""


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


def _revoked() -> Unauthenticated:
    return Unauthenticated("the token of this call was revoked", reason="TOKEN_REVOKED")


class Guard:
    """Identifies and authorizes each call (see the module docstring)."""

    def __init__(self, tokens: Tokens, *, mode: str = "auto", admin_names: tuple[str, ...] = (),
                 limiter: RateLimiter | None = None, ticket: Callable[[str], object] | None = None) -> None:
        self.tokens = tokens
        self.mode = mode
        self.admin_names = admin_names
        self.limiter = limiter or RateLimiter(0, 1)
        self._ticket = ticket
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

    def ticket(self, ticket_id: str) -> object:
        return self._ticket(ticket_id) if self._ticket and ticket_id else None

    def identify(self, context: grpc.aio.ServicerContext) -> Identity:
        secret = ""
        for key, value in context.invocation_metadata() or ():
            if key == "authorization":
                secret = value.removeprefix("Bearer ").strip()
        if secret:
            token = self.tokens.verify(secret)
            if token is None:
                raise Unauthenticated("the token is unknown or revoked", reason="BAD_TOKEN")
            return Identity(token.scope, token.agent_id, token.token_id)
        auth = context.auth_context() or {}
        names = auth.get("x509_common_name") or []
        if names or auth.get("x509_pem_cert"):
            name = names[0].decode(errors="replace").strip() if names else ""
            if not name or not name.isprintable():
                raise Unauthenticated("the client certificate has no usable common name (CN), so it names no "
                                      "agent; issue it with CN=<agent id>, or use a token",
                                      reason="CERTIFICATE_WITHOUT_NAME")
            return Identity("admin", "", f"cert:{name}") if name in self.admin_names else Identity(
                "agent", name, f"cert:{name}")
        peer = context.peer() or ""
        if self.mode == "off" or (self.mode == "auto" and peer.startswith("unix:")):
            return LOCAL
        raise Unauthenticated("this listener requires a token: send 'authorization: Bearer <token>' "
                              "(issue one with `fabric token issue`)", reason="MISSING_TOKEN")

    def admit(self, method: str, request: object, context: grpc.aio.ServicerContext) -> Identity:
        identity = self.identify(context)
        if identity.token_id:
            wait = self.limiter.take(identity.token_id)
            if wait:
                raise ResourceExhausted(f"rate limit of {self.limiter.rate:g} calls/s for this token; retry in "
                                        f"{wait:.2f}s", reason="RATE_LIMITED", retry_after_s=f"{wait:.3f}")
        if identity.trusted:
            return identity
        if not identity.agent_id:  # defence in depth: no policy may see an agent without a name
            raise Unauthenticated("this identity names no agent", reason="NO_IDENTITY")
        POLICIES.get(method, admin_only)(request, identity, self)
        return identity


class GuardInterceptor(grpc.aio.ServerInterceptor):
    """Runs the guard before every fabricd.v1 call, and records each call's outcome."""

    def __init__(self, guard: Guard, observe: Callable[[str, str, float], None] | None = None) -> None:
        self._guard = guard
        self._observe = observe
        self._handlers: dict[str, grpc.RpcMethodHandler] = {}

    async def intercept_service(self, continuation, details):  # noqa: ANN001, ANN201
        # Each method's wrapped handler is built once (building it cost ~4% of a send). This is the
        # only interceptor, and gRPC returns the same handler for a method on every call; unknown
        # methods (None) are not kept, so the map holds at most the registered methods.
        cached = self._handlers.get(details.method)
        if cached is not None:
            return cached
        handler = await continuation(details)
        if handler is not None:
            handler = self._handlers[details.method] = self._wrap(details.method, handler)
        return handler

    def _wrap(self, path: str, handler: grpc.RpcMethodHandler) -> grpc.RpcMethodHandler:
        """`handler` behind the guard and the call metrics; fabricd.v1 and A2A methods only."""
        if path.startswith("/lf.a2a.v1."):
            method = "A2AService/" + path.rsplit("/", 1)[1]  # not to be confused with fabricd's SendMessage
        elif path.startswith("/fabricd.v1."):
            method = path.rsplit("/", 1)[1]
        else:
            return handler  # health checks and reflection are open
        guard, observe = self._guard, self._observe
        deserialize = handler.request_deserializer

        def parse(raw: bytes, context: grpc.aio.ServicerContext) -> object:
            """Parse here, not in gRPC, so a malformed request is INVALID_ARGUMENT, not UNKNOWN."""
            try:
                return deserialize(raw) if deserialize else raw
            except Exception as exc:  # noqa: BLE001 - protobuf's DecodeError and friends
                raise InvalidArgument(f"the request is not a valid {method} request: {exc}",
                                      reason="MALFORMED_REQUEST") from None

        def finish(context: grpc.aio.ServicerContext, started: float, identity: Identity | None,
                   failed: bool) -> None:
            code = context.code() if failed else None
            name = code.name if isinstance(code, grpc.StatusCode) else ("CANCELLED" if failed else "OK")
            elapsed = time.perf_counter() - started
            if observe is not None:
                observe(method, name, elapsed)
            if log.isEnabledFor(logging.DEBUG):
                log.debug("call", extra={"method": method, "code": name, "ms": round(elapsed * 1e3, 3),
                                         "peer": context.peer(), "identity": str(identity or "-")})

        async def ended_by_revocation(context: grpc.aio.ServicerContext) -> None:
            """The call's token was revoked while it ran: take back the cancel and end it UNAUTHENTICATED."""
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()
            context.set_code(grpc.StatusCode.UNAUTHENTICATED)
            await errors.abort(context, _revoked())

        async def admit(raw: bytes, context: grpc.aio.ServicerContext, started: float) -> tuple[object, Identity]:
            """Parse and admit the call, or end it with the refusal (recorded like any outcome)."""
            try:
                request = parse(raw, context)
                return request, guard.admit(method, request, context)
            except FabricError as exc:
                context.set_code(errors.code_of(exc))
                finish(context, started, None, True)
                await errors.abort(context, exc)
                raise  # abort raises; this is for the type checker

        if handler.unary_unary is not None:
            inner = handler.unary_unary

            async def unary(raw, context):  # noqa: ANN001, ANN202
                started = time.perf_counter()
                request, identity = await admit(raw, context, started)
                _CALLER.set(identity)
                call = guard.track(identity)
                try:
                    response = await inner(request, context)
                except asyncio.CancelledError:
                    revoked = call is not None and call.revoked
                    if revoked:
                        context.set_code(grpc.StatusCode.UNAUTHENTICATED)
                    finish(context, started, identity, True)
                    if not revoked:
                        raise
                    await ended_by_revocation(context)
                except BaseException:
                    finish(context, started, identity, True)
                    raise
                finally:
                    guard.untrack(identity, call)
                finish(context, started, identity, False)
                return response

            return grpc.unary_unary_rpc_method_handler(unary, None, handler.response_serializer)
        if handler.unary_stream is not None:
            inner_stream = handler.unary_stream

            async def stream(raw, context):  # noqa: ANN001, ANN202
                started = time.perf_counter()
                request, identity = await admit(raw, context, started)
                _CALLER.set(identity)
                call = guard.track(identity)
                items = inner_stream(request, context).__aiter__()
                failed = True
                try:
                    while True:
                        try:
                            item = await items.__anext__()
                        except StopAsyncIteration:
                            break
                        if call is not None:
                            call.inside = False  # gRPC sends it: a cancel now would land in gRPC's code
                        yield item
                        if call is not None:
                            call.inside = True
                            if call.revoked:
                                raise asyncio.CancelledError
                    failed = False
                except asyncio.CancelledError:
                    if call is None or not call.revoked:
                        raise
                    await items.aclose()
                    await ended_by_revocation(context)
                finally:
                    guard.untrack(identity, call)
                    finish(context, started, identity, failed)

            return grpc.unary_stream_rpc_method_handler(stream, None, handler.response_serializer)
        return handler

