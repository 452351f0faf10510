"""How the LMDB writer fails: LMDB and OS errors as the core's errors, and the tests' failpoints.

translate turns a failed write or commit into what its caller hears (STORE_FULL, DISK_FULL,
STORE_IO_ERROR); fail_at is the crash or hang the reliability tests ask for at a commit. Both are
used by the engine (fabricd.store.lmdb.engine).
"""

from __future__ import annotations

import errno
import os
import time

import lmdb

from fabricd.core.errors import FabricError, ResourceExhausted, Unavailable

DISK_FULL_BYTES = 1 << 20


def translate(exc: BaseException, path: str = ".") -> BaseException:
    """LMDB and OS errors as the core's errors; everything else unchanged.

    LMDB reports a write cut short by a full disk as EIO, so an I/O error is
    DISK_FULL when the data folder's file system has less than 1 MiB free.
    """
    if isinstance(exc, FabricError):
        return exc
    if isinstance(exc, lmdb.MapFullError):
        return ResourceExhausted(
            "the store is full (LMDB map size reached); nothing was written. "
            "Consume or delete mail, or restart the daemon with a larger --map-size",
            reason="STORE_FULL",
        )
    if isinstance(exc, (lmdb.Error, OSError)):
        try:
            free = os.statvfs(path).f_bavail * os.statvfs(path).f_frsize
        except OSError:
            free = DISK_FULL_BYTES
        if getattr(exc, "errno", None) == errno.ENOSPC or "No space" in str(exc) or free < DISK_FULL_BYTES:
            return ResourceExhausted(f"the disk holding the store is full ({free} bytes free); nothing was "
                                     "written. Free some space: writes resume by themselves", reason="DISK_FULL")
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
