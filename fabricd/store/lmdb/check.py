"""`fabricd check`: verify every record's checksum in a store, offline or beside a running daemon; repair.

Without --repair the store is opened read-only (LMDB lets a process read one
snapshot while the daemon writes, as a backup does), so checking a served store
is safe. --repair moves the corrupt records aside as the daemon does on a read
(fabricd.store.lmdb.sealed.quarantine): it writes, so no daemon may serve the
folder.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import lmdb

from fabricd.store.errors import StoreError
from fabricd.store.lmdb import folder, quarantine, sealed
from fabricd.store.lmdb.schema import MAX_DBS, SEALED, check_schema, open_databases


@dataclass
class CheckReport:
    """What a check found."""

    records: int = 0
    corrupt: list[tuple[str, bytes]] = field(default_factory=list)
    """(database, key) of each record whose checksum does not match."""
    quarantined_before: int = 0
    """Records already in the quarantine database (moved aside earlier, by the daemon or a repair)."""
    repaired: int = 0


def check(path: str, *, repair: bool) -> CheckReport:
    """Verify every sealed record of the store in `path`; with `repair`, quarantine the corrupt ones."""
    if not os.path.isfile(os.path.join(path, "data.mdb")):
        raise StoreError(f"{path} holds no store (no data.mdb); check --data-dir")
    folder.check_owner(path)  # even a read-only open writes lock.mdb
    lock_fd = folder.lock(path) if repair else None  # a repair writes: no daemon may serve the folder
    try:
        env = lmdb.open(path, map_size=0, max_dbs=MAX_DBS, readonly=not repair, create=False, max_readers=1024)
    except lmdb.Error as exc:
        if lock_fd is not None:
            os.close(lock_fd)
        raise StoreError(folder.explain(path, exc)) from exc
    try:
        report = CheckReport()
        with env.begin(write=repair, buffers=False) as txn:
            dbs = open_databases(env, txn, create=repair)
            version = check_schema(path, txn, dbs, create=False)
            if version < 3:
                raise StoreError(f"{path} holds schema version {version}, written before records carried "
                                 "checksums: start the daemon on it once (it upgrades the store, after a backup), "
                                 "then check it")
            present = tuple(name for name in SEALED if getattr(dbs, name) is not None)  # by_id: schema 4
            for name in present:
                report.records += txn.stat(getattr(dbs, name))["entries"]
            report.records += len(sealed.meta_records(txn, dbs.meta))
            report.corrupt = list(sealed.scan(txn, dbs, present)) + list(quarantine.scan_meta(txn, dbs.meta))
            if dbs.quarantine is not None:
                report.quarantined_before = txn.stat(dbs.quarantine)["entries"]
            if repair:
                sealed_txn = sealed.SealedTxn(txn, dbs.sealed, None)
                report.repaired = sum(quarantine.move(sealed_txn, dbs, name, key) for name, key in report.corrupt)
        return report
    except lmdb.Error as exc:
        raise StoreError(folder.explain(path, exc)) from exc
    finally:
        env.close()
        if lock_fd is not None:
            os.close(lock_fd)


def describe(path: str, report: CheckReport, repair: bool) -> tuple[list[str], int]:
    """The lines `fabricd check` prints and its exit status: 0 sound (or repaired), 1 corrupt records remain."""
    lines = [f"corrupt record: database {name}, key {key.hex()}" + (" (moved to quarantine)" if repair else "")
             for name, key in report.corrupt]
    summary = f"checked {report.records} records in {path}: {len(report.corrupt)} corrupt"
    if report.quarantined_before:
        summary += f", {report.quarantined_before} quarantined earlier"
    if report.corrupt and not repair:
        summary += "; `fabricd check --repair` (daemon stopped) moves them aside, or the daemon does on reading them"
    lines.append(summary)
    return lines, 1 if report.corrupt and not repair else 0



