"""The store's schema: its named databases, how they are opened, the schema version, the free pages.

The engine opens a store with these (fabricd.store.lmdb.engine), and so do the offline tools (check,
dump, maintenance), which open the environment themselves. A store of an older schema version is
upgraded at open (fabricd.store.lmdb.upgrade).
"""

from __future__ import annotations

from typing import Any

import lmdb

from fabricd.store.errors import StoreError
from fabricd.store.lmdb import keys, sealed, upgrade
from fabricd.store.lmdb.tx import Databases

SCHEMA_VERSION = 4  # 2: server-minted message ids are keyed in time order; 3: values carry checksums;
# 4: chosen message ids keyed by their sender, outbox rows by their settling agent (fabricd.store.lmdb.upgrade)
MAX_DBS = 32
NAMES = ("meta", "entries", "names", "revisions", "messages", "ids", "by_id", "tickets", "queues", "finished", "ticket_index",
         "outbox",
         "due", "ad_history", "ad_agents", "ad_names", "ad_threads", "ad_by_agent", "ad_requests", "ad_lists",
         "ad_repairs", "tokens", "quarantine", "channels", "chan_members", "chan_log", "chan_ids", "looks",
         "name_looks")
SEALED = tuple(name for name in NAMES if name not in sealed.UNSEALED)


ADDED_LATER = ("ticket_index", "quarantine", "by_id", "channels", "chan_members", "chan_log", "chan_ids", "looks",
               "name_looks")
"""Databases a store written by an older fabricd may lack (opened as None when reading; created at open)."""


def open_databases(env: lmdb.Environment, txn: lmdb.Transaction, *, create: bool = True) -> Databases:
    """The named databases of a store (created in a write `txn` when missing)."""
    handles = {name: _open_db(env, txn, name, create) for name in NAMES}
    return Databases(**handles, sealed={handles[name]: name for name in SEALED if handles[name] is not None})


def _open_db(env: lmdb.Environment, txn: lmdb.Transaction, name: str, create: bool) -> Any:
    try:
        return env.open_db(name.encode(), txn=txn, create=create)
    except lmdb.NotFoundError:
        if name in ADDED_LATER:  # a store (or backup) from before it, opened read-only: none yet
            return None
        raise


def check_schema(path: str, txn: lmdb.Transaction, dbs: Databases, *, create: bool) -> int:
    """The store's schema version: this fabricd's, or an older one it upgrades (fabricd.store.lmdb.upgrade);
    StoreError for any other. A new store gets this fabricd's when `create`."""
    raw = txn.get(keys.SCHEMA, db=dbs.meta)
    if raw is None and create:
        txn.put(keys.SCHEMA, keys.u64(SCHEMA_VERSION), db=dbs.meta)
        return SCHEMA_VERSION
    if raw is None:
        raise StoreError(f"{path} holds no fabricd store (no schema version)")
    found = keys.read_u64(raw)
    if not upgrade.OLDEST <= found <= SCHEMA_VERSION:
        raise StoreError(
            f"{path} holds schema version {found}; this fabricd reads versions {upgrade.OLDEST} to "
            f"{SCHEMA_VERSION}. Use a matching fabricd or another --data-dir"
        )
    return found


def free_bytes(env: lmdb.Environment, txn: lmdb.Transaction, dbs: Databases) -> int:
    """Bytes of the used map that no database holds: freed pages waiting for reuse, as of `txn`.

    py-lmdb does not expose LMDB's free list, so this counts the other way:
    pages used (last_pgno + 1) less the two meta pages and every database's
    branch, leaf and overflow pages. What remains is the free list and the
    pages it sits on; it falls as writes reuse them and `fabricd compact`
    gives them back to the disk.
    """
    stat = env.stat()
    held = 2 + stat["branch_pages"] + stat["leaf_pages"] + stat["overflow_pages"]
    for name in NAMES:
        s = txn.stat(getattr(dbs, name))
        held += s["branch_pages"] + s["leaf_pages"] + s["overflow_pages"]
    return max(0, env.info()["last_pgno"] + 1 - held) * stat["psize"]
