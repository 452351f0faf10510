"""The error table's promises over a real gRPC channel: every failure carries an ErrorInfo from the catalogue."""

from __future__ import annotations

import logging
import pathlib
import re

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from fabricd.rpc.errors import DOMAIN, mapped
from fabricd.v1 import directory_service_pb2 as dir_pb
from fabricd.v1 import directory_service_pb2_grpc as dir_grpc
from fabricd.v1 import error_reason_pb2

ROOT = pathlib.Path(__file__).resolve().parents[2]
REASON = re.compile(r'reason="([A-Z_]+)"')


class Broken(dir_grpc.DirectoryServiceServicer):
    @mapped
    async def ListMailboxes(self, request, context):  # noqa: ANN201
        raise ZeroDivisionError("a bug")


async def test_an_unexpected_error_is_internal_with_an_incident_id_that_the_log_has(caplog) -> None:
    server = grpc.aio.server()
    dir_grpc.add_DirectoryServiceServicer_to_server(Broken(), server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            with caplog.at_level(logging.ERROR, logger="fabricd.rpc"), pytest.raises(grpc.aio.AioRpcError) as err:
                await dir_grpc.DirectoryServiceStub(channel).ListMailboxes(dir_pb.ListMailboxesRequest())
    finally:
        await server.stop(None)
    assert err.value.code() == grpc.StatusCode.INTERNAL
    status = rpc_status.from_call(err.value)
    info = error_details_pb2.ErrorInfo()
    status.details[0].Unpack(info)
    assert (info.reason, info.domain) == ("INTERNAL", DOMAIN)
    incident = info.metadata["incident_id"]
    assert incident in err.value.details()
    (record,) = [r for r in caplog.records if getattr(r, "incident_id", None) == incident]
    assert record.exc_info is not None and "ZeroDivisionError" in caplog.text


def reasons_in_code() -> set[str]:
    found = set()
    for folder in ("fabricd", "clients/python/fabricd"):
        for path in (ROOT / folder).rglob("*.py"):
            if "/v1/" not in path.as_posix():
                found.update(REASON.findall(path.read_text()))
    return found


def test_every_reason_the_code_raises_is_in_the_catalogue_and_every_entry_is_used() -> None:
    catalogue = {v.name for v in error_reason_pb2.ErrorReason.DESCRIPTOR.values} - {"ERROR_REASON_UNSPECIFIED"}
    raised = reasons_in_code()
    assert raised - catalogue == set(), "add these to protos/fabricd/v1/error_reason.proto"
    assert catalogue - raised == set(), "these catalogue entries are never raised: remove them or raise them"


def test_every_catalogue_entry_says_when_it_happens_and_what_to_do() -> None:
    text = (ROOT / "protos/fabricd/v1/error_reason.proto").read_text()
    for value in error_reason_pb2.ErrorReason.DESCRIPTOR.values:
        comment = re.search(rf"((?:\s*//[^\n]*\n)+)\s*{value.name} = {value.number};", text)
        assert comment and len(comment.group(1).strip()) > 10, f"{value.name} needs a comment"
