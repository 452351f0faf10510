"""The gRPC interceptor that runs the guard (fabricd.rpc.auth) before every fabricd.v1 call.

It parses the request, admits it (or ends it with the refusal), tracks token
calls so a revocation ends them, writes each stream's responses under flow
control (fabricd.rpc.streams), gives an agent identity its view of each
response (fabricd.rpc.visibility), and records every call's outcome.
"""

from __future__ import annotations

import asyncio
import logging
import time
import traceback
from collections.abc import Callable
from typing import NoReturn

import grpc

from fabricd.core.errors import FabricError, InvalidArgument
from fabricd.core.limits import Limits
from fabricd.rpc import delivery, errors, visibility
from fabricd.rpc.auth import Guard, Identity, revoked
from fabricd.rpc.intake import Intake
from fabricd.rpc.streams import Refused, Streams

log = logging.getLogger("fabricd.rpc")


class Load:
    """The unary calls the daemon holds now, counted from their arrival to their end (streams are not)."""

    __slots__ = ("unary_calls",)

    def __init__(self) -> None:
        self.unary_calls = 0

    def ended(self, _task: object) -> None:
        self.unary_calls -= 1


class GuardInterceptor(grpc.aio.ServerInterceptor):
    """Runs the guard before every fabricd.v1 call, and records each call's outcome."""

    def __init__(self, guard: Guard, observe: Callable[[str, str, float], None] | None = None,
                 streams: Streams | None = None, load: Load | None = None, intake: Intake | None = None) -> None:
        self._guard = guard
        self.intake = intake or Intake(64 << 20, lambda: Limits().max_intake_bytes)
        self._observe = observe
        self.streams = streams or Streams(Limits)
        self._handlers: dict[str, grpc.RpcMethodHandler] = {}
        self.load = load or Load()

    async def intercept_service(self, continuation, details):  # noqa: ANN001, ANN201 - grpc.aio's untyped interceptor API
        # Each method's wrapped handler is built once (building it cost ~4% of a send). This is the
        # only interceptor, and gRPC returns the same handler for a method on every call; unknown
        # methods (None) are not kept, so the map holds at most the registered methods.
        handler = self._handlers.get(details.method)
        if handler is None:
            handler = await continuation(details)
            if handler is None:
                return None
            handler = self._handlers[details.method] = self._wrap(details.method, handler)
        if not handler.response_streaming or details.method.rsplit("/", 1)[-1] in delivery.WRITTEN:
            # Counted from here, before the request is read, so that calls arriving together are all
            # counted before the first of them writes; the call's own task ends after its status is sent.
            task = asyncio.current_task()
            if task is not None:
                self.load.unary_calls += 1
                task.add_done_callback(self.load.ended)
        return handler

    def _wrap(self, path: str, handler: grpc.RpcMethodHandler) -> grpc.RpcMethodHandler:
        """`handler` behind the guard and the call metrics; fabricd.v1 and A2A methods only."""
        if path.startswith("/lf.a2a.v1."):
            method = "A2AService/" + path.rsplit("/", 1)[1]  # not to be confused with fabricd's SendMessage
        elif path.startswith("/fabricd.v1."):
            method = path.rsplit("/", 1)[1]
        else:
            return handler  # health checks and reflection are open
        guard, observe, streams, intake = self._guard, self._observe, self.streams, self.intake
        view = visibility.for_agent(method)
        deserialize = handler.request_deserializer

        def parse(raw: bytes, context: grpc.aio.ServicerContext) -> object:
            """Parse here, not in gRPC, so a malformed request is INVALID_ARGUMENT, not UNKNOWN."""
            try:
                return deserialize(raw) if deserialize else raw
            except Exception as exc:  # protobuf's DecodeError and friends
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
            await errors.abort(context, revoked())

        async def refuse(context: grpc.aio.ServicerContext, started: float, identity: Identity | None,
                         exc: FabricError) -> NoReturn:
            context.set_code(errors.code_of(exc))
            finish(context, started, identity, True)
            await errors.abort(context, exc)

        async def admit(context: grpc.aio.ServicerContext, started: float) -> tuple[object, Identity]:
            """Identify the caller from the headers, then read, parse and admit the request; or end the call.

            The request is read only once the caller is identified, and an untrusted caller's read holds a
            reservation in the intake until its call is admitted or refused (fabricd.rpc.intake).
            """
            identity = reservation = raw = request = None
            try:
                identity = guard.identify(context)
                reservation = await intake.reserve(identity)
                raw = await context.read()
                if raw is grpc.aio.EOF:  # type: ignore[attr-defined]  # there at run time; grpc-stubs name only its type
                    raise InvalidArgument(f"the {method} call carried no request message",
                                          reason="MALFORMED_REQUEST")
                intake.read(len(raw))
                if reservation is not None:
                    reservation.shrink(len(raw))
                request = parse(raw, context)
                return request, await guard.admit(method, request, context, identity)
            except FabricError as exc:
                refusal = exc.with_traceback(None)  # its frames hold the request: see _let_go
            finally:
                if reservation is not None:
                    reservation.release()
            raw = request = None
            intake.ended()
            await refuse(context, started, identity, refusal)
            raise refusal  # refuse raises; this is for the type checker

        if handler.unary_unary is not None:
            inner = handler.unary_unary

            written = method in delivery.WRITTEN

            async def unary(_requests, context):  # noqa: ANN001, ANN202 - read in admit, see there
                started = time.perf_counter()
                request, identity = await admit(context, started)
                call = guard.track(identity)
                lost = delivery.watch() if written else None
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
                except BaseException as exc:
                    finish(context, started, identity, True)
                    request = None
                    _let_go(exc)
                    raise
                finally:
                    guard.untrack(identity, call)
                    intake.ended()
                if view is not None and not identity.trusted:
                    response = view(response, identity.agent_id)
                if lost is None:
                    finish(context, started, identity, False)
                    return response
                try:
                    await streams.write(context, response, response.ByteSize())
                except FabricError as exc:  # stalled: the caller stopped reading
                    for callback in lost:
                        callback()
                    await refuse(context, started, identity, exc)
                except BaseException:
                    for callback in lost:
                        callback()
                    finish(context, started, identity, True)
                    raise
                finish(context, started, identity, False)
                return None

            serialize = _bytes_through(handler.response_serializer)
            if written:  # the answer is written in `unary`, under flow control (fabricd.rpc.delivery)
                return grpc.stream_stream_rpc_method_handler(unary, None, serialize)
            # Served as a client stream of one message: gRPC reads a unary request before the handler runs,
            # a streamed one when the handler asks (see admit). On the wire the two are the same call.
            return grpc.stream_unary_rpc_method_handler(unary, None, serialize)
        async def pump(items, context, identity: Identity, slot: str, started: float) -> None:  # noqa: ANN001 - grpc's request iterator and context
            """Write each response of a servicer's stream under flow control; end it as the rules say."""
            call = guard.track(identity)
            failed = True
            try:
                while True:
                    try:
                        item = await items.__anext__()
                    except StopAsyncIteration:
                        break
                    if type(item) is bytes:  # a response written already (Subscribe's batches)
                        await streams.write(context, item, len(item))
                        continue
                    if view is not None and not identity.trusted:
                        item = view(item, identity.agent_id)
                    await streams.write(context, item, item.ByteSize())
                failed = False
            except FabricError as exc:  # stalled: the client stopped reading
                await items.aclose()
                context.set_code(errors.code_of(exc))
                await errors.abort(context, exc)
            except asyncio.CancelledError:
                if call is None or not call.revoked:
                    raise
                await items.aclose()
                await ended_by_revocation(context)
            finally:
                # A caller that leaves cancels us in streams.write, with the servicer's generator suspended
                # at its yield: close it now, so its waits and counts end with the call (left to the
                # garbage collector, a WatchDirectoryData stayed open for half a minute on a loaded machine).
                await items.aclose()
                streams.close(slot)
                guard.untrack(identity, call)
                finish(context, started, identity, failed)

        if handler.unary_stream is not None:
            inner_stream = handler.unary_stream

            async def stream(_requests, context):  # noqa: ANN001, ANN202 - a grpc method handler's
                # A coroutine, not an async generator: it writes each response itself, so the wait for the
                # transport to take it (and a revocation's cancel during that wait) happens in our code.
                started = time.perf_counter()
                request, identity = await admit(context, started)
                try:
                    slot = streams.open(identity)
                except FabricError as exc:
                    await refuse(context, started, identity, exc)
                # The headers go out now, not with the first response: a client waiting for its stream to be
                # open (wait_for_connection) knows at once, not at the first mail or keepalive (15 s later).
                await context.send_initial_metadata(())
                items = inner_stream(request, context).__aiter__()  # type: ignore[attr-defined]  # an aio servicer's stream is an async generator; grpc-stubs type every handler as sync
                await pump(items, context, identity, slot, started)

            return grpc.stream_stream_rpc_method_handler(stream, None, _bytes_through(handler.response_serializer))
        if handler.stream_stream is not None:
            inner_bidi = handler.stream_stream

            async def frames(first: bytes, requests, context, identity: Identity):  # noqa: ANN001, ANN202 - a grpc method handler's
                """The request frames, parsed and checked: a refused one reaches the servicer as Refused."""
                raw = first
                while True:
                    frame = parse(raw, context)  # malformed: the stream ends INVALID_ARGUMENT
                    try:
                        await guard.check_frame(method, frame, identity)
                    except FabricError as exc:
                        yield Refused(frame, exc)
                    else:
                        yield frame
                    following = await anext(requests, None)
                    if following is None:
                        return
                    raw = following

            async def bidi(requests, context):  # noqa: ANN001, ANN202 - a grpc method handler's
                started = time.perf_counter()
                # Admitted at its first frame: a refusal sent before the client's first write lands makes
                # gRPC's client fail that write, and the call, INTERNAL instead of with the refusal.
                requests = requests.__aiter__()
                first = await anext(requests, None)
                if first is None:
                    return
                identity = None
                try:
                    identity = guard.open_stream(method, context)
                    slot = streams.open(identity)
                except FabricError as exc:
                    await refuse(context, started, identity, exc)
                # The headers go out now, not with the first response: a client waiting for its stream to be
                # open (wait_for_connection) knows at once, not at the first mail or keepalive (15 s later).
                await context.send_initial_metadata(())
                items = inner_bidi(frames(first, requests, context, identity), context).__aiter__()  # type: ignore[attr-defined]  # as inner_stream's above
                await pump(items, context, identity, slot, started)

            return grpc.stream_stream_rpc_method_handler(bidi, None, _bytes_through(handler.response_serializer))
        return handler


def _let_go(exc: BaseException) -> None:
    """Clear the locals of the frames an ending call's exception carries.

    An aborted call's exception is kept by gRPC's call state, which the servicer context (a local of those
    frames) refers to: a cycle that holds the request until the garbage collector's next full pass, which
    the daemon's high collection threshold puts far off. A burst of large refused requests stayed in memory.
    """
    traceback.clear_frames(exc.__traceback__)
    cause = exc.__context__
    if cause is not None:
        traceback.clear_frames(cause.__traceback__)


def _bytes_through(serialize: Callable[[object], bytes] | None) -> Callable[[object], bytes] | None:
    """A response serializer that writes a response already in bytes as it is.

    A servicer may return or yield the bytes of its response message (fabricd.rpc.mailbox's sends and
    Subscribe do, built from stored encodings), so it is not parsed only to be written again; a method with
    an agent view (fabricd.rpc.visibility) answers with messages."""
    if serialize is None:
        return None

    def write(response: object) -> bytes:
        return response if type(response) is bytes else serialize(response)

    return write
