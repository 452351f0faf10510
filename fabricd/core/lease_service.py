"""The lease contract: acquire (at once or waiting in line), renew, release, list, check, watch, and the sweep.

The rules are fabricd.core.leases; the store runs them (fabricd.core.kv.leases). This module checks
requests, turns the settings into the rules' terms, and does the waiting:
- Acquire with wait: the call takes a place in the store's line (fabricd.core.leases, "The line": FIFO per
  resource across every node) and tries again when a lease or the line changes (a wake-up, which crosses
  PostgreSQL nodes by NOTIFY) and at least every third of limits.lease_waiter_ttl (which keeps its place
  alive), until granted or its deadline passes (DEADLINE_EXCEEDED, LEASE_WAIT_TIMEOUT), or its agent, registered
  when it queued, unregisters or goes offline past limits.lease_offline_grace (ABORTED, LEASE_WAIT_ABORTED: a
  try finds it so; Unregister deletes its record and wakes it); however it ends ungranted (deadline,
  cancelled, its client gone, its agent gone) it leaves the line;
- the sweep writes each lease's end (ttl or presence) when it is due, which wakes waiters and watchers;
  readers judge ends themselves, so nothing depends on the sweep's timing;
- WatchLeases reads storage after each wake-up (read the version, read, then wait): memory stays bounded.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import math
import time
import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field

from fabricd.core import lease_patterns as patterns
from fabricd.core import leases as rules
from fabricd.core import paging, validate
from fabricd.core.errors import DeadlineExceeded, FabricError, InvalidArgument
from fabricd.core.leases import LEASES, Clocks, Line
from fabricd.core.model_leases import AcquireRequest, Behind, Holder, Lease, LeaseMode, Waiter
from fabricd.core.ports import Service

log = logging.getLogger("fabricd.leases")
LIST = "leases"
MAX_REASON_BYTES = 1024
PRUNE_EVERY_S = 60.0
"""How often the sweep forgets ended records past their keeping (kv.leases.ENDED_KEPT_NS) with no end due."""
MAX_RESOURCES = 256
"""Resources of one Acquire, paths of one CheckLeases: with 1 KiB each, a lease stays within 260 KiB."""
RESYNC_S = 300.0
SINCE_LIMIT = 5000
WATCH_BATCH = 500
"""Events in one WatchLeases response at most; a response also stays within paging.budget() bytes."""


@dataclass(frozen=True, slots=True)
class Event:
    """A watcher's event: SNAPSHOT, ACQUIRED, RENEWED or ENDED (with its cause)."""

    kind: str
    lease: Lease


@dataclass(frozen=True, slots=True)
class LeaseBatch:
    events: list[Event] = field(default_factory=list)
    snapshot_complete: bool = False
    reset: bool = False


def checked_resources(values: Sequence[str], field_name: str = "resources",
                      literal: bool = False) -> tuple[str, ...]:
    """Normalised, deduplicated in order; at least one (MISSING_FIELD). `literal`: paths, not patterns."""
    if not values:
        raise InvalidArgument(f"{field_name} is required: name at least one path or pattern",
                              reason="MISSING_FIELD", field=field_name)
    if len(values) > MAX_RESOURCES:
        raise InvalidArgument(f"{len(values)} {field_name}; the limit is {MAX_RESOURCES}: lease a folder "
                              "(dir/**) or a pattern instead of its files one by one", reason="TOO_MANY_ITEMS",
                              field=field_name, limit=MAX_RESOURCES)
    return tuple(dict.fromkeys(patterns.normalise(v, field_name, literal) for v in values))


class Leases(Service):
    """LeaseService's core (see the module docstring)."""

    def clocks(self) -> Clocks:
        return Clocks(int(self.limits.live_window_s * 1e9), int(self.limits.lease_offline_grace_s * 1e9))

    def request(self, agent_id: str, resources: Sequence[str], mode: LeaseMode, ttl_ns: int, reason: str,
                renew_with_presence: bool) -> AcquireRequest:
        """A checked Acquire (LEASE_PATTERN_INVALID, LEASE_TTL_OUT_OF_RANGE, MISSING_FIELD)."""
        agent_id = validate.agent_id(agent_id, self.limits)
        validate.text_bytes(validate.stored_text(reason, "reason"), "reason", MAX_REASON_BYTES)
        span = rules.ttl(ttl_ns, int(self.limits.lease_default_ttl_s * 1e9), int(self.limits.lease_max_ttl_s * 1e9))
        return AcquireRequest(agent_id, checked_resources(resources), mode or LeaseMode.EXCLUSIVE, span, reason,
                              renew_with_presence)

    async def acquire(self, request: AcquireRequest, *, held_to_quota: bool, wait_s: float | None = None) -> Lease:
        """Grant or refuse at once; with `wait_s` (seconds, or float('inf')), wait in line until granted."""
        quota = self.limits.quota_leases if held_to_quota else 0
        lease_id = str(uuid.uuid4())
        if wait_s is None:
            return await self._store.leases.acquire(request, lease_id, self.clocks(), quota)
        ttl_s = self.limits.lease_waiter_ttl_s
        deadline = time.monotonic() + wait_s
        line = Line(str(uuid.uuid4()), self._clock() + int(wait_s * 1e9) if math.isfinite(wait_s) else 0,
                    int(ttl_s * 1e9))
        granted = False
        try:
            while True:
                seen = self._wakeups.version(LEASES)
                got = await self._store.leases.wait_turn(request, lease_id, self.clocks(), quota, line)
                if isinstance(got, Lease):
                    granted = True
                    return got
                if got.waiter.registered and not line.registered:  # tied to its agent's presence from now on,
                    line = dataclasses.replace(line, registered=True, since_ns=got.waiter.enqueue_ns)  # even once
                    # Unregister deletes its record, or the record died (a long pause) and the call queues anew
                left = deadline - time.monotonic()
                if left <= 0:
                    raise DeadlineExceeded(
                        f"waited {wait_s:g}s for {', '.join(request.resources)}: {len(got.holders)} lease(s) and "
                        f"{len({b.waiter.waiter_id for b in got.ahead})} earlier waiter(s) still stand in the "
                        "way; nothing was granted", reason="LEASE_WAIT_TIMEOUT", waited_s=f"{wait_s:g}")
                await self._wakeups.wait(LEASES, seen, min(left, self._keepalive_s, ttl_s / 3))
        finally:
            if not granted:  # however it ended (deadline, an error, cancelled: its client left)
                await self._leave(line.waiter_id)

    async def _leave(self, waiter_id: str) -> None:
        """Take a waiting call's record out of the line, even while the call is being cancelled; a failure
        leaves it to die at its expiry (limits.lease_waiter_ttl)."""
        task = asyncio.ensure_future(self._store.leases.leave(waiter_id))
        task.add_done_callback(lambda t: t.cancelled() or t.exception())  # seen, even once no one awaits it
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            raise
        except FabricError as exc:
            log.warning("a waiter's place in line was left to expire: %s", exc.message)

    async def waiters(self) -> list[Waiter]:
        """The waiting calls of every node (live records), oldest place first."""
        return await self._store.leases.waiters()

    async def renew(self, lease_id: str, ttl_ns: int, as_agent: str) -> Lease:
        validate.text_field(lease_id, "lease_id", self.limits, required=True)
        span = rules.ttl(ttl_ns, 0, int(self.limits.lease_max_ttl_s * 1e9)) if ttl_ns else 0
        return await self._store.leases.renew(lease_id, span, self.clocks(), as_agent)

    async def release(self, lease_id: str, agent_id: str, as_agent: str) -> list[Lease]:
        if not lease_id and not agent_id:
            raise InvalidArgument("lease_id is required: name a lease, or an agent_id to release all its leases",
                                  reason="MISSING_FIELD", field="lease_id")
        validate.text_field(lease_id, "lease_id", self.limits, required=False)
        validate.text_field(agent_id, "agent_id", self.limits, required=False)
        return await self._store.leases.release(lease_id, agent_id, as_agent, self.clocks())

    async def live(self, agent_id: str = "", resource: str = "") -> list[Lease]:
        pattern = patterns.normalise(resource, "resource") if resource else ""
        return [lease for lease in await self._store.leases.live(self.clocks())
                if (not agent_id or lease.agent_id == agent_id)
                and (not pattern or any(patterns.overlap(pattern, r) for r in lease.resources))]

    async def page(self, agent_id: str, resource: str, page_size: int, token: str) -> tuple[list[Lease], str]:
        """A page of `live` (AIP-158): oldest grant first, the cursor a fencing token."""
        validate.text_field(agent_id, "agent_id", self.limits, required=False)
        scope = f"{agent_id}\n{resource}"
        asked = paging.request(LIST, scope, paging.page_size(page_size), token)
        after = int(asked.cursor or 0) if asked.cursor.isdigit() or not asked.cursor else -1
        if after < 0:
            raise paging.bad_token("its cursor is not a lease's place")
        rows = [(str(lease.fencing_token), lease) for lease in await self.live(agent_id, resource)
                if lease.fencing_token > after]
        items, last = paging.take(rows, asked.size, paging.budget())
        return items, paging.next_token(LIST, scope, asked, paging.Page(items, last or ""))

    async def check(self, agent_id: str, paths: Sequence[str], mode: LeaseMode,
                    literal: bool = False) -> list[Holder]:
        """The other agents' leases in the way of work on `paths` (patterns; `literal`: file paths whose `*`
        and `?` are characters, as a file named `a*.py` is)."""
        validate.text_field(agent_id, "agent_id", self.limits, required=False)
        asked = checked_resources(paths, "paths", literal)
        return await self._store.leases.check(agent_id, asked, mode or LeaseMode.EXCLUSIVE, self.clocks(), literal)

    async def check_line(self, agent_id: str, paths: Sequence[str], mode: LeaseMode,
                         literal: bool = False) -> tuple[list[Holder], list[Behind]]:
        """`check`, and the other agents' waiters in line for these paths (oldest place first)."""
        holders = await self.check(agent_id, paths, mode, literal)
        asked = checked_resources(paths, "paths", literal)
        return holders, rules.in_line(await self.waiters(), asked, mode or LeaseMode.EXCLUSIVE, agent_id, literal)

    async def sweep(self, prune: bool = False) -> tuple[list[Lease], int]:
        """Write the ends that are due (with `prune`, forget ended records kept long enough even when none
        is); (the ended, when the next is due in ns, 0: none)."""
        return await self._store.leases.sweep(self.clocks(), prune)

    async def sweep_forever(self, most_s: float = 5.0, gap_s: float = 0.5) -> None:
        """Sweep when an end is due, or a lease changed, or every `most_s` seconds (presence moves alone), at
        most once per `gap_s` (a burst of grants costs one read of the live leases, not one each)."""
        last, pruned = -gap_s, time.monotonic()
        while not self._wakeups.closed:
            pause = last + gap_s - time.monotonic()
            if pause > 0:
                await asyncio.sleep(pause)
            seen = self._wakeups.version(LEASES)
            last = time.monotonic()
            prune = last - pruned >= PRUNE_EVERY_S
            pruned = last if prune else pruned
            try:
                _, next_at = await self.sweep(prune)
            except FabricError as exc:  # the store is full, away or closing: try again later
                log.warning("lease sweep paused: %s", exc.message)
                next_at = 0
            wait = most_s if not next_at else min(most_s, max(0.01, (next_at - self._clock()) / 1e9))
            await self._wakeups.wait(LEASES, seen, wait)

    async def watch(self) -> AsyncIterator[LeaseBatch]:
        """A snapshot of the live leases, then each change read through the revision index (never the whole
        table per change); an empty batch after keepalive_s without one. Every RESYNC_S the live leases are
        read again: a watcher whose view drifted (records it never saw pruned) gets a new snapshot (reset)."""
        known: set[str] = set()
        revision, resync, reset = 0, 0.0, False
        while True:
            seen = self._wakeups.version(LEASES)
            if time.monotonic() >= resync:
                live = await self.live()
                live_ids = {lease.lease_id for lease in live}
                if not resync or live_ids != known:  # the first snapshot, or a drift: a (new) snapshot
                    known = live_ids
                    revision = max([revision, *(lease.revision for lease in live)])
                    chunks = list(paging.batches(live, WATCH_BATCH, paging.budget())) or [[]]
                    for i, chunk in enumerate(chunks):
                        yield LeaseBatch([Event("SNAPSHOT", lease) for lease in chunk],
                                         snapshot_complete=i == len(chunks) - 1, reset=reset)
                reset, resync = True, time.monotonic() + RESYNC_S
            changes = await self._store.leases.since(revision, SINCE_LIMIT)
            events = []
            for lease in changes:
                revision = max(revision, lease.revision)
                if lease.live:
                    events.append(Event("RENEWED" if lease.lease_id in known else "ACQUIRED", lease))
                    known.add(lease.lease_id)
                elif lease.lease_id in known:  # an end of a lease this watcher was shown
                    events.append(Event("ENDED", lease))
                    known.discard(lease.lease_id)
            for batch in paging.batches(events, WATCH_BATCH, paging.budget()):
                yield LeaseBatch(batch)
            if len(changes) >= SINCE_LIMIT:
                continue
            if not await self._wakeups.wait(LEASES, seen, self._keepalive_s):
                if self._wakeups.closed:
                    return
                yield LeaseBatch()
