"""Operators' tools on a data folder: backup, restore, compact, and issuing a token straight into the store.

Why these are safe next to a running daemon, or refuse to run beside one:
- backup opens the environment read-only in this process (LMDB supports many
  processes on one environment; readers register in lock.mdb) and copies one
  read snapshot with compaction: consistent whatever the daemon writes meanwhile.
  Copying data.mdb with cp is not: it tears pages the writer is changing.
- token issue writes one record. LMDB serialises writers of every process
  through the mutex in lock.mdb, so this write waits for the daemon's writer
  (or the daemon's next batch waits for it, a millisecond); the map size is
  the one the daemon committed (map_size=0 adopts it), so neither process sees
  the other's map grow. The daemon looks an unknown token up in the store.
- restore and compact replace data.mdb, so they take the folder's lock (no
  daemon may run) and make sure no other process has the environment open
  before they remove lock.mdb, whose reader table describes the old file.
"""

from __future__ import annotations

import asyncio
import fcntl
import os
import shutil
import time
from dataclasses import dataclass

import lmdb

from fabricd.core.kv import directory as kv_directory
from fabricd.core.limits import Limits
from fabricd.core.tokens import Token, mint
from fabricd.store.errors import StoreError
from fabricd.store.lmdb import folder
from fabricd.store.lmdb.engine import LmdbEngine
from fabricd.store.lmdb.schema import MAX_DBS, check_schema, open_databases
from fabricd.store.lmdb.tx import LmdbTx

DATA, LOCK = "data.mdb", "lock.mdb"
SEARCH = "search.sqlite3"
"""The channels' search index (fabricd.store.lmdb.channel_index), rebuilt from the logs when missing."""


@dataclass(frozen=True, slots=True)
class Issued:
    token: Token
    secret: str
    daemon_pid: int | None
    """The pid of the daemon that was serving the folder, or None when none ran."""


def _copy_compacted(path: str, target: str) -> None:
    """Write one read snapshot of the store in `path`, without free pages, to `target` (0600, fsync'd), and check it."""
    env = lmdb.open(path, map_size=0, max_dbs=MAX_DBS, readonly=True, create=False, max_readers=1024)
    try:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            env.copyfd(fd, compact=True)
            os.fsync(fd)
        finally:
            os.close(fd)
    finally:
        env.close()
    verify(target)


def backup(path: str, dest: str) -> int:
    """Write a consistent, compacted copy of the store in `path` to the file `dest`; return its size."""
    _require_store(path)
    partial = dest + ".partial"
    try:
        _copy_compacted(path, partial)
        os.replace(partial, dest)
        _fsync_dir(os.path.dirname(os.path.abspath(dest)))
    except (lmdb.Error, OSError) as exc:
        _remove(partial)
        raise StoreError(f"backup of {path} to {dest} failed: {folder.explain(os.path.dirname(dest) or '.', exc)}") from exc
    except StoreError:
        _remove(partial)
        raise
    return os.path.getsize(dest)


def verify(data_file: str) -> None:
    """StoreError unless `data_file` is an LMDB data file holding a store of this fabricd's schema."""
    try:
        env = lmdb.open(data_file, subdir=False, readonly=True, lock=False, max_dbs=MAX_DBS, map_size=0)
    except lmdb.Error as exc:
        raise StoreError(f"{data_file} is not a fabricd backup (an LMDB data file): {exc}") from exc
    try:
        with env.begin() as txn:
            check_schema(data_file, txn, open_databases(env, txn, create=False), create=False)
    except lmdb.Error as exc:
        raise StoreError(f"{data_file} is not a fabricd backup: {exc}") from exc
    finally:
        env.close()


def restore(source: str, path: str, *, force: bool, group: str = "") -> None:
    """Make `source` (a backup) the store in `path`. Refuses a non-empty folder unless `force`, and a served one."""
    if not os.path.isfile(source):
        raise StoreError(f"{source} is not a file; pass the file `fabricd backup` or `fabric backup` wrote")
    verify(source)
    modes = folder.Modes.for_group(group)
    folder.prepare(path, modes)
    lock_fd = folder.lock(path, modes)
    try:
        present = sorted(n for n in os.listdir(path) if n != folder.LOCK_FILE)
        if present and not force:
            raise StoreError(f"{path} is not empty (it holds {', '.join(present[:3])}): restore into a new folder, "
                             "or pass --force to replace the store in it")
        _replace_data(path, source, modes, copy=True)
        for name in (SEARCH, SEARCH + "-wal", SEARCH + "-shm"):  # the old store's: rebuilt from the new logs
            if os.path.exists(os.path.join(path, name)):
                os.remove(os.path.join(path, name))
    except OSError as exc:
        raise StoreError(folder.explain(path, exc)) from exc
    finally:
        os.close(lock_fd)


def compact(path: str) -> tuple[int, int]:
    """Rewrite the store in `path` without its free pages (no daemon may run); return (bytes before, after)."""
    _require_store(path)
    lock_fd = folder.lock(path)
    compacted = os.path.join(path, DATA + ".compact")
    try:
        before = os.path.getsize(os.path.join(path, DATA))
        _copy_compacted(path, compacted)
        st = os.stat(os.path.join(path, DATA))
        _replace_data(path, compacted, folder.Modes(file=st.st_mode & 0o777, gid=st.st_gid), copy=False)
        return before, os.path.getsize(os.path.join(path, DATA))
    except (lmdb.Error, OSError) as exc:
        _remove(compacted)
        raise StoreError(folder.explain(path, exc)) from exc
    except StoreError:
        _remove(compacted)
        raise
    finally:
        os.close(lock_fd)


def issue_token(path: str, scope: str, agent_id: str, label: str, *, map_size: int, group: str = "",
                limits: Limits | None = None, session_names: tuple[str, ...] = ()) -> Issued:
    """Store a new token in the store in `path`, whether or not a daemon serves it (see the module docstring)."""
    key, token, secret = mint(scope, agent_id, label, limits or Limits(), time.time_ns(), session_names)
    pid = folder.holder(path)
    if pid is None:  # no daemon: open the store as it would (a new one is created, private)
        store = LmdbEngine(path, map_size=map_size, group=group)
        try:
            with store._env.begin(write=True) as txn:  # the writer thread is not running
                _add_token(LmdbTx(txn, store._dbs), key, token)
        finally:
            asyncio.run(store.close())
        return Issued(token, secret, None)
    _require_store(path)
    try:
        env = lmdb.open(path, map_size=0, max_dbs=MAX_DBS, create=False, max_readers=1024)
        try:
            with env.begin(write=True) as txn:
                dbs = open_databases(env, txn, create=False)
                check_schema(path, txn, dbs, create=False)
                _add_token(LmdbTx(txn, dbs), key, token)
        finally:
            env.close()
    except lmdb.Error as exc:
        raise StoreError(folder.explain(path, exc)) from exc
    return Issued(token, secret, pid)


# -- helpers


def _add_token(tx: LmdbTx, key: bytes, token: Token) -> None:
    """Store a token as the daemon would: its agent id and names collide with no other agent's."""
    kv_directory.check_token(tx, token.agent_id, token.session_names)
    tx.put_token(key, token)


def _require_store(path: str) -> None:
    if not os.path.isfile(os.path.join(path, DATA)):
        raise StoreError(f"{path} holds no store (no {DATA}); check --data-dir")
    folder.check_owner(path)  # even a read-only open writes lock.mdb


def _replace_data(path: str, source: str, modes: folder.Modes, *, copy: bool) -> None:
    """Put `source` in place of data.mdb and drop lock.mdb; StoreError if another process has the store open."""
    lock_path = os.path.join(path, LOCK)
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:  # LMDB holds a shared fcntl lock on lock.mdb in every process that has the environment open
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, 0)
        except OSError:
            raise StoreError(f"another process has the store in {path} open (a backup?); "
                             "wait for it to finish and try again") from None
        target = os.path.join(path, DATA)
        if copy:
            staged = target + ".restore"
            shutil.copyfile(source, staged)
            with open(staged, "rb+") as f:
                os.fsync(f.fileno())
            source = staged
        modes.apply(source)
        os.replace(source, target)
        os.unlink(lock_path)  # its reader table and cached txn id describe the old file
        _fsync_dir(path)
    finally:
        os.close(fd)


def _fsync_dir(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
