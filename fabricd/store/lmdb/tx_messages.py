"""The messages' part of a transaction (a mixin of LmdbTx): id records, unread messages, consuming them.

Messages are keyed by mailbox and seq; each id has a record (`ids`: a minted id once, a chosen id per
sender), and a chosen id an entry among its recipient's (`by_id`), so a consume finds its oldest copy.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from fabricd.core import quota
from fabricd.core.ids import MINTED_BYTES
from fabricd.core.model import Envelope, IdRecord, Message
from fabricd.store.lmdb import keys, records
from fabricd.store.lmdb.sealed import seal, unseal
from fabricd.store.lmdb.tx_directory import rows_under
from fabricd.store.usage import id_of, sender_of

_MINTED_HEAD = bytes([0x0A, 26])
"""A stored message's first bytes when its id is a minted one: field 1 (id), length 26."""


class MessageRecords:
    __slots__ = ("stored_messages",)  # its slot here, where it is counted (LmdbTx starts it at 0)
    _txn: Any
    _raw: Any
    """The lmdb.Transaction under `_txn`: the hot paths unseal what they read themselves."""
    _report: Any
    _dbs: Any
    _usage: dict[bytes, int]
    stored_messages: int

    def count_usage(self, agent_id: str, name: str, delta: int) -> None:
        raise NotImplementedError

    def _move(self, sender: str, size: int, sign: int, count: int = 1) -> None:
        """fabricd.core.quota.message_moves of `count` messages of `size` bytes in all, kept with the
        transaction's other usage moves (written at commit); read off MESSAGE_MOVES in place: every message
        stored or consumed moves them."""
        if sender:
            usage = self._usage
            for move in quota.MESSAGE_MOVES:
                counter = keys.usage(move.quota, sender)
                usage[counter] = usage.get(counter, 0) + sign * (size if move.by_size else count)

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

    def unread_copies(self, agent_id: str, wanted: Mapping[str, int]) -> dict[str, list[Envelope]]:
        """A minted id's copy read in place through its record (it is older than any chosen copy of its id in
        the mailbox: the id was unknown before it was minted), then the chosen copies through `by_id`, oldest
        first, as many as are wanted; each message read and checked once (the ack hands it back)."""
        recipient = agent_id.encode("utf-8", "surrogatepass")
        agent_key = keys.entry(agent_id)
        get, ids = self._raw.get, self._dbs.ids
        unread_seq, looks_minted, pack = records.unread_seq, keys.looks_minted, keys.U64.pack
        out: dict[str, list[Envelope]] = {}
        for mid, k in wanted.items():
            found: list[Envelope] = []
            if looks_minted(mid):
                key = keys.minted_id(mid)
                raw = get(key, db=ids)
                if raw is not None:
                    value = unseal(raw)
                    seq = unread_seq(value, recipient) if value is not None else 0
                    if value is None:
                        self._report("ids", bytes(key))
                    elif seq:
                        encoded = self._carrying(agent_key + pack(seq), mid)
                        if encoded is not None:
                            found = [Envelope(seq, encoded)]
                            if k == 1:  # the usual case: an id named once, found by its record
                                out[mid] = found
                                continue
            if len(found) < k:
                found += self._chosen_copies(agent_id, mid, k - len(found))
            if found:
                out[mid] = found
        return out

    def _carrying(self, key: bytes, minted: str) -> bytes | None:
        """The unread message at `key` (the seq a minted id's record names) if it carries that id, else None.

        Ids are remembered for the dedupe window after their message is consumed; a mailbox removed before
        stores kept a seq floor (RecordTx.seq_floor) and made again numbered its mail from 1 again, so the seq
        an old id names may hold another message, which it must not take.
        """
        encoded = self._unread_at(key)
        if encoded is None:
            return None
        head = _MINTED_HEAD + minted.encode()  # field 1, 26 bytes: how a minted id is encoded, first
        return encoded if encoded.startswith(head) or id_of(encoded) == minted else None

    def _unread_at(self, key: bytes) -> bytes | None:
        """The checked encoding of the unread message at `key`; None when there is none or it is corrupt (left
        for the quarantine, unread: its sender is not to be trusted)."""
        raw = self._raw.get(key, db=self._dbs.messages)
        if raw is None:
            return None
        encoded = unseal(raw)
        if encoded is None:
            self._report("messages", bytes(key))
        return encoded

    def put_message(self, message: Message, digest: bytes, chosen: bool) -> bytes:
        agent_id = message.recipient.agent_id
        encoded = records.encode_message(message)
        self.stored_messages += 1
        self._move(message.sender.agent_id, len(encoded), 1)
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

    def _chosen_copies(self, agent_id: str, message_id: str, limit: int) -> list[Envelope]:
        """The oldest `limit` unread messages of the mailbox whose sender chose `message_id` (`by_id`)."""
        txn, dbs = self._txn, self._dbs
        prefix = keys.by_id(agent_id, message_id)
        found: list[Envelope] = []
        stale = []
        for key, _ in rows_under(txn, dbs.by_id, prefix, b""):
            seq = keys.read_u64(key, len(prefix))
            raw = txn.get(keys.message(keys.entry(agent_id), seq), db=dbs.messages)
            if raw is not None and id_of(raw) == message_id:
                found.append(Envelope(seq, raw))
                if len(found) >= limit:
                    break
            elif raw is None:
                stale.append(bytes(key))  # drained or purged by seq: the entry outlived it
        for key in stale:
            txn.delete(key, db=dbs.by_id)
        return found

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
            encoded = self._unread_at(key)
            if encoded is None:
                return False
        if not self._raw.delete(key, db=db):
            return False
        self._move(sender_of(encoded), len(encoded), -1)
        mid = id_of(encoded)
        if not keys.looks_minted(mid):  # a chosen id: its index entry goes too (a minted-looking one is left
            self._txn.delete(keys.by_id(agent_id, mid, seq), db=self._dbs.by_id)  # for readers to skip)
        return True

    def delete_messages(self, agent_id: str, taken: Sequence[Envelope]) -> int:
        """delete_message of each, the mailbox's key made once and each sender's moves summed, then made once
        (an ack or a drain consumes many messages of few senders)."""
        agent_key = keys.entry(agent_id)
        delete, messages, by_id = self._raw.delete, self._dbs.messages, self._dbs.by_id
        pack, looks_minted = keys.U64.pack, keys.looks_minted
        moved: dict[str, list[int]] = {}  # sender -> [bytes, messages]
        consumed = 0
        for e in taken:
            key = agent_key + pack(e.seq)
            encoded = e.encoded or self._unread_at(key)
            if encoded is None or not delete(key, db=messages):
                continue
            consumed += 1
            sender = sender_of(encoded)
            if sender:
                counts = moved.get(sender)
                if counts is None:
                    moved[sender] = [len(encoded), 1]
                else:
                    counts[0] += len(encoded)
                    counts[1] += 1
            if encoded.startswith(_MINTED_HEAD) and not encoded[2:28].strip(MINTED_BYTES):
                continue  # a minted-looking id (read in place, without decoding it): no index entry
            mid = id_of(encoded)
            if not looks_minted(mid):  # as delete_message: a chosen id's index entry goes too
                self._txn.delete(keys.by_id(agent_id, mid, e.seq), db=by_id)
        for sender, (size, count) in moved.items():
            self._move(sender, size, -1, count)
        return consumed

    def restore_message(self, agent_id: str, seq: int, encoded: bytes) -> bool:
        if not self._txn.put(keys.message(keys.entry(agent_id), seq), encoded, db=self._dbs.messages,
                             overwrite=False):
            return False
        self._move(sender_of(encoded), len(encoded), 1)
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
                    self._move(message.sender.agent_id, len(raw), -1)
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

    def forget_id(self, sender: str, message_id: str) -> bool:
        txn, dbs = self._txn, self._dbs
        key = keys.chosen_id(sender, message_id)
        raw = txn.get(key, db=dbs.ids)
        if raw is None:  # none, or corrupt: left for the quarantine
            return False
        record = records.decode_id(raw)
        if txn.get(keys.message(keys.entry(record.recipient), record.seq), db=dbs.messages) is not None:
            return False  # unread: acks by id need it
        txn.delete(keys.by_id(record.recipient, message_id, record.seq), db=dbs.by_id)  # if a drain left it
        txn.delete(key, db=dbs.ids)
        return True

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
