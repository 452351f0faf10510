"""Transaction scripts of the directory: resolve names, check and take them, touch. The mailbox, rendezvous and
wake scripts resolve names here; registering and unregistering, which reach into them, are fabricd.core.kv.lifecycle."""

from __future__ import annotations

from collections.abc import Iterator

from fabricd.core import directory as rules
from fabricd.core import lookalike
from fabricd.core import mailbox_writes as writes
from fabricd.core.kv.tx import RecordTx
from fabricd.core.model import Change, MailboxEntry, Presence, presence

DIRECTORY = "directory"


def mark_changed(tx: RecordTx, entry: MailboxEntry, change: Change) -> None:
    tx.put_entry(entry, change)
    tx.wake(DIRECTORY)


def resolve_name(tx: RecordTx, name: str) -> MailboxEntry | None:
    """An agent id, a session name, or `session_name/segment`; None when nothing matches (the rule:
    fabricd.core.mailbox_writes.resolve). Raises FailedPrecondition, with forms that do resolve, when the
    name is ambiguous."""
    entry = tx.get_entry(name)
    if entry is not None:
        return entry
    return writes.resolve(name, _candidates(tx, name))


def _candidates(tx: RecordTx, name: str) -> list[MailboxEntry]:
    """The entries `name` may reach as a name: its session's, or for `session/segment` the session's."""
    candidates = tx.entries_named(name)
    if not candidates and "/" in name:
        candidates = [e for session in writes.sessions_of(name)[1:] for e in tx.entries_named(session)]
    return candidates


def check_new_id(tx: RecordTx, agent_id: str) -> None:
    """Refuse an agent id no mailbox has yet that reaches other agents as a name (NAME_COLLISION).

    Made, the id would win over the name (an id resolves first), taking the other agent's mail and tickets
    addressed by its name; a token under it would act on that agent wherever the name is resolved.
    """
    entry = tx.get_entry(agent_id)
    if entry is None:
        _, holders = writes.named_by(agent_id, _candidates(tx, agent_id))
        if holders:
            raise rules.id_collides(agent_id, sorted(e.agent_id for e in holders))
    if entry is None or not entry.registered:
        check_looks(tx, "agent id", agent_id, agent_id)


def _known_names(tx: RecordTx, name: str) -> Iterator[tuple[str, str, str]]:
    """(name, holder, what the name is to its holder) of the agents' ids and session names (registered or heard from) that may
    look like `name` (read through the look-alike index), and of every live agent token's id and bound names."""
    for entry in tx.entries_looking_like(lookalike.keys(name)):
        yield entry.agent_id, entry.agent_id, "the agent id"
        if entry.session_name:
            yield entry.session_name, entry.agent_id, "the session name"
    for _, token in tx.tokens():
        if token.agent_id and not token.revoke_ns:
            yield token.agent_id, token.agent_id, "the agent id"
            for name in token.session_names:
                yield name, token.agent_id, "a session name bound to the token"


def look_alike(tx: RecordTx, name: str) -> tuple[str, str, str] | None:
    """What `name`, taken as an agent's own id, only looks like: another agent's id or session name (or a live
    agent token's), as (other name, holder, what it is to the holder); None when none."""
    return lookalike.look_alike(name, _known_names(tx, name), own=name)


def check_looks(tx: RecordTx, field: str, name: str, agent_id: str) -> None:
    """Refuse a new id or session name of `agent_id` that looks like (fabricd.core.lookalike) another agent's
    id or session name without being it (NAME_COLLISION)."""
    found = lookalike.look_alike(name, _known_names(tx, name), own=agent_id)
    if found is not None:
        raise lookalike.looks_taken(field, name, *found)


def check_name(tx: RecordTx, agent_id: str, session_name: str) -> None:
    """Refuse a session name that is another agent's id: a registered agent's or a live agent token's."""
    if not session_name or session_name == agent_id:
        return
    holder = tx.get_entry(session_name)
    if (holder is not None and holder.registered) or any(
            t.agent_id == session_name and not t.revoke_ns for _, t in tx.tokens()):
        raise rules.name_is_an_id(session_name)
    entry = tx.get_entry(agent_id)
    if entry is None or entry.session_name != session_name:  # a name it holds already stays its own
        check_looks(tx, "session name", session_name, agent_id)


def check_token(tx: RecordTx, agent_id: str, session_names: tuple[str, ...]) -> None:
    """An agent token's id and bound names collide with no other agent's names and ids (NAME_COLLISION)."""
    if agent_id:
        check_new_id(tx, agent_id)
        for name in session_names:
            check_name(tx, agent_id, name)


def similar_names(tx: RecordTx, name: str, limit: int = 3) -> list[str]:
    """Registered agent ids and session names closest to `name`, best first (for "did you mean")."""
    return list(writes.close_names(name, list(tx.entries()), limit))


def take_name(tx: RecordTx, now: int, agent_id: str, session_name: str, live_window_ns: int) -> None:
    """An agent token's claim on a session name: refused while another live agent holds it; offline
    holders lose it, so the name resolves to the claimant alone."""
    others = [e for e in tx.entries_named(session_name) if e.agent_id != agent_id]
    live = sorted(e.agent_id for e in others if presence(e, now, live_window_ns) != Presence.OFFLINE)
    if live:
        raise rules.name_held(session_name, live)
    for holder in others:
        holder.session_name = ""
        mark_changed(tx, holder, Change.REGISTERED)


def touch(tx: RecordTx, now: int, agent_id: str, busy: bool, offline: bool) -> tuple[MailboxEntry, bool, list[str]]:
    entry = tx.get_entry(agent_id)
    created = entry is None
    if entry is None:
        check_new_id(tx, agent_id)
        entry = MailboxEntry(agent_id=agent_id, last_seq=tx.seq_floor(agent_id))
    new_busy = busy and not offline
    change = Change.BUSY_CHANGED if entry.busy != new_busy else Change.TOUCHED
    entry.busy = new_busy
    entry.heartbeat_ns = now
    # A goodbye leaves no recent activity, so presence is OFFLINE until the agent is heard from again.
    entry.last_activity_ns = 0 if offline else max(entry.last_activity_ns, now)
    mark_changed(tx, entry, change)
    return entry, created, similar_names(tx, agent_id) if created else []
