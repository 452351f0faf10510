"""Exceptions of the fabricd client. Every failed call raises one of these, never a raw RpcError.

    FabricError                  root: .code (grpc.StatusCode), .reason, .metadata, .message
    ├── InvalidArgument          INVALID_ARGUMENT: fix the request
    ├── NotFound                 NOT_FOUND
    ├── AlreadyExists            ALREADY_EXISTS (for example a message id reused for another body)
    ├── FailedPrecondition       FAILED_PRECONDITION (for example an ambiguous name)
    ├── ResourceExhausted        RESOURCE_EXHAUSTED: a quota or the store is full; retry later
    ├── Aborted                  ABORTED
    ├── DeadlineExceeded         DEADLINE_EXCEEDED
    ├── PermissionDenied         PERMISSION_DENIED
    ├── Unauthenticated          UNAUTHENTICATED
    ├── Unavailable              UNAVAILABLE: the daemon is down or restarting; safe to retry
    └── InternalError            INTERNAL, UNKNOWN and anything else

Pick the handling from the class or from `reason` (a stable machine-readable
string from google.rpc.ErrorInfo), never from the message text.
"""

from __future__ import annotations

import grpc
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2


class FabricError(Exception):
    code: grpc.StatusCode = grpc.StatusCode.UNKNOWN

    def __init__(self, message: str, *, reason: str = "", metadata: dict[str, str] | None = None,
                 code: grpc.StatusCode | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.reason = reason
        self.metadata = dict(metadata or {})
        self.details: tuple[any_pb2.Any, ...] = ()
        """The typed details of google.rpc.Status besides ErrorInfo (a LeaseConflict, ...)."""
        if code is not None:
            self.code = code

    def __str__(self) -> str:
        return f"{self.message} [{self.reason or self.code.name}]"


class InvalidArgument(FabricError):
    code = grpc.StatusCode.INVALID_ARGUMENT


class NotFound(FabricError):
    code = grpc.StatusCode.NOT_FOUND


class AlreadyExists(FabricError):
    code = grpc.StatusCode.ALREADY_EXISTS


class FailedPrecondition(FabricError):
    code = grpc.StatusCode.FAILED_PRECONDITION


class ResourceExhausted(FabricError):
    code = grpc.StatusCode.RESOURCE_EXHAUSTED


class Aborted(FabricError):
    code = grpc.StatusCode.ABORTED


class DeadlineExceeded(FabricError):
    code = grpc.StatusCode.DEADLINE_EXCEEDED


class PermissionDenied(FabricError):
    code = grpc.StatusCode.PERMISSION_DENIED


class Unauthenticated(FabricError):
    code = grpc.StatusCode.UNAUTHENTICATED


class Unavailable(FabricError):
    code = grpc.StatusCode.UNAVAILABLE


class InternalError(FabricError):
    code = grpc.StatusCode.INTERNAL


_BY_CODE: dict[grpc.StatusCode, type[FabricError]] = {
    cls.code: cls
    for cls in (InvalidArgument, NotFound, AlreadyExists, FailedPrecondition, ResourceExhausted, Aborted,
                DeadlineExceeded, PermissionDenied, Unauthenticated, Unavailable, InternalError)
}
_BY_NUMBER = {code.value[0]: code for code in grpc.StatusCode}


def _reason(status: status_pb2.Status) -> tuple[str, dict[str, str]]:
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return info.reason, dict(info.metadata)
    return "", {}


def from_status(status: status_pb2.Status) -> FabricError:
    """A google.rpc.Status (as in SendMessageResult.error) as a client exception."""
    code = _BY_NUMBER.get(status.code, grpc.StatusCode.UNKNOWN)
    reason, metadata = _reason(status)
    return _BY_CODE.get(code, InternalError)(status.message, reason=reason, metadata=metadata, code=code)


def from_rpc_error(exc: grpc.RpcError) -> FabricError:
    """A failed call as a client exception, with the ErrorInfo from its trailers."""
    code = exc.code() if hasattr(exc, "code") else grpc.StatusCode.UNKNOWN
    details = exc.details() if hasattr(exc, "details") else str(exc)
    reason, metadata = "", {}
    extra: tuple[any_pb2.Any, ...] = ()
    trailers = exc.trailing_metadata() if hasattr(exc, "trailing_metadata") else None
    for key, value in trailers or ():
        if key == "grpc-status-details-bin":
            status = status_pb2.Status.FromString(value)
            reason, metadata = _reason(status)
            extra = tuple(d for d in status.details if not d.Is(error_details_pb2.ErrorInfo.DESCRIPTOR))
    cls = _BY_CODE.get(code, InternalError)
    error = cls(details or code.name, reason=reason or code.name, metadata=metadata, code=code)
    error.details = extra
    return error
