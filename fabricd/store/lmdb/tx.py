"""One transaction's view of the store: the core's RecordTx (fabricd.core.kv.tx) on an lmdb.Transaction.

This module holds the databases, the mailbox entries (cached, written once by flush()), the sequences and
the usage counters; each other concern is a mixin beside it: tx_messages.py (messages and their ids),
tx_tickets.py (rendezvous tickets), tx_outbox.py (outbox rows), tx_directory.py (agent directory, wake
hooks, access tokens), tx_channels.py (channels, members, their logs).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import lmdb

from fabricd.core import lookalike, quota
from fabricd.core.model import Change, MailboxEntry
from fabricd.store.lmdb import keys, looks, records
from fabricd.store.lmdb.sealed import OnCorrupt, SealedTxn
from fabricd.store.lmdb.tx_channels import LmdbChannelRecords
from fabricd.store.lmdb.tx_directory import DirectoryRecords, rows_after
from fabricd.store.lmdb.tx_leases import LeaseRecords
from fabricd.store.lmdb.tx_messages import MessageRecords
from fabricd.store.lmdb.tx_outbox import OutboxRecords
from fabricd.store.lmdb.tx_tickets import TicketRecords


@dataclass(frozen=True, slots=True)
class Databases:
    meta: lmdb._Database
    entries: lmdb._Database
    names: lmdb._Database
    revisions: lmdb._Database
    messages: lmdb._Database
    ids: lmdb._Database
    by_id: lmdb._Database
    tickets: lmdb._Database
    queues: lmdb._Database
    finished: lmdb._Database
    ticket_index: lmdb._Database
    outbox: lmdb._Database
    due: lmdb._Database
    ad_history: lmdb._Database
    ad_agents: lmdb._Database
    ad_names: lmdb._Database
    ad_threads: lmdb._Database
    ad_by_agent: lmdb._Database
    ad_requests: lmdb._Database
    ad_lists: lmdb._Database
    ad_repairs: lmdb._Database
    tokens: lmdb._Database
    quarantine: lmdb._Database
    channels: lmdb._Database
    chan_members: lmdb._Database
    chan_log: lmdb._Database
    chan_ids: lmdb._Database
    looks: lmdb._Database
    name_looks: lmdb._Database
    sealed: dict[Any, str] = field(default_factory=dict, compare=False)
    """The databases whose values carry a checksum (fabricd.store.lmdb.sealed), by handle: their names."""


class LmdbTx(DirectoryRecords, MessageRecords, TicketRecords, OutboxRecords, LmdbChannelRecords, LeaseRecords):
    """Implements fabricd.core.kv.tx.RecordTx. Entries are cached and written once by flush()."""

    __slots__ = ("_txn", "_raw", "_report", "_dbs", "_entries", "_names", "_shown", "_dirty", "_revision", "_usage",
                 "_no_hooks", "woken")

    def __init__(self, txn: lmdb.Transaction[bytes], dbs: Databases, on_corrupt: OnCorrupt | None = None) -> None:
        self._txn = SealedTxn(txn, dbs.sealed, on_corrupt)  # corrupt records are served as missing
        # The hot message paths (get_id, unread, delete_message) read `_raw` and unseal it themselves, as
        # SealedTxn would: one call less per record.
        self._raw = txn
        self._report = self._txn.report
        self._dbs = dbs
        self._entries: dict[str, MailboxEntry | None] = {}
        # The session name each entry is indexed under in `names`, as of now in this transaction.
        self._names: dict[str, str] = {}
        # What each entry is indexed under in `looks` (session name, is an agent), as of now in this transaction.
        self._shown: dict[str, tuple[str, bool]] = {}
        self._dirty: dict[str, MailboxEntry] = {}
        self._revision: int | None = None
        # Usage counter moves, summed and written once by flush(): an ack of 100 messages from one
        # sender is one counter write, not 100 reads and writes.
        self._usage: dict[bytes, int] = {}
        self._no_hooks: set[str] = set()
        self.woken: dict[str, None] = {}
        self.stored_messages = 0

    # -- directory

    def get_entry(self, agent_id: str) -> MailboxEntry | None:
        try:
            return self._entries[agent_id]
        except KeyError:
            raw = self._txn.get(keys.entry(agent_id), db=self._dbs.entries)
            entry = records.decode_entry(raw) if raw is not None else None
            self._entries[agent_id] = entry
            self._names[agent_id] = entry.session_name if entry is not None else ""
            self._shown[agent_id] = (entry.session_name, lookalike.is_agent(entry)) if entry else ("", False)
            return entry

    def _cached(self, raw: bytes) -> MailboxEntry:
        entry = records.decode_entry(raw)
        cached = self._entries.get(entry.agent_id)
        if cached is not None:
            return cached
        self._entries[entry.agent_id] = entry
        self._names[entry.agent_id] = entry.session_name
        self._shown[entry.agent_id] = (entry.session_name, lookalike.is_agent(entry))
        return entry

    def put_entry(self, entry: MailboxEntry, change: Change | None) -> None:
        agent_id = entry.agent_id
        txn, dbs = self._txn, self._dbs
        indexed = self._names.get(agent_id)
        shown = self._shown.get(agent_id)
        if indexed is None or shown is None:
            raw = txn.get(keys.entry(agent_id), db=dbs.entries)
            stored = records.decode_entry(raw) if raw is not None else None
            indexed = stored.session_name if stored is not None else ""
            shown = (stored.session_name, lookalike.is_agent(stored)) if stored is not None else ("", False)
        now = (entry.session_name, lookalike.is_agent(entry))
        if shown != now:
            looks.move(txn, dbs, agent_id, lookalike.entry_keys(agent_id, *shown),
                       lookalike.entry_keys(agent_id, *now))
        self._shown[agent_id] = now
        if indexed != entry.session_name:
            if indexed:
                txn.delete(keys.name(indexed, agent_id), db=dbs.names)
            if entry.session_name:
                txn.put(keys.name(entry.session_name, agent_id), b"", db=dbs.names)
        self._names[agent_id] = entry.session_name
        if change is not None:
            rev = self.revision() + 1
            self._revision = rev
            if entry.revision:
                txn.delete(keys.revision(entry.revision), db=dbs.revisions)
            entry.revision = rev
            entry.change = change
            txn.put(keys.revision(rev), keys.entry(agent_id), db=dbs.revisions)
        self._entries[agent_id] = entry
        self._dirty[agent_id] = entry

    def entries(self) -> Iterator[MailboxEntry]:
        seen = set()
        with self._txn.cursor(db=self._dbs.entries) as cur:
            for _, raw in cur:
                entry = self._cached(raw)
                seen.add(entry.agent_id)
                yield entry
        for agent_id, entry in self._dirty.items():
            if agent_id not in seen:
                yield entry

    def entries_named(self, session_name: str) -> list[MailboxEntry]:
        prefix = keys.name_prefix(session_name)
        out = []
        with self._txn.cursor(db=self._dbs.names) as cur:
            if cur.set_range(prefix):
                for key in cur.iternext(keys=True, values=False):
                    if not key.startswith(prefix):
                        break
                    raw = self._txn.get(key[len(prefix) :], db=self._dbs.entries)
                    if raw is not None:
                        entry = self._cached(raw)
                        if entry.session_name == session_name:
                            out.append(entry)
        return out

    def entries_looking_like(self, looks_like: frozenset[str]) -> list[MailboxEntry]:
        out = []
        for key in looks.agent_keys(self._txn, self._dbs, looks_like):
            raw = self._txn.get(key, db=self._dbs.entries)
            if raw is not None:
                entry = self._cached(raw)
                if lookalike.is_agent(entry):
                    out.append(entry)
        return out

    def entries_since(self, revision: int, limit: int) -> list[MailboxEntry]:
        out = []
        with self._txn.cursor(db=self._dbs.revisions) as cur:
            if cur.set_range(keys.revision(revision + 1)):
                for rev_key, agent_key in cur:
                    if agent_key.startswith(keys.TOMBSTONE):
                        agent_id = bytes(agent_key[len(keys.TOMBSTONE):]).decode("utf-8", "surrogatepass")
                        out.append(MailboxEntry(agent_id, revision=keys.read_u64(rev_key), change=Change.UNREGISTERED))
                    else:
                        raw = self._txn.get(agent_key, db=self._dbs.entries)
                        if raw is not None:
                            out.append(self._cached(raw))
                    if len(out) >= limit:
                        break
        return out

    def entries_from(self, after: str) -> Iterator[tuple[str, MailboxEntry]]:
        for key, raw in rows_after(self._txn, self._dbs.entries, bytes.fromhex(after)):
            yield key.hex(), records.decode_entry(raw)

    def delete_entry(self, agent_id: str) -> None:
        entry = self.get_entry(agent_id)
        if entry is None:
            return
        txn, dbs = self._txn, self._dbs
        if entry.session_name:
            txn.delete(keys.name(entry.session_name, agent_id), db=dbs.names)
        indexed = self._names.get(agent_id)
        if indexed and indexed != entry.session_name:
            txn.delete(keys.name(indexed, agent_id), db=dbs.names)
        looks.move(txn, dbs, agent_id, lookalike.entry_keys(agent_id, *self._shown[agent_id]), frozenset())
        if entry.revision:
            txn.delete(keys.revision(entry.revision), db=dbs.revisions)
        rev = self.revision() + 1
        self._revision = rev
        txn.put(keys.revision(rev), keys.TOMBSTONE + agent_id.encode("utf-8", "surrogatepass"), db=dbs.revisions)
        txn.delete(keys.entry(agent_id), db=dbs.entries)
        if entry.last_seq > self._store_floor():
            txn.put(keys.SEQ_FLOOR, keys.u64(entry.last_seq), db=dbs.meta)
        own = txn.get(keys.seq_floor_of(agent_id), db=dbs.meta)
        if own is None or entry.last_seq > keys.read_u64(own):
            txn.put(keys.seq_floor_of(agent_id), keys.u64(entry.last_seq), db=dbs.meta)
        self._dirty.pop(agent_id, None)
        self._entries[agent_id] = None
        self._names[agent_id] = ""
        self._shown[agent_id] = ("", False)

    def removed_since(self, agent_id: str, revision: int) -> bool:
        tombstone = keys.TOMBSTONE + agent_id.encode("utf-8", "surrogatepass")
        with self._txn.cursor(db=self._dbs.revisions) as cur:
            if cur.set_range(keys.revision(revision + 1)):
                return any(value == tombstone for value in cur.iternext(keys=False))
        return False

    def seq_floor(self, agent_id: str) -> int:
        own = self._txn.get(keys.seq_floor_of(agent_id), db=self._dbs.meta)
        if own is not None:
            return keys.read_u64(own)
        floor = self._store_floor()
        return floor if floor and self._tombstoned(agent_id) else 0

    def _store_floor(self) -> int:
        raw = self._txn.get(keys.SEQ_FLOOR, db=self._dbs.meta)
        return keys.read_u64(raw) if raw else 0

    def _tombstoned(self, agent_id: str) -> bool:
        """Whether a mailbox of `agent_id` was ever removed (reads every revision: only when a mailbox is made
        in a store that removed some before ids got floors of their own)."""
        tombstone = keys.TOMBSTONE + agent_id.encode("utf-8", "surrogatepass")
        with self._txn.cursor(db=self._dbs.revisions) as cur:
            return any(value == tombstone for value in cur.iternext(keys=False))

    def revision(self) -> int:
        if self._revision is None:
            raw = self._txn.get(keys.REVISION, db=self._dbs.meta)
            self._revision = keys.read_u64(raw) if raw else 0
        return self._revision

    # -- sequences, usage counters and counts

    def next_sequence(self, name: str) -> int:
        key = keys.sequence(name)
        raw = self._txn.get(key, db=self._dbs.meta)
        value = (keys.read_u64(raw) if raw else 0) + 1
        self._txn.put(key, keys.u64(value), db=self._dbs.meta)
        return value

    def usage(self, agent_id: str) -> quota.Usage:
        def value(name: str) -> int:
            key = keys.usage(name, agent_id)
            return max(0, self._stored_usage(key) + self._usage.get(key, 0))

        return quota.Usage(value(quota.MAILBOXES), value(quota.UNREAD_BYTES), value(quota.QUEUED),
                           value(quota.OUTBOX_ROWS), value(quota.UNREAD_MESSAGES))

    def usage_of(self, agent_id: str, name: str) -> int:
        key = keys.usage(name, agent_id)
        return max(0, self._stored_usage(key) + self._usage.get(key, 0))

    def count_usage(self, agent_id: str, name: str, delta: int) -> None:
        if not agent_id or not delta:
            return
        key = keys.usage(name, agent_id)
        self._usage[key] = self._usage.get(key, 0) + delta

    def _stored_usage(self, key: bytes) -> int:
        raw = self._txn.get(key, db=self._dbs.meta)
        return keys.read_u64(raw) if raw is not None else 0

    def mailbox_count(self) -> int:
        return int(self._txn.stat(self._dbs.entries)["entries"])

    # -- effects

    def wake(self, key: str) -> None:
        self.woken[key] = None

    def flush(self) -> None:
        """Write the dirty entries and the revision; called once the work succeeded."""
        txn, dbs = self._txn, self._dbs
        for agent_id, entry in self._dirty.items():
            txn.put(keys.entry(agent_id), records.encode_entry(entry), db=dbs.entries)
        self._dirty.clear()
        if self._revision is not None:
            txn.put(keys.REVISION, keys.u64(self._revision), db=dbs.meta)
        for key, delta in self._usage.items():
            if delta:
                # Never below zero: records stored before usage was counted are given back uncharged.
                txn.put(key, keys.u64(max(0, self._stored_usage(key) + delta)), db=dbs.meta)
        self._usage.clear()

