"""One transaction's view of the store: the core's RecordTx (fabricd.core.kv.tx) on an lmdb.Transaction."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import lmdb

from fabricd.core import quota
from fabricd.core.model import Change, Envelope, IdRecord, MailboxEntry, Message, OutboxRow, RowState, Ticket, TicketState
from fabricd.store.lmdb import keys, records, ticket_index
from fabricd.store.lmdb.sealed import OnCorrupt, SealedTxn, seal, unseal
from fabricd.core.outbox import row_cursor
from fabricd.store.usage import id_of, sender_of
from fabricd.store.lmdb.tx_directory import DirectoryRecords, rows_after, rows_under


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
    sealed: dict[Any, str] = field(default_factory=dict, compare=False)
    """The databases whose values carry a checksum (fabricd.store.lmdb.sealed), by handle: their names."""


class LmdbTx(DirectoryRecords):
    """Implements fabricd.core.kv.tx.RecordTx. Entries are cached and written once by flush()."""

    __slots__ = ("_txn", "_raw", "_report", "_dbs", "_entries", "_names", "_dirty", "_revision", "_usage",
                 "_no_hooks", "woken", "stored_messages")

    def __init__(self, txn: lmdb.Transaction, dbs: Databases, on_corrupt: OnCorrupt | None = None) -> None:
        self._txn = SealedTxn(txn, dbs.sealed, on_corrupt)  # corrupt records are served as missing
        # The hot message paths (get_id, unread, delete_message) read `_raw` and unseal it themselves, as
        # SealedTxn would: one call less per record.
        self._raw = txn
        self._report = self._txn.report
        self._dbs = dbs
        self._entries: dict[str, MailboxEntry | None] = {}
        # The session name each entry is indexed under in `names`, as of now in this transaction.
        self._names: dict[str, str] = {}
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
            return entry

    def _cached(self, raw: bytes) -> MailboxEntry:
        entry = records.decode_entry(raw)
        cached = self._entries.get(entry.agent_id)
        if cached is not None:
            return cached
        self._entries[entry.agent_id] = entry
        self._names[entry.agent_id] = entry.session_name
        return entry

    def put_entry(self, entry: MailboxEntry, change: Change | None) -> None:
        agent_id = entry.agent_id
        txn, dbs = self._txn, self._dbs
        indexed = self._names.get(agent_id)
        if indexed is None:
            raw = txn.get(keys.entry(agent_id), db=dbs.entries)
            indexed = records.decode_entry(raw).session_name if raw is not None else ""
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
        if entry.revision:
            txn.delete(keys.revision(entry.revision), db=dbs.revisions)
        rev = self.revision() + 1
        self._revision = rev
        txn.put(keys.revision(rev), keys.TOMBSTONE + agent_id.encode("utf-8", "surrogatepass"), db=dbs.revisions)
        txn.delete(keys.entry(agent_id), db=dbs.entries)
        self._dirty.pop(agent_id, None)
        self._entries[agent_id] = None
        self._names[agent_id] = ""

    def revision(self) -> int:
        if self._revision is None:
            raw = self._txn.get(keys.REVISION, db=self._dbs.meta)
            self._revision = keys.read_u64(raw) if raw else 0
        return self._revision

    # -- messages

    def get_id(self, sender: str, message_id: str) -> IdRecord | None:
        txn, dbs = self._txn, self._dbs
        raw = txn.get(keys.chosen_id(sender, message_id), db=dbs.ids)
        if raw is None and keys.looks_minted(message_id):
            # A minted id is its sender's too, as on PostgreSQL: that sender resending it is refused (a retry
            # never stores a second copy), while another sender may choose it. A record older than schema 4
            # names no sender: its message was consumed before the upgrade, and it counts as sender "".
            raw = txn.get(keys.minted_id(message_id), db=dbs.ids)
            if raw is not None and (records.id_texts(raw)[1] or "") != sender:
                raw = None
        return records.decode_id(raw) if raw is not None else None

    def consume_ids(self, agent_id: str, message_ids: Sequence[str]) -> int:
        """consume_id of each; a minted id's record is read in place (no IdRecord per id)."""
        recipient = agent_id.encode("utf-8", "surrogatepass")
        get, ids, unread_seq, looks_minted = self._raw.get, self._dbs.ids, records.unread_seq, keys.looks_minted
        consumed = 0
        for mid in message_ids:
            if looks_minted(mid):
                key = keys.minted_id(mid)
                raw = get(key, db=ids)
                if raw is not None:
                    value = unseal(raw)
                    if value is None:
                        self._report("ids", bytes(key))
                    else:
                        seq = unread_seq(value, recipient)
                        if seq and self.delete_message(agent_id, seq):
                            consumed += 1
                            continue
            if self._consume_chosen(agent_id, mid):
                consumed += 1
        return consumed

    def put_message(self, message: Message, digest: bytes, chosen: bool) -> bytes:
        agent_id = message.recipient.agent_id
        encoded = records.encode_message(message)
        self.stored_messages += 1
        self.count_usage(message.sender.agent_id, quota.UNREAD_BYTES, len(encoded))
        put, dbs = self._raw.put, self._dbs  # both databases are sealed: seal here, as SealedTxn.put would
        put(keys.message(keys.entry(agent_id), message.seq), seal(encoded), db=dbs.messages)
        if chosen:
            put(keys.chosen_id(message.sender.agent_id, message.id),
                seal(records.encode_id(agent_id, message.seq, message.send_time_ns, digest, message.id,
                                       message.sender.agent_id)), db=dbs.ids)
            self._txn.put(keys.by_id(agent_id, message.id, message.seq), b"", db=dbs.by_id)
        else:
            put(keys.minted_id(message.id), seal(records.encode_id(agent_id, message.seq, message.send_time_ns, digest,
                                                                   sender=message.sender.agent_id)), db=dbs.ids)
        return encoded

    def consume_id(self, agent_id: str, message_id: str) -> bool:
        txn, dbs = self._txn, self._dbs
        if keys.looks_minted(message_id):
            # A minted id's message is older than any chosen copy of its id in the same mailbox (the id
            # was unknown before it was minted): when it is unread, it is the oldest.
            raw = txn.get(keys.minted_id(message_id), db=dbs.ids)
            if raw is not None:
                record = records.decode_id(raw)
                if record.recipient == agent_id and self.delete_message(agent_id, record.seq):
                    return True
        return self._consume_chosen(agent_id, message_id)

    def _consume_chosen(self, agent_id: str, message_id: str) -> bool:
        """Consume the oldest unread message of the mailbox whose sender chose `message_id` (`by_id`)."""
        txn, dbs = self._txn, self._dbs
        prefix = keys.by_id(agent_id, message_id)
        found = None
        stale = []
        with txn.cursor(db=dbs.by_id) as cur:
            if cur.set_range(prefix):
                for key in cur.iternext(keys=True, values=False):
                    if not key.startswith(prefix):
                        break
                    seq = keys.read_u64(key, len(prefix))
                    raw = txn.get(keys.message(keys.entry(agent_id), seq), db=dbs.messages)
                    if raw is not None and id_of(raw) == message_id:
                        found = seq
                        break
                    if raw is None:
                        stale.append(bytes(key))  # drained or purged by seq: the entry outlived it
        for key in stale:
            txn.delete(key, db=dbs.by_id)
        if found is None:
            return False
        txn.delete(keys.by_id(agent_id, message_id, found), db=dbs.by_id)
        return self.delete_message(agent_id, found)

    def unread(self, agent_id: str, after_seq: int, limit: int, max_bytes: int = 0) -> list[Envelope]:
        agent_key = keys.entry(agent_id)
        out: list[Envelope] = []
        size = 0
        with self._raw.cursor(db=self._dbs.messages) as cur:
            if cur.set_range(keys.message(agent_key, after_seq + 1)):
                seq_of, at = keys.U64.unpack_from, keys.DIGEST  # keys.message_seq, inline
                for key, raw in cur:
                    if not key.startswith(agent_key) or len(out) >= limit:
                        break
                    value = unseal(raw)
                    if value is None:  # served as missing, and moved aside
                        self._report("messages", bytes(key))
                        continue
                    size += len(value)
                    if max_bytes and out and size > max_bytes:
                        break
                    out.append(Envelope(seq_of(key, at)[0], value))
        return out

    def delete_message(self, agent_id: str, seq: int, encoded: bytes | None = None) -> bool:
        key = keys.message(keys.entry(agent_id), seq)
        db = self._dbs.messages
        if encoded is None:
            raw = self._raw.get(key, db=db)
            if raw is None:
                return False
            encoded = unseal(raw)
            if encoded is None:  # left for the quarantine, unread: its sender is not to be trusted
                self._report("messages", bytes(key))
                return False
        if not self._raw.delete(key, db=db):
            return False
        sender = sender_of(encoded)
        if sender:  # count_usage, inline: one credit per message consumed
            usage = self._usage
            counter = keys.usage(quota.UNREAD_BYTES, sender)
            usage[counter] = usage.get(counter, 0) - len(encoded)
        mid = id_of(encoded)
        if not keys.looks_minted(mid):  # a chosen id: its index entry goes too (a minted-looking one is left
            self._txn.delete(keys.by_id(agent_id, mid, seq), db=self._dbs.by_id)  # for readers to skip)
        return True

    def restore_message(self, agent_id: str, seq: int, encoded: bytes) -> bool:
        if not self._txn.put(keys.message(keys.entry(agent_id), seq), encoded, db=self._dbs.messages,
                             overwrite=False):
            return False
        self.count_usage(sender_of(encoded), quota.UNREAD_BYTES, len(encoded))
        mid = id_of(encoded)
        if not keys.looks_minted(mid):
            self._txn.put(keys.by_id(agent_id, mid, seq), b"", db=self._dbs.by_id)
        return True

    def purge_unread(self, agent_id: str) -> int:
        agent_key = keys.entry(agent_id)
        txn, dbs = self._txn, self._dbs
        doomed = []
        with txn.cursor(db=dbs.messages) as cur:
            if cur.set_range(agent_key):
                for key, raw in cur:
                    if not key.startswith(agent_key):
                        break
                    message = records.decode_message(raw)
                    doomed.append((bytes(key), message, keys.message_seq(key)))
                    self.count_usage(message.sender.agent_id, quota.UNREAD_BYTES, -len(raw))
        for key, message, seq in doomed:
            txn.delete(key, db=dbs.messages)
            for id_key in (keys.minted_id(message.id), keys.chosen_id(message.sender.agent_id, message.id)):
                raw = txn.get(id_key, db=dbs.ids)  # only this message's record: a same-id one may be another's
                record = records.decode_id(raw) if raw is not None else None
                if record is not None and (record.recipient, record.seq) == (agent_id, seq):
                    txn.delete(id_key, db=dbs.ids)
        with txn.cursor(db=dbs.by_id) as cur:  # every entry of the mailbox, stale ones too
            found = cur.set_range(agent_key)
            while found and cur.key().startswith(agent_key):
                found = cur.delete()
        return len(doomed)

    def forget_consumed_ids(self, sent_before_ns: int, cursor: bytes, limit: int) -> tuple[int, bytes]:
        """Delete id records of consumed messages sent before `sent_before_ns`, scanning `limit` records
        from `cursor`; returns (forgotten, the cursor to go on from; b"" once the table is done)."""
        forgotten = 0
        seen = 0
        txn, dbs = self._txn, self._dbs
        with txn.cursor(db=dbs.ids) as cur:
            found = cur.set_range(cursor) if cursor else cur.first()
            while found:
                key, raw = cur.item()
                if not key:  # deleting the last record leaves the cursor past the end
                    break
                if seen >= limit:
                    return forgotten, bytes(key)
                seen += 1
                if raw is None:  # corrupt: left for the quarantine
                    found = cur.next()
                    continue
                record = records.decode_id(raw)
                unread = txn.get(keys.message(keys.entry(record.recipient), record.seq), db=dbs.messages)
                if record.send_time_ns < sent_before_ns and unread is None:
                    text = records.hashed_id(raw) if key[0] != 1 else None
                    if text is not None:  # the chosen id's entry among its recipient's, if a drain left it
                        txn.delete(keys.by_id(record.recipient, text, record.seq), db=dbs.by_id)
                    found = cur.delete()  # moves to the next record
                    forgotten += 1
                else:
                    found = cur.next()
        return forgotten, b""

    # -- rendezvous tickets

    def next_sequence(self, name: str) -> int:
        key = keys.sequence(name)
        raw = self._txn.get(key, db=self._dbs.meta)
        value = (keys.read_u64(raw) if raw else 0) + 1
        self._txn.put(key, keys.u64(value), db=self._dbs.meta)
        return value

    def get_ticket(self, ticket_id: str) -> Ticket | None:
        raw = self._txn.get(keys.ticket(ticket_id), db=self._dbs.tickets)
        return records.decode_ticket(raw) if raw is not None else None

    def put_ticket(self, ticket: Ticket) -> None:
        txn, dbs = self._txn, self._dbs
        tkey = keys.ticket(ticket.ticket_id)
        slot = keys.queue_slot(ticket.target, ticket.seq)
        if ticket.state == TicketState.QUEUED:
            if txn.put(slot, tkey, db=dbs.queues, overwrite=False):
                self._count_queued(ticket.target, 1)
                self.count_usage(ticket.source_agent, quota.QUEUED, 1)
        else:
            if txn.delete(slot, db=dbs.queues):
                self._count_queued(ticket.target, -1)
                self.count_usage(ticket.source_agent, quota.QUEUED, -1)
            txn.put(keys.finished(ticket.finish_ns, ticket.ticket_id), b"", db=dbs.finished)
        txn.put(tkey, records.encode_ticket(ticket), db=dbs.tickets)
        ticket_index.add(txn, dbs, ticket)

    def _count_queued(self, target: str, delta: int) -> None:
        """Move the queued-ticket counter of `target` (after its slot changed)."""
        key = keys.queue_length(target)
        raw = self._txn.get(key, db=self._dbs.meta)
        # A store written before the counter existed has none: count the FIFO once (it includes this change).
        value = keys.read_u64(raw) + delta if raw is not None else self._count_slots(target)
        self._txn.put(key, keys.u64(value), db=self._dbs.meta)

    def _count_slots(self, target: str) -> int:
        prefix, count = keys.entry(target), 0
        with self._txn.cursor(db=self._dbs.queues) as cur:
            if cur.set_range(prefix):
                for key in cur.iternext(keys=True, values=False):
                    if not key.startswith(prefix):
                        break
                    count += 1
        return count

    def usage(self, agent_id: str) -> quota.Usage:
        def value(name: str) -> int:
            key = keys.usage(name, agent_id)
            return max(0, self._stored_usage(key) + self._usage.get(key, 0))

        return quota.Usage(value(quota.MAILBOXES), value(quota.UNREAD_BYTES), value(quota.QUEUED),
                           value(quota.OUTBOX_ROWS))

    def count_usage(self, agent_id: str, name: str, delta: int) -> None:
        if not agent_id or not delta:
            return
        key = keys.usage(name, agent_id)
        self._usage[key] = self._usage.get(key, 0) + delta

    def _stored_usage(self, key: bytes) -> int:
        raw = self._txn.get(key, db=self._dbs.meta)
        return keys.read_u64(raw) if raw is not None else 0

    def queue_length(self, target: str) -> int:
        raw = self._txn.get(keys.queue_length(target), db=self._dbs.meta)
        return keys.read_u64(raw) if raw is not None else self._count_slots(target)

    def queue(self, target: str, limit: int) -> list[Ticket]:
        prefix = keys.entry(target)
        out: list[Ticket] = []
        with self._txn.cursor(db=self._dbs.queues) as cur:
            if cur.set_range(prefix):
                for key, tkey in cur:
                    if not key.startswith(prefix) or len(out) >= limit:
                        break
                    raw = self._txn.get(tkey, db=self._dbs.tickets)
                    if raw is not None:
                        out.append(records.decode_ticket(raw))
        return out

    def queue_from(self, target: str, after_seq: int) -> Iterator[tuple[int, Ticket]]:
        start = keys.u64(after_seq + 1) if after_seq else b""
        for key, tkey in rows_under(self._txn, self._dbs.queues, keys.entry(target), start):
            raw = self._txn.get(tkey, db=self._dbs.tickets)
            if raw is not None:
                yield keys.read_u64(key, keys.DIGEST), records.decode_ticket(raw)

    def finished_before(self, finish_ns: int, limit: int) -> list[str]:
        out: list[str] = []
        with self._txn.cursor(db=self._dbs.finished) as cur:
            for key in cur.iternext(keys=True, values=False):
                if keys.read_u64(key) >= finish_ns or len(out) >= limit:
                    break
                raw = self._txn.get(key[8:], db=self._dbs.tickets)
                if raw is not None:
                    out.append(records.decode_ticket(raw).ticket_id)
                else:
                    self._txn.delete(key, db=self._dbs.finished)
        return out

    def delete_ticket(self, ticket_id: str) -> None:
        ticket = self.get_ticket(ticket_id)
        if ticket is None:
            return
        txn, dbs = self._txn, self._dbs
        if txn.delete(keys.queue_slot(ticket.target, ticket.seq), db=dbs.queues):
            self._count_queued(ticket.target, -1)
            self.count_usage(ticket.source_agent, quota.QUEUED, -1)
        if ticket.finish_ns:
            txn.delete(keys.finished(ticket.finish_ns, ticket_id), db=dbs.finished)
        ticket_index.remove(txn, dbs, ticket)
        txn.delete(keys.ticket(ticket_id), db=dbs.tickets)

    def tickets_before(self, target: str, source_agent: str, before_seq: int) -> Iterator[Ticket]:
        return ticket_index.newest_first(self._txn, self._dbs, target, source_agent, before_seq)

    def queued_tickets(self) -> int:
        return self._txn.stat(self._dbs.queues)["entries"]

    def mailbox_count(self) -> int:
        return self._txn.stat(self._dbs.entries)["entries"]

    # -- outbox

    def get_outbox_row(self, agent_id: str, key: str) -> OutboxRow | None:
        raw = self._txn.get(keys.outbox_row(agent_id, key), db=self._dbs.outbox)
        return records.decode_row(raw) if raw is not None else None

    def put_outbox_row(self, row: OutboxRow) -> None:
        txn, dbs = self._txn, self._dbs
        agent_id = row.sender.agent_id
        before = self.get_outbox_row(agent_id, row.key)
        if before is not None and before.state == RowState.PENDING:
            txn.delete(keys.due(before.next_attempt_ns, agent_id, row.key), db=dbs.due)
        if row.state == RowState.PENDING:
            txn.put(keys.due(row.next_attempt_ns, agent_id, row.key), b"", db=dbs.due)
        txn.put(keys.outbox_row(agent_id, row.key), records.encode_row(row), db=dbs.outbox)
        self._count_row(before, -1)
        self._count_row(row, 1)

    def _count_row(self, row: OutboxRow | None, delta: int) -> None:
        if row is not None:
            self.count_usage(quota.outbox_holder(row.key, row.state, row.sender.agent_id), quota.OUTBOX_ROWS, delta)

    def outbox_rows_keyed(self, key: str) -> list[OutboxRow]:
        prefix = key.encode("utf-8", "surrogatepass") + b"\x00"
        return [records.decode_row(raw) for _, raw in rows_under(self._txn, self._dbs.outbox, prefix, b"")]

    def due_outbox_rows(self, now_ns: int, limit: int) -> list[OutboxRow]:
        out: list[OutboxRow] = []
        with self._txn.cursor(db=self._dbs.due) as cur:
            for key in cur.iternext(keys=True, values=False):
                if keys.read_u64(key) > now_ns or len(out) >= limit:
                    break
                raw = self._txn.get(key[8:], db=self._dbs.outbox)
                if raw is not None:
                    out.append(records.decode_row(raw))
        return out

    def next_outbox_due(self) -> int | None:
        with self._txn.cursor(db=self._dbs.due) as cur:
            return keys.read_u64(cur.key()) if cur.first() else None

    def outbox_rows(self, after_key: str, limit: int, state: RowState) -> list[OutboxRow]:
        out: list[OutboxRow] = []
        start = keys.outbox_after(after_key)
        with self._txn.cursor(db=self._dbs.outbox) as cur:
            if not cur.set_range(start):
                return out
            for key, raw in cur:
                if key == start and after_key:
                    continue
                row = records.decode_row(raw)
                if state == RowState.UNSPECIFIED or row.state == state:
                    out.append(row)
                    if len(out) >= limit:
                        break
        return out

    def outbox_from(self, after_key: str) -> Iterator[tuple[str, OutboxRow]]:
        for _, raw in rows_after(self._txn, self._dbs.outbox, keys.outbox_after(after_key)):
            row = records.decode_row(raw)
            yield row_cursor(row), row

    def delete_outbox_row(self, agent_id: str, key: str) -> None:
        before = self.get_outbox_row(agent_id, key)
        if before is None:
            return
        if before.state == RowState.PENDING:
            self._txn.delete(keys.due(before.next_attempt_ns, agent_id, key), db=self._dbs.due)
        self._txn.delete(keys.outbox_row(agent_id, key), db=self._dbs.outbox)
        self._count_row(before, -1)

    def outbox_counts(self) -> tuple[int, int]:
        """(pending rows, all rows including receipts)."""
        return self._txn.stat(self._dbs.due)["entries"], self._txn.stat(self._dbs.outbox)["entries"]

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

