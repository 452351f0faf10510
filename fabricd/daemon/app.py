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
from dataclasses import replace
from typing import TYPE_CHECKING

from fabricd import __version__
from fabricd.core.agentdir import AgentDirectory
from fabricd.core.channel_service import Channels
from fabricd.core.directory import Directory
from fabricd.core.errors import FabricError
from fabricd.core.lease_service import Leases
from fabricd.core.leases import LEASES
from fabricd.core.mailbox import Mailboxes
from fabricd.core.notify import LocalWakeups
from fabricd.core.outbox import OUTBOX, Outbox
from fabricd.core.ports import CLOSING, Service
from fabricd.core.rendezvous import Rendezvous
from fabricd.core.tokens import TOKENS, Tokens
from fabricd.core.wake import WAKE, Wakes
from fabricd.daemon import logs, settings, systemd
from fabricd.daemon.config import Config
from fabricd.daemon.wakesend import WakeSender
from fabricd.rpc.admin import Status
from fabricd.rpc.auth import Guard, RateLimiter
from fabricd.rpc.errors import Gauges
from fabricd.rpc.interceptor import Load
from fabricd.rpc.metrics import Metrics, Snapshot
from fabricd.rpc.server import Core, ListenError, Tls, bind, build_server, set_serving
from fabricd.rpc.streams import Streams
from fabricd.store import open_store

if TYPE_CHECKING:
    from fabricd.http.server import Overseer

log = logging.getLogger("fabricd")
# The daemon's own loops wait on these keys from start to stop, and each open sender's stream on CLOSING (to
# end at shutdown): not counted as callers' waiters in GetStatus.
_OWN_LOOPS = (TOKENS, WAKE, OUTBOX, LEASES, CLOSING)
TOKENS_RECHECK_S = 2.0
"""On a shared store, how often a node re-reads the tokens with no wake-up from the others: the bound on how
long a token revoked on another node still works here should that node's NOTIFY be lost."""

class App:
    """One running daemon. `reconfigure` returns a fresh Config (file and environment re-read) for SIGHUP."""

    def __init__(self, config: Config, reconfigure: Callable[[], Config] | None = None, failpoint: str = "") -> None:
        self.config = config
        self._failpoint = failpoint
        self._reconfigure = reconfigure
        self._sd = systemd.SystemdNotifier.from_env()
        self._stop = asyncio.Event()
        self.bound: list[str] = []
        self.overseer: Overseer | None = None

    # -- wiring

    def _wire(self) -> None:
        c = self.config
        clock = time.time_ns
        self.notifier = LocalWakeups()
        self.store = open_store(c.store or c.data_dir, wakeups=self.notifier, clock=clock, map_size=c.map_size, sync=c.sync,
                                failpoint=self._failpoint, group=c.socket.group, poll_interval=c.poll_interval)
        self.mailboxes = Mailboxes(self.store, c.limits, clock, c.keepalive)
        self.rendezvous = Rendezvous(self.store, c.limits, clock, retention_s=c.ticket_retention,
                                     keepalive_s=c.keepalive, reattach_grace_s=c.reattach_grace)
        self.directory = Directory(self.store, c.limits, clock, c.keepalive)
        self.outbox = Outbox(self.store, c.limits, clock, replace(c.outbox.retry, lease_s=c.wake.timeout + 5,
                                                                  disable_after=c.wake.disable_after))
        allow_commands, hosts = c.wake.commands_allowed(c.listen), c.wake.host_policy()
        self.outbox.send_wake = self.wake_sender = WakeSender(c.wake.timeout, allow_commands, hosts)
        self.wakes = Wakes(self.store, c.limits, clock, streaming=self.mailboxes.streaming,
                           allow_commands=allow_commands, min_quiet_ns=int(c.wake.min_quiet_period * 1e9),
                           hosts=hosts, resolve=self.wake_sender.resolve)
        self.agent_directory = AgentDirectory(self.store, c.limits, clock, max_causal_depth=c.max_causal_depth,
                                              keepalive_s=c.keepalive)
        self.tokens = Tokens(self.store, c.limits, clock, lookup=self.store.token_now)
        self.channels = Channels(self.store, c.limits, clock, c.keepalive)
        self.leases = Leases(self.store, c.limits, clock, c.keepalive)
        self.limiter = RateLimiter(c.auth.rate_limit, c.auth.rate_burst)
        self.guard = Guard(self.tokens, mode=c.auth.tokens, admin_names=c.tls.admin_names, limiter=self.limiter,
                           ticket=self.store.rendezvous.get, resolve=self.store.directory.resolve,
                           look_alike=self.store.directory.look_alike)
        self.metrics = Metrics(self._snapshot)
        self.store.on_commit = self.metrics.observe_commit
        self.load = Load()
        self.store.quiet = self._quiet
        self.started = time.time_ns()
        core = self.core = Core(directory=self.directory, mailboxes=self.mailboxes, rendezvous=self.rendezvous,
                    outbox=self.outbox, agent_directory=self.agent_directory, status=self.status, tokens=self.tokens,
                    wakes=self.wakes, channels=self.channels, leases=self.leases,
                    backup=self.store.backup_to, backup_dir=c.data_dir)
        self.streams = Streams(lambda: core.mailboxes.limits)
        self.server, self.health = build_server(core, max_message_bytes=c.limits.max_message_bytes, guard=self.guard,
                                                observe=self.metrics.observe_call, streams=self.streams,
                                                load=self.load)

    async def _overseer(self) -> Overseer:
        """The overseer web page (fabricd.http), on the daemon's loop, reading through the same core and guard."""
        from fabricd.http.server import Overseer  # aiohttp is loaded only when the page is on

        c = self.config
        page = Overseer(self.core, self.guard, mode=c.auth.tokens, tls=(c.tls.cert, c.tls.key) if c.tls.enabled
                        else None)
        self.notifier.listeners.append(page.live.note)
        await page.start(c.http.listen)
        return page

    def _quiet(self) -> bool:
        """No call in flight but the one writing (an Ask or AwaitReply waiting for its answer does not count)."""
        return self.load.unary_calls - self.rendezvous.open_waits <= 1

    def _services(self) -> tuple[Service | Tokens, ...]:
        return (self.mailboxes, self.directory, self.rendezvous, self.outbox, self.agent_directory, self.tokens,
                self.wakes, self.channels, self.leases)

    async def status(self) -> Status:
        stats = self.store.stats()
        mailbox_count, queued = await self.store.counts()
        pending, rows, _ = await self.store.outbox.counts()
        return Status(
            version=__version__, start_time_ns=self.started, data_dir=self.config.data_dir,
            listen_addresses=tuple(self.bound), map_size_bytes=stats.size_bytes, map_used_bytes=stats.used_bytes,
            map_free_bytes=stats.free_bytes,
            commits=stats.commits, writes=stats.writes, mailboxes=mailbox_count, queued_tickets=queued,
            open_streams=Gauges.open_streams, waiters=self.notifier.waiter_count(excluding=_OWN_LOOPS),
            open_waits=self.rendezvous.open_waits, outbox_pending=pending, outbox_rows=rows,
            auth_tokens=self.config.auth.tokens, postgres=await self.store.postgres_info())

    async def _snapshot_now(self) -> Snapshot:
        stats = self.store.stats()
        _, queued = await self.store.counts()
        pending, _, dead = await self.store.outbox.counts()
        unread = await self.store.mailboxes.unread_counts()
        return Snapshot(messages_stored=stats.messages_stored, unread=unread, open_streams=Gauges.open_streams,
                        outbox_pending=pending, outbox_dead_letters=dead, map_used_bytes=stats.used_bytes,
                        map_size_bytes=stats.size_bytes, queued_tickets=queued, map_free_bytes=stats.free_bytes,
                        flow_streams=self.streams.open_streams, stream_bytes_in_flight=self.streams.in_flight,
                        streams_stalled=self.streams.stalled, quarantined_records=stats.quarantined)

    def _snapshot(self) -> Snapshot:
        """For the metrics server's thread: the snapshot is read on the event loop, where the store lives."""
        return asyncio.run_coroutine_threadsafe(self._snapshot_now(), self._loop).result(timeout=30)

    # -- life

    async def run(self) -> None:
        c = self.config
        self._wire()
        loop = self._loop = asyncio.get_running_loop()
        await self.store.start()
        await self.tokens.refresh()
        try:
            tls = Tls.load(c.tls) if c.tls.enabled else None
            self.bound = [bind(self.server, address, tls) for address in c.listen]
            self.core.a2a.listeners[:] = self.bound
            self.wake_sender.target = next((a for a in self.bound if a.startswith("unix:")), "")
            self.core.a2a.mutual_tls = bool(c.tls.enabled and c.tls.client_ca)
            metrics_at = self.metrics.serve(c.metrics.listen) if c.metrics.listen else ""
            self.overseer = await self._overseer() if c.http.listen else None
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
        where = self.store.stats().location if c.store else c.data_dir
        event_loop = "uvloop" if type(loop).__module__.startswith("uvloop") else "asyncio"
        for address in self.bound:
            logs.announce(f"fabricd {__version__} ({event_loop}) serving {where} on {address}", address=address,
                          event_loop=event_loop)
        if metrics_at:
            logs.announce(f"fabricd metrics on http://{metrics_at}/metrics", url=f"http://{metrics_at}/metrics")
        if self.overseer is not None:
            logs.announce(f"fabricd overseer page on {self.overseer.url}", url=self.overseer.url)
        self._sd.notify("READY=1", f"STATUS={await self._summary()}")
        background = [asyncio.create_task(self._housekeeping(c.housekeeping_interval)),
                      asyncio.create_task(self._status_forever()), asyncio.create_task(self.wakes.run()),
                      asyncio.create_task(self.leases.sweep_forever())]
        if c.outbox.loop:
            background.append(asyncio.create_task(self.outbox.run()))
        if c.store:  # tokens issued or revoked by other nodes: reload the cache when they say so
            background.append(asyncio.create_task(self._tokens_forever()))
        watchdog = systemd.watchdog_interval()
        if watchdog:
            background.append(asyncio.create_task(self._watchdog(watchdog)))
        await self._stop.wait()

        log.info("shutting down")
        self._sd.notify("STOPPING=1", "STATUS=shutting down")
        await set_serving(self.health, False)
        for task in background:
            task.cancel()
        await self.outbox.stop_sending()
        if self.overseer is not None:
            await self.overseer.stop()  # ends its pages' event streams
        self.notifier.close()  # ends Subscribe and Watch streams, wakes waiters
        await self.server.stop(c.grace)
        stats = self.store.stats()
        await self.store.close()  # commits every queued write, then closes the backend
        self.metrics.close()
        log.info("committed %d writes in %d commits", stats.writes, stats.commits)
        for address in self.bound:
            if address.startswith("unix:"):
                try:
                    os.unlink(address[len("unix:") :])
                except FileNotFoundError:
                    pass
        logs.announce("fabricd stopped")

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

    async def _summary(self) -> str:
        s = await self.status()
        return (f"serving {s.mailboxes} mailboxes, {s.queued_tickets} queued tickets, "
                f"{s.outbox_pending} outbox rows pending, {s.open_streams} streams")

    def reload(self) -> None:
        """SIGHUP: apply what can change without a restart; say what could not."""
        if self._reconfigure is None:
            return
        self._sd.notify("RELOADING=1", f"MONOTONIC_USEC={time.monotonic_ns() // 1000}")
        try:
            new = self._reconfigure()
        except Exception as exc:  # a bad file must not kill a running daemon
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
            service.limits = c.limits
        self.agent_directory.max_causal_depth = c.max_causal_depth
        self.limiter.rate, self.limiter.burst = c.auth.rate_limit, c.auth.rate_burst

    async def _housekeeping(self, every_s: float) -> None:
        """Forget tickets past their retention and consumed message ids past the dedupe window; drop channel
        posts past their retention and bring the channels' search index level with their logs (the first round
        runs at the start)."""
        while True:
            try:
                while await self.rendezvous.prune() >= 1000:
                    pass
                await self.mailboxes.forget_old_ids(self.mailboxes.limits.dedupe_window_s)
                while await self.store.channels.expire(1000) >= 1000:  # retention of channels no one posts to
                    pass
                await self.store.channels.catch_up()  # a search index beside the store (LMDB), after a crash too
            except Exception:  # housekeeping; try again next round
                log.exception("housekeeping failed")
            await asyncio.sleep(every_s)

    async def _tokens_forever(self) -> None:
        """Reload the token cache on each `tokens` wake-up (or a LISTEN reconnect, which wakes everything)."""
        while not self.notifier.closed:
            seen = self.notifier.version(TOKENS)
            # Also every TOKENS_RECHECK_S without one: a wake-up is a hint the sending node drops when its
            # NOTIFY fails, and a revocation must not be missed for good on this node.
            await self.notifier.wait(TOKENS, seen, TOKENS_RECHECK_S)
            try:
                await self.tokens.refresh()
            except FabricError as exc:  # the database is away: the next wake-up (its reconnect) tries again
                log.warning("could not reload tokens: %s", exc)

    async def _status_forever(self, every_s: float = 30.0) -> None:
        while True:
            await asyncio.sleep(every_s)
            self._sd.notify(f"STATUS={await self._summary()}")

    async def _watchdog(self, interval_s: float) -> None:
        """WATCHDOG=1 at half the interval, only while the writer keeps committing."""
        while True:
            if self.store.making_progress(stall_s=interval_s):
                self._sd.notify("WATCHDOG=1")
            else:
                log.error("the writer has not committed for %.1fs: withholding the watchdog ping", interval_s)
            await asyncio.sleep(interval_s / 2)
