"""The data folder: its permissions, its lock, and what to tell an operator when it cannot be used.

A store holds every message, so a new folder is private: 0700 with files
0600, or, when `socket.group` is set (the group that may use the socket may
also read the store, for backups), 0750 and 0640 owned by that group. An
existing folder keeps the modes its owner chose, with a warning when every
local user can read it.

One process serves a folder: the daemon holds an exclusive flock on
`fabricd.lock` for its life. Offline tools (restore, compact) take the same
lock, so they refuse while a daemon runs and a daemon refuses while they work.

A folder is used only by the user that owns it, as PostgreSQL requires of its
data directory: its owner could plant symlinks in it (lock.mdb pointing at a
file of the daemon's user), so a folder owned by another user, one any user
may write to, or a store file that is a symlink or another user's, is refused
before anything in it is opened (`check_owner`).
"""

from __future__ import annotations

import errno
import fcntl
import getpass
import grp
import logging
import os
import pwd
import stat
from dataclasses import dataclass

from fabricd.store.errors import StoreError  # raised here, re-exported for callers

log = logging.getLogger("fabricd.store")

LOCK_FILE = "fabricd.lock"
STORE_FILES = ("data.mdb", "lock.mdb", LOCK_FILE)
"""The files a daemon opens (and may create) in its folder."""


@dataclass(frozen=True, slots=True)
class Modes:
    """The modes and group given to what fabricd creates in a data folder."""

    folder: int = 0o700
    file: int = 0o600
    gid: int = -1

    @classmethod
    def for_group(cls, group: str) -> Modes:
        if not group:
            return cls()
        try:
            return cls(0o750, 0o640, grp.getgrnam(group).gr_gid)
        except KeyError:
            raise StoreError(f"socket.group {group!r} does not exist; create it or leave socket.group empty") from None

    def apply(self, path: str, folder: bool = False) -> None:
        """Give `path` (just created by us) its mode and group, whatever the umask was."""
        os.chmod(path, self.folder if folder else self.file)
        if self.gid != -1:
            os.chown(path, -1, self.gid)


def _owner(uid: int) -> str:
    try:
        return f"{pwd.getpwuid(uid).pw_name} (uid {uid})"
    except KeyError:
        return f"uid {uid}"


def check_owner(path: str) -> None:
    """Refuse a folder this process's user does not own, one every user may write to, and store files in it
    that are symlinks or another user's (see the module docstring); StoreError saying what to do."""
    me = os.geteuid()
    st = os.stat(path)
    if st.st_uid != me:
        raise StoreError(f"{path} is owned by {_owner(st.st_uid)}, not by the user running fabricd "
                         f"({_owner(me)}): its owner could point the store's files anywhere. Run fabricd as "
                         f"{_owner(st.st_uid)}, or choose a folder of your own with --data-dir")
    if st.st_mode & 0o002:
        raise StoreError(f"{path} may be written by every local user (mode {st.st_mode & 0o7777:03o}), who could "
                         f"plant symlinks in it: chmod o-w {path}, or choose another --data-dir")
    for name in STORE_FILES:
        target = os.path.join(path, name)
        try:
            lst = os.lstat(target)
        except FileNotFoundError:
            continue
        if stat.S_ISLNK(lst.st_mode) or not stat.S_ISREG(lst.st_mode):
            raise StoreError(f"{target} is {'a symlink' if stat.S_ISLNK(lst.st_mode) else 'not a regular file'}; "
                             f"fabricd opens only files of its own in {path}: remove it, or choose another "
                             "--data-dir")
        if lst.st_uid != me:
            raise StoreError(f"{target} is owned by {_owner(lst.st_uid)}, not by the user running fabricd "
                             f"({_owner(me)}): chown it, or choose another --data-dir")


def prepare(path: str, modes: Modes) -> None:
    """Create the data folder private (see the module docstring), or check an existing one's owner
    (`check_owner`) and warn when every local user can read it."""
    try:
        os.makedirs(path, mode=modes.folder)
    except FileExistsError:
        if not os.path.isdir(path):
            raise StoreError(f"{path} exists and is not a folder; choose another --data-dir") from None
        check_owner(path)
        for name in ("", "data.mdb"):
            target = os.path.join(path, name) if name else path
            try:
                mode = os.stat(target).st_mode & 0o777
            except FileNotFoundError:
                continue
            if mode & 0o004:
                log.warning("%s is readable by every local user (mode %03o): it holds every message; "
                            "chmod %s it", target, mode, f"{modes.folder:o}" if not name else f"{modes.file:o}")
        return
    except OSError as exc:
        raise StoreError(explain(path, exc)) from None
    modes.apply(path, folder=True)


def lock(path: str, modes: Modes | None = None) -> int:
    """Hold the folder's exclusive lock; StoreError naming the holder's pid when another process has it."""
    try:
        check_owner(path)
    except OSError as exc:
        raise StoreError(explain(path, exc)) from None
    lock_path = os.path.join(path, LOCK_FILE)
    existed = os.path.exists(lock_path)
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    except OSError as exc:
        raise StoreError(explain(path, exc)) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        try:
            holder = os.read(fd, 64).decode(errors="replace").strip()
        finally:
            os.close(fd)
        raise StoreError(
            f"another fabricd (pid {holder or 'unknown'}) is already serving {path}; "
            "stop it, or use another --data-dir"
        ) from None
    try:
        if not existed and modes is not None:
            modes.apply(lock_path)
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
    except OSError as exc:
        os.close(fd)
        raise StoreError(explain(path, exc)) from None
    return fd


def holder(path: str) -> int | None:
    """The pid of the process serving `path` (holding its lock), or None when none does."""
    try:
        fd = os.open(os.path.join(path, LOCK_FILE), os.O_RDONLY)
    except FileNotFoundError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        text = os.read(fd, 64).decode(errors="replace").strip()
        return int(text) if text.isdigit() else 0
    finally:
        os.close(fd)
    return None


def explain(path: str, exc: BaseException) -> str:
    """One line an operator can act on, for an OS or LMDB error met while opening the store in `path`."""
    code = getattr(exc, "errno", None)
    if code in (errno.EACCES, errno.EPERM):
        return (f"cannot write to {path}: permission denied. Give the user running fabricd ({_user()}) "
                f"write access to it, or choose another --data-dir")
    if code == errno.EROFS:
        return f"{path} is on a read-only file system. Remount it read-write, or choose another --data-dir"
    if code == errno.ENOSPC or _free_bytes(path) < 1 << 20:
        return f"no space left on the disk holding {path}. Free some space, or choose another --data-dir"
    detail = getattr(exc, "strerror", None) or str(exc)
    return f"cannot open the store in {path}: {detail}"


def _free_bytes(path: str) -> int:
    while path and not os.path.exists(path):
        path = os.path.dirname(path)
    try:
        st = os.statvfs(path or "/")
    except OSError:
        return 1 << 62
    return st.f_bavail * st.f_frsize


def _user() -> str:
    try:
        return getpass.getuser()
    except Exception:  # no passwd entry in a container
        return f"uid {os.getuid()}"
