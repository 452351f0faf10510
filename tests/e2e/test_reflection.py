"""Server reflection: grpc.reflection.v1 and v1alpha, method symbols, and open to callers without a token."""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_reflection.v1alpha import reflection_pb2
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase

from fabricd.v1 import mailbox_service_pb2, mailbox_service_pb2_grpc

FABRICD_SERVICES = {
    "fabricd.v1.AdminService", "fabricd.v1.AgentDirectoryService", "fabricd.v1.DirectoryService",
    "fabricd.v1.MailboxService", "fabricd.v1.OutboxService", "fabricd.v1.RendezvousService",
}


class _V1Stub:
    """ServerReflectionStub for grpc.reflection.v1: v1's messages are v1alpha's, field for field, so
    v1alpha's classes write exactly the bytes a v1 client (grpcurl, buf curl, grpc-java) sends."""

    def __init__(self, channel: grpc.Channel) -> None:
        self.ServerReflectionInfo = channel.stream_stream(  # the stub's method name
            "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
            request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
            response_deserializer=reflection_pb2.ServerReflectionResponse.FromString)


def reflection_client(channel: grpc.Channel, version: str) -> ProtoReflectionDescriptorDatabase:
    database = ProtoReflectionDescriptorDatabase(channel)
    if version == "v1":
        database._stub = _V1Stub(channel)  # grpcio-reflection's client speaks v1alpha only
    return database


@pytest.fixture
def tcp_target(make_daemon) -> str:
    """A daemon on a loopback TCP listener, where tokens are required (auth.tokens = auto)."""
    daemon = make_daemon("--listen", "127.0.0.1:0").start()
    return "127.0.0.1:" + daemon.wait_for("127.0.0.1:").strip().rsplit(":", 1)[1]


@pytest.fixture
def channel(tcp_target: str) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(tcp_target) as channel:
        yield channel


@pytest.mark.parametrize("version", ["v1", "v1alpha"])
def test_reflection_lists_every_service_under_both_versions(channel: grpc.Channel, version: str) -> None:
    services = set(reflection_client(channel, version).get_services())
    assert services >= FABRICD_SERVICES | {"grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection",
                                           "grpc.reflection.v1alpha.ServerReflection"}


@pytest.mark.parametrize("version", ["v1", "v1alpha"])
def test_a_method_symbol_resolves_to_the_file_that_declares_it(channel: grpc.Channel, version: str) -> None:
    database = reflection_client(channel, version)
    found = database.FindFileContainingSymbol("fabricd.v1.RendezvousService.Ask")
    assert found.name == "fabricd/v1/rendezvous_service.proto"
    pool = descriptor_pool.DescriptorPool(database)
    ask = pool.FindMethodByName("fabricd.v1.RendezvousService.Ask")
    assert ask.input_type.full_name == "fabricd.v1.AskRequest"
    with pytest.raises(KeyError):
        reflection_client(channel, version).FindFileContainingSymbol("fabricd.v1.RendezvousService.NoSuchMethod")


@pytest.mark.parametrize("version", ["v1", "v1alpha"])
def test_every_fabricd_method_and_its_imports_are_described(channel: grpc.Channel, version: str) -> None:
    pool = descriptor_pool.DescriptorPool(reflection_client(channel, version))
    for name in sorted(FABRICD_SERVICES):
        service = pool.FindServiceByName(name)
        assert service.methods, name
        for method in service.methods:
            # Each RPC has its own request and response message (AIP-136), resolved with its fields.
            assert (method.input_type.name, method.output_type.name) == (f"{method.name}Request",
                                                                       f"{method.name}Response"), method.full_name
    # ErrorInfo's file is in the pool too, so a client can decode error details it was never compiled with.
    assert pool.FindFileByName("google/rpc/status.proto").package == "google.rpc"


def test_the_v1_reflection_service_describes_itself_like_v1alpha(channel: grpc.Channel) -> None:
    v1 = reflection_client(channel, "v1").FindFileContainingSymbol("grpc.reflection.v1.ServerReflection")
    alpha = descriptor_pb2.FileDescriptorProto()
    reflection_pb2.DESCRIPTOR.CopyToProto(alpha)
    assert (v1.name, v1.package) == ("grpc/reflection/v1/reflection.proto", "grpc.reflection.v1")

    def shape(file: descriptor_pb2.FileDescriptorProto) -> list[tuple[str, list[tuple]]]:
        return [(m.name, [(f.name, f.number, f.type, f.type_name.rsplit(".", 1)[-1]) for f in m.field])
                for m in file.message_type]

    assert shape(v1) == shape(alpha)
    assert [m.name for m in v1.service[0].method] == ["ServerReflectionInfo"]


def test_reflection_needs_no_token_where_fabricd_calls_do(channel: grpc.Channel) -> None:
    """The schema is the published protos: reflection is public, like health; mail is not."""
    assert set(reflection_client(channel, "v1").get_services()) >= FABRICD_SERVICES
    stub = mailbox_service_pb2_grpc.MailboxServiceStub(channel)
    with pytest.raises(grpc.RpcError) as refused:
        stub.PeekMessages(mailbox_service_pb2.PeekMessagesRequest(agent_id="alice"))
    assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
