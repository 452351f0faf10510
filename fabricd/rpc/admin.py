"""fabricd.v1.AdminService: the daemon's status for operators and tests."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from fabricd.rpc.errors import mapped
from fabricd.v1 import admin_service_pb2 as pb
from fabricd.v1 import admin_service_pb2_grpc as pb_grpc


@dataclass(frozen=True, slots=True)
class Status:
    version: str
    start_time_ns: int
    data_dir: str
    listen_addresses: tuple[str, ...]
    map_size_bytes: int
    map_used_bytes: int
    commits: int
    writes: int
    mailboxes: int
    queued_tickets: int
    open_streams: int
    waiters: int
    open_waits: int
    outbox_pending: int
    outbox_rows: int


class AdminServicer(pb_grpc.AdminServiceServicer):
    def __init__(self, status: Callable[[], Status]) -> None:
        self._status = status

    @mapped
    async def GetStatus(self, request, context):  # noqa: ANN001, ANN201, N802
        s = self._status()
        out = pb.GetStatusResponse(
            version=s.version,
            data_dir=s.data_dir,
            listen_addresses=s.listen_addresses,
            map_size_bytes=s.map_size_bytes,
            map_used_bytes=s.map_used_bytes,
            commits=s.commits,
            writes=s.writes,
            mailboxes=s.mailboxes,
            queued_tickets=s.queued_tickets,
            open_streams=s.open_streams,
            waiters=s.waiters,
            open_waits=s.open_waits,
            outbox_pending=s.outbox_pending,
            outbox_rows=s.outbox_rows,
        )
        out.start_time.FromNanoseconds(s.start_time_ns)
        return out
