"""Wake-ups between nodes: NOTIFY after the commit, and a LISTEN connection that survives reconnects.

A wake-up is a hint, never the data: every waiter re-reads storage when woken, so
a lost NOTIFY costs latency, not a message. Hence:
- `publish` sends the keys of a committed batch (deduplicated, so a batch of 100
  messages to one mailbox wakes it once) in one statement, its own transaction, with
  `synchronous_commit = off`. NOTIFY inside the data transaction would take the
  global notify lock at commit and serialise every committing sender (the issue
  measured it halving commit throughput), and a hint need not wait for the disk.
- `Publisher` coalesces further: concurrent commits' keys ride in one NOTIFY
  transaction, with at most one in flight, so wake-ups cost little under load.
- `Listener` holds one connection LISTENing; when it breaks (a restart, a
  failover, pg_terminate_backend) it reconnects with back-off and calls
  `on_reconnect`, and the caller wakes every local waiter, since anything may
  have been missed while it was away. A periodic probe finds a connection that
  died silently.

Keys are the core notifier's keys: strings or tuples of strings, sent as JSON
(tuples as lists), several per payload, each payload under PostgreSQL's 8000 bytes.
A node's payloads start with its node id (`7:[...]`), so its Listener skips its own
echoes by that id: a server pid, which an earlier version used, can be handed to
another node's connection after a reconnect, and that node's wake-ups were lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable, Hashable, Iterable
from typing import TYPE_CHECKING

import asyncpg

from fabricd.store.postgres.errors import CONNECTION_LOST

if TYPE_CHECKING:
    from fabricd.store.postgres.conn import Conn

log = logging.getLogger("fabricd.store.postgres")

CHANNEL = "fabricd"
LISTEN_APP = "fabricd listen"
"""application_name of the LISTEN connection: pg_stat_activity shows which backend it is."""
MAX_PAYLOAD = 7900  # PostgreSQL refuses 8000 bytes and more


def payloads(keys: Iterable[Hashable]) -> list[str]:
    """The keys, deduplicated, as JSON arrays of at most MAX_PAYLOAD bytes each."""
    out: list[str] = []
    chunk: list[str] = []
    size = 2
    for key in dict.fromkeys(keys):
        item = json.dumps(list(key) if isinstance(key, tuple) else key, ensure_ascii=False, separators=(",", ":"))
        cost = len(item.encode()) + 1
        if chunk and size + cost > MAX_PAYLOAD:
            out.append("[" + ",".join(chunk) + "]")
            chunk, size = [], 2
        chunk.append(item)
        size += cost
    if chunk:
        out.append("[" + ",".join(chunk) + "]")
    return out


def origin_of(payload: str) -> tuple[int, str]:
    """(the sending node's id, 0 when unnamed; the JSON array) of a payload."""
    head, sep, rest = payload.partition(":")
    if sep and head.isdigit():
        return int(head), rest
    return 0, payload


def keys_of(payload: str) -> list[Hashable]:
    return [tuple(k) if isinstance(k, list) else k for k in json.loads(origin_of(payload)[1])]


async def publish(conn: Conn, keys: Iterable[Hashable], channel: str = CHANNEL, origin: int = 0) -> int:
    """NOTIFY the keys of an already committed batch in one short transaction; the payloads sent.

    Call after the data's commit, never inside its transaction. `origin`: the sending node's id.
    """
    sent = payloads(keys)
    if origin:
        sent = [f"{origin}:{p}" for p in sent]
    if not sent:
        return 0
    # One statement, its own transaction; set_config(..., true) lasts to that transaction's commit, which
    # therefore does not wait for the disk: one round trip.
    await conn.execute("SELECT set_config('synchronous_commit', 'off', true), pg_notify($1, p) "
                       "FROM unnest($2::text[]) AS p", channel, sent)
    return len(sent)


class Publisher:
    """Coalesces the wake-ups of concurrent commits: at most one NOTIFY transaction in flight.

    `add(keys)` returns at once (after the caller's commit). A background task
    sends everything added so far in one `publish`; keys added while it runs go
    in the next one. Under load, 64 concurrent senders cost a few NOTIFY
    transactions, not 64; when idle, a wake-up leaves at once. A failed publish
    is logged and dropped: waiters time out into a re-read (the keepalive), and a
    broken connection also breaks the LISTEN side, whose reconnect wakes everyone.
    """

    def __init__(self, pool: asyncpg.Pool, channel: str = CHANNEL, origin: int = 0) -> None:
        self._pool = pool
        self._channel = channel
        self._origin = origin
        self._pending: dict[Hashable, None] = {}
        self._task: asyncio.Task[None] | None = None
        self.published = 0
        """NOTIFY transactions sent (for metrics and tests)."""

    def add(self, keys: Iterable[Hashable]) -> None:
        self._pending.update(dict.fromkeys(keys))
        if self._pending and (self._task is None or self._task.done()):
            self._task = asyncio.get_running_loop().create_task(self._flush())

    async def _flush(self) -> None:
        while self._pending:
            keys, self._pending = list(self._pending), {}
            try:
                async with self._pool.acquire() as conn:
                    await publish(conn, keys, self._channel, self._origin)
                self.published += 1
            except (*CONNECTION_LOST, asyncpg.PostgresError) as exc:
                log.warning("a wake-up was not sent (%s); waiters will re-read on their keepalive", exc)

    async def drain(self) -> None:
        """Wait until everything added has been sent (for shutdown and tests)."""
        while self._task is not None and not self._task.done():
            await asyncio.shield(self._task)


class Listener:
    """One LISTEN connection that reconnects; hands every key to `on_keys` and reports each reconnect.

    `reconnects` counts them (for metrics and tests). Run it as a task; cancel it to stop.
    """

    def __init__(self, connect: Callable[[], Awaitable[asyncpg.Connection]],
                 on_keys: Callable[[list[Hashable]], None], on_reconnect: Callable[[], None], *,
                 channel: str = CHANNEL, probe_s: float = 5.0, backoff_s: float = 0.05, backoff_cap_s: float = 2.0,
                 origin: int = 0) -> None:
        self._connect = connect
        self._on_keys = on_keys
        self._on_reconnect = on_reconnect
        self._channel = channel
        self._probe_s = probe_s
        self._backoff_s = backoff_s
        self._backoff_cap_s = backoff_cap_s
        self.reconnects = 0
        self.connected = asyncio.Event()
        self.origin = origin
        """This node's id: payloads it sent are its own echoes, skipped (0: skip none)."""
        self.pid: int | None = None
        """The server process id of the current LISTEN connection (tests terminate it)."""

    def _deliver(self, _conn: object, _pid: int, _channel: str, payload: object) -> None:
        origin, body = origin_of(str(payload))  # a str from asyncpg; its stubs say object
        if origin and origin == self.origin:
            return
        try:
            keys = keys_of(body)
        except ValueError:
            log.warning("ignored a malformed wake-up on channel %s", self._channel)
            return
        self._on_keys(keys)

    async def run(self) -> None:
        first = True
        delay = self._backoff_s
        while True:
            conn = None
            try:
                conn = await self._connect()
                lost = asyncio.get_running_loop().create_future()
                conn.add_termination_listener(lambda _c, lost=lost: lost.done() or lost.set_result(None))  # this conn's own
                await conn.add_listener(self._channel, self._deliver)
                self.pid = conn.get_server_pid()
                if not first:
                    self.reconnects += 1
                    log.info("wake-up connection back after a break (%d so far): waking every waiter",
                             self.reconnects)
                    self._on_reconnect()  # after LISTEN is in place: nothing falls between the two
                first = False
                delay = self._backoff_s
                self.connected.set()
                while not lost.done():
                    with contextlib.suppress(asyncio.TimeoutError):
                        await asyncio.wait_for(asyncio.shield(lost), self._probe_s)
                    if not lost.done():
                        await asyncio.wait_for(conn.fetchval("SELECT 1"), self._probe_s)
            except asyncio.CancelledError:
                raise
            except (TimeoutError, *CONNECTION_LOST, asyncpg.PostgresError) as exc:
                log.warning("wake-up connection lost: %s; reconnecting", exc)
            finally:
                self.connected.clear()
                if conn is not None and not conn.is_closed():
                    conn.terminate()
            first = False
            await asyncio.sleep(delay)
            delay = min(delay * 2, self._backoff_cap_s)
