"""Server reflection as grpc.reflection.v1 and v1alpha, with method names resolvable.

grpcio-reflection serves only v1alpha, and its symbol lookup asks the protobuf
pool, which knows messages, enums and services but not methods, so
`grpcurl describe fabricd.v1.RendezvousService.Ask` answered "Symbol not found".
This servicer answers both versions from one implementation: the two protos are
the same messages with the same field numbers under another package name, so
the v1alpha classes read and write v1's bytes exactly, and the v1 file
descriptor (so that clients can describe the reflection service itself) is the
v1alpha one renamed. Reflection is public, like health checking: the schema is
the published protos and tells nothing about any mailbox.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool
from google.protobuf.descriptor import FileDescriptor
from grpc_reflection.v1alpha import reflection_pb2 as pb

V1ALPHA = "grpc.reflection.v1alpha.ServerReflection"
V1 = "grpc.reflection.v1.ServerReflection"
SERVICE_NAMES = (V1, V1ALPHA)


def _register_v1(pool: descriptor_pool.DescriptorPool) -> None:
    """Add grpc/reflection/v1/reflection.proto to `pool`: v1alpha's file under v1's name and package."""
    try:
        pool.FindFileByName("grpc/reflection/v1/reflection.proto")
        return
    except KeyError:
        pass
    proto = descriptor_pb2.FileDescriptorProto()
    pb.DESCRIPTOR.CopyToProto(proto)
    proto.name = "grpc/reflection/v1/reflection.proto"
    proto.package = "grpc.reflection.v1"
    proto.options.java_package = "io.grpc.reflection.v1"
    proto.options.go_package = "google.golang.org/grpc/reflection/grpc_reflection_v1"
    for message in proto.message_type:
        for field in message.field:
            if field.type_name:  # set only on message fields: setting it on a string would mark it present
                field.type_name = field.type_name.replace(".grpc.reflection.v1alpha.", ".grpc.reflection.v1.")
    for method in proto.service[0].method:
        method.input_type = method.input_type.replace(".v1alpha.", ".v1.")
        method.output_type = method.output_type.replace(".v1alpha.", ".v1.")
    pool.AddSerializedFile(proto.SerializeToString())


class ReflectionServicer:
    """Answers ServerReflectionInfo for the named services from a descriptor pool."""

    def __init__(self, service_names: Iterable[str], pool: descriptor_pool.DescriptorPool | None = None) -> None:
        self._pool = pool or descriptor_pool.Default()
        _register_v1(self._pool)
        self._services = tuple(sorted({*service_names, *SERVICE_NAMES}))

    async def ServerReflectionInfo(  # the RPC's name
            self, requests: AsyncIterator[pb.ServerReflectionRequest], context: grpc.aio.ServicerContext,
    ) -> AsyncIterator[pb.ServerReflectionResponse]:
        async for request in requests:
            yield self.answer(request)

    def answer(self, request: pb.ServerReflectionRequest) -> pb.ServerReflectionResponse:
        which = request.WhichOneof("message_request")
        try:
            if which == "list_services":
                listing = pb.ListServiceResponse(service=[pb.ServiceResponse(name=n) for n in self._services])
                return pb.ServerReflectionResponse(original_request=request, list_services_response=listing)
            if which == "file_by_filename":
                return self._files(request, self._pool.FindFileByName(request.file_by_filename))
            if which == "file_containing_symbol":
                return self._files(request, self._file_containing(request.file_containing_symbol))
            if which == "file_containing_extension":
                ask = request.file_containing_extension
                extension = self._pool.FindExtensionByNumber(self._pool.FindMessageTypeByName(ask.containing_type),
                                                             ask.extension_number)
                return self._files(request, extension.file)  # type: ignore[attr-defined]  # at run time; not in the stubs
            if which == "all_extension_numbers_of_type":
                message = self._pool.FindMessageTypeByName(request.all_extension_numbers_of_type)
                numbers = sorted(e.number for e in self._pool.FindAllExtensions(message))
                found = pb.ExtensionNumberResponse(base_type_name=message.full_name, extension_number=numbers)
                return pb.ServerReflectionResponse(original_request=request, all_extension_numbers_response=found)
        except KeyError:
            return _error(request, grpc.StatusCode.NOT_FOUND, "symbol not found")
        return _error(request, grpc.StatusCode.INVALID_ARGUMENT, "no request in message_request")

    def _file_containing(self, symbol: str) -> FileDescriptor:
        """The file declaring `symbol`: a type, a service, or (which the pool cannot find) a method."""
        try:
            return self._pool.FindFileContainingSymbol(symbol)
        except KeyError:
            service, _, method = symbol.rpartition(".")
            found = self._pool.FindServiceByName(service)  # KeyError: not found at all
            if method not in found.methods_by_name:
                raise
            return found.file

    @staticmethod
    def _files(request: pb.ServerReflectionRequest, file: FileDescriptor) -> pb.ServerReflectionResponse:
        """`file` and everything it imports, each once, as serialized FileDescriptorProtos."""
        seen: dict[str, FileDescriptor] = {}
        todo = [file]
        while todo:
            f = todo.pop()
            if f.name not in seen:
                seen[f.name] = f
                todo.extend(f.dependencies)
        protos = []
        for f in seen.values():
            proto = descriptor_pb2.FileDescriptorProto()
            f.CopyToProto(proto)
            protos.append(proto.SerializeToString())
        found = pb.FileDescriptorResponse(file_descriptor_proto=protos)
        return pb.ServerReflectionResponse(original_request=request, file_descriptor_response=found)


def _error(request: pb.ServerReflectionRequest, code: grpc.StatusCode, message: str) -> pb.ServerReflectionResponse:
    return pb.ServerReflectionResponse(original_request=request,
                                       error_response=pb.ErrorResponse(error_code=code.value[0], error_message=message))


def enable(server: grpc.aio.Server, service_names: Iterable[str]) -> None:
    """Serve reflection under both names on `server`, for `service_names` and itself."""
    servicer = ReflectionServicer(service_names)
    method = grpc.stream_stream_rpc_method_handler(
        servicer.ServerReflectionInfo,
        request_deserializer=pb.ServerReflectionRequest.FromString,
        response_serializer=pb.ServerReflectionResponse.SerializeToString,
    )
    server.add_generic_rpc_handlers(tuple(
        grpc.method_handlers_generic_handler(name, {"ServerReflectionInfo": method}) for name in SERVICE_NAMES))
