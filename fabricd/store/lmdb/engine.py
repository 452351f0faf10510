"""The LMDB engine: the environment, its single writer (group commit) and short read transactions.

It runs the core's transaction scripts (fabricd.core.kv) for the store port.

All writes go through one writer thread. Callers queue a function; when the
writer is idle it takes every function waiting, runs each in its own nested
transaction (one caller's error aborts only its own work), commits them
together with one fsync, and only then resolves each caller's future. While
one batch is being fsync'd, the next one gathers: under load, one fsync
serves every caller that arrived during the previous one.

The event loop thread waits while the writer applies a batch, and runs again
during the commit. py-lmdb releases the GIL around every get and put; were
the loop thread running Python then, each call would wait for the GIL for a
whole switch interval (about 0.4 ms per put measured here, 500 times slower
than uncontended). The apply is Python either way, so the loop loses nothing
by waiting, and the fsync, the slow part, overlaps with serving requests.

A lone caller pays for those hops (to the writer, back to the loop after the
apply, and the self-pipe wake-up after the commit: about 0.1 ms of a 1 ms
send). So while the daemon is quiet (`quiet`, set by the daemon: no unary call
in flight but the writer's own, counted from each call's arrival), a write
that finds the writer idle and nothing queued, after ALONE_BEFORE_HERE commits
in a row of one write each, is applied and committed on the loop thread
itself, durable before its caller hears back exactly as on the writer. The
loop stops for that one commit; calls arriving meanwhile wait for it at most,
are counted as they come in, and their writes go to the writer thread and
commit together as above. The streak keeps a daemon between two bursts of
many callers on the writer: 64 callers commit about 0.5% of their writes on
the loop thread (one in seven without it), a lone caller nearly all.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import queue
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import lmdb

from fabricd.core.errors import FabricError, ResourceExhausted, Unavailable
from fabricd.core.ports import StoreStats, Wakeups
from fabricd.store.lmdb import folder, keys, sealed, ticket_index, upgrade
from fabricd.store.lmdb.quarantine import Quarantine
from fabricd.store.lmdb.folder import StoreError
from fabricd.store.lmdb.tx import Databases, LmdbTx

T = TypeVar("T")
log = logging.getLogger("fabricd.store")

SCHEMA_VERSION = 4  # 2: server-minted message ids are keyed in time order; 3: values carry checksums;
# 4: chosen message ids keyed by their sender, outbox rows by their settling agent (fabricd.store.lmdb.upgrade)
MAX_BATCH = 4096
MAX_BATCH_WORK = 2048
"""Work units (about one stored message each) one commit takes on before it stops gathering: a caller
that queues heavy writes delays others by one bounded batch, not by all of its work."""
_STOP = object()
ALONE_BEFORE_HERE = 3
"""Commits in a row of one write each before a write may commit on the loop thread: a daemon just out
of a burst (64 callers between two batches, say) goes on gathering writes on the writer thread."""


DISK_FULL_BYTES = 1 << 20


def _translate(exc: BaseException, path: str = ".") -> BaseException:
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


class LmdbEngine:
    """Implements fabricd.core.kv.tx.Engine over one LMDB environment in `path`.

    Reads run inline on the event loop thread: a read transaction here takes
    microseconds (no I/O once pages are mapped), far less than a hop to a
    thread, and py-lmdb would make a second thread wait for the GIL anyway
    (see the module docstring). They never span an await.
    """

    def __init__(self, path: str, *, map_size: int, wakeups: Wakeups | None = None, sync: bool = True,
                 failpoint: str = "", group: str = "") -> None:
        modes = folder.Modes.for_group(group)
        folder.prepare(path, modes)
        self.path = path
        self.upgrade_backup = ""
        """The backup of the older store this start upgraded, if it did."""
        self._lock_fd = folder.lock(path, modes)
        try:
            new = not os.path.exists(os.path.join(path, "data.mdb"))
            self._env = lmdb.open(path, map_size=map_size, max_dbs=MAX_DBS, sync=sync, metasync=sync,
                                  max_spare_txns=8, max_readers=1024, mode=modes.file)
            if new:  # LMDB created them with mode & ~umask: make them exactly what we want
                for name in ("data.mdb", "lock.mdb"):
                    modes.apply(os.path.join(path, name))
            self._env.reader_check()  # clear slots left by a killed process
            with self._env.begin(write=True) as txn:
                self._dbs = open_databases(self._env, txn)
                found = check_schema(path, txn, self._dbs, create=True)
            if found < SCHEMA_VERSION:
                self.upgrade_backup = upgrade.upgrade(self._env, self._dbs, path, found, SCHEMA_VERSION, SEALED,
                                                     modes.file)
            # After the upgrade: the index is built from sealed tickets and its own values are sealed.
            with self._env.begin(write=True) as txn:
                ticket_index.build(sealed.SealedTxn(txn, self._dbs.sealed, None), self._dbs)
                sealed.seal_old_meta(txn, self._dbs.meta)  # wake hooks stored before they were sealed
        except (lmdb.Error, OSError) as exc:
            os.close(self._lock_fd)
            raise StoreError(folder.explain(path, exc)) from exc
        except BaseException:
            os.close(self._lock_fd)
            raise
        self._pending: list[tuple[Callable[[LmdbTx], Any], asyncio.Future[Any]]] = []
        self._weights: list[int] = []
        self.quarantine = Quarantine(self.write, self._dbs)
        """Corrupt records met by reads, moved aside (fabricd.store.lmdb.quarantine)."""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._scheduled = False
        self._busy = False  # a batch is with the writer thread
        self._batch_started = 0.0
        self._idle: asyncio.Event | None = None
        self._handoff: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._applied = threading.Event()
        self._thread: threading.Thread | None = None
        self._closed = False
        self._wakeups = wakeups
        self.messages_stored = 0
        self.commits = 0
        self.batched_writes = 0
        self.last_batch = 0
        self.on_commit: Callable[[int, float], None] | None = None
        self.quiet: Callable[[], bool] | None = None
        """Set by the daemon: True while it serves no call but the one writing (see the module docstring)."""
        self.commits_here = 0
        """Commits made on the event loop thread (a lone write while the daemon was quiet)."""
        self._alone = 0  # commits in a row that held one write each
        # For the reliability tests: "before-commit" or "after-commit" kills the process (exit 86, no
        # cleanup) at the first batch that stores a message; "stall" hangs the writer there instead.
        self._failpoint = failpoint

    # -- lifecycle

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self.quarantine.start(self._loop)
        self._idle = asyncio.Event()
        self._idle.set()
        # The writer needs the GIL back right after each fsync; don't make it wait 5 ms for it.
        sys.setswitchinterval(min(sys.getswitchinterval(), 0.0005))
        self._thread = threading.Thread(target=self._run, name="fabricd-writer", daemon=True)
        self._thread.start()

    async def close(self) -> None:
        """Commit every queued write, then close the environment."""
        if self._closed:
            return
        self._closed = True
        self.quarantine.closed = True
        if self._thread is not None:
            while self._pending or self._busy:
                self._flush()
                await self._idle.wait()
            self._handoff.put(_STOP)
            await asyncio.get_running_loop().run_in_executor(None, self._thread.join)
        self._env.close()
        os.close(self._lock_fd)

    # -- the port

    async def write(self, fn: Callable[[LmdbTx], T], weight: int = 1) -> T:
        if self._closed:
            raise Unavailable("the daemon is shutting down", reason="SHUTTING_DOWN")
        if (self._alone >= ALONE_BEFORE_HERE and not self._busy and not self._pending and self.quiet is not None
                and self.quiet()):
            return self._commit_here(fn)
        fut = self._loop.create_future()
        self._pending.append((fn, fut))
        self._weights.append(max(1, weight))
        if not self._scheduled and not self._busy:
            self._scheduled = True
            self._loop.call_soon(self._flush)
        return await fut

    def _commit_here(self, fn: Callable[[LmdbTx], T]) -> T:
        """Apply and commit one write on the loop thread, wake, then answer (as the writer thread would)."""
        self.commits_here += 1
        outcome = self._commit([(fn, None)])[0]
        self._wake(outcome.woken)
        if outcome.error is not None:
            raise outcome.error
        return outcome.result

    async def read(self, fn: Callable[[LmdbTx], T]) -> T:
        with self._env.begin(buffers=False) as txn:
            return fn(LmdbTx(txn, self._dbs, self.quarantine.found))

    def read_now(self, fn: Callable[[LmdbTx], T]) -> T:
        with self._env.begin(buffers=False) as txn:
            return fn(LmdbTx(txn, self._dbs, self.quarantine.found))

    def making_progress(self, stall_s: float) -> bool:
        """False when one batch has been with the writer for longer than `stall_s` (a stuck disk)."""
        return not self._busy or time.monotonic() - self._batch_started < stall_s

    def stats(self) -> StoreStats:
        info = self._env.info()
        stat = self._env.stat()
        with self._env.begin(buffers=False) as txn:
            free = free_bytes(self._env, txn, self._dbs)
        return StoreStats(
            location=self.path,
            commits=self.commits,
            writes=self.batched_writes,
            last_batch=self.last_batch,
            messages_stored=self.messages_stored,
            size_bytes=info["map_size"],
            used_bytes=(info["last_pgno"] + 1) * stat["psize"],
            free_bytes=free,
            quarantined=self.quarantine.moved,
        )

    def copy_to(self, fd: int) -> None:
        """Write a consistent, compacted copy of the store to `fd` (blocking: call it in a thread).

        LMDB copies from one read snapshot while the writer goes on; the snapshot
        pins the pages it reads, so the file may grow a little during a long copy.
        """
        try:
            self._env.copyfd(fd, compact=True)
        except (lmdb.Error, OSError) as exc:
            raise _translate(exc, self.path) from exc

    # -- the writer

    def _flush(self) -> None:
        """On the loop: hand the waiting writes to the writer thread and wait until they are applied."""
        self._scheduled = False
        if self._busy or not self._pending:
            return
        take, work = 0, 0
        for weight in self._weights[:MAX_BATCH]:
            if take and work + weight > MAX_BATCH_WORK:
                break
            take, work = take + 1, work + weight
        batch, self._pending = self._pending[:take], self._pending[take:]
        del self._weights[:take]
        self._busy = True
        self._batch_started = time.monotonic()
        self._idle.clear()
        self._applied.clear()
        self._handoff.put(batch)
        self._applied.wait()

    def _run(self) -> None:
        while True:
            batch = self._handoff.get()
            if batch is _STOP:
                return
            try:
                outcomes = self._commit(batch)
            except BaseException as exc:  # never leave callers waiting
                log.exception("writer failed")
                outcomes = [WriteOutcome(fut, error=_translate(exc, self.path)) for _, fut in batch]
            finally:
                self._applied.set()
            self._loop.call_soon_threadsafe(self._committed, outcomes)

    def _committed(self, outcomes: list[WriteOutcome]) -> None:
        """On the loop: answer the callers of a durable batch, then start the next one."""
        self._busy = False
        self._resolve(outcomes)
        if self._pending:
            self._flush()
        else:
            self._idle.set()

    def _commit(self, batch: list[tuple[Callable[[LmdbTx], Any], asyncio.Future[Any]]]) -> list[WriteOutcome]:
        """In the writer thread: apply each write in a nested transaction, then commit them together."""
        started = time.perf_counter()
        outcomes: list[WriteOutcome] = []
        env, dbs = self._env, self._dbs
        stored_messages = 0
        try:
            txn = env.begin(write=True)
        except lmdb.Error as exc:
            return [WriteOutcome(fut, error=_translate(exc, self.path)) for _, fut in batch]
        try:
            for fn, fut in batch:
                child = env.begin(write=True, parent=txn)
                tx = LmdbTx(child, dbs, self.quarantine.found_in_write)
                try:
                    result = fn(tx)
                    tx.flush()
                    child.commit()
                    stored_messages += tx.stored_messages
                    outcomes.append(WriteOutcome(fut, result, None, tx.woken))
                except BaseException as exc:  # one caller's failure aborts only its own work
                    child.abort()
                    if not isinstance(exc, (FabricError, lmdb.Error)):
                        log.exception("write failed")
                    outcomes.append(WriteOutcome(fut, error=_translate(exc, self.path)))
            self._applied.set()  # the loop may run while we fsync
            failpoint = self._failpoint if stored_messages else ""  # tests only: "" costs one test
            if failpoint:
                _fail_at(failpoint, "before-commit")
            if any(o.error is None for o in outcomes):
                txn.commit()
                self.messages_stored += stored_messages
            else:
                txn.abort()
            if failpoint:
                _fail_at(failpoint, "after-commit")
        except BaseException as exc:  # the commit itself failed: nothing in the batch is durable
            txn.abort()
            err = _translate(exc, self.path)
            log.warning("commit of %d writes failed: %s", len(batch), exc)
            outcomes = [WriteOutcome(o.future, error=err if o.error is None else o.error) for o in outcomes]
        self.commits += 1
        self.batched_writes += sum(1 for o in outcomes if o.error is None)
        self.last_batch = len(batch)
        self._alone = self._alone + 1 if len(batch) == 1 else 0
        if self.on_commit is not None:
            self.on_commit(len(batch), time.perf_counter() - started)
        return outcomes

    def _resolve(self, outcomes: list[WriteOutcome]) -> None:
        """Wake each key once per batch (before answering: a sender's reply finds its subscribers woken)."""
        woken: dict[str, None] = {}
        for outcome in outcomes:
            woken.update(outcome.woken)
        self._wake(woken)
        for outcome in outcomes:
            fut = outcome.future
            if fut.done():  # the caller went away (cancelled); its write stands
                continue
            if outcome.error is None:
                fut.set_result(outcome.result)
            else:
                fut.set_exception(outcome.error)

    def _wake(self, keys: Any) -> None:
        if self._wakeups is not None:
            for key in keys:
                try:
                    self._wakeups.notify(key)
                except Exception:  # a listener's bug must not lose the caller's answer
                    log.exception("wake-up failed")


@dataclass(slots=True)
class WriteOutcome:
    """One write of a batch, as the writer thread hands it back to the loop."""

    future: asyncio.Future[Any]
    result: Any = None
    error: BaseException | None = None
    """Set when this write (or the batch's commit) failed: the caller gets it instead of `result`."""
    woken: Any = ()
    """The wake-up keys the write asked for, notified once the batch is durable."""


def _fail_at(failpoint: str, point: str) -> None:
    """Tests only ($FABRICD_TEST_FAILPOINT, checked in daemon/settings.py): at the named point of a commit
    that stores messages, crash the process ("before-commit", "after-commit") or hang as a dead disk would
    ("stall"). Off, the commit path pays one test of an empty string."""
    if failpoint == "stall" and point == "before-commit":
        time.sleep(3600)
    elif failpoint == point:
        os._exit(86)


MAX_DBS = 32
NAMES = ("meta", "entries", "names", "revisions", "messages", "ids", "by_id", "tickets", "queues", "finished", "ticket_index",
         "outbox",
         "due", "ad_history", "ad_agents", "ad_names", "ad_threads", "ad_by_agent", "ad_requests", "ad_lists",
         "ad_repairs", "tokens", "quarantine")
SEALED = tuple(name for name in NAMES if name not in sealed.UNSEALED)


ADDED_LATER = ("ticket_index", "quarantine", "by_id")
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
