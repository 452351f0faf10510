"""One function wires the gRPC server: options, services, health and reflection."""

from __future__ import annotations

import os
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from fabricd.a2a import a2a_pb2, a2a_pb2_grpc
from fabricd.core.agentdir import AgentDirectory
from fabricd.core.channel_service import Channels
from fabricd.core.directory import Directory
from fabricd.core.lease_service import Leases
from fabricd.core.mailbox import Mailboxes
from fabricd.core.outbox import Outbox
from fabricd.core.rendezvous import Rendezvous
from fabricd.core.tokens import Tokens
from fabricd.core.wake import Wakes
from fabricd.rpc import reflection
from fabricd.rpc.a2a import A2AServicer, Endpoint
from fabricd.rpc.admin import AdminServicer, Status
from fabricd.rpc.agentdir import AgentDirectoryServicer
from fabricd.rpc.auth import Guard
from fabricd.rpc.channels import ChannelServicer
from fabricd.rpc.directory import DirectoryServicer
from fabricd.rpc.intake import Intake
from fabricd.rpc.interceptor import GuardInterceptor, Load
from fabricd.rpc.leases import LeaseServicer
from fabricd.rpc.mailbox import MailboxServicer
from fabricd.rpc.outbox import OutboxServicer
from fabricd.rpc.rendezvous import RendezvousServicer
from fabricd.rpc.streams import Streams
from fabricd.v1 import (
    admin_service_pb2,
    admin_service_pb2_grpc,
    agent_directory_service_pb2,
    agent_directory_service_pb2_grpc,
    channel_service_pb2,
    channel_service_pb2_grpc,
    directory_service_pb2,
    directory_service_pb2_grpc,
    lease_service_pb2,
    lease_service_pb2_grpc,
    mailbox_service_pb2,
    mailbox_service_pb2_grpc,
    outbox_service_pb2,
    outbox_service_pb2_grpc,
    rendezvous_service_pb2,
    rendezvous_service_pb2_grpc,
)

SERVICE_NAMES = tuple(
    module.DESCRIPTOR.services_by_name[name].full_name
    for module, name in (
        (directory_service_pb2, "DirectoryService"),
        (mailbox_service_pb2, "MailboxService"),
        (rendezvous_service_pb2, "RendezvousService"),
        (outbox_service_pb2, "OutboxService"),
        (agent_directory_service_pb2, "AgentDirectoryService"),
        (admin_service_pb2, "AdminService"),
        (channel_service_pb2, "ChannelService"),
        (lease_service_pb2, "LeaseService"),
    )
)

A2A_SERVICE = a2a_pb2.DESCRIPTOR.services_by_name["A2AService"].full_name

HealthServicer: Any = health.aio.HealthServicer  # type: ignore[attr-defined]  # grpc_health's stubs lack .aio (so: Any)


@dataclass(slots=True)
class Core:
    """The domain services the servicers call."""

    directory: Directory
    mailboxes: Mailboxes
    rendezvous: Rendezvous
    outbox: Outbox
    agent_directory: AgentDirectory
    status: Callable[[], Awaitable[Status]]
    tokens: Tokens
    wakes: Wakes
    leases: Leases
    channels: Channels | None = None
    """None in a server built without them (tests that wire their own core)."""
    backup: Callable[[int], None] | None = None
    """Writes a consistent copy of the store to a file descriptor (blocking)."""
    backup_dir: str = ""
    """Where the backup is staged: an unlinked file on the store's own disk."""
    a2a: Endpoint = field(default_factory=Endpoint)
    """What A2A agent cards say about the listeners; the daemon fills it once they are bound."""


class ListenError(Exception):
    """A listen address is malformed or cannot be bound."""


@dataclass(frozen=True, slots=True)
class Tls:
    """Server credentials for TCP listeners, read from PEM files."""

    credentials: grpc.ServerCredentials

    @classmethod
    def load(cls, config) -> Tls:  # noqa: ANN001 - a daemon TlsConfig
        def read(path: str) -> bytes:
            try:
                with open(path, "rb") as f:
                    return f.read()
            except OSError as exc:
                raise ListenError(f"cannot read {path}: {exc.strerror}") from None

        if config.client_ca and not config.require_client_cert:
            # grpcio's Python server can only require and verify client certificates or never ask for
            # them (GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE): a CA alone would silently ignore them.
            raise ListenError("tls.client_ca is set without tls.require_client_cert: the daemon cannot ask for an "
                              "optional client certificate, so certificates would be ignored. Set "
                              "tls.require_client_cert = true (--tls-require-client-cert) to identify clients by "
                              "certificate, or remove tls.client_ca and give clients tokens")
        if config.require_client_cert and not config.client_ca:
            raise ListenError("tls.require_client_cert is set without tls.client_ca: set tls.client_ca "
                              "(--tls-client-ca) to the PEM CA that signs the client certificates")
        ca = read(config.client_ca) if config.client_ca else None
        credentials = grpc.ssl_server_credentials(
            [(read(config.key), read(config.cert))], root_certificates=ca,
            require_client_auth=bool(ca))
        return cls(credentials)


class _Unregistered:
    """The server as the generated `add_*_to_server` functions see it: each service's handlers go in as a
    generic handler only, never as registered methods.

    grpc.aio (grpcio 1.85) waits for its next call with `asyncio.wait` over one pending future per registered
    method, on every call it accepts (`_server_main_loop` in grpc's aio/server.pyx.pxi): with fabricd's ~80
    methods that is ~80 done-callbacks added and removed a call, a fifth of the daemon's CPU for a unary send
    (scripts/bench --only unary: 64 callers 2,250 -> 2,700 sends a second, daemon CPU a call 0.42 -> 0.33 ms).
    Unregistered, every method waits on one future; the method is found by a dictionary lookup per service,
    once per method (the guard's interceptor keeps the handler it got).
    """

    __slots__ = ("_server",)

    def __init__(self, server: grpc.aio.Server) -> None:
        self._server = server

    def add_generic_rpc_handlers(self, handlers: tuple[grpc.GenericRpcHandler, ...]) -> None:
        self._server.add_generic_rpc_handlers(handlers)

    def add_registered_method_handlers(self, _service: str, _handlers: dict[str, grpc.RpcMethodHandler]) -> None:
        """Left out on purpose: the generic handler added beside them serves the same methods."""


def build_server(core: Core, *, max_message_bytes: int, guard: Guard | None = None,
                 observe: Callable[[str, str, float], None] | None = None, streams: Streams | None = None,
                 load: Load | None = None) -> tuple[grpc.aio.Server, Any]:
    """The server with every service; `streams` (flow control and its counts) is made here when not given."""
    # A batch of messages may be up to max_batch * max_message_bytes; cap the frame at 64 MiB
    # and let the core give the precise error for anything it can see.
    max_frame = max(64 << 20, 4 * max_message_bytes)
    intake = Intake(max_frame, lambda: core.mailboxes.limits.max_intake_bytes)
    server = grpc.aio.server(
        interceptors=[GuardInterceptor(guard, observe, streams or Streams(lambda: core.mailboxes.limits), load,
                                       intake)]
        if guard is not None
        else None,
        options=[
            ("grpc.max_receive_message_length", max_frame),
            ("grpc.max_send_message_length", max_frame),
            ("grpc.keepalive_time_ms", 30_000),
            ("grpc.keepalive_permit_without_calls", 1),
            ("grpc.http2.min_ping_interval_without_data_ms", 10_000),
            ("grpc.so_reuseport", 0),
            # BDP probing grows every stream's window, and gRPC then reads request bodies ahead of the
            # handler: what fabricd.rpc.intake bounds (one identity's reads, one at a time) it did not see.
            ("grpc.http2.bdp_probe", 0),
        ]
    )
    services = _Unregistered(server)
    directory_service_pb2_grpc.add_DirectoryServiceServicer_to_server(DirectoryServicer(core.directory, core.wakes),
                                                                      services)
    mailbox_service_pb2_grpc.add_MailboxServiceServicer_to_server(MailboxServicer(core.mailboxes, core.rendezvous, load), services)
    rendezvous_service_pb2_grpc.add_RendezvousServiceServicer_to_server(RendezvousServicer(core.rendezvous, load), services)
    outbox_service_pb2_grpc.add_OutboxServiceServicer_to_server(OutboxServicer(core.outbox), services)
    agent_directory_service_pb2_grpc.add_AgentDirectoryServiceServicer_to_server(
        AgentDirectoryServicer(core.agent_directory), services)
    admin_service_pb2_grpc.add_AdminServiceServicer_to_server(AdminServicer(core.status, core.tokens, core.backup, core.backup_dir), services)
    if core.channels is not None:
        channel_service_pb2_grpc.add_ChannelServiceServicer_to_server(ChannelServicer(core.channels), services)
    lease_service_pb2_grpc.add_LeaseServiceServicer_to_server(LeaseServicer(core.leases), services)
    a2a_pb2_grpc.add_A2AServiceServicer_to_server(A2AServicer(core.rendezvous, core.directory, core.a2a), services)
    health_servicer = HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, services)
    reflection.enable(server, (*SERVICE_NAMES, A2A_SERVICE, health.SERVICE_NAME))
    return server, health_servicer


async def set_serving(health_servicer: Any, serving: bool) -> None:
    status = health_pb2.HealthCheckResponse.SERVING if serving else health_pb2.HealthCheckResponse.NOT_SERVING
    for name in ("", *SERVICE_NAMES, A2A_SERVICE):
        await health_servicer.set(name, status)


LOOPBACK = ("127.", "localhost", "[::1]", "::1")


def bind(server: grpc.aio.Server, address: str, tls: Tls | None = None) -> str:
    """Bind `unix:PATH` or `HOST:PORT`; return the address as bound (the real port for port 0).

    TCP listeners use TLS when it is configured; one beyond the loopback without TLS is refused.
    """
    if address.startswith("unix:"):
        path = address[len("unix:") :]
        if path.startswith("//"):
            path = path[2:]
        if not path:
            raise ListenError(f"{address!r}: a unix address needs a path, like unix:/run/fabricd/fabricd.sock")
        _remove_stale_socket(path)
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        if server.add_insecure_port(f"unix:{path}") == 0:
            raise ListenError(f"cannot listen on {address}")
        return f"unix:{path}"
    host, sep, port = address.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise ListenError(f"{address!r}: listen on unix:PATH or HOST:PORT (for example 127.0.0.1:7077)")
    if tls is None and not host.startswith(LOOPBACK):
        raise ListenError(f"listening on {address} without TLS would expose every mailbox to the network; "
                          "set tls.cert and tls.key (--tls-cert, --tls-key), or listen on 127.0.0.1")
    try:
        bound = server.add_secure_port(address, tls.credentials) if tls else server.add_insecure_port(address)
    except RuntimeError as exc:
        raise ListenError(f"cannot listen on {address}: {exc}") from exc
    if bound == 0:
        raise ListenError(f"cannot listen on {address}: the address is in use or not local")
    return f"{host}:{bound}"


def _remove_stale_socket(path: str) -> None:
    """Remove a socket file left by a dead daemon; refuse one a live daemon still answers on."""
    if not os.path.exists(path):
        return
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(path)
    except OSError:
        os.unlink(path)
        return
    finally:
        probe.close()
    raise ListenError(f"{path} is in use by a running server; stop it or listen elsewhere")
