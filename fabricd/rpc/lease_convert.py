"""Leases between the core's types and fabricd.v1's messages (LeaseService), and LEASE_CONFLICT's typed detail."""

from __future__ import annotations

from collections.abc import Sequence

from google.protobuf.duration_pb2 import Duration
from google.protobuf.timestamp_pb2 import Timestamp

from fabricd import wire
from fabricd.core.model_leases import Behind, EndCause, Holder, Lease, LeaseMode
from fabricd.v1 import lease_service_pb2 as pb

_NS = 10**9


def _time(ns: int) -> Timestamp:
    t = Timestamp()
    t.seconds, t.nanos = divmod(ns, _NS)
    return t


def _span(ns: int) -> Duration:
    d = Duration()
    d.FromNanoseconds(ns)
    return d


def duration_ns(d: Duration, field: str) -> int:
    """A request's Duration in ns (INVALID_FIELD when it is not a valid one)."""
    return round(wire.duration_in(d, field) * _NS)


def ls_mode(mode: LeaseMode) -> str:
    """The wire enum's value name (message constructors take names)."""
    return f"LEASE_MODE_{mode.name}"


def end_cause(cause: EndCause) -> str:
    return f"LEASE_END_CAUSE_{cause.name}"


def lease_out(lease: Lease) -> pb.Lease:
    return pb.Lease(lease_id=lease.lease_id, agent_id=lease.agent_id, session_name=lease.session_name,
                    resources=list(lease.resources), mode=ls_mode(lease.mode), reason=lease.reason,
                    fencing_token=lease.fencing_token, acquire_time=_time(lease.acquire_ns),
                    expire_time=_time(lease.expire_ns), ttl=_span(lease.ttl_ns),
                    renew_with_presence=lease.renew_with_presence)


def holder_out(holder: Holder) -> pb.LeaseHolder:
    lease = holder.lease
    return pb.LeaseHolder(lease_id=lease.lease_id, agent_id=lease.agent_id, session_name=lease.session_name,
                          resource=holder.resource, requested=holder.requested, mode=ls_mode(lease.mode),
                          reason=lease.reason, expire_time=_time(lease.expire_ns), fencing_token=lease.fencing_token)


def conflict_out(holders: Sequence[Holder]) -> pb.LeaseConflict:
    return pb.LeaseConflict(holders=[holder_out(h) for h in holders])


def waiter_out(behind: Behind) -> pb.LeaseWaiter:
    w = behind.waiter
    return pb.LeaseWaiter(agent_id=w.agent_id, resources=list(w.resources), mode=ls_mode(w.mode),
                          enqueue_time=_time(w.enqueue_ns), resource=behind.resource, requested=behind.requested)
