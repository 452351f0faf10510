"""Presence: register, heartbeat, list, resolve names and watch the directory."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass

from fabricd.core import paging, validate
from fabricd.core.errors import AlreadyExists, FabricError, FailedPrecondition, NotFound, PermissionDenied
from fabricd.core.model import Capability, Change, MailboxEntry, Presence, presence
from fabricd.core.paging import Listed
from fabricd.core.ports import Service

DIRECTORY = "directory"
"""Wake-up key for directory changes."""


# -- the refusals (every backend refuses in these words)


def last_segment(agent_id: str) -> str:
    return agent_id.rsplit("/", 1)[-1]


def _hint_forms(name: str, candidates: list[MailboxEntry]) -> list[str]:
    """For each candidate, a form of address that resolves to it alone."""
    segments = [last_segment(e.agent_id) for e in candidates]
    return [f"{name}/{seg}" if segments.count(seg) == 1 else e.agent_id
            for e, seg in zip(candidates, segments, strict=True)]


def ambiguous_name(name: str, session: str, candidates: list[MailboxEntry]) -> FailedPrecondition:
    candidates = sorted(candidates, key=lambda e: e.agent_id)
    ids = [e.agent_id for e in candidates]
    forms = _hint_forms(session, candidates)
    return FailedPrecondition(
        f"name {name!r} is ambiguous: it matches agents {', '.join(ids)}; "
        f"address one of them as {' or '.join(repr(f) for f in forms)} (only an admin or a local caller can "
        "give one name to several agents: an agent token cannot take a name a live agent holds)",
        reason="AMBIGUOUS_NAME",
        name=name,
        candidates=",".join(ids),
        forms=",".join(forms),
    )


def unknown_recipient(name: str, close: list[str]) -> NotFound:
    """The refusal of mail to a name that is neither a registered agent nor an existing mailbox."""
    hint = f"did you mean {' or '.join(repr(c) for c in close)}? " if close else ""
    return NotFound(
        f"no agent or mailbox is named {name!r}; {hint}"
        "to leave mail for an agent that has not registered yet, send with create_mailbox (fabric send --create)",
        reason="UNKNOWN_RECIPIENT",
        name=name,
        suggestions=",".join(close),
    )


def name_held(name: str, holders: list[str]) -> PermissionDenied:
    return PermissionDenied(
        f"session name {name!r} is held by live agent {', '.join(holders)}; an agent token cannot take a name "
        "another live agent holds (mail to the name would become ambiguous): register under another name, or "
        "wait until that agent is offline",
        reason="NAME_HELD", name=name, held_by=",".join(holders))


def id_collides(agent_id: str, holders: list[str]) -> AlreadyExists:
    """The refusal of a new agent id (Register, Touch, a token) that already reaches other agents as a name."""
    return AlreadyExists(
        f"agent id {agent_id!r} is already an address of agent {', '.join(holders)} (its session name, or "
        f"'session/segment' form): mail and calls to {agent_id!r} reach that agent, so a new agent may not take "
        "the id; choose another agent id", reason="NAME_COLLISION", name=agent_id, held_by=",".join(holders))


def name_is_an_id(name: str) -> AlreadyExists:
    """The refusal of a session name that is another agent's id (a registered agent's, or a live token's)."""
    return AlreadyExists(
        f"session name {name!r} is the agent id of another agent (a registered agent or an agent token): a "
        "name and an id that are the same would be one address for two agents; register under another name",
        reason="NAME_COLLISION", name=name, held_by=name)


def names_another_agent(agent_id: str, holders: list[str], identity: str) -> PermissionDenied:
    return PermissionDenied(
        f"{identity} may not act as agent {agent_id!r}: that name reaches agent {', '.join(holders)} (its session "
        "name or 'session/segment' form), not an agent of its own; an admin issues a token under an agent id "
        "that is no other agent's name", reason="OUT_OF_SCOPE", identity=identity, name=agent_id,
        held_by=",".join(holders))


async def check_own_name(resolve: Callable[[str], Awaitable[MailboxEntry | None]], name: str, agent_id: str,
                         identity: str) -> None:
    """The access rule of a call whose `name` the core resolves (an agent id, a session name, `session/segment`):
    the agent it resolves to must be `agent_id`, the caller's own, or none (its own mailbox, not made yet).

    The guard calls this after the string check, so a token's id that is another agent's name never acts
    on that agent (PermissionDenied OUT_OF_SCOPE); an ambiguous name names others, and is refused too.
    """
    try:
        entry = await resolve(name)
    except FabricError as exc:
        if exc.reason != "AMBIGUOUS_NAME":
            raise
        raise names_another_agent(name, exc.metadata.get("candidates", "").split(","), identity) from None
    if entry is not None and entry.agent_id != agent_id:
        raise names_another_agent(name, [entry.agent_id], identity)


def name_not_found(name: str, close: Sequence[str] = ()) -> NotFound:
    """The refusal of a name that is neither an agent id, a mailbox nor a session name, with the closest names."""
    hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    return NotFound(f"no mailbox or session is named {name!r}{hint}", reason="NAME_NOT_FOUND", name=name,
                    suggestions=",".join(close))


def mailbox_not_empty(entry: MailboxEntry, queued: int) -> FailedPrecondition:
    return FailedPrecondition(
        f"mailbox {entry.agent_id!r} holds {entry.unread_count} unread messages and {queued} queued "
        "tickets; read or answer them first, or unregister with purge (fabric unregister --purge) "
        "to delete the mail and abort the tickets",
        reason="MAILBOX_NOT_EMPTY",
        agent_id=entry.agent_id,
        unread=entry.unread_count,
        queued_tickets=queued,
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
        exclusive: bool = False,
    ) -> Registered:
        """Create or update an entry; an empty session name keeps the registered one.

        `exclusive` (an agent token's registration): a session name a live other agent holds is refused
        (NAME_HELD), and one only offline agents hold passes to this agent (they lose it), so the name
        resolves to one agent. Trusted callers may share a name; `name_shared_with` warns them.
        """
        limits = self.limits
        validate.agent_id(agent_id, limits)
        validate.session_name(session_name, limits)
        metadata = dict(metadata or {})
        validate.entry(capabilities, metadata, cwd, limits)
        entry, same = await self._store.directory.register(agent_id, session_name, capabilities, cwd, metadata,
                                                           exclusive, int(limits.live_window_s * 1e9))
        shared = sorted(e.agent_id for e in same if self.presence_of(e) != Presence.OFFLINE)
        return Registered(entry, shared)

    async def touch(self, agent_id: str, busy: bool, offline: bool = False) -> Touched:
        """A heartbeat (or, with `offline`, a goodbye); an unknown id gets a new entry."""
        validate.agent_id(agent_id, self.limits)
        return Touched(*await self._store.directory.touch(agent_id, busy, offline))

    async def unregister(self, name: str, purge: bool) -> tuple[int, int]:
        """Remove a mailbox; refused while it holds unread mail or queued tickets, unless `purge`.

        Returns (messages deleted, tickets aborted).
        """
        # not agent_id's name rules: an agent named before them (decomposed, or with an invisible character)
        # can still be removed
        validate.text_field(name, "agent_id", self.limits, required=True)
        return await self._store.directory.unregister(name, purge)

    async def list(self, page_size: int = 0, page_token: str = "") -> Listed[MailboxEntry]:
        """One page of every mailbox, in the store's order (see fabricd.core.paging)."""
        return await paging.read("mailboxes", "", page_size, page_token, self._store.directory.page)

    async def get(self, agent_id: str) -> MailboxEntry | None:
        """One mailbox's entry by its agent id exactly (no name resolution), None when there is none."""
        return await self._store.directory.get(agent_id)

    async def resolve(self, name: str) -> MailboxEntry:
        validate.text_field(name, "name", self.limits, required=True)
        entry = await self._store.directory.resolve(name)
        if entry is None:
            raise name_not_found(name, await self._store.directory.similar(name))
        return entry

    async def watch(self, page: int = 256) -> AsyncIterator[WatchBatch]:
        """The current entries (as SNAPSHOT changes), then each change; an empty batch is a keepalive."""
        wakeups, directory = self._wakeups, self._store.directory
        revision, entries = await directory.snapshot()
        chunks = list(paging.batches(entries, page, paging.budget())) or [[]]  # each response within 4 MiB
        for i, chunk in enumerate(chunks):
            yield WatchBatch([(Change.SNAPSHOT, e) for e in chunk], snapshot_complete=i == len(chunks) - 1)
        while True:
            seen = wakeups.version(DIRECTORY)
            changed = await directory.changes_since(revision, page)
            if changed:
                revision = changed[-1].revision
                for chunk in paging.batches(changed, page, paging.budget()):
                    yield WatchBatch([(e.change, e) for e in chunk])
                continue
            woke = await wakeups.wait(DIRECTORY, seen, self._keepalive_s)
            if wakeups.closed:
                return
            if not woke:
                yield WatchBatch([])
