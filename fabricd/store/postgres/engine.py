"""PgEngine: the core's key-value Engine on PostgreSQL: a pool, worker threads for the scripts, wake-ups.

    store = KvStore(PgEngine(url, wakeups), wakeups, clock)   # see store.py: PgStore does this

A write acquires a pooled connection, begins a transaction, runs the script on
a worker thread (tx.py bridges its record calls back to the loop), writes the
dirty entries and commits. It is re-run from the start when PostgreSQL rolled
it back (serialization failure, deadlock), when a racing node took a unique key
first, or when the connection broke BEFORE the commit was sent (nothing
happened). A connection lost during the commit leaves the outcome unknown: the
caller gets UNAVAILABLE and retries with its ids (sends with a client id and
tickets are idempotent). A database that stays unreachable answers UNAVAILABLE.

`op` runs the hot paths (hot.py): one statement or one short transaction on a
pooled connection, with the same re-run rules, no worker thread and no record
cache. Both report their commits through `committed`. Writes, ops and reads take
a connection through a FairGate (fabricd.store.fair): when the pool is busy, the
waiting calls of each token (fabricd.core.lanes) get the freed connections in turn.

After each commit the woken keys go to the local waiters at once and to the
other nodes by one coalesced NOTIFY (listen.Publisher); a Listener turns other
nodes' NOTIFYs into local wake-ups and wakes every local waiter after a reconnect.
On a database without LISTEN/NOTIFY, or with `poll_interval` set, the node sends
no NOTIFY and wakes its waiters every interval instead (poll.py).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import time
from collections.abc import Awaitable, Callable, Hashable, Iterable, Sequence
from typing import TYPE_CHECKING, TypeVar

import asyncpg

from fabricd.core import lanes
from fabricd.core.errors import Unavailable
from fabricd.core.model import PostgresInfo
from fabricd.core.ports import StoreStats, WakeKey, Wakeups
from fabricd.store.fair import FairGate
from fabricd.store.postgres import directory as d
from fabricd.store.postgres import schema
from fabricd.store.postgres.errors import CONNECTION_LOST, ROLLED_BACK, PostgresError
from fabricd.store.postgres.listen import LISTEN_APP, Listener, Publisher
from fabricd.store.postgres.migrate import connect, safe
from fabricd.store.postgres.poll import AUTO_INTERVAL_S, listen_supported, poll
from fabricd.store.postgres.tx import PgTx

if TYPE_CHECKING:
    from fabricd.store.postgres.conn import Conn

T = TypeVar("T")
log = logging.getLogger("fabricd.store.postgres")

ATTEMPTS = 12
"""Runs of one operation before UNAVAILABLE (with back-off up to 0.5 s: about 3 s of a database away)."""

SESSION_SETTINGS = {"jit": "off"}
"""What the pool's connections set when they connect. JIT off: fabricd's statements are short, and compiling
the few the planner estimates past jit_above_cost (an ack of 1,000 ids) costs more than running them."""


def unavailable(exc: BaseException) -> Unavailable:
    return Unavailable(f"the database is unreachable ({type(exc).__name__}: {exc}); retry shortly",
                       reason="STORE_IO_ERROR")


class PgEngine:
    """Implements fabricd.core.kv.tx.Engine over an asyncpg pool (see the module docstring)."""

    def __init__(self, url: str, wakeups: Wakeups, *, pool_size: int = 8, migrate: bool = True,
                 poll_interval: float = 0.0, failpoint: str = "") -> None:
        self.url = url
        self.poll_interval = poll_interval
        """Seconds between wake-ups of every local waiter; 0 = LISTEN/NOTIFY (polling if the database lacks it)."""
        self._failpoint = failpoint
        self._wakeups = wakeups
        self._pool_size = pool_size
        self._migrate = migrate
        self._pool: asyncpg.Pool | None = None
        self._gate = FairGate(pool_size)
        """The pool's connections shared between lanes (tokens) in turn (fabricd.store.fair)."""
        self._threads = concurrent.futures.ThreadPoolExecutor(pool_size, thread_name_prefix="fabricd-pg")
        self._publisher: Publisher | None = None
        self.listener: Listener | None = None
        self._listen_task: asyncio.Task[None] | None = None
        self._closed = False
        self._inflight: dict[int, float] = {}
        self.node_id = 0
        self.commits = self.writes = self.messages_stored = 0
        self.rolled_back = 0
        """Runs the database rolled back (serialization failures, deadlocks) and that were run again."""
        self.on_commit: Callable[[int, float], None] | None = None

    async def start(self) -> None:
        conn = await connect(self.url)
        try:
            current = await schema.version(conn)
            schema.check(current, safe(self.url))
            if current < schema.LATEST:
                if not self._migrate:
                    raise PostgresError(f"{safe(self.url)} holds fabricd schema version {current}; run "
                                        f"`fabricd migrate --store URL` to bring it to {schema.LATEST}")
                await schema.migrate(conn)
            if self._migrate:
                await schema.refresh_looks(conn)
            self.node_id = await conn.fetchval("SELECT nextval('node_ids')")
            if not self.poll_interval and not await listen_supported(
                    conn, pretend_unsupported=self._failpoint == "listen-unsupported"):
                self.poll_interval = AUTO_INTERVAL_S
                log.warning("%s does not support LISTEN/NOTIFY: waking every stream every %.3g s to re-read "
                            "(set poll_interval to choose)", safe(self.url), self.poll_interval)
        finally:
            await conn.close()
        # reset=_keep: no session state to undo (transaction-scoped settings and locks only), so a
        # connection goes back to the pool without asyncpg's reset query, one round trip per operation.
        # SESSION_SETTINGS are sent with the connection's startup: no round trip.
        self._pool = await asyncpg.create_pool(self.url, min_size=1, max_size=self._pool_size,
                                               max_inactive_connection_lifetime=0, reset=_keep,
                                               server_settings=SESSION_SETTINGS)
        if self.poll_interval:
            log.info("wake-ups between nodes: polling every %.3g s (no LISTEN/NOTIFY)", self.poll_interval)
            self._listen_task = asyncio.get_running_loop().create_task(poll(self._wakeups, self.poll_interval))
            return
        # Each NOTIFY names the node that sent it, so the listener skips this node's own echoes (its waiters
        # were woken at the commit). A node id, unlike a server pid, is not reused by a reconnect.
        self._publisher = Publisher(self._pool, origin=self.node_id)
        self.listener = Listener(
            lambda: asyncpg.connect(self.url, server_settings={"application_name": LISTEN_APP}), self._remote, self._reconnected,
                                 origin=self.node_id)
        self._listen_task = asyncio.get_running_loop().create_task(self.listener.run())
        await asyncio.wait_for(self.listener.connected.wait(), 10)

    def _reconnected(self) -> None:
        """The LISTEN connection broke and is back: wake-ups may have been lost, so every waiter re-reads."""
        self._wakeups.wake_all()

    def _remote(self, keys: list[Hashable]) -> None:
        for key in keys:
            self._wakeups.notify(key)  # type: ignore[arg-type]  # another node's WakeKeys, as JSON gives them back

    async def close(self) -> None:
        self._closed = True
        if self._listen_task is not None:
            self._listen_task.cancel()
            await asyncio.gather(self._listen_task, return_exceptions=True)
        if self._publisher is not None:
            await self._publisher.drain()
        if self._pool is not None:
            await self._pool.close()
        self._threads.shutdown(wait=False)

    async def info(self) -> PostgresInfo:
        """The server, database, schema and pool (fabricd.store.postgres.status)."""
        from fabricd.store.postgres.status import describe

        return await describe(self._check_open(), self.url)

    def stats(self) -> StoreStats:
        return StoreStats(location=safe(self.url), commits=self.commits, writes=self.writes, last_batch=1,
                          messages_stored=self.messages_stored)

    def making_progress(self, stall_s: float) -> bool:
        now = time.monotonic()
        return all(now - started < stall_s for started in self._inflight.values())

    def read_now(self, fn: Callable[[PgTx], T]) -> T:
        raise NotImplementedError("PostgreSQL has no synchronous reads: use the async ports")

    def _check_open(self) -> asyncpg.Pool:
        if self._closed or self._pool is None:
            raise Unavailable("the daemon is shutting down", reason="SHUTTING_DOWN")
        return self._pool

    async def write(self, fn: Callable[[PgTx], T], weight: int = 1, lock: Sequence[str] = ()) -> T:
        """Run the record script `fn` in one transaction (see the module docstring).

        `lock`: mailboxes whose rows to lock first, in agent id order (the script then finds them
        cached), so two scripts touching the same mailboxes never lock them in opposite orders.
        """
        loop = asyncio.get_running_loop()
        token = id(fn)
        self._inflight[token] = time.monotonic()
        try:
            for attempt in range(1, ATTEMPTS + 1):
                pool = self._check_open()
                committing = False
                started = time.perf_counter()
                try:
                    async with self._gate.slot(lanes.current()), pool.acquire() as conn:
                        tr = conn.transaction()
                        await tr.start()
                        try:
                            tx = PgTx(conn, loop, write=True)
                            if lock:
                                tx.seed(await conn.fetch(f"{d.ENTRY_SQL} WHERE agent_id = ANY($1::text[]) "
                                                         "ORDER BY agent_id FOR UPDATE", sorted(set(lock))))
                            result = await loop.run_in_executor(self._threads, fn, tx)
                            await tx.flush()
                        except BaseException:
                            if not conn.is_closed():
                                await tr.rollback()
                            raise
                        committing = True
                        await tr.commit()
                except ROLLED_BACK:
                    self.rolled_back += 1
                except asyncpg.UniqueViolationError:
                    if attempt == ATTEMPTS:
                        raise
                except CONNECTION_LOST as exc:
                    if committing or attempt == ATTEMPTS:
                        raise unavailable(exc) from exc
                else:
                    self._committed(tx, time.perf_counter() - started)
                    return result
                await _backoff(attempt)
            raise Unavailable("the database kept rolling this write back; retry", reason="STORE_IO_ERROR")
        finally:
            self._inflight.pop(token, None)

    def _committed(self, tx: PgTx, seconds: float) -> None:
        self.committed(tx.woken, tx.stored_messages, seconds)

    def committed(self, woken: Iterable[WakeKey], messages: int = 0, seconds: float = 0.0) -> None:
        """Count a commit and hand its wake-ups to the local waiters and, by NOTIFY, to the other nodes."""
        self.commits += 1
        self.writes += 1
        self.messages_stored += messages
        woken = list(woken)
        if woken:
            for key in woken:
                self._wakeups.notify(key)
            if self._publisher is not None:
                self._publisher.add(woken)
        if self.on_commit is not None:
            self.on_commit(1, seconds)

    async def op(self, fn: Callable[[Conn, Attempt], Awaitable[T]], *, rerun_safe: bool = False) -> T:
        """`fn(conn, attempt)`: one statement or one short transaction on a pooled connection, re-run as needed.

        Re-run from the start after a rollback (serialization failure, deadlock), a unique-key race,
        or a connection lost before `fn` set `attempt.committing` (just before its last statement or
        the end of its transaction); after that only when `rerun_safe` (a re-run finds what the first
        run did: ids, ticket ids, keys). Otherwise the outcome is unknown and the caller gets UNAVAILABLE.
        The caller reports the commit's effects with `committed`.
        """
        token = object()
        self._inflight[id(token)] = time.monotonic()
        try:
            for number in range(1, ATTEMPTS + 1):
                pool = self._check_open()
                attempt = Attempt(number)
                try:
                    async with self._gate.slot(lanes.current()), pool.acquire() as conn:
                        return await fn(conn, attempt)
                except ROLLED_BACK as exc:
                    self.rolled_back += 1
                    if number == ATTEMPTS:
                        raise unavailable(exc) from exc
                except asyncpg.UniqueViolationError:
                    if number == ATTEMPTS:
                        raise
                except CONNECTION_LOST as exc:
                    if (attempt.committing and not rerun_safe) or number == ATTEMPTS:
                        raise unavailable(exc) from exc
                await _backoff(number)
            raise AssertionError("unreachable")
        finally:
            self._inflight.pop(id(token), None)

    async def read(self, fn: Callable[[PgTx], T]) -> T:
        loop = asyncio.get_running_loop()
        for attempt in range(1, ATTEMPTS + 1):
            pool = self._check_open()
            try:
                async with self._gate.slot(lanes.current()), pool.acquire() as conn:
                    async with conn.transaction(isolation="repeatable_read", readonly=True):
                        return await loop.run_in_executor(self._threads, fn, PgTx(conn, loop, write=False))
            except (*ROLLED_BACK, *CONNECTION_LOST) as exc:
                if attempt == ATTEMPTS:
                    raise unavailable(exc) from exc
            await _backoff(attempt)
        raise AssertionError("unreachable")


async def _keep(conn: asyncpg.Connection) -> None:
    """A pooled connection's reset: nothing (asyncpg still rolls back a transaction left open)."""


class Attempt:
    """One run of an `op`: its number (1 for the first) and whether its commit may have been sent."""

    __slots__ = ("number", "committing")

    def __init__(self, number: int) -> None:
        self.number = number
        self.committing = False


async def _backoff(attempt: int) -> None:
    await asyncio.sleep(min(0.005 * 2 ** attempt, 0.5))
