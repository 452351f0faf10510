"""Upgrading a store written by an older fabricd, at start, after a backup of it.

    2 -> 3   every value of the sealed databases gets its checksum (fabricd.store.lmdb.sealed)
    3 -> 4   ids a sender chose are keyed by (sender, id) and indexed by recipient (`by_id`); a minted
             id's record names its sender; outbox rows are keyed by (key, settling agent). An unread
             message names its sender; a consumed one does not, so its id stays under sender "" until
             the dedupe window forgets it (a resend of it by its own sender in that window is stored
             anew, not answered as a duplicate)
    2 or 3 -> 4, last: the quota usage counters are counted from the records
             (fabricd.store.lmdb.recount): schema 2 kept none, schema 3 no outbox rows, and quotas
             must hold from the first write after the upgrade

The backup is a compacted copy of the old store (the `fabricd backup` format)
written into the data folder before anything changes, named after the schema
it holds. The upgrade is one write transaction: a crash during it leaves the
old store as it was, and the next start upgrades again.
"""

from __future__ import annotations

import logging
import os
import time
from typing import Any

import lmdb

from fabricd.core.model import RowState
from fabricd.store.lmdb import keys, records, recount, sealed

log = logging.getLogger("fabricd.store")

OLDEST = 2
"""The oldest schema this fabricd upgrades."""
_CHUNK = 1024


def backup_name(version: int) -> str:
    return f"data.schema-{version}.{time.strftime('%Y%m%dT%H%M%S')}.backup"


def upgrade(env: lmdb.Environment, dbs: Any, path: str, found: int, target: int, sealed_names: tuple[str, ...],
            mode: int = 0o600) -> str:
    """Back the store up, then bring it from schema `found` to `target`; returns the backup's path."""
    backup = os.path.join(path, backup_name(found))
    fd = os.open(backup, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        env.copyfd(fd, compact=True)
        os.fsync(fd)
    finally:
        os.close(fd)
    started = time.monotonic()
    with env.begin(write=True) as txn:
        rewritten = 0
        if found < 3:
            for name in sealed_names:
                rewritten += _seal_all(txn, getattr(dbs, name))
        if found < 4:
            rewritten += _scope_ids(sealed.SealedTxn(txn, dbs.sealed, None), dbs)
            rewritten += _scope_outbox(sealed.SealedTxn(txn, dbs.sealed, None), dbs)
            recount.recount(txn, dbs)
        txn.put(keys.SCHEMA, keys.u64(target), db=dbs.meta)
    log.warning("upgraded the store in %s from schema %d to %d (%d records, %.1f s); the old store is backed up "
                "in %s (delete it once the daemon serves well)", path, found, target, rewritten,
                time.monotonic() - started, backup)
    return backup


def _seal_all(txn: lmdb.Transaction[bytes], db: Any) -> int:
    """Append a checksum to every value of `db`, a chunk of records at a time (memory stays bounded)."""
    count, after = 0, None
    while True:
        chunk: list[tuple[bytes, bytes]] = []
        with txn.cursor(db=db) as cur:
            found = cur.set_range(after) if after is not None else cur.first()
            if found and after is not None and cur.key() == after:
                found = cur.next()
            while found and len(chunk) < _CHUNK:
                chunk.append((cur.key(), cur.value()))
                found = cur.next()
        for key, value in chunk:
            txn.put(key, sealed.seal(value), db=db)
        count += len(chunk)
        if len(chunk) < _CHUNK:
            return count
        after = chunk[-1][0]


def _scope_ids(txn: Any, dbs: Any) -> int:
    """Key the id of every unread message its sender chose by (sender, id), and index it by recipient."""
    moved = 0
    with txn.cursor(db=dbs.messages) as cur:
        for key, raw in cur:
            if raw is None:  # corrupt: left for the quarantine
                continue
            message = records.decode_message(raw)
            seq, mid, sender = keys.message_seq(key), message.id, message.sender.agent_id
            recipient = message.recipient.agent_id
            old_key = keys.minted_id(mid) if keys.looks_minted(mid) else keys.chosen_id("", mid)
            old = txn.get(old_key, db=dbs.ids)
            record = records.decode_id(old) if old is not None else None
            if record is not None and (record.recipient, record.seq) != (recipient, seq):
                record = None  # another message's record (an older one, consumed): left as it is
            if record is not None and old_key[0] == 1 and not record.digest:
                # minted (or a ticket's task, which the minted key still finds): keyed alone, naming its sender
                if sender:
                    txn.put(old_key, records.encode_id(recipient, seq, record.send_time_ns, b"", sender=sender),
                            db=dbs.ids)
                continue
            digest = record.digest if record is not None else b""
            send_ns = record.send_time_ns if record is not None else message.send_time_ns
            if record is not None:
                txn.delete(old_key, db=dbs.ids)
            txn.put(keys.chosen_id(sender, mid), records.encode_id(recipient, seq, send_ns, digest, mid, sender),
                    db=dbs.ids)
            txn.put(keys.by_id(recipient, mid, seq), b"", db=dbs.by_id)
            moved += 1
    return moved


def _scope_outbox(txn: Any, dbs: Any) -> int:
    """Key every outbox row by (key, settling agent) and its due time likewise."""
    txn.drop(dbs.due, delete=False)  # rebuilt from the PENDING rows below
    moved, after = 0, b""
    while True:
        chunk: list[tuple[bytes, bytes | None]] = []
        with txn.cursor(db=dbs.outbox) as cur:
            found = cur.set_range(after) if after else cur.first()
            while found and len(chunk) < _CHUNK:
                key = bytes(cur.key())
                if b"\x00" not in key and key != after:  # a schema-3 key: the reply key alone
                    chunk.append((key, cur.value()))
                found = cur.next()
        for key, raw in chunk:
            txn.delete(key, db=dbs.outbox)
            if raw is None:  # corrupt: nothing to key it by
                continue
            row = records.decode_row(raw)
            txn.put(keys.outbox_row(row.sender.agent_id, row.key), raw, db=dbs.outbox)
            if row.state == RowState.PENDING:
                txn.put(keys.due(row.next_attempt_ns, row.sender.agent_id, row.key), b"", db=dbs.due)
            moved += 1
        if len(chunk) < _CHUNK:
            return moved
        after = chunk[-1][0]
