"""Transaction scripts of the leases (LMDB, memory, and PostgreSQL through PgTx), and their port over an Engine.

fabricd.core.leases decides every write. A grant, a renewal, a release and a sweep take the lease counter
first (`tx.next_sequence`): on PostgreSQL that row lock serialises them across nodes before any lease is
read (and locked), so two overlapping grants never both commit and lease rows are always locked after the
counter (no deadlock between a grant and a release); LMDB and memory have one writer. A refusal raises, so
the counter and everything else the script did are rolled back. Unregister (end_all) reads the agent's
leases first: it takes the counter only when there are some.

The line of waiting calls (fabricd.core.leases, "The line") is a table of waiter records every node reads in
the same serialised write as the leases: a waiting call's first try stores its record (its place: the
counter's value), each later try moves its expiry, and the grant deletes it. A call that ends ungranted
deletes its record (`leave`: it locks that one row only, never the counter, so it cannot deadlock with a
grant); the writes that find dead records (a node that stopped trying) delete them, and the sweep does when no
one else does. Deleting a record, or a grant, wakes the waiters (LEASES); storing one or moving its expiry
does not (a try would wake every other waiter, which would try, and so on).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from fabricd.core import leases as rules
from fabricd.core.kv.tx import Engine, RecordTx
from fabricd.core.lease_patterns import ANYWHERE, anchor, literal_anchor, meets
from fabricd.core.leases import COUNTER, LEASES, Clocks, Line, Queued, Seen
from fabricd.core.model_leases import AcquireRequest, EndCause, Holder, Lease, LeaseMode, Waiter

ENDED_KEPT_NS = 10 * 60 * 10**9
"""Ended records stay this long, so a watcher behind by less sees each end with its cause."""


BULK = 32
"""Presence of more agents than this is read in one listing of the entries, not one read per agent."""


def _seen(tx: RecordTx, agent_ids: Iterable[str]) -> dict[str, Seen | None]:
    wanted = set(agent_ids)
    if len(wanted) > BULK:
        found = {e.agent_id: e for e in tx.entries() if e.agent_id in wanted}
        return {agent_id: rules.seen_of(found.get(agent_id)) for agent_id in wanted}
    return {agent_id: rules.seen_of(tx.get_entry(agent_id)) for agent_id in wanted}


def _near(tx: RecordTx, asked: Sequence[str], literal: bool = False) -> list[Lease]:
    """The live leases that may overlap `asked` (cover it, when `literal`), through the anchor index, then
    judged by `overlap` (a pre-filter: the decider judges again)."""
    anchors = {literal_anchor(want) if literal else anchor(want) for want in asked}
    found = tx.leases_near(None if ANYWHERE in anchors else anchors)
    return [lease for lease in found if any(meets(held, want, literal) for held in lease.resources for want in asked)]


def _active(tx: RecordTx, agent_id: str, now: int) -> None:
    """Taking or renewing a lease is the agent's activity (so presence counts from it)."""
    entry = tx.get_entry(agent_id)
    if entry is not None and entry.last_activity_ns < now:
        entry.last_activity_ns = now
        tx.put_entry(entry, None)


def acquire(tx: RecordTx, clock: Callable[[], int], request: AcquireRequest, lease_id: str, clocks: Clocks,
            quota: int, line: Line | None = None) -> Lease | Queued:
    revision = tx.next_sequence(COUNTER)  # first: the row that serialises grants on PostgreSQL
    # The time is read once the counter is held: a grant that waited for the lock behind other grants and
    # releases is stamped after them, so acquire times grow with fencing tokens across nodes.
    now = clock()
    # what may conflict, and the agent's own (its quota)
    stored = list({lease.lease_id: lease for lease in [*_near(tx, request.resources),
                                                       *tx.leases_of(request.agent_id)]}.values())
    if line is None or tx.get_waiter(line.waiter_id) is None:  # a waiting call's later tries are not the
        _active(tx, request.agent_id, now)                        # agent's doing: they keep it live no longer
    entry = tx.get_entry(request.agent_id)
    facts = rules.AcquireFacts(stored, _seen(tx, [*(lease.agent_id for lease in stored), request.agent_id]),
                               revision, entry.session_name if entry is not None else "", tx.waiters())
    decided = rules.acquire(request, facts, lease_id, now, clocks, quota, line)
    for gone in decided.ended:
        tx.put_lease(gone)
    for waiter_id in decided.left:
        tx.delete_waiter(waiter_id)
    if isinstance(decided, Queued):
        tx.put_waiter(decided.waiter)
        if decided.ended or decided.left:
            tx.wake(LEASES)
        return decided
    tx.put_lease(decided.lease)
    tx.wake(LEASES)
    return decided.lease


def leave(tx: RecordTx, waiter_id: str) -> bool:
    """Delete a waiting call's record (its call ended ungranted); whether there was one."""
    if tx.get_waiter(waiter_id) is None:
        return False
    tx.delete_waiter(waiter_id)
    tx.wake(LEASES)  # the next in line may go now
    return True


def waiters(tx: RecordTx, now: int) -> list[Waiter]:
    return [w for w in tx.waiters() if w.live(now)]


def renew(tx: RecordTx, now: int, lease_id: str, ttl_ns: int, clocks: Clocks, as_agent: str) -> Lease:
    revision = tx.next_sequence(COUNTER)
    lease = tx.get_lease(lease_id)
    seen = _seen(tx, [lease.agent_id]).get(lease.agent_id) if lease is not None else None
    renewed = rules.renew(lease, lease_id, seen, now, clocks, ttl_ns, revision, as_agent)
    _active(tx, renewed.agent_id, now)
    tx.put_lease(renewed)
    tx.wake(LEASES)
    return renewed


def release(tx: RecordTx, now: int, lease_id: str, agent_id: str, as_agent: str, clocks: Clocks) -> list[Lease]:
    """End one lease (`lease_id`) or every live one of `agent_id`; the records released. A lease found
    ended by its ttl or presence is ended with that cause instead (and is not counted)."""
    revision = tx.next_sequence(COUNTER)  # first, as a grant does: lease rows are locked in one order
    if lease_id:
        found = tx.get_lease(lease_id)
        candidates = [found] if found is not None and found.live else []
    else:
        candidates = tx.leases_of(agent_id)
    if not candidates:
        return []
    live, gone = rules.sweep(candidates, _seen(tx, [c.agent_id for c in candidates]), now, clocks, revision)
    released = [r for r in (rules.release(lease, as_agent, now, revision) for lease in live) if r is not None]
    for lease in [*gone, *released]:
        tx.put_lease(lease)
    tx.wake(LEASES)
    return released


def end_all(tx: RecordTx, now: int, agent_id: str, cause: EndCause) -> int:
    """End every live lease of `agent_id` with `cause` (Unregister calls it in its transaction)."""
    held = tx.leases_of(agent_id)
    if not held:
        return 0
    revision = tx.next_sequence(COUNTER)
    for lease in held:
        tx.put_lease(rules.ended(lease, cause, now, revision))
    tx.wake(LEASES)
    return len(held)


def leave_all(tx: RecordTx, agent_id: str) -> int:
    """Delete the waiter records of `agent_id` (Unregister, in its transaction, after end_all): its waiting
    calls, woken, end LEASE_WAIT_ABORTED, and the waiters behind them may go now, whichever node they are on."""
    mine = [w.waiter_id for w in tx.waiters() if w.agent_id == agent_id]
    for waiter_id in mine:
        tx.delete_waiter(waiter_id)
    if mine:
        tx.wake(LEASES)
    return len(mine)


def due(tx: RecordTx, now: int, clocks: Clocks) -> tuple[bool, int]:
    """A read of the live leases: (whether an end is due to be written, the next end after now, 0 when no
    lease is live)."""
    live = tx.leases_near(None)
    seen = _seen(tx, [lease.agent_id for lease in live])
    ends = [rules.end_of(lease, seen.get(lease.agent_id), clocks)[0] for lease in live]
    dead, next_waiter = rules.waiters_due(tx.waiters(), now)
    ends.extend([next_waiter] if next_waiter else [])
    return bool(dead) or any(at <= now for at in ends), min((at for at in ends if at > now), default=0)


def sweep(tx: RecordTx, now: int, clocks: Clocks) -> list[Lease]:
    """Write the end of every lease judged ended (its cause: ttl or presence), delete dead waiter records, and
    prune ended records older than ENDED_KEPT_NS (a full read, done only with ends to write)."""
    revision = tx.next_sequence(COUNTER)  # first, as a grant does: lease rows are locked in one order
    dead, _ = rules.waiters_due(tx.waiters(), now)
    for waiter_id in dead:
        tx.delete_waiter(waiter_id)
    if dead:
        tx.wake(LEASES)  # the waiters behind a dead node's may go now
    stored = tx.leases()
    for old in stored:
        if not old.live and old.end_ns + ENDED_KEPT_NS <= now:
            tx.delete_lease(old.lease_id)
    live = [lease for lease in stored if lease.live]
    seen = _seen(tx, [lease.agent_id for lease in live])
    if not any(rules.judge(lease, seen.get(lease.agent_id), now, clocks) != EndCause.UNSPECIFIED for lease in live):
        return []
    _, gone = rules.sweep(live, seen, now, clocks, revision)
    for lease in gone:
        tx.put_lease(lease)
    tx.wake(LEASES)
    return gone


def live(tx: RecordTx, now: int, clocks: Clocks) -> list[Lease]:
    """The live leases (as judged now), oldest grant first."""
    stored = tx.leases_near(None)
    kept, _ = rules.sweep(stored, _seen(tx, [lease.agent_id for lease in stored]), now, clocks, 0)
    return sorted(kept, key=lambda lease: lease.fencing_token)


def check(tx: RecordTx, now: int, clocks: Clocks, agent_id: str, paths: Sequence[str],
          mode: LeaseMode, literal: bool = False) -> list[Holder]:
    """The conflicts other agents' live leases would cause for `paths` (judging only those that overlap;
    `literal`: the paths' characters are all themselves)."""
    near = [lease for lease in _near(tx, paths, literal) if lease.agent_id != agent_id]
    seen = _seen(tx, [lease.agent_id for lease in near])
    live_, _ = rules.sweep(near, seen, now, clocks, 0)
    return rules.conflicts(live_, paths, mode, agent_id, literal)


class KvLeases:
    """The lease port (fabricd.core.ports.LeasePort) over an Engine: each operation one script."""

    __slots__ = ("_e", "_clock")

    def __init__(self, engine: Engine, clock: Callable[[], int]) -> None:
        self._e = engine
        self._clock = clock

    async def acquire(self, request: AcquireRequest, lease_id: str, clocks: Clocks, quota: int) -> Lease:
        granted = await self._e.write(lambda tx: acquire(tx, self._clock, request, lease_id, clocks, quota))
        assert isinstance(granted, Lease)  # without a line, the rule grants or refuses
        return granted

    async def wait_turn(self, request: AcquireRequest, lease_id: str, clocks: Clocks, quota: int,
                        line: Line) -> Lease | Queued:
        return await self._e.write(lambda tx: acquire(tx, self._clock, request, lease_id, clocks, quota, line))

    async def leave(self, waiter_id: str) -> bool:
        return await self._e.write(lambda tx: leave(tx, waiter_id))

    async def waiters(self) -> list[Waiter]:
        return await self._e.read(lambda tx: waiters(tx, self._clock()))

    async def renew(self, lease_id: str, ttl_ns: int, clocks: Clocks, as_agent: str) -> Lease:
        return await self._e.write(lambda tx: renew(tx, self._clock(), lease_id, ttl_ns, clocks, as_agent))

    async def release(self, lease_id: str, agent_id: str, as_agent: str, clocks: Clocks) -> list[Lease]:
        return await self._e.write(lambda tx: release(tx, self._clock(), lease_id, agent_id, as_agent, clocks))

    async def live(self, clocks: Clocks) -> list[Lease]:
        return await self._e.read(lambda tx: live(tx, self._clock(), clocks))

    async def check(self, agent_id: str, paths: Sequence[str], mode: LeaseMode, clocks: Clocks,
                    literal: bool = False) -> list[Holder]:
        return await self._e.read(lambda tx: check(tx, self._clock(), clocks, agent_id, paths, mode, literal))

    async def since(self, after: int, limit: int) -> list[Lease]:
        """Records changed after revision `after`, in revision order (at most `limit`)."""
        return await self._e.read(lambda tx: tx.leases_since(after, limit))

    async def sweep(self, clocks: Clocks, prune: bool = False) -> tuple[list[Lease], int]:
        """Write the ends that are due (only when a read finds some, or to `prune` old ended records);
        (the ended, the next end, 0: none)."""
        work, _ = await self._e.read(lambda tx: due(tx, self._clock(), clocks))
        gone = await self._e.write(lambda tx: sweep(tx, self._clock(), clocks)) if work or prune else []
        _, next_at = await self._e.read(lambda tx: due(tx, self._clock(), clocks))
        return gone, next_at
