"""Presence: register, heartbeat, list, resolve names and watch the directory."""

from __future__ import annotations

import difflib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from fabricd.core import validate
from fabricd.core.errors import FailedPrecondition, NotFound
from fabricd.core.limits import Limits
from fabricd.core.model import Capability, Change, MailboxEntry, Presence, presence
from fabricd.core.notify import ChangeNotifier
from fabricd.core.ports import Service, Store, Tx

if TYPE_CHECKING:
    from fabricd.core.mailbox import Mailboxes
    from fabricd.core.rendezvous import Rendezvous

DIRECTORY = ("directory",)
"""ChangeNotifier key for directory changes."""


def mark_changed(tx: Tx, entry: MailboxEntry, change: Change, notifier: ChangeNotifier) -> None:
    tx.put_entry(entry, change)
    tx.after_commit(notifier.notify, DIRECTORY)


def _last_segment(agent_id: str) -> str:
    return agent_id.rsplit("/", 1)[-1]


def _hint_forms(name: str, candidates: list[MailboxEntry]) -> list[str]:
    """For each candidate, a form of address that resolves to it alone."""
    segments = [_last_segment(e.agent_id) for e in candidates]
    return [f"{name}/{seg}" if segments.count(seg) == 1 else e.agent_id
            for e, seg in zip(candidates, segments, strict=True)]


def resolve_name(tx: Tx, name: str) -> MailboxEntry | None:
    """An agent id, a session name, or `session_name/segment`; None when nothing matches.

    `goal_builder/main` is the agent of session `goal_builder` whose id's last
    '/'-separated segment is `main` (so `sess1/main` and `sess1/domain` are told
    apart); failing that, the one whose id ends with `main`. Raises
    FailedPrecondition, with forms that do resolve, when the name is ambiguous.
    """
    entry = tx.get_entry(name)
    if entry is not None:
        return entry
    candidates = tx.entries_named(name)
    session = name
    if not candidates and "/" in name:
        session, suffix = name.rsplit("/", 1)
        if session and suffix:
            named = tx.entries_named(session)
            candidates = [e for e in named if _last_segment(e.agent_id) == suffix]
            if not candidates:
                candidates = [e for e in named if e.agent_id.endswith(suffix)]
    if len(candidates) > 1:
        candidates.sort(key=lambda e: e.agent_id)
        ids = [e.agent_id for e in candidates]
        forms = _hint_forms(session, candidates)
        raise FailedPrecondition(
            f"name {name!r} is ambiguous: it matches agents {', '.join(ids)}; "
            f"address one of them as {' or '.join(repr(f) for f in forms)}",
            reason="AMBIGUOUS_NAME",
            name=name,
            candidates=",".join(ids),
            forms=",".join(forms),
        )
    return candidates[0] if candidates else None


def similar_names(tx: Tx, name: str, limit: int = 3) -> list[str]:
    """Registered agent ids and session names closest to `name`, best first (for "did you mean")."""
    known: set[str] = set()
    for entry in tx.entries():
        if entry.registered:
            known.add(entry.agent_id)
            if entry.session_name:
                known.add(entry.session_name)
    known.discard(name)
    return difflib.get_close_matches(name, sorted(known), n=limit, cutoff=0.6)


def unknown_recipient(tx: Tx, name: str) -> NotFound:
    """The refusal of mail to a name that is neither a registered agent nor an existing mailbox."""
    close = similar_names(tx, name)
    hint = f"did you mean {' or '.join(repr(c) for c in close)}? " if close else ""
    return NotFound(
        f"no agent or mailbox is named {name!r}; {hint}"
        "to leave mail for an agent that has not registered yet, send with create_mailbox (fabric send --create)",
        reason="UNKNOWN_RECIPIENT",
        name=name,
        suggestions=",".join(close),
    )


@dataclass(slots=True)
class WatchBatch:
    changes: list[tuple[Change, MailboxEntry]]
    snapshot_complete: bool = False


@dataclass(slots=True)
class Registered:
    entry: MailboxEntry
    name_shared_with: list[str]
    """Other live agents under the same session name: the name is ambiguous now."""


@dataclass(slots=True)
class Touched:
    entry: MailboxEntry
    created: bool
    similar_names: list[str]


class Directory(Service):
    """The presence contract over a Store.

    Unregister needs the mailbox and rendezvous rules (to purge mail and abort
    tickets in the same transaction), so `rendezvous` is passed in.
    """

    def __init__(self, store: Store, notifier: ChangeNotifier, limits: Limits, clock: Callable[[], int],
                 keepalive_s: float = 15.0, *, rendezvous: Rendezvous | None = None) -> None:
        super().__init__(store, notifier, limits, clock, keepalive_s)
        self._rendezvous = rendezvous

    def presence_of(self, entry: MailboxEntry) -> Presence:
        return presence(entry, self._clock(), int(self.limits.live_window_s * 1e9))

    async def register(
        self,
        agent_id: str,
        session_name: str = "",
        capabilities: tuple[Capability, ...] = (),
        cwd: str = "",
        metadata: dict[str, str] | None = None,
    ) -> Registered:
        """Create or update an entry; an empty session name keeps the registered one."""
        limits = self.limits
        validate.agent_id(agent_id, limits)
        validate.session_name(session_name, limits)
        validate.capabilities(capabilities, limits)
        metadata = dict(metadata or {})
        validate.string_map(metadata, "metadata", limits.max_metadata_bytes)
        if len(cwd) > 4096:
            raise validate.InvalidArgument("cwd is longer than 4096 characters", reason="FIELD_TOO_LONG", field="cwd")

        def apply(tx: Tx) -> Registered:
            now = self._clock()
            entry = tx.get_entry(agent_id)
            if entry is None:
                entry = MailboxEntry(agent_id=agent_id)
            change = Change.REGISTERED
            if entry.registered and entry.capabilities != capabilities:
                change = Change.CAPABILITIES_CHANGED
            if session_name:
                entry.session_name = session_name
            entry.capabilities = capabilities
            entry.cwd = cwd
            entry.metadata = metadata
            entry.registered = True
            entry.register_time_ns = now
            entry.last_activity_ns = max(entry.last_activity_ns, now)
            mark_changed(tx, entry, change, self._notifier)
            shared = []
            if entry.session_name:
                shared = sorted(e.agent_id for e in tx.entries_named(entry.session_name)
                                if e.agent_id != agent_id and self.presence_of(e) != Presence.OFFLINE)
            return Registered(entry, shared)

        return await self._store.write(apply)

    async def touch(self, agent_id: str, busy: bool, offline: bool = False) -> Touched:
        """A heartbeat (or, with `offline`, a goodbye); an unknown id gets a new entry."""
        validate.agent_id(agent_id, self.limits)

        def apply(tx: Tx) -> Touched:
            now = self._clock()
            entry = tx.get_entry(agent_id)
            created = entry is None
            if entry is None:
                entry = MailboxEntry(agent_id=agent_id)
            new_busy = busy and not offline
            change = Change.BUSY_CHANGED if entry.busy != new_busy else Change.TOUCHED
            entry.busy = new_busy
            entry.heartbeat_ns = now
            # A goodbye leaves no recent activity, so presence is OFFLINE until the agent is heard from again.
            entry.last_activity_ns = 0 if offline else max(entry.last_activity_ns, now)
            mark_changed(tx, entry, change, self._notifier)
            return Touched(entry, created, similar_names(tx, agent_id) if created else [])

        return await self._store.write(apply)

    async def unregister(self, name: str, purge: bool) -> tuple[int, int]:
        """Remove a mailbox; refused while it holds unread mail or queued tickets, unless `purge`.

        Returns (messages deleted, tickets aborted).
        """
        validate.agent_id(name, self.limits)
        rendezvous = self._rendezvous
        assert rendezvous is not None, "Directory needs the rendezvous rules to unregister"

        def apply(tx: Tx) -> tuple[int, int]:
            entry = resolve_name(tx, name)
            if entry is None:
                raise NotFound(f"no mailbox or session is named {name!r}", reason="NAME_NOT_FOUND", name=name)
            queued = len(rendezvous.queued_in(tx, entry.agent_id))
            if not purge and (entry.unread_count or queued):
                raise FailedPrecondition(
                    f"mailbox {entry.agent_id!r} holds {entry.unread_count} unread messages and {queued} queued "
                    "tickets; read or answer them first, or unregister with purge (fabric unregister --purge) "
                    "to delete the mail and abort the tickets",
                    reason="MAILBOX_NOT_EMPTY",
                    agent_id=entry.agent_id,
                    unread=entry.unread_count,
                    queued_tickets=queued,
                )
            aborted = rendezvous.abort_queue_in(tx, entry.agent_id, "the target agent was unregistered")
            purged = rendezvous.mailboxes.purge_in(tx, entry.agent_id)
            tx.delete_entry(entry.agent_id)
            tx.after_commit(self._notifier.notify, DIRECTORY)
            tx.after_commit(self._notifier.notify, entry.agent_id)
            return purged, aborted

        return await self._store.write(apply)

    def list(self) -> list[MailboxEntry]:
        return self._store.read(lambda tx: sorted(tx.entries(), key=lambda e: e.agent_id))

    def resolve(self, name: str) -> MailboxEntry:
        validate.text_field(name, "name", self.limits, required=True)
        entry = self._store.read(lambda tx: resolve_name(tx, name))
        if entry is None:
            raise NotFound(f"no mailbox or session is named {name!r}", reason="NAME_NOT_FOUND", name=name)
        return entry

    async def watch(self, page: int = 256) -> AsyncIterator[WatchBatch]:
        """The current entries (as SNAPSHOT changes), then each change; an empty batch is a keepalive."""
        revision, entries = self._store.read(lambda tx: (tx.revision(), sorted(tx.entries(), key=lambda e: e.agent_id)))
        for start in range(0, max(len(entries), 1), page):
            chunk = entries[start : start + page]
            yield WatchBatch([(Change.SNAPSHOT, e) for e in chunk], snapshot_complete=start + page >= len(entries))
        while True:
            seen = self._notifier.version(DIRECTORY)
            changed = self._store.read(lambda tx: tx.entries_since(revision, page))
            if changed:
                revision = changed[-1].revision
                yield WatchBatch([(e.change, e) for e in changed])
                continue
            woke = await self._notifier.wait(DIRECTORY, seen, self._keepalive_s)
            if self._notifier.closed:
                return
            if not woke:
                yield WatchBatch([])
