"""The `fabricd` command: `fabricd serve` runs the daemon until SIGTERM or SIGINT."""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import os
import signal
import sys
import time

from fabricd import __version__, paths
from fabricd.core.agentdir import AgentDirectory
from fabricd.core.directory import Directory
from fabricd.core.limits import Limits
from fabricd.core.mailbox import Mailboxes
from fabricd.core.notify import Notifier
from fabricd.core.outbox import Outbox, RetryPolicy
from fabricd.core.rendezvous import Rendezvous
from fabricd.daemon import systemd
from fabricd.daemon.config import Config
from fabricd.rpc.admin import Status
from fabricd.rpc.errors import Gauges
from fabricd.rpc.server import Core, ListenError, bind, build_server, set_serving
from fabricd.store.lmdb_store import LmdbStore, StoreError

log = logging.getLogger("fabricd")


def _size(text: str) -> int:
    units = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
    text = text.strip().lower().removesuffix("ib").removesuffix("b")
    try:
        if text and text[-1] in units:
            return int(float(text[:-1]) * units[text[-1]])
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size (like 512M, 32G or 1048576)") from None


def _default(cls: type, name: str) -> object:
    """A dataclass field's default (slots dataclasses have no class attribute for it)."""
    return cls.__dataclass_fields__[name].default


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="fabricd", description="The fabricd messaging daemon.")
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("serve", help="run the daemon until SIGTERM or SIGINT")
    s.add_argument("--data-dir", default=os.environ.get("FABRICD_DATA_DIR") or paths.default_data_dir(),
                   help="folder for the LMDB store (default: %(default)s)")
    s.add_argument("--listen", action="append", metavar="ADDR",
                   help="unix:PATH or HOST:PORT; repeat for several (default: unix:" + paths.default_socket() + ")")
    s.add_argument("--map-size", type=_size, default=_default(Config, "map_size"), help="LMDB map size, like 32G (default 32G)")
    s.add_argument("--no-sync", action="store_true", help="do not fsync commits: for benchmarks only, loses data on crash")
    s.add_argument("--max-message-bytes", type=_size, default=_default(Limits, "max_message_bytes"))
    s.add_argument("--max-unread", type=int, default=_default(Limits, "max_unread"), help="unread messages per mailbox; 0 = no quota")
    s.add_argument("--live-window", type=float, default=_default(Limits, "live_window_s"), metavar="SECONDS",
                   help="how long after a heartbeat an agent counts as live (default 900)")
    s.add_argument("--ticket-retention", type=float, default=_default(Config, "ticket_retention_s"),
                   metavar="SECONDS", help="how long answered tickets wait to be collected (default 86400)")
    s.add_argument("--outbox-max-attempts", type=int, default=_default(RetryPolicy, "max_attempts"),
                   help="failed posts before an outbox row is dead-lettered (default 8)")
    s.add_argument("--outbox-backoff", type=float, default=_default(RetryPolicy, "base_s"), metavar="SECONDS",
                   help="first retry delay; doubles each attempt (default 1)")
    s.add_argument("--outbox-backoff-cap", type=float, default=_default(RetryPolicy, "cap_s"), metavar="SECONDS",
                   help="longest retry delay (default 300)")
    s.add_argument("--no-outbox-loop", action="store_true",
                   help="do not deliver outbox rows by themselves (tests drive DrainOutbox)")
    s.add_argument("--max-causal-depth", type=int, default=_default(Config, "max_causal_depth"),
                   help="admissions deeper than this are refused (default 8)")
    s.add_argument("--grace", type=float, default=_default(Config, "grace_s"), metavar="SECONDS")
    s.add_argument("--keepalive", type=float, default=_default(Config, "keepalive_s"), metavar="SECONDS")
    s.add_argument("--log-level", default=os.environ.get("FABRICD_LOG_LEVEL", "INFO"))
    sub.add_parser("version", help="print the version")
    return p


def config_from(args: argparse.Namespace) -> Config:
    listen = tuple(args.listen) if args.listen else (f"unix:{paths.default_socket()}",)
    limits = Limits(max_message_bytes=args.max_message_bytes, max_unread=args.max_unread, live_window_s=args.live_window)
    return Config(
        data_dir=os.path.abspath(args.data_dir),
        listen=listen,
        map_size=args.map_size,
        sync=not args.no_sync,
        limits=limits,
        grace_s=args.grace,
        ticket_retention_s=args.ticket_retention,
        outbox_retry=RetryPolicy(base_s=args.outbox_backoff, cap_s=args.outbox_backoff_cap,
                                 max_attempts=args.outbox_max_attempts),
        outbox_loop=not args.no_outbox_loop,
        max_causal_depth=args.max_causal_depth,
        keepalive_s=args.keepalive,
        log_level=args.log_level.upper(),
    )


async def serve(config: Config, ready: asyncio.Event | None = None) -> None:
    """Run until SIGTERM/SIGINT: open the store, serve, then shut down in order."""
    sd = systemd.Notifier.from_env()
    store = LmdbStore(config.data_dir, map_size=config.map_size, sync=config.sync)
    loop = asyncio.get_running_loop()
    store.start(loop)
    notifier = Notifier()
    started = time.time_ns()
    mailboxes = Mailboxes(store, notifier, config.limits, time.time_ns, config.keepalive_s)
    rendezvous = Rendezvous(store, notifier, config.limits, time.time_ns, mailboxes,
                            retention_s=config.ticket_retention_s, keepalive_s=config.keepalive_s)
    outbox = Outbox(store, notifier, config.limits, time.time_ns, mailboxes, config.outbox_retry)
    bound: list[str] = []

    def status() -> Status:
        stats = store.stats()
        mailbox_count, queued, (pending, outbox_rows) = store.read(
            lambda tx: (tx.mailbox_count(), tx.queued_tickets(), tx.outbox_counts()))
        return Status(
            version=__version__, start_time_ns=started, data_dir=config.data_dir, listen_addresses=tuple(bound),
            map_size_bytes=stats.map_size, map_used_bytes=stats.map_used, commits=stats.commits,
            writes=stats.batched_writes, mailboxes=mailbox_count, queued_tickets=queued,
            open_streams=Gauges.open_streams, waiters=notifier.waiter_count(), open_waits=rendezvous.open_waits,
            outbox_pending=pending, outbox_rows=outbox_rows,
        )

    core = Core(
        directory=Directory(store, notifier, config.limits, time.time_ns, config.keepalive_s),
        mailboxes=mailboxes,
        rendezvous=rendezvous,
        outbox=outbox,
        agent_directory=AgentDirectory(store, notifier, config.limits, time.time_ns, outbox,
                                       max_causal_depth=config.max_causal_depth, keepalive_s=config.keepalive_s),
        status=status,
    )
    server, health = build_server(core, max_message_bytes=config.limits.max_message_bytes)
    try:
        bound.extend(bind(server, address) for address in config.listen)
    except ListenError:
        await store.close()
        raise
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await server.start()
    # Requests allocate many short-lived objects and few cycles: move what start-up
    # built out of the collector's way and collect the young generation less often.
    gc.freeze()
    gc.set_threshold(50_000, 20, 20)
    await set_serving(health, True)
    for address in bound:
        print(f"fabricd {__version__} serving {config.data_dir} on {address}", flush=True)
    sd.notify("READY=1", f"STATUS=serving on {', '.join(bound)}")
    if ready is not None:
        ready.set()
    background = [asyncio.create_task(_prune_forever(rendezvous))]
    if config.outbox_loop:
        background.append(asyncio.create_task(outbox.run()))
    await stop.wait()
    for task in background:
        task.cancel()

    log.info("shutting down")
    sd.notify("STOPPING=1", "STATUS=shutting down")
    await set_serving(health, False)
    notifier.close()  # ends Subscribe and Watch streams
    await server.stop(config.grace_s)
    stats = store.stats()
    await store.close()  # flushes every queued write, then closes LMDB
    log.info("committed %d writes in %d commits", stats.batched_writes, stats.commits)
    for address in bound:
        if address.startswith("unix:"):
            try:
                os.unlink(address[len("unix:") :])
            except FileNotFoundError:
                pass
    print("fabricd stopped", flush=True)


async def _prune_forever(rendezvous: Rendezvous, every_s: float = 60.0) -> None:
    """Forget answered and aborted tickets past their retention, once a minute."""
    while True:
        try:
            while await rendezvous.prune() >= 1000:
                pass
        except Exception:  # noqa: BLE001 - pruning is housekeeping; try again next round
            log.exception("pruning tickets failed")
        await asyncio.sleep(every_s)


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.command == "version":
        print(__version__)
        return 0
    config = config_from(args)
    logging.basicConfig(level=config.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        asyncio.run(serve(config))
    except (StoreError, ListenError) as exc:
        print(f"fabricd: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
