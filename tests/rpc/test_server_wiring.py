"""build_server: every method served, and none as a grpc.aio registered method (see fabricd.rpc.server._Unregistered)."""

from __future__ import annotations

from typing import Any

import grpc
from google.protobuf import descriptor_pool
from grpc_health.v1 import health_pb2

from fabricd.a2a import a2a_pb2
from fabricd.daemon.app import App
from fabricd.rpc import server as rpc_server


class Spy:
    """A grpc.aio server that records how services were added to it."""

    def __init__(self, real: grpc.aio.Server) -> None:
        self.real = real
        self.generic: list[grpc.GenericRpcHandler] = []
        self.registered: list[str] = []

    def add_generic_rpc_handlers(self, handlers: tuple[grpc.GenericRpcHandler, ...]) -> None:
        self.generic.extend(handlers)
        self.real.add_generic_rpc_handlers(handlers)

    def add_registered_method_handlers(self, service: str, handlers: dict[str, Any]) -> None:
        self.registered.append(service)
        self.real.add_registered_method_handlers(service, handlers)


class Details(grpc.HandlerCallDetails):
    def __init__(self, method: str) -> None:
        self.method = method
        self.invocation_metadata = ()


async def test_every_method_is_served_by_a_generic_handler_and_none_is_registered(wired_app: App,
                                                                                     monkeypatch) -> None:
    spies: list[Spy] = []
    real_server = grpc.aio.server

    def spied(*args: Any, **kwargs: Any) -> Spy:
        spies.append(Spy(real_server(*args, **kwargs)))
        return spies[-1]

    monkeypatch.setattr(rpc_server.grpc.aio, "server", spied)
    rpc_server.build_server(wired_app.core, max_message_bytes=1 << 20)
    [spy] = spies
    # Registered methods would cost every call an asyncio.wait over one future per method.
    assert spy.registered == []
    services = [descriptor_pool.Default().FindServiceByName(name) for name in rpc_server.SERVICE_NAMES]
    services += [*a2a_pb2.DESCRIPTOR.services_by_name.values(), *health_pb2.DESCRIPTOR.services_by_name.values()]
    methods = [f"/{s.full_name}/{m.name}" for s in services for m in s.methods]
    assert len(methods) > 60
    unserved = [m for m in methods if not any(h.service(Details(m)) for h in spy.generic)]
    assert unserved == []
    assert not any(h.service(Details("/fabricd.v1.MailboxService/NoSuchMethod")) for h in spy.generic)
