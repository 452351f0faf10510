"""Arbitrary input to every RPC gets a defined status, never UNKNOWN or INTERNAL, and a refusal writes nothing.

Requests are generated from the protobuf descriptors by hypothesis: any text
(empty, 257 characters, control characters, very long), any bytes, numbers
and unknown enum values, nested messages, maps and repeated fields. Raw
malformed protobuf (bad UTF-8, corrupt wire format) and raw garbage or
truncated HTTP/2 frames on the socket are tried too.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import tempfile

import grpc
import pytest
from google.protobuf.descriptor import FieldDescriptor
from grpc_health.v1 import health_pb2, health_pb2_grpc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fabricd.a2a import a2a_pb2_grpc
from fabricd.v1 import admin_service_pb2 as adm
from fabricd.v1 import (
    admin_service_pb2_grpc,
    agent_directory_service_pb2_grpc,
    channel_service_pb2_grpc,
    directory_service_pb2_grpc,
    lease_service_pb2_grpc,
    mailbox_service_pb2_grpc,
    outbox_service_pb2_grpc,
    rendezvous_service_pb2_grpc,
)
from tests import pgfixtures
from tests.e2e.test_security import CALLS

DEFINED = {grpc.StatusCode.OK, grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND,
           grpc.StatusCode.ALREADY_EXISTS, grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.RESOURCE_EXHAUSTED,
           grpc.StatusCode.ABORTED, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.PERMISSION_DENIED,
           grpc.StatusCode.UNAUTHENTICATED}
STUBS = {"directory": directory_service_pb2_grpc.DirectoryServiceStub,
         "mailbox": mailbox_service_pb2_grpc.MailboxServiceStub,
         "rendezvous": rendezvous_service_pb2_grpc.RendezvousServiceStub,
         "outbox": outbox_service_pb2_grpc.OutboxServiceStub,
         "agent_directory": agent_directory_service_pb2_grpc.AgentDirectoryServiceStub,
         "admin": admin_service_pb2_grpc.AdminServiceStub,
         "lease": lease_service_pb2_grpc.LeaseServiceStub,
         "channels": channel_service_pb2_grpc.ChannelServiceStub,
         "a2a": a2a_pb2_grpc.A2AServiceStub}
# Calls that may wait for an answer: the generated request gets a short deadline.
WAITING = {"Ask", "AwaitReply", "a2a.SendMessage", "lease.Acquire"}

TEXT = st.one_of(
    st.text(max_size=40),
    st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x1F), max_size=5),
    st.sampled_from(["", "x" * 256, "x" * 257, "é" * 300, "a/b", "alice", "bob", " ", "🙂" * 70]),
    st.text(min_size=2000, max_size=5000),
)
INTS = {FieldDescriptor.TYPE_INT32: st.integers(-(2**31), 2**31 - 1),
        FieldDescriptor.TYPE_UINT32: st.integers(0, 2**32 - 1),
        FieldDescriptor.TYPE_UINT64: st.integers(0, 2**64 - 1),
        FieldDescriptor.TYPE_INT64: st.integers(-(2**63), 2**63 - 1),
        FieldDescriptor.TYPE_ENUM: st.integers(-3, 12)}


def scalar(field: FieldDescriptor) -> st.SearchStrategy:
    if field.type == FieldDescriptor.TYPE_STRING:
        return TEXT
    if field.type == FieldDescriptor.TYPE_BYTES:
        return st.one_of(st.binary(max_size=64), st.just(b"\0" * (1 << 20 + 1)))
    if field.type == FieldDescriptor.TYPE_BOOL:
        return st.booleans()
    return INTS[field.type]


def message(descriptor, depth: int = 0) -> st.SearchStrategy:
    """A strategy for dicts of field values that build one `descriptor` message."""
    fields = {}
    for field in descriptor.fields:
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            if field.message_type.fields_by_name["value"].message_type is not None:
                continue  # a map of messages (google.protobuf.Struct in A2A): not generated
            value = st.dictionaries(TEXT, TEXT, max_size=3)
        elif field.message_type is not None:
            if depth >= 2 or field.message_type.full_name.startswith("google.protobuf.Any"):
                continue
            inner = message(field.message_type, depth + 1)
            value = st.lists(inner, max_size=3) if field.is_repeated else inner
        else:
            value = st.lists(scalar(field), max_size=4) if field.is_repeated else scalar(field)
        fields[field.name] = value
    return st.fixed_dictionaries({}, optional=fields)


def build(cls, values: dict):  # noqa: ANN201
    out = cls()
    for name, value in values.items():
        field = out.DESCRIPTOR.fields_by_name[name]
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            getattr(out, name).update(value)
        elif field.message_type is not None:
            if field.is_repeated:
                for item in value:
                    getattr(out, name).append(build(field.message_type._concrete_class, item))
            else:
                getattr(out, name).CopyFrom(build(field.message_type._concrete_class, value))
        elif field.is_repeated:
            getattr(out, name).extend(value)
        else:
            setattr(out, name, value)
    return out


@pytest.fixture(scope="module", params=["lmdb", "postgres"])
def target(request, tmp_path_factory):  # noqa: ANN201
    from tests.conftest import Daemon

    sock_dir = tmp_path_factory.mktemp("s")
    short = tempfile.mkdtemp(prefix="fdh-", dir="/tmp")  # unix socket paths must stay short
    store: tuple[str, ...] = ()
    database = None
    if request.param == "postgres":  # a database of the session's cluster, for this module's daemon
        url = request.getfixturevalue("pg_cluster").create_database(f"badinput{os.getpid()}",
                                                                    template=pgfixtures.TEMPLATE)
        store = ("--store", url)
        database = Contents(url)
    daemon = Daemon(str(sock_dir / "data"), short, *store, "--no-outbox-loop", "--keepalive", "0.05").start()
    daemon.contents = database
    yield daemon
    daemon.stop()
    if database is not None:
        database.close()
    shutil.rmtree(short, ignore_errors=True)


# One query that digests every row of every table of the schema, built from the catalogue.
_DIGEST_QUERY = """
    SELECT string_agg(format('SELECT %L || coalesce(md5(string_agg(t::text, %L ORDER BY t::text)), %L) FROM %I t',
                             table_name, ',', '', table_name), ' UNION ALL ' ORDER BY table_name)
    FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'"""


class Contents:
    """A digest of every row of every table of a database: what a refused call must leave unchanged.

    On PostgreSQL the daemon's own housekeeping commits transactions (that change nothing) at any
    moment, so its `writes` count cannot tell a refusal's write from them; the rows can.
    """

    def __init__(self, url: str) -> None:
        import asyncpg

        self._loop = asyncio.new_event_loop()
        self._conn = self._loop.run_until_complete(asyncpg.connect(url))
        self._sql = self._loop.run_until_complete(self._conn.fetchval(_DIGEST_QUERY))

    def digest(self) -> str:
        return "".join(r[0] for r in self._loop.run_until_complete(self._conn.fetch(self._sql)))

    def close(self) -> None:
        self._loop.run_until_complete(self._conn.close())
        self._loop.close()


def writes(channel: grpc.Channel, daemon) -> int | str:
    """What a refused call must not change: the database's rows on PostgreSQL, the commit count on LMDB."""
    if daemon.contents is not None:
        return daemon.contents.digest()
    return adm_stub(channel).GetStatus(adm.GetStatusRequest()).writes


def adm_stub(channel: grpc.Channel) -> admin_service_pb2_grpc.AdminServiceStub:
    return admin_service_pb2_grpc.AdminServiceStub(channel)


def call_code(channel: grpc.Channel, call, request) -> grpc.StatusCode:
    rpc = getattr(STUBS[call.stub](channel), call.method)
    try:
        if call.stream:
            stream = rpc(request, timeout=5)
            next(stream)
            stream.cancel()
        else:
            waits = call.method in WAITING or f"{call.stub}.{call.method}" in WAITING
            rpc(request, timeout=0.3 if waits else 10)
    except grpc.RpcError as exc:
        return exc.code()
    return grpc.StatusCode.OK


@pytest.mark.parametrize("call", CALLS, ids=[f"{c.stub}.{c.method}" for c in CALLS])
def test_arbitrary_requests_get_defined_statuses_and_refusals_write_nothing(target, call, soak) -> None:
    request_cls = type(call.request({"ticket": "t"}))
    defined = DEFINED
    with grpc.insecure_channel(target.target) as channel:

        @settings(max_examples=200 if soak else 25, deadline=None, derandomize=True,
                  suppress_health_check=list(HealthCheck))
        @given(message(request_cls.DESCRIPTOR))
        def check(values: dict) -> None:
            request = build(request_cls, values)
            before = writes(channel, target)
            code = call_code(channel, call, request)
            assert code in defined, (call.method, code, request)
            if code not in (grpc.StatusCode.OK, grpc.StatusCode.DEADLINE_EXCEEDED):
                assert writes(channel, target) == before, (call.method, code, "a refused call wrote")

        check()


@pytest.mark.parametrize("raw", [b"\x0a\x02\xff\xfe", b"\xff\xff\xff", b"\x0a\x10ab", b"\x08" + b"\xff" * 11])
def test_malformed_protobuf_is_invalid_argument(target, raw) -> None:
    with grpc.insecure_channel(target.target) as channel:
        for method in ("/fabricd.v1.MailboxService/SendMessage", "/fabricd.v1.MailboxService/Subscribe",
                       "/fabricd.v1.DirectoryService/Register"):
            if method.endswith("Subscribe"):
                stream = channel.unary_stream(method)(raw, timeout=5)
                with pytest.raises(grpc.RpcError) as err:
                    next(stream)
            else:
                with pytest.raises(grpc.RpcError) as err:
                    channel.unary_unary(method)(raw, timeout=5)
            assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT, (method, err.value.details())


GARBAGE = [
    b"",
    os.urandom(4096),
    b"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
    b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",  # the preface and nothing else
    b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x12\x04\x00\x00\x00\x00\x00",  # a truncated SETTINGS frame
    b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00" + b"\xff" * 64,
    b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x40\x00\x01\x05\x00\x00\x00\x01" + os.urandom(100),  # HEADERS cut
]


@pytest.mark.parametrize("payload", GARBAGE, ids=[f"garbage-{i}" for i in range(len(GARBAGE))])
def test_garbage_on_the_socket_does_not_hurt_the_daemon(target, payload) -> None:
    for _ in range(5):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(5)
            sock.connect(target.socket)
            try:
                sock.sendall(payload)
                sock.shutdown(socket.SHUT_WR)
                sock.recv(1024)
            except OSError:
                pass  # the daemon may close on us: that is fine, dying is not
    assert target.proc.poll() is None
    with grpc.insecure_channel(target.target) as channel:
        status = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10).status
        assert status == health_pb2.HealthCheckResponse.SERVING
