"""The LMDB engine: the environment, its single writer (group commit) and short read transactions.

It runs the core's transaction scripts (fabricd.core.kv) for the store port.

All writes go through one writer thread. Callers queue a function; when the
writer is idle it takes every function waiting, runs each in its own nested
transaction (one caller's error aborts only its own work), commits them
together with one fsync, and only then resolves each caller's future. While
one batch is being fsync'd, the next one gathers: under load, one fsync
serves every caller that arrived during the previous one. Waiting writes queue
per lane (each token's, fabricd.core.lanes) and a batch takes one of each lane
in turn, so one token's flood of heavy batches delays another's write by one
commit, not by the whole flood.

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

The store's named databases and schema version, which the offline tools open too, are in schema.py;
how a write fails (error translation, the tests' failpoints) is in faults.py.
"""

from __future__ import annotations

import asyncio
import logging
import os
import queue
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import lmdb

from fabricd.core import lanes
from fabricd.core.errors import FabricError, Unavailable
from fabricd.core.ports import StoreStats, Wakeups
from fabricd.store.errors import StoreError
from fabricd.store.fair import FairQueue, forget_quiet
from fabricd.store.lmdb import folder, looks, sealed, ticket_index, tx_leases, upgrade
from fabricd.store.lmdb.faults import Headroom, fail_at, translate
from fabricd.store.lmdb.quarantine import Quarantine
from fabricd.store.lmdb.schema import MAX_DBS, NAMES, SCHEMA_VERSION, SEALED, check_schema, free_bytes, open_databases
from fabricd.store.lmdb.tx import LmdbTx

T = TypeVar("T")
log = logging.getLogger("fabricd.store")

MAX_BATCH = 4096
MAX_BATCH_WORK = 2048
"""Work units (about one stored message each) one commit takes on before it stops gathering: a caller
that queues heavy writes delays others by one bounded batch, not by all of its work."""
_STOP = object()
SHARED_BATCH_WORK = 128
"""Work units a commit gathers, its first write aside, while several lanes (tokens) wrote in the last
SHARED_WINDOW_S. A commit, which the loop waits for while it is applied, then holds at most one heavy write
(a flood's batch of 100, a drain of 250) and the light writes of other lanes that fit beside it, so another
token's send waits for about two short commits, never for a flood's full one nor rides in it. A lane alone
gets whole batches (MAX_BATCH_WORK)."""
ALONE_BEFORE_HERE = 3
"""Commits in a row of one write each before a write may commit on the loop thread: a daemon just out
of a burst (64 callers between two batches, say) goes on gathering writes on the writer thread."""


class LmdbEngine:
    """Implements fabricd.core.kv.tx.Engine over one LMDB environment in `path`.

    Reads run inline on the event loop thread: a read transaction here takes
    microseconds (no I/O once pages are mapped), far less than a hop to a
    thread, and py-lmdb would make a second thread wait for the GIL anyway
    (see the module docstring). They never span an await.
    """

    _loop: asyncio.AbstractEventLoop
    """The loop `start` ran on: writes are answered there."""

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
                looks.build(sealed.SealedTxn(txn, self._dbs.sealed, None), self._dbs)
                looks.build_names(sealed.SealedTxn(txn, self._dbs.sealed, None), self._dbs)
                tx_leases.forget_waiters(sealed.SealedTxn(txn, self._dbs.sealed, None), self._dbs)
                sealed.seal_old_meta(txn, self._dbs.meta)  # wake hooks stored before they were sealed
        except (lmdb.Error, OSError) as exc:
            os.close(self._lock_fd)
            raise StoreError(folder.explain(path, exc)) from exc
        except BaseException:
            os.close(self._lock_fd)
            raise
        self._headroom = Headroom(self._env, self._dbs, NAMES, self._env.info()["map_size"], path)
        self._pending: FairQueue[tuple[Callable[[LmdbTx], Any], asyncio.Future[Any]]] = FairQueue()
        """Writes waiting for the writer, one FIFO per lane (token), taken in turn (fabricd.store.fair)."""
        self._lanes_seen: dict[str, float] = {}
        """When each lane last queued a write (those of the last SHARED_WINDOW_S share the batches)."""
        self.quarantine = Quarantine(self.write, self._dbs)
        """Corrupt records met by reads, moved aside (fabricd.store.lmdb.quarantine)."""
        self._scheduled = False
        self._busy = False  # a batch is with the writer thread
        self._batch_started = 0.0
        self._idle = asyncio.Event()
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
            while len(self._pending) or self._busy:
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
        if (self._alone >= ALONE_BEFORE_HERE and not self._busy and not len(self._pending) and self.quiet is not None
                and self.quiet()):
            return self._commit_here(fn)
        fut: asyncio.Future[T] = self._loop.create_future()
        lane = lanes.current()
        self._pending.put(lane, (fn, fut), weight)
        self._lanes_seen[lane] = time.monotonic()
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
        result: T = outcome.result
        return result

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
            raise translate(exc, self.path) from exc

    # -- the writer

    def _flush(self) -> None:
        """On the loop: hand the waiting writes to the writer thread and wait until they are applied."""
        self._scheduled = False
        if self._busy or not len(self._pending):
            return
        forget_quiet(self._lanes_seen, time.monotonic())
        shared = len(self._lanes_seen) > 1
        batch = self._pending.take(MAX_BATCH, SHARED_BATCH_WORK if shared else MAX_BATCH_WORK)
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
                outcomes = [WriteOutcome(fut, error=translate(exc, self.path)) for _, fut in batch]
            finally:
                self._applied.set()
            self._loop.call_soon_threadsafe(self._committed, outcomes)

    def _committed(self, outcomes: list[WriteOutcome]) -> None:
        """On the loop: answer the callers of a durable batch, then start the next one."""
        self._busy = False
        self._resolve(outcomes)
        if len(self._pending):
            self._flush()
        else:
            self._idle.set()

    def _commit(self, batch: Sequence[tuple[Callable[[LmdbTx], Any], asyncio.Future[Any] | None]]) -> list[WriteOutcome]:
        """In the writer thread: apply each write in a nested transaction, then commit them together."""
        started = time.perf_counter()
        outcomes: list[WriteOutcome] = []
        env, dbs = self._env, self._dbs
        stored_messages = 0
        try:
            txn = env.begin(write=True)
        except lmdb.Error as exc:
            return [WriteOutcome(fut, error=translate(exc, self.path)) for _, fut in batch]
        try:
            for fn, fut in batch:
                child = env.begin(write=True, parent=txn)
                tx = LmdbTx(child, dbs, self.quarantine.found_in_write)
                try:
                    result = fn(tx)
                    tx.flush()
                    if tx.stored_messages:
                        self._headroom.refuse(child)
                    child.commit()
                    stored_messages += tx.stored_messages
                    outcomes.append(WriteOutcome(fut, result, None, tx.woken))
                except BaseException as exc:  # one caller's failure aborts only its own work
                    child.abort()
                    if not isinstance(exc, (FabricError, lmdb.Error)):
                        log.exception("write failed")
                    outcomes.append(WriteOutcome(fut, error=translate(exc, self.path)))
            self._applied.set()  # the loop may run while we fsync
            failpoint = self._failpoint if stored_messages else ""  # tests only: "" costs one test
            if failpoint:
                fail_at(failpoint, "before-commit")
            if any(o.error is None for o in outcomes):
                txn.commit()
                self.messages_stored += stored_messages
            else:
                txn.abort()
            if failpoint:
                fail_at(failpoint, "after-commit")
        except BaseException as exc:  # the commit itself failed: nothing in the batch is durable
            txn.abort()
            err = translate(exc, self.path)
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
            if fut is None or fut.done():  # the caller went away (cancelled); its write stands
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

    future: asyncio.Future[Any] | None
    """None for a write committed on the loop thread (LmdbEngine._commit_here), whose caller is answered directly."""
    result: Any = None
    error: BaseException | None = None
    """Set when this write (or the batch's commit) failed: the caller gets it instead of `result`."""
    woken: Any = ()
    """The wake-up keys the write asked for, notified once the batch is durable."""
