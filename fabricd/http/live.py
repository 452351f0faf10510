"""The overseer's live picture of the fabric: one shared snapshot, rebuilt once per burst of changes.

Invariants:
- Nothing is read while no page is open: the wake-up listener only notes keys.
- Every page shares one snapshot per change. The daemon's wake-ups (fabricd.core.notify: the directory, each
  mailbox and queue, the outbox, the tokens) mark what moved; COALESCE_S after the first mark, one task re-reads
  what moved (the directory whole, only the marked mailboxes' oldest unread and the marked queues) through the
  core services, and publishes a new version. Pages wait on the version and send the newest snapshot: a slow
  page skips versions, it never queues them, so memory stays bounded by one snapshot.
- A wake-up from every key (a PostgreSQL LISTEN reconnect) or a new page after a quiet spell re-reads everything:
  first the directory alone (published at once: a page paints in one read), then every mailbox and queue.
  The last picture is kept while no page is open (one picture: memory stays bounded).
- Presence turns OFFLINE with time, not with a write: the directory is re-read every TICK_S while pages are open,
  and the outbox every PENDING_TICK_S while it holds pending rows (delivery attempts wake no one).
- More panels (channels, leases) add a `Panel`: the wake keys it follows and how it reads its part.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from fabricd import wire
from fabricd.core.directory import DIRECTORY
from fabricd.core.mailbox import mailbox_key
from fabricd.core.model import MailboxEntry, Presence, RowState
from fabricd.core.outbox import OUTBOX
from fabricd.core.rendezvous_wait import queue_key
from fabricd.core.tokens import TOKENS
from fabricd.rpc.server import Core
from fabricd.v1 import rendezvous_service_pb2 as rv_pb
from fabricd.v1 import types_pb2

log = logging.getLogger("fabricd.http")

COALESCE_S = 0.1
"""The least time from a first mark to its rebuild."""
PACE_FACTOR = 20.0
MAX_PACE_S = 0.8
"""A rebuild waits at least PACE_FACTOR times as long as the last picture cost (its rebuild, and the pages' encoding
and sending of it; at most MAX_PACE_S) after a mark: on a big fabric under load a picture costs the loop
milliseconds, and a rebuild every COALESCE_S took a third of the daemon's send rate (scripts/bench --pages 10 --agents 1000). A change still shows within a second."""
TICK_S = 5.0
PENDING_TICK_S = 1.0
QUEUE_SHOWN = 50
ROWS_SHOWN = 50
FEW_MOVED = 64
"""A rebuild after mail moved in at most this many mailboxes (and nothing else in the directory) re-reads only their
entries; more, or a directory change, re-reads the whole directory."""
READS_AT_ONCE = 4
"""Mailbox and queue reads of one rebuild in flight together (a PostgreSQL store serves them on its pool of 8:
half of it stays free for the calls)."""
_MAILBOX, _QUEUE = mailbox_key(""), queue_key("")


@dataclass(slots=True)
class Panel:
    """One more panel's part of the snapshot (channels, leases): read when a key it follows moves."""

    name: str
    method: str
    """The RPC whose access rule decides who sees it (fabricd.rpc.auth.POLICIES); a list call whose rule reads no
    request field (it is checked with none)."""
    follows: Callable[[str], bool]
    read: Callable[[Any, set[str] | None], Awaitable[Any]]
    """Its part, as JSON-ready data, read as a trusted caller once per change for every page: given its part
    as it was (None the first time) and the keys that moved since (None: read everything)."""
    withhold: Callable[[Any, str], Any] | None = None
    """What an agent identity (its agent id) sees of the part, when less than the whole (fabricd.rpc.visibility)."""


@dataclass(slots=True)
class Picture:
    version: int
    now_ns: int
    entries: list[MailboxEntry]
    presence: dict[str, Presence]
    oldest_unread_ns: dict[str, int]
    queues: dict[str, rv_pb.GetQueueResponse]
    outbox: dict[str, Any]
    tokens: list[Any]
    status: Any
    sections: dict[str, tuple[Panel, Any]] = field(default_factory=dict)
    """Each Panel's part by name, with its Panel."""
    encoded: dict[str, bytes] = field(default_factory=dict)
    """Each audience's JSON of this snapshot, made once (fabricd.http.views)."""


@dataclass(slots=True)
class _Dirty:
    everything: bool = True
    directory: bool = False
    outbox: bool = False
    tokens: bool = False
    mailboxes: set[str] = field(default_factory=set)
    queues: set[str] = field(default_factory=set)
    sections: dict[str, set[str]] = field(default_factory=dict)

    def any(self) -> bool:
        return (self.everything or self.directory or self.outbox or self.tokens or bool(self.mailboxes)
                or bool(self.queues) or bool(self.sections))


class Live:
    """Follows the daemon's wake-ups and keeps the newest snapshot for the open pages (module docstring)."""

    def __init__(self, core: Core, clock: Callable[[], int] = time.time_ns) -> None:
        self._core = core
        self._clock = clock
        self.sections: list[Panel] = []
        """The panels beyond the built-in ones (fabricd.http.server.Overseer adds channels and leases)."""
        self._dirty = _Dirty()
        self._timer: asyncio.TimerHandle | None = None
        self._pace = COALESCE_S
        self._spent = 0.0
        """Seconds the pages spent sending the last picture (see `spent`): part of a picture's cost."""
        """How long a mark waits for its rebuild now (see PACE_FACTOR)."""
        self._building: asyncio.Task[None] | None = None
        self._ticker: asyncio.Task[None] | None = None
        self._published = asyncio.Event()
        self.snapshot: Picture | None = None
        self.watchers = 0
        self.mail_versions: dict[str, int] = {}
        """How often each mailbox moved: a page re-reads its own inbox when its agent's count moves."""
        self.closed = False
        self._version = 0
        self._outbox_moves = 0
        """OUTBOX wake-ups seen: `_outbox` reads again when one comes between its two reads."""

    # -- following the wake-ups

    def note(self, key: Hashable | None) -> None:
        """A wake-up listener (fabricd.core.notify.LocalWakeups.listeners): mark, and rebuild soon if watched."""
        if not self.watchers:
            return  # nobody looks: the first page reads everything (unwatch marked it so)
        d = self._dirty
        if key is None:
            d.everything = True
        elif not isinstance(key, str):
            return
        elif key.startswith(_MAILBOX):
            agent = key[len(_MAILBOX):]
            d.mailboxes.add(agent)
            self.mail_versions[agent] = self.mail_versions.get(agent, 0) + 1
        elif key.startswith(_QUEUE):
            d.queues.add(key[len(_QUEUE):])
        elif key == DIRECTORY:
            d.directory = True
        elif key == OUTBOX:
            d.outbox = True
            self._outbox_moves += 1
        elif key == TOKENS:
            d.tokens = True
        for s in self.sections:  # a panel may follow built-in keys too (the directory's, moved every TICK_S)
            if isinstance(key, str) and s.follows(key):
                d.sections.setdefault(s.name, set()).add(key)
        if self._timer is None and d.any():
            self._timer = asyncio.get_running_loop().call_later(self._pace, self._kick)

    def _kick(self) -> None:
        self._timer = None
        if self._building is None or self._building.done():
            self._building = asyncio.ensure_future(self._rebuild())

    async def _rebuild(self) -> None:
        dirty, self._dirty = self._dirty, _Dirty(everything=False)
        started = time.monotonic()
        try:
            if dirty.everything:  # a first page: the directory at once, each mailbox's and queue's details next
                self.snapshot = await self._build(dirty, self.snapshot, quick=True)
                self._publish()
            self.snapshot = await self._build(dirty, self.snapshot)
        except Exception:  # a failed read (a database away) is retried on the next change
            log.exception("the overseer page could not read the fabric")
            self._dirty.everything = True
        self._publish()
        took, self._spent = time.monotonic() - started + self._spent, 0.0
        self._pace = min(MAX_PACE_S, max(COALESCE_S, PACE_FACTOR * took))
        if self._dirty.any() and self.watchers and self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(self._pace, self._kick)

    def spent(self, seconds: float) -> None:
        """A page took `seconds` to encode and send a picture (counted into the pace of the next rebuild)."""
        self._spent += seconds

    def _publish(self) -> None:
        self._published.set()
        self._published = asyncio.Event()

    # -- pages

    async def watch(self) -> None:
        """A page opened: read now if there is no picture or it is stale (the page waits with `next`)."""
        self.watchers += 1
        if self._ticker is None or self._ticker.done():
            self._ticker = asyncio.ensure_future(self._tick())
        if self.snapshot is None or self._dirty.any():
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            if self._building is None or self._building.done():
                self._building = asyncio.ensure_future(self._rebuild())

    async def settled(self) -> Picture | None:
        """The picture once no rebuild runs or is due (the marks so far are all read)."""
        while True:
            if self._building is not None and not self._building.done():
                await asyncio.shield(self._building)
            elif self.watchers and self._dirty.any():
                if self._timer is not None:
                    self._timer.cancel()
                self._kick()
            else:
                return self.snapshot

    def unwatch(self) -> None:
        self.watchers -= 1
        if not self.watchers:
            if self._ticker is not None:
                self._ticker.cancel()
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            self._dirty.everything = True  # nobody follows the changes now: read all at the next page
            self.mail_versions.clear()  # a new page reads its inbox first anyway

    async def next(self, version: int, timeout: float) -> Picture | None:
        """The snapshot after `version`, or None after `timeout` (a keepalive) or at close."""
        if self.snapshot is not None and self.snapshot.version != version:
            return self.snapshot
        published = self._published
        try:
            await asyncio.wait_for(published.wait(), timeout)
        except TimeoutError:
            return None
        return None if self.closed else self.snapshot

    def close(self) -> None:
        self.closed = True
        self._published.set()
        for handle in (self._timer, self._ticker, self._building):
            if handle is not None:
                handle.cancel()

    async def _tick(self) -> None:
        while True:
            picture = self.snapshot
            pending = picture is not None and bool(picture.outbox["pending"])
            await asyncio.sleep(PENDING_TICK_S if pending else TICK_S)
            if pending:  # a delivery attempt moves a row (to delivered, dead) without a wake-up of its own
                self._dirty.outbox = True
            self.note(DIRECTORY)

    # -- reading

    async def _entries(self) -> list[MailboxEntry]:
        entries: list[MailboxEntry] = []
        token = ""
        while True:
            listed = await self._core.directory.list(0, token)
            entries.extend(listed.items)
            token = listed.next_page_token
            if not token:
                return entries

    async def _moved_entries(self, dirty: _Dirty, before: Picture | None) -> list[MailboxEntry] | None:
        """`before`'s entries with those of the few mailboxes that moved read again (a send moves its recipient's
        unread count, not the directory); None when the whole directory must be read."""
        if (before is None or dirty.everything or dirty.directory or not dirty.mailboxes
                or len(dirty.mailboxes) > FEW_MOVED):
            return None
        at = {e.agent_id: i for i, e in enumerate(before.entries)}
        if not dirty.mailboxes <= at.keys():
            return None  # a mailbox the picture does not have: read the directory in its order
        entries = list(before.entries)
        gone = set()
        for agent_id in dirty.mailboxes:
            entry = await self._core.directory.get(agent_id)
            if entry is None:
                gone.add(agent_id)
            else:
                entries[at[agent_id]] = entry
        return [e for e in entries if e.agent_id not in gone] if gone else entries

    async def _build(self, dirty: _Dirty, before: Picture | None, quick: bool = False) -> Picture:
        """A new picture: what `dirty` marks read again, the rest taken from `before`; `quick` skips the reads of
        each mailbox and queue (a first page's first paint)."""
        core = self._core
        every = dirty.everything or before is None
        status = await core.status()
        entries = await self._moved_entries(dirty, before)
        if entries is None:
            entries = await self._entries()
        keep = before is not None and (quick or not every)  # a quick picture shows the details it had
        oldest = dict(before.oldest_unread_ns) if keep and before is not None else {}
        queues = dict(before.queues) if keep and before is not None else {}
        for e in entries:
            if not e.unread_count:
                oldest.pop(e.agent_id, None)
        if not quick:
            await self._read_details(entries, dirty, every, status.queued_tickets, oldest, queues)
        known = {e.agent_id for e in entries}
        for gone in [a for a in queues if a not in known]:
            del queues[gone]
        outbox = before.outbox if before is not None and not (every or dirty.outbox) else await self._outbox()
        tokens = before.tokens if before is not None and not (every or dirty.tokens) else await self._tokens()
        sections = dict(before.sections) if before is not None else {}
        for s in self.sections:
            if every or s.name in dirty.sections or s.name not in sections:
                was = sections[s.name][1] if s.name in sections else None
                moved = None if every or was is None else dirty.sections.get(s.name, set())
                sections[s.name] = (s, await s.read(was, moved))
        self._version += 1
        return Picture(version=self._version,
                        now_ns=self._clock(), entries=entries,
                        presence={e.agent_id: core.directory.presence_of(e) for e in entries},
                        oldest_unread_ns=oldest, queues=queues, outbox=outbox, tokens=tokens,
                        status=status, sections=sections)

    async def _read_details(self, entries: list[MailboxEntry], dirty: _Dirty, every: bool, queued: int,
                            oldest: dict[str, int], queues: dict[str, rv_pb.GetQueueResponse]) -> None:
        """The oldest unread message of each mailbox that moved, and each queue that moved, READS_AT_ONCE at a time."""
        names = [e.agent_id for e in entries if e.unread_count and (
            every or e.agent_id in dirty.mailboxes or e.agent_id not in oldest)]
        targets = [e.agent_id for e in entries if every or e.agent_id in dirty.queues]
        if every and not queued:  # no ticket anywhere: no queue to read
            targets = []
        limit = asyncio.Semaphore(READS_AT_ONCE)

        async def bounded(read: Awaitable[None]) -> None:
            async with limit:
                await read

        await asyncio.gather(*(bounded(self._oldest(n, oldest)) for n in names),
                             *(bounded(self._queue(t, queues)) for t in targets))

    async def _oldest(self, agent_id: str, into: dict[str, int]) -> None:
        envelopes, _ = await self._core.mailboxes.peek(agent_id, 1)
        if envelopes:
            into[agent_id] = types_pb2.Message.FromString(envelopes[0].encoded).send_time.ToNanoseconds()

    async def _queue(self, agent_id: str, into: dict[str, rv_pb.GetQueueResponse]) -> None:
        listed = await self._core.rendezvous.queue(agent_id, QUEUE_SHOWN)
        if listed.items:
            into[agent_id] = rv_pb.GetQueueResponse(tickets=wire.queue_out(listed.items, listed.offset),
                                                    next_page_token=listed.next_page_token)
        else:
            into.pop(agent_id, None)

    async def _outbox(self) -> dict[str, Any]:
        # Two reads, pending first: a row that goes from pending to dead between them (a last failed attempt, no
        # wake-up) shows twice for one picture, never not at all. The other way, dead to pending, is a retry, which
        # wakes OUTBOX: read again then, or a retried row would be in neither list (a page showing an empty outbox
        # while the row waits; seen as a flaky test on PostgreSQL). Another node's retry wakes this one by NOTIFY,
        # later: the picture after it is right.
        outbox = self._core.outbox
        for _ in range(3):
            seen = self._outbox_moves
            pending = await outbox.list(0, "", int(RowState.PENDING), ROWS_SHOWN)
            dead = await outbox.list(0, "", int(RowState.DEAD_LETTER), ROWS_SHOWN)
            if self._outbox_moves == seen:
                break
        return {"pending": pending.items, "dead": dead.items, "more_pending": bool(pending.next_page_token),
                "more_dead": bool(dead.next_page_token)}

    async def _tokens(self) -> list[Any]:
        out: list[Any] = []
        token = ""
        while True:
            listed = await self._core.tokens.list(0, token)
            out.extend(listed.items)
            token = listed.next_page_token
            if not token or len(out) >= 1000:
                return out
