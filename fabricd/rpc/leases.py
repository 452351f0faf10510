"""fabricd.v1.LeaseService: check the request, call the core, translate the answer.

An agent token acts for its own agent (POLICIES); a lease named by id is checked against its holder in the
core (`as_agent`), since only the store knows it. An admin's release of another agent's lease is logged.
"""

from __future__ import annotations

import logging
import math
from collections.abc import AsyncIterator

import grpc

from fabricd.core.lease_service import Leases
from fabricd.core.model_leases import LeaseMode
from fabricd.rpc.auth import agent_token, caller
from fabricd.rpc.errors import mapped
from fabricd.rpc.lease_convert import duration_ns, end_cause, holder_out, lease_out, waiter_out
from fabricd.v1 import lease_service_pb2 as pb
from fabricd.v1 import lease_service_pb2_grpc as pb_grpc

log = logging.getLogger("fabricd.leases")
_EVENTS = {"SNAPSHOT": pb.LEASE_EVENT_TYPE_SNAPSHOT, "ACQUIRED": pb.LEASE_EVENT_TYPE_ACQUIRED,
           "RENEWED": pb.LEASE_EVENT_TYPE_RENEWED, "ENDED": pb.LEASE_EVENT_TYPE_ENDED}


def _mode(value: int) -> LeaseMode:
    return LeaseMode(value) if value in LeaseMode._value2member_map_ else LeaseMode.UNSPECIFIED


def _as_agent() -> str:
    """The agent an untrusted caller acts as ("" for admins and local callers: any lease)."""
    identity = caller()
    return "" if identity.trusted else identity.agent_id


class LeaseServicer(pb_grpc.LeaseServiceServicer):
    def __init__(self, leases: Leases) -> None:
        self._leases = leases

    @mapped
    async def Acquire(self, request: pb.AcquireRequest, context: grpc.aio.ServicerContext) -> pb.AcquireResponse:
        ttl = duration_ns(request.ttl, "ttl") if request.HasField("ttl") else 0
        asked = self._leases.request(request.agent_id, list(request.resources), _mode(request.mode), ttl,
                                     request.reason, request.renew_with_presence)
        wait_s = None
        if request.wait:
            remaining = context.time_remaining()
            limit = duration_ns(request.wait_timeout, "wait_timeout") / 1e9 if request.HasField("wait_timeout") \
                else math.inf
            wait_s = max(0.0, min(limit, remaining if remaining is not None else math.inf))
        lease = await self._leases.acquire(asked, held_to_quota=self._leases.limits.quotas_for(agent_token())
                                           is not None, wait_s=wait_s)
        return pb.AcquireResponse(lease=lease_out(lease))

    @mapped
    async def Renew(self, request: pb.RenewRequest, context: grpc.aio.ServicerContext) -> pb.RenewResponse:
        ttl = duration_ns(request.ttl, "ttl") if request.HasField("ttl") else 0
        return pb.RenewResponse(lease=lease_out(await self._leases.renew(request.lease_id, ttl, _as_agent())))

    @mapped
    async def Release(self, request: pb.ReleaseRequest, context: grpc.aio.ServicerContext) -> pb.ReleaseResponse:
        released = await self._leases.release(request.lease_id, request.agent_id, _as_agent())
        identity = caller()
        for lease in released:
            if identity.kind == "admin" and lease.agent_id != identity.agent_id:
                log.warning("admin %s released lease %s of agent %s (%s)", identity.token_id or identity,
                            lease.lease_id, lease.agent_id, ", ".join(lease.resources),
                            extra={"lease_id": lease.lease_id, "agent_id": lease.agent_id})
        return pb.ReleaseResponse(released=len(released))

    @mapped
    async def ListLeases(self, request: pb.ListLeasesRequest,
                         context: grpc.aio.ServicerContext) -> pb.ListLeasesResponse:
        items, token = await self._leases.page(request.agent_id, request.resource, request.page_size,
                                               request.page_token)
        return pb.ListLeasesResponse(leases=[lease_out(lease) for lease in items], next_page_token=token)

    @mapped
    async def CheckLeases(self, request: pb.CheckLeasesRequest,
                          context: grpc.aio.ServicerContext) -> pb.CheckLeasesResponse:
        conflicts, waiting = await self._leases.check_line(request.agent_id, list(request.paths),
                                                           _mode(request.mode), request.literal)
        return pb.CheckLeasesResponse(conflicts=[holder_out(h) for h in conflicts],
                                      waiting=[waiter_out(w) for w in waiting])

    @mapped
    async def WatchLeases(self, request: pb.WatchLeasesRequest,
                          context: grpc.aio.ServicerContext) -> AsyncIterator[pb.WatchLeasesResponse]:
        async for batch in self._leases.watch():
            yield pb.WatchLeasesResponse(
                events=[pb.LeaseEvent(type=_EVENTS[e.kind], lease=lease_out(e.lease), cause=end_cause(e.lease.end_cause),
                                      revision=e.lease.revision) for e in batch.events],
                snapshot_complete=batch.snapshot_complete, reset=batch.reset,
                keepalive=not batch.events and not batch.snapshot_complete)
