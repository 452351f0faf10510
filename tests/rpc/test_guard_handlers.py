"""The guard interceptor wraps each method's handler once, not on every call."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import grpc

from fabricd.rpc.auth import Guard, Identity
from fabricd.rpc.interceptor import GuardInterceptor


def interceptor_and_lookups():  # noqa: ANN201
    """A guard interceptor, the lookups its continuation saw, the continuation, and the bare handler."""
    inner = grpc.unary_unary_rpc_method_handler(lambda request, context: request)
    lookups: list[str] = []

    async def continuation(details):  # noqa: ANN202 - gRPC's handler lookup
        lookups.append(details.method)
        return None if details.method.endswith("/Nope") else inner

    tokens = SimpleNamespace(on_revoke=[])  # no call is admitted here: the guard needs no real tokens
    interceptor = GuardInterceptor(Guard(tokens=tokens))  # type: ignore[arg-type]
    return interceptor, lookups, continuation, inner


async def test_each_fabricd_method_is_looked_up_and_wrapped_once() -> None:
    interceptor, lookups, continuation, inner = interceptor_and_lookups()
    send = SimpleNamespace(method="/fabricd.v1.MailboxService/SendMessage")
    peek = SimpleNamespace(method="/fabricd.v1.MailboxService/PeekMessages")
    first = await interceptor.intercept_service(continuation, send)
    assert first is not inner and first.stream_unary is not None  # wrapped: the guard runs before the request is read
    assert await interceptor.intercept_service(continuation, send) is first
    assert await interceptor.intercept_service(continuation, peek) is not first
    assert lookups == [send.method, peek.method]


async def test_open_services_pass_unwrapped_and_unknown_methods_are_not_remembered() -> None:
    interceptor, lookups, continuation, inner = interceptor_and_lookups()
    health = SimpleNamespace(method="/grpc.health.v1.Health/Check")
    unknown = SimpleNamespace(method="/fabricd.v1.MailboxService/Nope")
    assert await interceptor.intercept_service(continuation, health) is inner
    assert await interceptor.intercept_service(continuation, health) is inner
    for _ in range(2):
        assert await interceptor.intercept_service(continuation, unknown) is None
    assert lookups == [health.method, unknown.method, unknown.method]


async def test_unary_calls_are_counted_from_arrival_until_their_task_ends_and_streams_are_not() -> None:
    interceptor, _, _, inner = interceptor_and_lookups()
    stream = grpc.unary_stream_rpc_method_handler(lambda request, context: iter(()))

    async def continuation(details):  # noqa: ANN202
        return stream if details.method.endswith("/Subscribe") else inner

    release = asyncio.Event()
    arrived: asyncio.Queue[str] = asyncio.Queue()

    async def call(method: str) -> None:  # as gRPC's task for one call: look the handler up, then serve
        await interceptor.intercept_service(continuation, SimpleNamespace(method=method))
        arrived.put_nowait(method)
        await release.wait()

    load = interceptor.load
    calls = [asyncio.create_task(call("/fabricd.v1.MailboxService/SendMessage")) for _ in range(3)]
    subscribe = asyncio.create_task(call("/fabricd.v1.MailboxService/Subscribe"))
    health = asyncio.create_task(call("/grpc.health.v1.Health/Check"))
    for _ in range(5):
        await arrived.get()
    assert load.unary_calls == 4  # three sends and the health check; the stream is not counted
    release.set()
    await asyncio.gather(*calls, subscribe, health)
    assert load.unary_calls == 0


async def test_an_interceptor_made_without_an_intake_admits_reads_up_to_the_default_limit() -> None:
    # Its default intake once asked the Limits class, not a Limits, for the limit: a slots dataclass's class
    # attribute is the field's descriptor, so the first untrusted read failed with a TypeError.
    interceptor, _, _, _ = interceptor_and_lookups()
    reservation = await interceptor.intake.reserve(Identity("agent", "a1", "t1"))
    assert reservation is not None and reservation.size > 0
    assert interceptor.intake.held == reservation.size
    reservation.release()
    assert interceptor.intake.held == 0
