"""Registering and unregistering a mailbox: the writes that reach past the directory into the mailbox,
its queue and its wake hook.

They live above fabricd.core.kv.directory (which the mailbox, rendezvous and wake scripts use to resolve
names), so no script imports one that imports it back. Unregister removes, in one transaction, the entry,
its unread mail (with `purge`), its queued tickets (aborted), its leases (ended), its wake hook and rows.
"""

from __future__ import annotations

from fabricd.core import directory as rules
from fabricd.core.kv import directory, leases, mailbox, rendezvous, wake
from fabricd.core.kv.tx import RecordTx
from fabricd.core.model import Capability, Change, MailboxEntry
from fabricd.core.model_leases import EndCause


def register(tx: RecordTx, now: int, agent_id: str, session_name: str, capabilities: tuple[Capability, ...],
             cwd: str, metadata: dict[str, str], exclusive: bool = False,
             live_window_ns: int = 0) -> tuple[MailboxEntry, list[MailboxEntry]]:
    directory.check_new_id(tx, agent_id)
    directory.check_name(tx, agent_id, session_name)
    if exclusive and session_name:
        directory.take_name(tx, now, agent_id, session_name, live_window_ns)
    entry = tx.get_entry(agent_id)
    if entry is None:
        entry = MailboxEntry(agent_id=agent_id, last_seq=tx.seq_floor(agent_id))
    else:
        mailbox.release_creator(tx, entry)
    change = Change.REGISTERED
    if entry.registered and entry.capabilities != capabilities:
        change = Change.CAPABILITIES_CHANGED
    if session_name:
        entry.session_name = session_name
    entry.capabilities = capabilities
    entry.cwd = cwd
    entry.metadata = dict(metadata)
    entry.registered = True
    entry.register_time_ns = now
    entry.last_activity_ns = max(entry.last_activity_ns, now)
    directory.mark_changed(tx, entry, change)
    same = []
    if entry.session_name:
        same = [e for e in tx.entries_named(entry.session_name) if e.agent_id != agent_id]
    return entry, same


def unregister(tx: RecordTx, now: int, name: str, purge: bool) -> tuple[int, int]:
    entry = directory.resolve_name(tx, name)
    if entry is None:
        raise rules.name_not_found(name, directory.similar_names(tx, name))
    queued = tx.queue_length(entry.agent_id)
    if not purge and (entry.unread_count or queued):
        raise rules.mailbox_not_empty(entry, queued)
    aborted = rendezvous.abort_queue(tx, now, entry.agent_id, "the target agent was unregistered")
    purged = mailbox.purge(tx, entry.agent_id)
    mailbox.release_creator(tx, entry)
    leases.end_all(tx, now, entry.agent_id, EndCause.UNREGISTERED)  # a lease outlives no agent,
    leases.leave_all(tx, entry.agent_id)  # nor does a waiting Acquire (it ends LEASE_WAIT_ABORTED)
    tx.delete_wake_hook(entry.agent_id)  # a hook outlives no mailbox: a new agent of that id sets its own,
    wake.drop_rows(tx, now, entry.agent_id)  # and is never fired with the old mailbox's wakes
    tx.delete_entry(entry.agent_id)
    tx.wake(directory.DIRECTORY)
    tx.wake(mailbox.key(entry.agent_id))
    return purged, aborted
