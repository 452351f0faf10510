"""The calls of LeaseService (a mixin of Client: it uses the `lease` stub and `_call` that Client sets up).

Durations are seconds (floats); modes are "exclusive" or "shared". A refused Acquire raises
FailedPrecondition with reason LEASE_CONFLICT: `conflict_holders(error)` reads every holder from its typed
detail (the ErrorInfo metadata names the first ten as holder_<i>_*).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any

import grpc

from fabricd.client._errors import FabricError
from fabricd.client._paging import Page, read_pages
from fabricd.v1 import lease_service_pb2 as ls_pb

MODES = {"exclusive": ls_pb.LEASE_MODE_EXCLUSIVE, "shared": ls_pb.LEASE_MODE_SHARED}


def _mode(mode: str) -> int:
    try:
        return MODES[mode.lower()]
    except KeyError:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}") from None


def conflict_holders(error: FabricError) -> list[ls_pb.LeaseHolder]:
    """The holders a LEASE_CONFLICT error names (its LeaseConflict detail); [] for any other error."""
    for detail in error.details:
        if detail.Is(ls_pb.LeaseConflict.DESCRIPTOR):
            conflict = ls_pb.LeaseConflict()
            detail.Unpack(conflict)
            return list(conflict.holders)
    return []


class LeaseCalls:
    lease: Any
    _call: Any
    _stream_error: Any
    target: str

    async def acquire_lease(self, agent_id: str, resources: Sequence[str], *, mode: str = "exclusive",
                            ttl: float | None = None, reason: str = "", wait: bool = False,
                            wait_timeout: float | None = None, renew_with_presence: bool = False) -> ls_pb.Lease:
        """A lease on every resource (paths or patterns), or FailedPrecondition (LEASE_CONFLICT) and none.
        With `wait`, queue until granted or `wait_timeout` seconds pass (DeadlineExceeded, LEASE_WAIT_TIMEOUT)."""
        request = ls_pb.AcquireRequest(agent_id=agent_id, resources=list(resources), mode=_mode(mode),
                                       reason=reason, wait=wait, renew_with_presence=renew_with_presence)
        if ttl is not None:
            request.ttl.FromNanoseconds(int(ttl * 1e9))
        if wait_timeout is not None:
            request.wait_timeout.FromNanoseconds(int(wait_timeout * 1e9))
        return (await self._call(self.lease.Acquire, request)).lease

    async def renew_lease(self, lease_id: str, *, ttl: float | None = None) -> ls_pb.Lease:
        request = ls_pb.RenewRequest(lease_id=lease_id)
        if ttl is not None:
            request.ttl.FromNanoseconds(int(ttl * 1e9))
        return (await self._call(self.lease.Renew, request, resend=True)).lease

    async def release_lease(self, lease_id: str = "", *, agent_id: str = "") -> int:
        """End one lease, or (no lease_id) all of `agent_id`'s; how many live leases ended."""
        request = ls_pb.ReleaseRequest(lease_id=lease_id, agent_id=agent_id)
        return int((await self._call(self.lease.Release, request, resend=True)).released)

    async def list_leases(self, *, agent_id: str = "", resource: str = "", page_size: int = 0,
                          page_token: str = "") -> Page[ls_pb.Lease]:
        """The live leases, oldest grant first (page after page, or one page when given a size or token)."""
        def fetch(size: int, token: str) -> Any:
            request = ls_pb.ListLeasesRequest(agent_id=agent_id, resource=resource, page_size=size, page_token=token)
            return self._call(self.lease.ListLeases, request, resend=True)

        return await read_pages(fetch, lambda r: r.leases, page_size, page_token)

    async def check_leases(self, paths: Sequence[str], *, agent_id: str = "", mode: str = "exclusive",
                           literal: bool = False) -> list[ls_pb.LeaseHolder]:
        """The conflicts other agents' leases would cause if `agent_id` worked on `paths`; [] when free.
        `literal`: `paths` are files named as they are (`a*.py` is one file), not patterns."""
        request = ls_pb.CheckLeasesRequest(agent_id=agent_id, paths=list(paths), mode=_mode(mode), literal=literal)
        return list((await self._call(self.lease.CheckLeases, request, resend=True)).conflicts)

    async def lease_waiters(self, paths: Sequence[str], *, agent_id: str = "", mode: str = "exclusive",
                            literal: bool = False) -> list[ls_pb.LeaseWaiter]:
        """Other agents' waiting acquires in line for `paths` (oldest place first): while any wait, an acquire
        of them without `wait` is refused (LEASE_QUEUED) and one with `wait` queues behind them."""
        request = ls_pb.CheckLeasesRequest(agent_id=agent_id, paths=list(paths), mode=_mode(mode), literal=literal)
        return list((await self._call(self.lease.CheckLeases, request, resend=True)).waiting)

    async def watch_leases(self) -> AsyncIterator[ls_pb.WatchLeasesResponse]:
        """The snapshot, then every grant, renewal and end; keepalives are skipped."""
        target = self.target
        call = self.lease.WatchLeases(ls_pb.WatchLeasesRequest())
        try:
            async for response in call:
                if response.events or response.snapshot_complete:
                    yield response
        except grpc.RpcError as exc:
            raise self._stream_error(exc, target) from None
        finally:
            call.cancel()
