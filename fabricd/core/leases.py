"""The lease rules as deciders: the facts of one write in, what to write (or the refusal) out.

Every backend runs these through the record scripts of fabricd.core.kv.leases (LMDB and memory in their
writer, PostgreSQL in one transaction serialised on the lease counter's row). No I/O here.

    end_of        when a lease ends, and why: its ttl (renewed by presence when it asked), or its agent
                  offline for longer than the grace; the first of them
    acquire       a grant, all or nothing: refused with each conflicting holder (LEASE_CONFLICT), with each
                  earlier waiter in line for an overlapping resource (LEASE_QUEUED), or at the agent's quota
                  (QUOTA_LEASES); for a waiting call (a Line), the place in line it keeps instead of a refusal,
                  or its end (LEASE_WAIT_ABORTED) once its registered agent unregistered or went offline;
                  the records it found ended end with it, the waiter records found dead go
    renew         a live lease's expiry moved to now + ttl; an ended one is LEASE_NOT_FOUND
    ended         a record ending with its cause

Invariants: every write takes one value of the store's lease counter, which only grows (it is copied with
the store); a grant's fencing token is that value, so tokens strictly increase across grants. A lease of
another agent conflicts when the two overlap (fabricd.core.lease_patterns.overlap) and either is EXCLUSIVE;
an agent's own leases never conflict with its requests. A lease judged ended is ended for every reader,
whether or not a sweep has written its end yet.

The line (fair waiting, FIFO per resource, across every node of a store): a waiting Acquire stores a Waiter
whose `order` is the lease counter's value when it first queued. A request is granted only when no live lease
and no live earlier waiter of another agent stands in its way (overlapping, EXCLUSIVE on either side: the
lease rule); a request that does not wait is "later" than every waiter. A waiter record is live until its
`expire_ns` (moved forward by each try of its call; a dead node stops moving it) or its call's deadline; a
dead one stands in no one's way and is deleted by the next write that sees it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from fabricd.core.errors import (
    Aborted,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    ResourceExhausted,
)
from fabricd.core.lease_patterns import meets
from fabricd.core.model import MailboxEntry
from fabricd.core.model_leases import AcquireRequest, Behind, EndCause, Holder, Lease, LeaseMode, Waiter

COUNTER = "lease"
"""The store's named counter of lease changes (fabricd.core.kv.tx.RecordTx.next_sequence)."""
MAX_HOLDERS_IN_METADATA = 10
LEASES = "leases"
"""The wake-up key of every lease change."""


@dataclass(frozen=True, slots=True)
class Seen:
    """What presence says of a lease's agent: its mailbox entry's activity (fabricd.core.model.presence)."""

    last_activity_ns: int
    heartbeat_ns: int


def seen_of(entry: MailboxEntry | None) -> Seen | None:
    return None if entry is None else Seen(entry.last_activity_ns, entry.heartbeat_ns)


@dataclass(frozen=True, slots=True)
class Clocks:
    """The settings an end is judged by (fabricd.core.limits)."""

    live_window_ns: int
    offline_grace_ns: int


def end_of(lease: Lease, seen: Seen | None, clocks: Clocks) -> tuple[int, EndCause]:
    """When a live lease ends unless renewed, and why: its ttl runs out (with renew_with_presence, counted
    from the agent's last activity when that is later), or its agent is offline for `offline_grace_ns` (an
    agent without a mailbox entry is held to its ttl alone)."""
    expire = lease.expire_ns
    if lease.renew_with_presence and seen is not None and seen.last_activity_ns:
        expire = max(expire, seen.last_activity_ns + lease.ttl_ns)
    if seen is None:
        return expire, EndCause.EXPIRED
    gone = gone_at(seen, lease.acquire_ns, clocks)
    return (gone, EndCause.HOLDER_OFFLINE) if gone < expire else (expire, EndCause.EXPIRED)


def gone_at(seen: Seen, since_ns: int, clocks: Clocks) -> int:
    """When an agent counts as gone for what it holds or waits for since `since_ns`: offline (no activity for
    the live window) for `offline_grace_ns`, counted from no earlier than `since_ns`."""
    # A goodbye (Touch offline) clears the activity: offline since the heartbeat that said it.
    offline_since = (seen.last_activity_ns + clocks.live_window_ns) if seen.last_activity_ns else seen.heartbeat_ns
    return max(offline_since, since_ns) + clocks.offline_grace_ns


def judge(lease: Lease, seen: Seen | None, now: int, clocks: Clocks) -> EndCause:
    """UNSPECIFIED while the lease is live at `now`, else why it ended."""
    if not lease.live:
        return lease.end_cause
    at, cause = end_of(lease, seen, clocks)
    return cause if now >= at else EndCause.UNSPECIFIED


def ended(lease: Lease, cause: EndCause, now: int, revision: int) -> Lease:
    return dataclasses.replace(lease, end_cause=cause, end_ns=now, revision=revision)


def conflicts(live: Iterable[Lease], asked: Sequence[str], mode: LeaseMode, agent_id: str,
              literal: bool = False) -> list[Holder]:
    """Each (lease, its resource, the asked one) in the way of `agent_id` working on `asked` in `mode` (`asked`
    literal paths: lease_patterns.meets)."""
    out: list[Holder] = []
    for lease in live:
        if lease.agent_id == agent_id or (mode == LeaseMode.SHARED and lease.mode == LeaseMode.SHARED):
            continue
        out.extend(Holder(lease, held, want) for want in asked for held in lease.resources
                   if meets(held, want, literal))
    return out


class LeaseConflict(FailedPrecondition):
    """LEASE_CONFLICT, with the holders as objects (`holders`) for the typed detail."""

    def __init__(self, holders: list[Holder], now: int, ahead: Sequence[Behind] = ()) -> None:
        first = holders[0]
        who = sorted({h.lease.agent_id for h in holders})
        left = max(0, first.lease.expire_ns - now) / 1e9
        metadata: dict[str, object] = {"holders": len(holders)}
        for i, h in enumerate(holders[:MAX_HOLDERS_IN_METADATA]):
            metadata.update({f"holder_{i}_agent_id": h.lease.agent_id, f"holder_{i}_session_name":
                             h.lease.session_name, f"holder_{i}_resource": h.resource,
                             f"holder_{i}_requested": h.requested, f"holder_{i}_mode": h.lease.mode.name,
                             f"holder_{i}_reason": h.lease.reason, f"holder_{i}_expire_ns": h.lease.expire_ns})
        if ahead:
            metadata["waiters_ahead"] = len({b.waiter.waiter_id for b in ahead})
        super().__init__(
            f"{first.requested!r} overlaps {first.resource!r}, leased {first.lease.mode.name} by agent "
            f"{first.lease.agent_id!r} ({first.lease.reason or 'no reason given'}; ttl ends in {left:.0f}s); "
            f"{len(holders)} conflict(s) with {', '.join(map(repr, who))}. Nothing was granted: wait for them "
            "(fabric lease take --wait), ask them, or choose other resources",
            reason="LEASE_CONFLICT", **metadata)
        self.holders = holders


def in_line(waiters: Iterable[Waiter], asked: Sequence[str], mode: LeaseMode, agent_id: str,
            literal: bool = False) -> list[Behind]:
    """Each (waiter, its resource, the asked one) of `waiters` in the way of `agent_id` asking for `asked` in
    `mode` (the lease rule: overlapping, EXCLUSIVE on either side, another agent), oldest first."""
    out: list[Behind] = []
    for w in sorted(waiters, key=lambda w: w.order):
        if w.agent_id == agent_id or (mode == LeaseMode.SHARED and w.mode == LeaseMode.SHARED):
            continue
        out.extend(Behind(w, held, want) for want in asked for held in w.resources if meets(held, want, literal))
    return out


class LeaseQueued(FailedPrecondition):
    """LEASE_QUEUED: no lease stands in the way, but earlier waiters do (`ahead`, oldest first)."""

    def __init__(self, ahead: list[Behind], now: int) -> None:
        first = ahead[0]
        waiters = list({b.waiter.waiter_id: b.waiter for b in ahead}.values())
        metadata: dict[str, object] = {"waiters": len(waiters)}
        for i, b in enumerate(ahead[:MAX_HOLDERS_IN_METADATA]):
            metadata.update({f"waiter_{i}_agent_id": b.waiter.agent_id, f"waiter_{i}_resource": b.resource,
                             f"waiter_{i}_requested": b.requested, f"waiter_{i}_mode": b.waiter.mode.name,
                             f"waiter_{i}_enqueue_ns": b.waiter.enqueue_ns})
        since = max(0, now - first.waiter.enqueue_ns) / 1e9
        super().__init__(
            f"{first.requested!r} overlaps {first.resource!r}, which agent {first.waiter.agent_id!r} has been "
            f"waiting for ({first.waiter.mode.name}) for {since:.0f}s; {len(waiters)} waiter(s) ahead in line "
            "(FIFO per resource). Nothing was granted: wait to queue behind them (fabric lease take --wait), or "
            "choose other resources", reason="LEASE_QUEUED", **metadata)
        self.ahead = ahead


def not_found(lease_id: str) -> NotFound:
    return NotFound(f"lease {lease_id!r} is not live: it ended (released, expired, or its agent left or went "
                    "offline) or never was; acquire a new one (fabric lease ls shows the live ones)",
                    reason="LEASE_NOT_FOUND", lease_id=lease_id)


def not_yours(lease: Lease, agent_id: str) -> PermissionDenied:
    return PermissionDenied(f"agent:{agent_id} may not change lease {lease.lease_id!r}: agent "
                            f"{lease.agent_id!r} holds it (an admin may release it)", reason="OUT_OF_SCOPE",
                            identity=f"agent:{agent_id}", lease_id=lease.lease_id)


def ttl(value_ns: int, default_ns: int, max_ns: int, field: str = "ttl") -> int:
    """A checked ttl: unset (0) is the default; otherwise above zero and at most the maximum."""
    if value_ns == 0:
        return min(default_ns, max_ns)
    if value_ns < 0 or value_ns > max_ns:
        raise InvalidArgument(f"{field} must be above 0 and at most {max_ns / 1e9:g}s (limits.lease_max_ttl); "
                              f"got {value_ns / 1e9:g}s", reason="LEASE_TTL_OUT_OF_RANGE", field=field,
                              limit=f"{max_ns / 1e9:g}s")
    return value_ns


@dataclass(frozen=True, slots=True)
class AcquireFacts:
    """What a grant decides on, read in its write transaction after taking the lease counter."""

    leases: list[Lease]
    """The live records (as stored: some may be judged ended now) overlapping the request, and the asking
    agent's own (its quota); any others may be given too."""
    seen: dict[str, Seen | None]
    """Presence of each agent holding one of `leases`, and of the asking agent."""
    revision: int
    """The lease counter's value this write took."""
    session_name: str = ""
    waiters: list[Waiter] = dataclasses.field(default_factory=list)
    """The stored waiter records (live or dead) that may stand in the way, and the caller's own."""


@dataclass(frozen=True, slots=True)
class Line:
    """A waiting call's terms: its waiter id, its deadline (0: none), and how long its record lives without
    a try (a node that dies stops trying: the bound on how long its waiters stand in others' way);
    `registered` once a try found its agent registered (its record says so too, until Unregister deletes it),
    and `since_ns` when it first queued (its agent's absence is counted from no earlier than that)."""

    waiter_id: str
    deadline_ns: int
    ttl_ns: int
    registered: bool = False
    since_ns: int = 0


class LeaseWaitAborted(Aborted):
    """LEASE_WAIT_ABORTED: a waiting call whose registered agent left (unregistered, or offline too long)."""

    def __init__(self, request: AcquireRequest, cause: EndCause, since_ns: int, now: int) -> None:
        waited = max(0, now - since_ns) / 1e9
        why = ("unregistered" if cause == EndCause.UNREGISTERED else
               "was offline (no activity for limits.live_window) for longer than limits.lease_offline_grace")
        super().__init__(
            f"agent {request.agent_id!r} {why} while its Acquire of {', '.join(request.resources)} waited "
            f"({waited:.0f}s); a lease outlives no agent, so the wait ended and left the line, and nothing was "
            "granted. Register the agent again (or keep it live: heartbeat while waiting) and acquire again",
            reason="LEASE_WAIT_ABORTED", agent_id=request.agent_id, cause=cause.name, waited_s=f"{waited:.3f}")


@dataclass(frozen=True, slots=True)
class Queued:
    """A waiting call keeps (or takes) its place in line: store `waiter`, delete `left`, write `ended`."""

    waiter: Waiter
    holders: list[Holder]
    ahead: list[Behind]
    left: list[str]
    ended: list[Lease]


@dataclass(frozen=True, slots=True)
class Granted:
    lease: Lease
    ended: list[Lease]
    """Records found ended (judged so by `end_of`): stored ended with the grant."""
    left: list[str] = dataclasses.field(default_factory=list)
    """Waiter records to delete: the caller's own, and those found dead."""


def sweep(leases: Iterable[Lease], seen: dict[str, Seen | None], now: int, clocks: Clocks,
          revision: int) -> tuple[list[Lease], list[Lease]]:
    """(the live ones, the ones judged ended, as ended records)."""
    live, gone = [], []
    for lease in leases:
        cause = judge(lease, seen.get(lease.agent_id), now, clocks)
        if cause == EndCause.UNSPECIFIED:
            live.append(lease)
        elif lease.live:
            gone.append(ended(lease, cause, now, revision))
    return live, gone


def acquire(request: AcquireRequest, facts: AcquireFacts, lease_id: str, now: int, clocks: Clocks,
            quota: int, line: Line | None = None) -> Granted | Queued:
    """A grant of every asked resource, or the refusal (LEASE_CONFLICT with every holder; LEASE_QUEUED with
    every earlier waiter in the way; QUOTA_LEASES when `quota` (0: none) live leases of the agent's stand).

    With `line` (a waiting call) a conflict or an earlier waiter is no refusal but Queued: the caller's record
    (found live: its place kept, its expiry moved; else a new place at the back, `facts.revision`)."""
    live, gone = sweep(facts.leases, facts.seen, now, clocks, facts.revision)
    waiting = [w for w in facts.waiters if w.live(now)]
    left = [w.waiter_id for w in facts.waiters if not w.live(now)]
    mine = next((w for w in waiting if line is not None and w.waiter_id == line.waiter_id), None)
    me = facts.seen.get(request.agent_id)
    if line is not None and (line.registered or (mine is not None and mine.registered)):
        since = mine.enqueue_ns if mine is not None else (line.since_ns or now)
        if me is None:
            raise LeaseWaitAborted(request, EndCause.UNREGISTERED, since, now)
        if now >= gone_at(me, since, clocks):
            raise LeaseWaitAborted(request, EndCause.HOLDER_OFFLINE, since, now)
    place = mine.order if mine is not None else facts.revision
    earlier = [w for w in waiting if w is not mine and (line is None or w.order < place)]
    ahead = in_line(earlier, request.resources, request.mode, request.agent_id)
    in_the_way = conflicts(live, request.resources, request.mode, request.agent_id)
    if line is None and in_the_way:
        raise LeaseConflict(in_the_way, now, ahead)
    if line is None and ahead:
        raise LeaseQueued(ahead, now)
    if in_the_way or ahead:
        assert line is not None
        expire = now + line.ttl_ns
        waiter = dataclasses.replace(mine, expire_ns=expire) if mine is not None else Waiter(
            line.waiter_id, request.agent_id, request.resources, request.mode, place, now, expire, line.deadline_ns,
            registered=me is not None)
        return Queued(waiter, in_the_way, ahead, left, gone)
    held = sum(lease.agent_id == request.agent_id for lease in live)
    if quota and held + 1 > quota:
        raise ResourceExhausted(
            f"agent {request.agent_id!r} is at its quota of live leases ({held} of {quota}); release some "
            "(fabric lease rm) or let them end. An operator raises limits.quota_leases",
            reason="QUOTA_LEASES", agent_id=request.agent_id, quota="leases", limit=quota, usage=held)
    lease = Lease(lease_id=lease_id, agent_id=request.agent_id, resources=request.resources, mode=request.mode,
                  fencing_token=facts.revision, acquire_ns=now, expire_ns=now + request.ttl_ns,
                  ttl_ns=request.ttl_ns, session_name=facts.session_name, reason=request.reason,
                  renew_with_presence=request.renew_with_presence, revision=facts.revision)
    return Granted(lease, gone, [*left, *([mine.waiter_id] if mine is not None else [])])


def waiters_due(waiters: Iterable[Waiter], now: int) -> tuple[list[str], int]:
    """(the dead waiter records to delete, when the next live one dies unless its call tries again; 0: none)."""
    dead, ends = [], []
    for w in waiters:
        if w.live(now):
            ends.append(min(w.expire_ns, w.deadline_ns or w.expire_ns))
        else:
            dead.append(w.waiter_id)
    return dead, min(ends, default=0)


def renew(lease: Lease | None, lease_id: str, seen: Seen | None, now: int, clocks: Clocks, ttl_ns: int,
          revision: int, as_agent: str = "") -> Lease:
    """The lease with its ttl running from now (`ttl_ns`, 0: its own); LEASE_NOT_FOUND when it is not live;
    PERMISSION_DENIED when `as_agent` is set and is not its holder."""
    if lease is None or judge(lease, seen, now, clocks) != EndCause.UNSPECIFIED:
        raise not_found(lease_id)
    if as_agent and lease.agent_id != as_agent:
        raise not_yours(lease, as_agent)
    span = ttl_ns or lease.ttl_ns
    return dataclasses.replace(lease, expire_ns=now + span, ttl_ns=span, revision=revision)


def release(lease: Lease | None, as_agent: str, now: int, revision: int) -> Lease | None:
    """The released record, or None when there is no live one (releasing twice is no error);
    PERMISSION_DENIED when `as_agent` is set and is not its holder."""
    if lease is None or not lease.live:
        return None
    if as_agent and lease.agent_id != as_agent:
        raise not_yours(lease, as_agent)
    return ended(lease, EndCause.RELEASED, now, revision)
