"""Presence: register, heartbeat, list, resolve names and watch the directory."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

from fabricd.core import validate
from fabricd.core.errors import FailedPrecondition, NotFound
from fabricd.core.model import Capability, Change, MailboxEntry, Presence, presence
from fabricd.core.notify import ChangeNotifier
from fabricd.core.ports import Service, Tx

DIRECTORY = ("directory",)
"""ChangeNotifier key for directory changes."""


def mark_changed(tx: Tx, entry: MailboxEntry, change: Change, notifier: ChangeNotifier) -> None:
    tx.put_entry(entry, change)
    tx.after_commit(notifier.notify, DIRECTORY)


def resolve_name(tx: Tx, name: str) -> MailboxEntry | None:
    """An agent id, a session name, or `session_name/suffix`; None when nothing matches.

    Raises FailedPrecondition, listing the candidates, when the name is ambiguous.
    """
    entry = tx.get_entry(name)
    if entry is not None:
        return entry
    candidates = tx.entries_named(name)
    if not candidates and "/" in name:
        session, suffix = name.rsplit("/", 1)
        if session and suffix:
            candidates = [e for e in tx.entries_named(session) if e.agent_id.endswith(suffix)]
    if len(candidates) > 1:
        ids = sorted(e.agent_id for e in candidates)
        raise FailedPrecondition(
            f"name {name!r} is ambiguous: it matches agents {', '.join(ids)}; "
            f"use an agent id or '{name}/<agent id suffix>'",
            reason="AMBIGUOUS_NAME",
            name=name,
            candidates=",".join(ids),
        )
    return candidates[0] if candidates else None


@dataclass(slots=True)
class WatchBatch:
    changes: list[tuple[Change, MailboxEntry]]
    snapshot_complete: bool = False


class Directory(Service):
    """The presence contract over a Store."""

    def presence_of(self, entry: MailboxEntry) -> Presence:
        return presence(entry, self._clock(), int(self.limits.live_window_s * 1e9))

    async def register(
        self,
        agent_id: str,
        session_name: str = "",
        capabilities: tuple[Capability, ...] = (),
        cwd: str = "",
        metadata: dict[str, str] | None = None,
    ) -> MailboxEntry:
        limits = self.limits
        validate.agent_id(agent_id, limits)
        validate.session_name(session_name, limits)
        validate.capabilities(capabilities, limits)
        metadata = dict(metadata or {})
        validate.string_map(metadata, "metadata", limits.max_metadata_bytes)
        if len(cwd) > 4096:
            raise validate.InvalidArgument("cwd is longer than 4096 characters", reason="FIELD_TOO_LONG", field="cwd")

        def apply(tx: Tx) -> MailboxEntry:
            now = self._clock()
            entry = tx.get_entry(agent_id)
            if entry is None:
                entry = MailboxEntry(agent_id=agent_id)
            change = Change.REGISTERED
            if entry.registered and entry.capabilities != capabilities:
                change = Change.CAPABILITIES_CHANGED
            entry.session_name = session_name
            entry.capabilities = capabilities
            entry.cwd = cwd
            entry.metadata = metadata
            entry.registered = True
            entry.register_time_ns = now
            entry.last_activity_ns = max(entry.last_activity_ns, now)
            mark_changed(tx, entry, change, self._notifier)
            return entry

        return await self._store.write(apply)

    async def touch(self, agent_id: str, busy: bool) -> MailboxEntry:
        validate.agent_id(agent_id, self.limits)

        def apply(tx: Tx) -> MailboxEntry:
            now = self._clock()
            entry = tx.get_entry(agent_id)
            if entry is None:
                entry = MailboxEntry(agent_id=agent_id)
            change = Change.BUSY_CHANGED if entry.busy != busy else Change.TOUCHED
            entry.busy = busy
            entry.heartbeat_ns = now
            entry.last_activity_ns = max(entry.last_activity_ns, now)
            mark_changed(tx, entry, change, self._notifier)
            return entry

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
