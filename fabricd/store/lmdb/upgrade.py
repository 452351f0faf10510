"""Upgrading a store written by an older fabricd, at start, after a backup of it.

    2 -> 3   every value of the sealed databases gets its checksum (fabricd.store.lmdb.sealed), and the
             quota usage counters are counted from the records (fabricd.store.lmdb.recount): schema 2
             kept none, and quotas must hold from the first write after the upgrade

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

from fabricd.store.lmdb import keys, recount, sealed

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
            recount.recount(txn, dbs)
        txn.put(keys.SCHEMA, keys.u64(target), db=dbs.meta)
    log.warning("upgraded the store in %s from schema %d to %d (%d records, %.1f s); the old store is backed up "
                "in %s (delete it once the daemon serves well)", path, found, target, rewritten,
                time.monotonic() - started, backup)
    return backup


def _seal_all(txn: lmdb.Transaction, db: Any) -> int:
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
