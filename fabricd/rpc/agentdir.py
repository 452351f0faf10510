"""fabricd.v1.AgentDirectoryService: check the request, call the core, translate the answer."""

from __future__ import annotations

from collections.abc import AsyncIterator

import grpc
from google.protobuf.message import Message

from fabricd import wire
from fabricd.core.agentdir import AgentDirectory, RepairInfo, Submission
from fabricd.rpc.errors import mapped
from fabricd.v1 import agent_directory_service_pb2 as pb
from fabricd.v1 import agent_directory_service_pb2_grpc as pb_grpc


def _ns(request: Message, name: str) -> int:
    return wire.timestamp_in(getattr(request, name), name) if request.HasField(name) else 0


class AgentDirectoryServicer(pb_grpc.AgentDirectoryServiceServicer):
    def __init__(self, directory: AgentDirectory) -> None:
        self._dir = directory

    @mapped
    async def Initialize(self, request: pb.InitializeRequest,
                         context: grpc.aio.ServicerContext) -> pb.InitializeResponse:
        agent, thread = await self._dir.initialize(request.instructions, request.settings)
        return pb.InitializeResponse(agent=wire.to_pb(agent, pb.Agent), thread=wire.to_pb(thread, pb.Thread))

    @mapped
    async def CreateAgent(self, request: pb.CreateAgentRequest,
                          context: grpc.aio.ServicerContext) -> pb.CreateAgentResponse:
        agent = await self._dir.create_agent(request.name, request.description, request.instructions, request.settings)
        return pb.CreateAgentResponse(agent=wire.to_pb(agent, pb.Agent))

    @mapped
    async def GetAgent(self, request: pb.GetAgentRequest, context: grpc.aio.ServicerContext) -> pb.GetAgentResponse:
        return pb.GetAgentResponse(agent=wire.to_pb(await self._dir.get_agent(request.agent_id), pb.Agent))

    @mapped
    async def ListAgents(self, request: pb.ListAgentsRequest,
                         context: grpc.aio.ServicerContext) -> pb.ListAgentsResponse:
        listed = await self._dir.list_agents(request.page_size, request.page_token)
        return pb.ListAgentsResponse(agents=[wire.to_pb(a, pb.Agent) for a in listed.items],
                                     next_page_token=listed.next_page_token)

    @mapped
    async def CreateThread(self, request: pb.CreateThreadRequest,
                           context: grpc.aio.ServicerContext) -> pb.CreateThreadResponse:
        thread = await self._dir.create_thread(request.agent_id, request.title, request.kind,
                                               _ns(request, "create_time"), tuple(request.contexts),
                                               request.request_key)
        return pb.CreateThreadResponse(thread=wire.to_pb(thread, pb.Thread))

    @mapped
    async def ListThreads(self, request: pb.ListThreadsRequest,
                          context: grpc.aio.ServicerContext) -> pb.ListThreadsResponse:
        listed = await self._dir.list_threads(request.agent_id, request.page_size, request.page_token)
        return pb.ListThreadsResponse(threads=[wire.to_pb(t, pb.Thread) for t in listed.items],
                                      next_page_token=listed.next_page_token)

    @mapped
    async def Admit(self, request: pb.AdmitRequest, context: grpc.aio.ServicerContext) -> pb.AdmitResponse:
        admission = await self._dir.admit(request.agent_id, request.thread_id,
                                          wire.from_pb(request.submission, Submission), request.optional_work,
                                          request.request_key)
        return pb.AdmitResponse(accepted=admission.accepted, reason=admission.reason, thread_id=admission.thread_id,
                                request_id=admission.request_id)

    @mapped
    async def Settle(self, request: pb.SettleRequest, context: grpc.aio.ServicerContext) -> pb.SettleResponse:
        settled = await self._dir.settle(request.request_id, request.thread_id, request.interactive, request.notify)
        return pb.SettleResponse(request=wire.to_pb(settled, pb.Request))

    @mapped
    async def NotificationSent(self, request: pb.NotificationSentRequest,
                               context: grpc.aio.ServicerContext) -> pb.NotificationSentResponse:
        await self._dir.notification_sent(request.request_id)
        return pb.NotificationSentResponse()

    @mapped
    async def ListRequests(self, request: pb.ListRequestsRequest,
                           context: grpc.aio.ServicerContext) -> pb.ListRequestsResponse:
        listed = await self._dir.list_requests(request.filter, request.page_size, request.page_token)
        return pb.ListRequestsResponse(requests=[wire.to_pb(r, pb.Request) for r in listed.items],
                                       next_page_token=listed.next_page_token)

    @mapped
    async def Advertise(self, request: pb.AdvertiseRequest, context: grpc.aio.ServicerContext) -> pb.AdvertiseResponse:
        await self._dir.advertise(request.profiles, request.availability)
        return pb.AdvertiseResponse()

    @mapped
    async def ReconcileRepair(self, request: pb.ReconcileRepairRequest,
                              context: grpc.aio.ServicerContext) -> pb.ReconcileRepairResponse:
        repair = RepairInfo(key=request.key, generation=request.generation, attempt=request.attempt,
                            configuration=request.configuration, confirm_ns=_ns(request, "confirm_time"),
                            start_ns=_ns(request, "start_time"))
        request_id = await self._dir.reconcile_repair(repair, request.text, request.publication,
                                                      _ns(request, "create_time"))
        return pb.ReconcileRepairResponse(request_id=request_id)

    @mapped
    async def GetDirectoryData(self, request: pb.GetDirectoryDataRequest,
                               context: grpc.aio.ServicerContext) -> pb.GetDirectoryDataResponse:
        return pb.GetDirectoryDataResponse(data=wire.to_pb(await self._dir.data(), pb.DirectoryData))

    @mapped
    async def WatchDirectoryData(self, request: pb.WatchDirectoryDataRequest,
                                 context: grpc.aio.ServicerContext) -> AsyncIterator[pb.WatchDirectoryDataResponse]:
        async for update in self._dir.watch():
            if update.data is None:
                yield pb.WatchDirectoryDataResponse(keepalive=True)
            else:
                yield pb.WatchDirectoryDataResponse(data=wire.to_pb(update.data, pb.DirectoryData), gap=update.gap)
