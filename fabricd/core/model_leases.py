"""The types of the lease contract: a lease record, its mode and end cause, a holder standing in the way, and a
waiter in line (a waiting Acquire's record, shared by every node of a store)."""

from __future__ import annotations

import dataclasses
import enum
import functools
import json
from dataclasses import dataclass

from fabricd.core.lease_patterns import anchor


class LeaseMode(enum.IntEnum):
    UNSPECIFIED = 0
    EXCLUSIVE = 1
    SHARED = 2


class EndCause(enum.IntEnum):
    """Why a lease ended (UNSPECIFIED: it is live)."""

    UNSPECIFIED = 0
    RELEASED = 1
    EXPIRED = 2
    UNREGISTERED = 3
    HOLDER_OFFLINE = 4


@dataclass(frozen=True, slots=True)
class Lease:
    """One grant, live or ended. An ended record is kept (for watchers) until pruned.

    `revision` is the value of the store's one lease counter at this record's last change; `fencing_token`
    is its value at the grant. The counter only grows, so both order every grant and change store-wide."""

    lease_id: str
    agent_id: str
    resources: tuple[str, ...]
    mode: LeaseMode
    fencing_token: int
    acquire_ns: int
    expire_ns: int
    ttl_ns: int
    session_name: str = ""
    reason: str = ""
    renew_with_presence: bool = False
    revision: int = 0
    end_cause: EndCause = EndCause.UNSPECIFIED
    end_ns: int = 0

    @property
    def live(self) -> bool:
        return self.end_cause == EndCause.UNSPECIFIED


@dataclass(frozen=True, slots=True)
class Holder:
    """A lease standing in the way of a request: which of its resources meets which asked one."""

    lease: Lease
    resource: str
    requested: str


@dataclass(frozen=True, slots=True)
class AcquireRequest:
    """A checked Acquire: normalised resources, a mode, a ttl within bounds."""

    agent_id: str
    resources: tuple[str, ...]
    mode: LeaseMode
    ttl_ns: int
    reason: str = ""
    renew_with_presence: bool = False


@dataclass(frozen=True, slots=True)
class Waiter:
    """A waiting Acquire's place in line, stored while its call waits (fabricd.core.leases.acquire).

    `order` is the lease counter's value when it queued: the line is store-wide, so FIFO holds across
    PostgreSQL nodes. The record lives until `expire_ns` (moved forward while its call waits: a node that dies
    stops moving it) or `deadline_ns` (the call's own end; 0: none), whichever comes first. `registered`: its
    agent had a mailbox entry when it queued, so the call ends (LEASE_WAIT_ABORTED) when that agent unregisters
    or is offline for longer than limits.lease_offline_grace while it waits, as its leases would."""

    waiter_id: str
    agent_id: str
    resources: tuple[str, ...]
    mode: LeaseMode
    order: int
    enqueue_ns: int
    expire_ns: int
    deadline_ns: int = 0
    registered: bool = False

    def live(self, now: int) -> bool:
        return now < self.expire_ns and (not self.deadline_ns or now < self.deadline_ns)


@dataclass(frozen=True, slots=True)
class Behind:
    """An earlier waiter standing in the way of a request: which of its resources meets which asked one."""

    waiter: Waiter
    resource: str
    requested: str


def encode_waiter(waiter: Waiter) -> bytes:
    fields = {f: getattr(waiter, f) for f in Waiter.__dataclass_fields__}
    fields["resources"], fields["mode"] = list(waiter.resources), int(waiter.mode)
    return json.dumps(fields, separators=(",", ":")).encode()


def decode_waiter(raw: bytes | str) -> Waiter:
    fields = json.loads(raw)
    fields["resources"], fields["mode"] = tuple(fields["resources"]), LeaseMode(fields["mode"])
    return Waiter(**fields)


def encode(lease: Lease) -> bytes:
    """A lease record as every backend stores it: JSON, field names as above (ints, enums as ints)."""
    fields = {f: getattr(lease, f) for f in Lease.__dataclass_fields__}
    fields["resources"] = list(lease.resources)
    fields["mode"], fields["end_cause"] = int(lease.mode), int(lease.end_cause)
    return json.dumps(fields, separators=(",", ":")).encode()


DECODED_KEPT = 1 << 14
"""Lease records kept decoded: more than the live leases of a busy tree (10,000 in the benchmark), few enough
to bound the cache near 15 MiB. Each grant and each end is a record of its own (a lease taken and released
left ~1.8 KiB in the cache, the sweep reading ended records too until they are pruned), so at 65,536 the cache
grew a daemon taking leases steadily by ~60 MiB before it filled."""


@functools.lru_cache(maxsize=DECODED_KEPT)
def decode(raw: bytes | str) -> Lease:
    """A stored lease (cached by its bytes: a lease is frozen, and grants and checks read many)."""
    fields = json.loads(raw)
    fields["resources"] = tuple(fields["resources"])
    fields["mode"], fields["end_cause"] = LeaseMode(fields["mode"]), EndCause(fields["end_cause"])
    return Lease(**fields)


def anchors(lease: Lease) -> tuple[str, ...]:
    """The index anchors of a live lease (fabricd.core.lease_patterns.anchor of each resource); none once ended."""
    return tuple(sorted({anchor(r) for r in lease.resources})) if lease.live else ()


def ended_copy(lease: Lease) -> Lease:
    """The record as ended (for a backend dropping a live lease's index slots before deleting it)."""
    return dataclasses.replace(lease, end_cause=EndCause.RELEASED) if lease.live else lease
