"""fabricd.v1.OutboxService: check the request, call the core, translate the answer."""

from __future__ import annotations

import grpc

from fabricd import wire
from fabricd.core.errors import InvalidArgument
from fabricd.core.outbox import Outbox
from fabricd.rpc.auth import agent_token
from fabricd.rpc.errors import mapped
from fabricd.v1 import outbox_service_pb2 as pb
from fabricd.v1 import outbox_service_pb2_grpc as pb_grpc


class OutboxServicer(pb_grpc.OutboxServiceServicer):
    def __init__(self, outbox: Outbox) -> None:
        self._outbox = outbox

    @mapped
    async def FanOut(self, request: pb.FanOutRequest, context: grpc.aio.ServicerContext) -> pb.FanOutResponse:
        if not request.HasField("job"):
            raise InvalidArgument("job is required", reason="MISSING_FIELD", field="job")
        keys, written = await self._outbox.fan_out(wire.settled_job_in(request.job), request.content, agent_token())
        return pb.FanOutResponse(reply_keys=keys, written=written)

    @mapped
    async def DrainOutbox(self, request: pb.DrainOutboxRequest,
                          context: grpc.aio.ServicerContext) -> pb.DrainOutboxResponse:
        result = await self._outbox.drain_once()
        return pb.DrainOutboxResponse(posted=result.posted, failed=result.failed, more=result.more)

    @mapped
    async def ListOutbox(self, request: pb.ListOutboxRequest,
                         context: grpc.aio.ServicerContext) -> pb.ListOutboxResponse:
        listed = await self._outbox.list(request.limit, request.after_key, request.state, request.page_size,
                                         request.page_token)
        return pb.ListOutboxResponse(rows=[wire.row_out(r) for r in listed.items], next_after_key=listed.next_cursor,
                                     next_page_token=listed.next_page_token)

    @mapped
    async def RetryDeadLetters(self, request: pb.RetryDeadLettersRequest,
                               context: grpc.aio.ServicerContext) -> pb.RetryDeadLettersResponse:
        return pb.RetryDeadLettersResponse(retried=await self._outbox.retry_dead_letters(list(request.keys)))

    @mapped
    async def PruneReceipts(self, request: pb.PruneReceiptsRequest,
                            context: grpc.aio.ServicerContext) -> pb.PruneReceiptsResponse:
        if not request.HasField("before_time"):
            raise InvalidArgument("before_time is required", reason="MISSING_FIELD", field="before_time")
        before = wire.timestamp_in(request.before_time, "before_time")
        return pb.PruneReceiptsResponse(pruned=await self._outbox.prune_receipts(before))
