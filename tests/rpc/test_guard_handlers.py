"""The guard interceptor wraps each method's handler once, not on every call."""

from __future__ import annotations

from types import SimpleNamespace

import grpc

from fabricd.rpc.auth import Guard
from fabricd.rpc.interceptor import GuardInterceptor


def interceptor_and_lookups():  # noqa: ANN201
    """A guard interceptor, the lookups its continuation saw, the continuation, and the bare handler."""
    inner = grpc.unary_unary_rpc_method_handler(lambda request, context: request)
    lookups: list[str] = []

    async def continuation(details):  # noqa: ANN001, ANN202 - gRPC's handler lookup
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
    assert first is not inner and first.unary_unary is not None  # wrapped: the guard runs before the servicer
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
