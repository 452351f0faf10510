"""The one table from domain errors to gRPC status codes, and the wrapper every servicer method wears.

Each error is sent as its status code plus a google.rpc.Status in the trailers
carrying google.rpc.ErrorInfo{reason, domain: "fabricd.dev", metadata}.
"""

from __future__ import annotations

import functools
import inspect
import logging
import uuid
from collections.abc import Callable
from typing import NoReturn

import grpc
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2

from fabricd.core import errors
from fabricd.core.leases import LeaseConflict
from fabricd.rpc.lease_convert import conflict_out

log = logging.getLogger("fabricd.rpc")
# Request fields worth logging with an error: ids that say whose call it was (never tokens, never payloads).
_CONTEXT_FIELDS = frozenset({"agent_id", "target", "ticket_id", "request_id", "name", "key"})

DOMAIN = "fabricd.dev"


class Gauges:
    """Live counts the status reports; the stream wrapper below keeps `open_streams`."""

    open_streams = 0

CODES: dict[type[errors.FabricError], grpc.StatusCode] = {
    errors.InvalidArgument: grpc.StatusCode.INVALID_ARGUMENT,
    errors.NotFound: grpc.StatusCode.NOT_FOUND,
    errors.AlreadyExists: grpc.StatusCode.ALREADY_EXISTS,
    errors.FailedPrecondition: grpc.StatusCode.FAILED_PRECONDITION,
    errors.ResourceExhausted: grpc.StatusCode.RESOURCE_EXHAUSTED,
    errors.Aborted: grpc.StatusCode.ABORTED,
    errors.DeadlineExceeded: grpc.StatusCode.DEADLINE_EXCEEDED,
    errors.Unavailable: grpc.StatusCode.UNAVAILABLE,
    errors.Unauthenticated: grpc.StatusCode.UNAUTHENTICATED,
    errors.PermissionDenied: grpc.StatusCode.PERMISSION_DENIED,
}


def code_of(exc: errors.FabricError) -> grpc.StatusCode:
    for cls in type(exc).__mro__:
        code = CODES.get(cls)
        if code is not None:
            return code
    return grpc.StatusCode.UNKNOWN


def status_of(exc: errors.FabricError) -> status_pb2.Status:
    """The google.rpc.Status of an error: ErrorInfo always, RetryInfo when it says when to retry."""
    details = []
    info = error_details_pb2.ErrorInfo(reason=exc.reason, domain=DOMAIN, metadata=exc.metadata)
    details.append(any_pb2.Any())
    details[-1].Pack(info)
    if isinstance(exc, LeaseConflict):  # the typed detail beside ErrorInfo: every holder, not the first ten
        details.append(any_pb2.Any())
        details[-1].Pack(conflict_out(exc.holders))
    if "retry_after_s" in exc.metadata:
        retry = error_details_pb2.RetryInfo()
        retry.retry_delay.FromNanoseconds(int(float(exc.metadata["retry_after_s"]) * 1e9))
        details.append(any_pb2.Any())
        details[-1].Pack(retry)
    return status_pb2.Status(code=code_of(exc).value[0], message=exc.message, details=details)


async def abort(context: grpc.aio.ServicerContext, exc: errors.FabricError) -> NoReturn:
    status = status_of(exc)
    await context.abort(
        code_of(exc), exc.message, trailing_metadata=(("grpc-status-details-bin", status.SerializeToString()),)
    )


def internal_error(method: str, context: grpc.aio.ServicerContext, request: object) -> errors.FabricError:
    """Log an unexpected error with the stack under a fresh incident id, and the error the caller gets."""
    # `request_name`, not `name`: a LogRecord's own attributes cannot be given as extra fields.
    fields = {f"request_{f.name}" if f.name == "name" else f.name: v for f, v in request.ListFields()
              if f.name in _CONTEXT_FIELDS} if hasattr(request, "ListFields") else {}
    incident = uuid.uuid4().hex[:16]
    log.exception("unexpected error in %s (incident %s)", method, incident,
                  extra={"method": method, "peer": context.peer(), "incident_id": incident, **fields})
    return errors.FabricError(f"internal error in {method} (incident {incident}); the daemon log has the details "
                              "under that id", reason="INTERNAL", incident_id=incident)


async def _abort_internal(context: grpc.aio.ServicerContext, err: errors.FabricError) -> None:
    status = status_of(err)
    status.code = grpc.StatusCode.INTERNAL.value[0]
    await context.abort(
        grpc.StatusCode.INTERNAL, err.message, trailing_metadata=(("grpc-status-details-bin", status.SerializeToString()),)
    )


def mapped(method: Callable) -> Callable:
    """Translate domain errors raised by a servicer method (unary or streaming) into statuses."""
    name = method.__name__

    if inspect.isasyncgenfunction(method):

        @functools.wraps(method)
        async def stream(self, request, context):  # noqa: ANN001, ANN202 - wraps any servicer method
            Gauges.open_streams += 1
            try:
                async for item in method(self, request, context):
                    yield item
                return
            except errors.FabricError as exc:
                err, internal = exc, False
            except grpc.aio.AbortError:
                raise
            except Exception:  # reported as INTERNAL, logged with the stack
                err, internal = internal_error(name, context, request), True
            finally:
                Gauges.open_streams -= 1
            await (_abort_internal(context, err) if internal else abort(context, err))

        return stream

    @functools.wraps(method)
    async def unary(self, request, context):  # noqa: ANN001, ANN202 - wraps any servicer method
        try:
            return await method(self, request, context)
        except errors.FabricError as exc:
            err, internal = exc, False
        except grpc.aio.AbortError:
            raise
        except Exception:
            err, internal = internal_error(name, context, request), True
        await (_abort_internal(context, err) if internal else abort(context, err))

    return unary
