"""The daemon's life: open the store, wire the services, serve, reload on SIGHUP, shut down in order."""

from __future__ import annotations

import asyncio
import gc
import grp
import logging
import os
import signal
import time
from collections.abc import Callable

from fabricd import __version__
from fabricd.core.agentdir import AgentDirectory
from fabricd.core.directory import Directory
from fabricd.core.mailbox import Mailboxes
from fabricd.core.model import RowState
from fabricd.core.notify import ChangeNotifier
from fabricd.core.outbox import Outbox
from fabricd.core.rendezvous import Rendezvous
from fabricd.core.tokens import Tokens
from fabricd.daemon import logs, settings, systemd
from fabricd.daemon.config import Config
from fabricd.rpc.admin import Status
from fabricd.rpc.auth import Guard, RateLimiter
from fabricd.rpc.errors import Gauges
from fabricd.rpc.metrics import Metrics, Snapshot
from fabricd.rpc.server import Core, ListenError, Tls, bind, build_server, set_serving
from fabricd.store.lmdb_store import LmdbStore

log = logging.getLogger("fabricd")

class App:
    """One running daemon. `reconfigure` returns a fresh Config (file and environment re-read) for SIGHUP."""

    def __init__(self, config: Config, reconfigure: Callable[[], Config] | None = None, failpoint: str = "") -> None:
        self.config = config
        self._failpoint = failpoint
        self._reconfigure = reconfigure
        self._sd = systemd.SystemdNotifier.from_env()
        self._stop = asyncio.Event()
        self.bound: list[str] = []

    # -- wiring

    def _wire(self) -> None:
        c = self.config
        clock = time.time_ns
        self.store = LmdbStore(c.data_dir, map_size=c.map_size, sync=c.sync, failpoint=self._failpoint,
                               group=c.socket.group)
        self.notifier = ChangeNotifier()
        self.mailboxes = Mailboxes(self.store, self.notifier, c.limits, clock, c.keepalive)
        self.rendezvous = Rendezvous(self.store, self.notifier, c.limits, clock, self.mailboxes,
                                     retention_s=c.ticket_retention, keepalive_s=c.keepalive)
        self.directory = Directory(self.store, self.notifier, c.limits, clock, c.keepalive,
                                   rendezvous=self.rendezvous)
        self.outbox = Outbox(self.store, self.notifier, c.limits, clock, self.mailboxes, c.outbox.retry)
        self.agent_directory = AgentDirectory(self.store, self.notifier, c.limits, clock, self.outbox,
                                              max_causal_depth=c.max_causal_depth, keepalive_s=c.keepalive)
        self.tokens = Tokens(self.store, c.limits, clock)
        self.tokens.load()
        self.limiter = RateLimiter(c.auth.rate_limit, c.auth.rate_burst)
        self.guard = Guard(self.tokens, mode=c.auth.tokens, admin_names=c.tls.admin_names, limiter=self.limiter,
                           ticket=lambda ticket_id: self.store.read(lambda tx: tx.get_ticket(ticket_id)))
        self.metrics = Metrics(self._snapshot)
        self.store.on_commit = self.metrics.observe_commit
        self.started = time.time_ns()
        core = Core(directory=self.directory, mailboxes=self.mailboxes, rendezvous=self.rendezvous,
                    outbox=self.outbox, agent_directory=self.agent_directory, status=self.status, tokens=self.tokens,
                    backup=self.store.copy_to, backup_dir=c.data_dir)
        self.server, self.health = build_server(core, max_message_bytes=c.limits.max_message_bytes, guard=self.guard,
                                                observe=self.metrics.observe_call)

    def _services(self) -> tuple[object, ...]:
        return (self.mailboxes, self.directory, self.rendezvous, self.outbox, self.agent_directory, self.tokens)

    def status(self) -> Status:
        stats = self.store.stats()
        mailbox_count, queued, (pending, rows) = self.store.read(
            lambda tx: (tx.mailbox_count(), tx.queued_tickets(), tx.outbox_counts()))
        return Status(
            version=__version__, start_time_ns=self.started, data_dir=self.config.data_dir,
            listen_addresses=tuple(self.bound), map_size_bytes=stats.map_size, map_used_bytes=stats.map_used,
            map_free_bytes=stats.free_bytes,
            commits=stats.commits, writes=stats.batched_writes, mailboxes=mailbox_count, queued_tickets=queued,
            open_streams=Gauges.open_streams, waiters=self.notifier.waiter_count(),
            open_waits=self.rendezvous.open_waits, outbox_pending=pending, outbox_rows=rows,
            auth_tokens=self.config.auth.tokens)

    def _snapshot(self) -> Snapshot:
        s = self.status()

        def read(tx):  # noqa: ANN001, ANN202
            unread = [(e.agent_id, e.unread_count) for e in tx.entries() if e.unread_count]
            dead = len(tx.outbox_rows("", 1_000_000, RowState.DEAD_LETTER))
            return unread, dead

        unread, dead = self.store.read(read)
        return Snapshot(messages_stored=self.mailboxes.stored, unread=unread, open_streams=s.open_streams,
                        outbox_pending=s.outbox_pending, outbox_dead_letters=dead, map_used_bytes=s.map_used_bytes,
                        map_size_bytes=s.map_size_bytes, queued_tickets=s.queued_tickets,
                        map_free_bytes=s.map_free_bytes)

    # -- life

    async def run(self) -> None:
        c = self.config
        self._wire()
        loop = asyncio.get_running_loop()
        self.store.start(loop)
        try:
            tls = Tls.load(c.tls) if c.tls.enabled else None
            self.bound = [bind(self.server, address, tls) for address in c.listen]
            metrics_at = self.metrics.serve(c.metrics.listen) if c.metrics.listen else ""
        except (ListenError, OSError) as exc:
            await self.store.close()
            raise ListenError(str(exc)) from exc
        loop.add_signal_handler(signal.SIGTERM, self._stop.set)
        loop.add_signal_handler(signal.SIGINT, self._stop.set)
        loop.add_signal_handler(signal.SIGHUP, self.reload)
        await self.server.start()
        self._secure_sockets()
        # Requests allocate many short-lived objects and few cycles: move what start-up
        # built out of the collector's way and collect the young generation less often.
        gc.freeze()
        gc.set_threshold(50_000, 20, 20)
        await set_serving(self.health, True)
        for address in self.bound:
            print(f"fabricd {__version__} serving {c.data_dir} on {address}", flush=True)
        if metrics_at:
            print(f"fabricd metrics on http://{metrics_at}/metrics", flush=True)
        self._sd.notify("READY=1", f"STATUS={self._summary()}")
        background = [asyncio.create_task(self._housekeeping(c.housekeeping_interval)),
                      asyncio.create_task(self._status_forever())]
        if c.outbox.loop:
            background.append(asyncio.create_task(self.outbox.run()))
        watchdog = systemd.watchdog_interval()
        if watchdog:
            background.append(asyncio.create_task(self._watchdog(watchdog)))
        await self._stop.wait()

        log.info("shutting down")
        self._sd.notify("STOPPING=1", "STATUS=shutting down")
        await set_serving(self.health, False)
        for task in background:
            task.cancel()
        self.notifier.close()  # ends Subscribe and Watch streams, wakes waiters
        await self.server.stop(c.grace)
        stats = self.store.stats()
        await self.store.close()  # commits every queued write, then closes LMDB
        self.metrics.close()
        log.info("committed %d writes in %d commits", stats.batched_writes, stats.commits)
        for address in self.bound:
            if address.startswith("unix:"):
                try:
                    os.unlink(address[len("unix:") :])
                except FileNotFoundError:
                    pass
        print("fabricd stopped", flush=True)

    def stop(self) -> None:
        self._stop.set()

    def _secure_sockets(self) -> None:
        """Unix sockets get the configured mode (0660 by default) and group: never world-writable."""
        gid = -1
        if self.config.socket.group:
            gid = grp.getgrnam(self.config.socket.group).gr_gid
        for address in self.bound:
            if address.startswith("unix:"):
                path = address[len("unix:") :]
                os.chmod(path, self.config.socket.mode)
                if gid != -1:
                    os.chown(path, -1, gid)

    def _summary(self) -> str:
        s = self.status()
        return (f"serving {s.mailboxes} mailboxes, {s.queued_tickets} queued tickets, "
                f"{s.outbox_pending} outbox rows pending, {s.open_streams} streams")

    def reload(self) -> None:
        """SIGHUP: apply what can change without a restart; say what could not."""
        if self._reconfigure is None:
            return
        self._sd.notify("RELOADING=1", f"MONOTONIC_USEC={time.monotonic_ns() // 1000}")
        try:
            new = self._reconfigure()
        except Exception as exc:  # noqa: BLE001 - a bad file must not kill a running daemon
            log.error("reload failed, keeping the running configuration: %s", exc)
            self._sd.notify("READY=1", f"STATUS=reload failed: {exc}")
            return
        self.config, applied, skipped = settings.reload_plan(self.config, new)
        self.apply_reloadable(self.config)
        message = f"reloaded: applied {', '.join(applied) or 'no changes'}"
        if skipped:
            message += f"; needs a restart to change {', '.join(skipped)}"
            log.warning(message)
        else:
            log.info(message)
        self._sd.notify("READY=1", f"STATUS={message}")

    def apply_reloadable(self, c: Config) -> None:
        """Hand the running services every key whose Spec says `reloadable` (a test checks each one lands)."""
        logs.setup(c.log_level, c.log_format)
        for service in self._services():
            service.limits = c.limits  # type: ignore[attr-defined]
        self.agent_directory.max_causal_depth = c.max_causal_depth
        self.limiter.rate, self.limiter.burst = c.auth.rate_limit, c.auth.rate_burst

    async def _housekeeping(self, every_s: float) -> None:
        """Forget tickets past their retention and consumed message ids past the dedupe window."""
        while True:
            try:
                while await self.rendezvous.prune() >= 1000:
                    pass
                await self.mailboxes.forget_old_ids(self.mailboxes.limits.dedupe_window_s)
            except Exception:  # noqa: BLE001 - housekeeping; try again next round
                log.exception("housekeeping failed")
            await asyncio.sleep(every_s)

    async def _status_forever(self, every_s: float = 30.0) -> None:
        while True:
            await asyncio.sleep(every_s)
            self._sd.notify(f"STATUS={self._summary()}")

    async def _watchdog(self, interval_s: float) -> None:
        """WATCHDOG=1 at half the interval, only while the writer keeps committing."""
        while True:
            if self.store.making_progress(stall_s=interval_s):
                self._sd.notify("WATCHDOG=1")
            else:
                log.error("the writer has not committed for %.1fs: withholding the watchdog ping", interval_s)
            await asyncio.sleep(interval_s / 2)
