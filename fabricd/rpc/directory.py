"""fabricd.v1.DirectoryService: check the request, call the core, translate the answer."""

from __future__ import annotations

from collections.abc import AsyncIterator

import grpc

from fabricd import wire
from fabricd.core import wake
from fabricd.core.directory import Directory
from fabricd.core.model import MailboxEntry
from fabricd.rpc.auth import caller
from fabricd.rpc.errors import mapped
from fabricd.v1 import directory_service_pb2 as pb
from fabricd.v1 import directory_service_pb2_grpc as pb_grpc
from fabricd.v1 import types_pb2


def hook_out(hook: wake.WakeHook) -> pb.WakeHook:
    out = pb.WakeHook(url=hook.url, command=hook.command, only_when_idle=hook.only_when_idle)
    out.quiet_period.FromNanoseconds(hook.quiet_ns)
    return out


class DirectoryServicer(pb_grpc.DirectoryServiceServicer):
    def __init__(self, directory: Directory, wakes: wake.Wakes) -> None:
        self._directory = directory
        self._wakes = wakes

    def _out(self, entry: MailboxEntry) -> types_pb2.MailboxEntry:
        return wire.entry_out(entry, self._directory.presence_of(entry))

    @mapped
    async def Register(self, request: pb.RegisterRequest, context: grpc.aio.ServicerContext) -> pb.RegisterResponse:
        registered = await self._directory.register(
            request.agent_id,
            request.session_name,
            tuple(wire.capability_in(c) for c in request.capabilities),
            request.cwd,
            dict(request.metadata),
            exclusive=not caller().trusted,  # an agent token's name claim may not make a live agent's ambiguous
        )
        return pb.RegisterResponse(entry=self._out(registered.entry), name_shared_with=registered.name_shared_with)

    @mapped
    async def Touch(self, request: pb.TouchRequest, context: grpc.aio.ServicerContext) -> pb.TouchResponse:
        touched = await self._directory.touch(request.agent_id, request.busy, request.offline)
        return pb.TouchResponse(created=touched.created, similar_names=touched.similar_names)

    @mapped
    async def Unregister(self, request: pb.UnregisterRequest,
                         context: grpc.aio.ServicerContext) -> pb.UnregisterResponse:
        purged, aborted = await self._directory.unregister(request.agent_id, request.purge)
        return pb.UnregisterResponse(purged_messages=purged, aborted_tickets=aborted)

    @mapped
    async def ListMailboxes(self, request: pb.ListMailboxesRequest,
                            context: grpc.aio.ServicerContext) -> pb.ListMailboxesResponse:
        listed = await self._directory.list(request.page_size, request.page_token)
        return pb.ListMailboxesResponse(mailboxes=[self._out(e) for e in listed.items],
                                        next_page_token=listed.next_page_token)

    @mapped
    async def ResolveName(self, request: pb.ResolveNameRequest,
                          context: grpc.aio.ServicerContext) -> pb.ResolveNameResponse:
        return pb.ResolveNameResponse(entry=self._out(await self._directory.resolve(request.name)))

    @mapped
    async def WatchMailboxes(self, request: pb.WatchMailboxesRequest,
                             context: grpc.aio.ServicerContext) -> AsyncIterator[pb.WatchMailboxesResponse]:
        async for batch in self._directory.watch():
            yield pb.WatchMailboxesResponse(
                events=[pb.MailboxEvent(type=wire.change_out(c), entry=self._out(e)) for c, e in batch.changes],
                snapshot_complete=batch.snapshot_complete,
                keepalive=not batch.changes and not batch.snapshot_complete,
            )

    @mapped
    async def SetWakeHook(self, request: pb.SetWakeHookRequest,
                          context: grpc.aio.ServicerContext) -> pb.SetWakeHookResponse:
        h = request.hook
        if h.HasField("quiet_period"):
            wire.duration_in(h.quiet_period, "hook.quiet_period")  # refuses mixed signs and nanos out of range
        hook = await self._wakes.set(
            request.agent_id, h.url, tuple(h.command),
            h.quiet_period.ToNanoseconds() if h.HasField("quiet_period") else wake.DEFAULT_QUIET_NS,
            h.only_when_idle if h.HasField("only_when_idle") else True)
        if hook is None:
            return pb.SetWakeHookResponse()
        return pb.SetWakeHookResponse(hook=hook_out(hook), secret=hook.secret)

    @mapped
    async def GetWakeHook(self, request: pb.GetWakeHookRequest,
                          context: grpc.aio.ServicerContext) -> pb.GetWakeHookResponse:
        hook = await self._wakes.get(request.agent_id)
        if hook is None:
            return pb.GetWakeHookResponse()
        state = self._wakes.state(hook)
        out = pb.GetWakeHookResponse(hook=hook_out(hook), fires=hook.fires, armed=hook.armed,
                                     state=f"WAKE_HOOK_STATE_{state}",  # protobuf takes an enum value's name
                                     consecutive_failures=hook.failures, last_error=hook.last_error)
        if hook.last_fire_ns:
            out.last_fire_time.FromNanoseconds(hook.last_fire_ns)
        if state == "BACKING_OFF":
            out.next_attempt_time.FromNanoseconds(hook.retry_ns)
        if hook.disabled:
            out.disable_time.FromNanoseconds(hook.disabled_ns)
        return out
