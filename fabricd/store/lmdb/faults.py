"""How the LMDB writer fails: LMDB and OS errors as the core's errors, and the tests' failpoints.

translate turns a failed write or commit into what its caller hears (STORE_FULL, DISK_FULL,
STORE_IO_ERROR); Headroom keeps the last part of the map for writes that consume mail, so a full
store can still be drained and acked; fail_at is the crash or hang the reliability tests ask for at
a commit. All are used by the engine (fabricd.store.lmdb.engine).
"""

from __future__ import annotations

import errno
import os
import time

import lmdb

from fabricd.core.errors import FabricError, ResourceExhausted, Unavailable

DISK_FULL_BYTES = 1 << 20
DISK_RESERVE_BYTES = 2 << 20
"""A write that stores messages is refused (DISK_FULL) when the data folder's disk has less free."""
DISK_LOW_BYTES = 256 << 20
"""Below this much free disk, every write that stores messages looks again; above it, once a second."""


def disk_full(free: int) -> ResourceExhausted:
    return ResourceExhausted(f"the disk holding the store is full ({free} bytes free); nothing was written. Free "
                             "some space (drain and ack still work): writes resume by themselves",
                             reason="DISK_FULL")


def store_full() -> ResourceExhausted:
    return ResourceExhausted(
        "the store is full (LMDB map size reached); nothing was written. "
        "Consume or delete mail (drain and ack still work), or restart the daemon with a larger --map-size",
        reason="STORE_FULL",
    )


class Headroom:
    """The last part of the map and of the disk is for writes that free space: a write that stores messages
    is refused once the pages the databases hold (as of its transaction) pass map size less the headroom
    (STORE_FULL), or once the disk has less than DISK_RESERVE_BYTES free (DISK_FULL).

    Deleting in LMDB takes new pages (copy-on-write), so a map or a disk filled to the last page could not
    even drain; with the headroom a drain or an ack still commits and its freed pages take mail again.
    The pages are counted only once the map's high-water mark is past half the map (cheap before).
    """

    def __init__(self, env: lmdb.Environment, dbs: object, names: tuple[str, ...], map_size: int,
                 path: str) -> None:
        self._env = env
        self._path = path
        self._disk_checked = -1.0
        self._disk_low = True
        self._dbs = [getattr(dbs, name) for name in names]
        psize = env.stat()["psize"]
        headroom = min(64 << 20, max(1 << 20, map_size // 32))
        self.limit_pages = (map_size - headroom) // psize
        self._check_from = map_size // 2 // psize

    def refuse(self, txn: lmdb.Transaction) -> None:
        """STORE_FULL or DISK_FULL when a write that stores messages would leave less than the headroom."""
        now = time.monotonic()
        if self._disk_low or now - self._disk_checked >= 1.0:
            self._disk_checked = now
            try:
                stat = os.statvfs(self._path)
            except OSError:
                stat = None
            if stat is not None:
                free = stat.f_bavail * stat.f_frsize
                self._disk_low = free < DISK_LOW_BYTES
                if free < DISK_RESERVE_BYTES:
                    raise disk_full(free)
        if self._env.info()["last_pgno"] < self._check_from:
            return
        held = 2 + sum(s["branch_pages"] + s["leaf_pages"] + s["overflow_pages"]
                       for s in (txn.stat(db) for db in self._dbs if db is not None))
        if held > self.limit_pages:
            raise store_full()


def translate(exc: BaseException, path: str = ".") -> BaseException:
    """LMDB and OS errors as the core's errors; everything else unchanged.

    LMDB reports a write cut short by a full disk as EIO, so an I/O error is
    DISK_FULL when the data folder's file system has less than 1 MiB free.
    """
    if isinstance(exc, FabricError):
        return exc
    if isinstance(exc, lmdb.MapFullError):
        return store_full()
    if isinstance(exc, (lmdb.Error, OSError)):
        try:
            free = os.statvfs(path).f_bavail * os.statvfs(path).f_frsize
        except OSError:
            free = DISK_FULL_BYTES
        if getattr(exc, "errno", None) == errno.ENOSPC or "No space" in str(exc) or free < DISK_FULL_BYTES:
            return disk_full(free)
        return Unavailable(f"the store could not write: {exc}", reason="STORE_IO_ERROR")
    return exc


def fail_at(failpoint: str, point: str) -> None:
    """Tests only ($FABRICD_TEST_FAILPOINT, checked in daemon/settings.py): at the named point of a commit
    that stores messages, crash the process ("before-commit", "after-commit") or hang as a dead disk would
    ("stall"). Off, the commit path pays one test of an empty string."""
    if failpoint == "stall" and point == "before-commit":
        time.sleep(3600)
    elif failpoint == point:
        os._exit(86)
