"""The `fabricd` command: serve; back up, restore and compact a store; issue a token; configuration; systemd unit."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import shutil
import subprocess
import sys

from fabricd import __version__
from fabricd.core.errors import FabricError
from fabricd.daemon import copying, eventloop, logs, settings, units
from fabricd.daemon.app import App
from fabricd.daemon.config import Config
from fabricd.rpc.server import ListenError
from fabricd.store.errors import StoreError, require_postgres_driver
from fabricd.store.lmdb import maintenance


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="fabricd", description="The fabricd messaging daemon.")
    p.add_argument("--version", action="version", version=f"fabricd {__version__}")
    sub = p.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run the daemon until SIGTERM or SIGINT (SIGHUP reloads)")
    settings.add_flags(serve)
    config = sub.add_parser("config", help="print the effective configuration and where each value comes from")
    settings.add_flags(config)
    unit = sub.add_parser("systemd-unit", help="print (or --install) the systemd unit for this installation")
    unit.add_argument("--user", action="store_true", help="the user unit (systemctl --user)")
    unit.add_argument("--install", action="store_true", help="write it to the unit folder and reload systemd")
    sub.add_parser("version", help="print the version")
    backup = _store_command(sub, "backup", "write a consistent, compacted copy of the store to a file (the daemon "
                            "may run); never copy data.mdb by hand")
    backup.add_argument("--to", required=True, metavar="FILE", help="the backup file to write")
    restore = _store_command(sub, "restore", "make a backup the store of a data folder (no daemon may serve it)")
    restore.add_argument("--from", dest="source", required=True, metavar="FILE", help="a file `fabricd backup` wrote")
    restore.add_argument("--force", action="store_true", help="replace the store of a non-empty folder")
    _store_command(sub, "compact", "give the store's free pages back to the disk (stop the daemon first)")
    check = _store_command(sub, "check", "verify every record's checksum; exit 1 when some are corrupt (the "
                           "daemon may run, except with --repair)")
    check.add_argument("--repair", action="store_true", help="move corrupt records aside (stop the daemon first)")
    migrate = sub.add_parser("migrate", help="create or upgrade the fabricd schema of a PostgreSQL database "
                             "(`serve` also does it at start; a database a newer fabricd migrated is refused)")
    migrate.add_argument("--config", metavar="PATH", help="TOML configuration file (default $FABRICD_CONFIG)")
    migrate.add_argument(settings.BY_KEY["store"].flag, dest=settings.flag_dest("store"), default=None,
                         metavar="URL", help="postgresql://USER@HOST:PORT/DB [store]")
    copying.add_parser(sub)
    token = _store_command(sub, "token", "issue an access token straight into the store (the daemon may run)")
    token.add_argument("action", choices=["issue"], help="issue: print a new token once")
    token.add_argument("--admin", action="store_true", help="a token that may do everything")
    token.add_argument("--agent", default="", metavar="NAME", help="a token that acts as this agent only")
    token.add_argument("--label", default="", help="a note to tell tokens apart")
    token.add_argument("--name", action="append", default=[], metavar="SESSION_NAME",
                       help="a session name the agent may register under (repeatable)")
    return p


def _store_command(sub: argparse._SubParsersAction, name: str, text: str) -> argparse.ArgumentParser:
    """A subcommand on a data folder: --data-dir and the settings it needs, resolved like `serve` does."""
    cmd = sub.add_parser(name, help=text, description=text)
    cmd.add_argument("--config", metavar="PATH", help="TOML configuration file (default $FABRICD_CONFIG)")
    for key in ("data_dir", "map_size", "socket.group"):
        s = settings.BY_KEY[key]
        cmd.add_argument(s.flag, dest=settings.flag_dest(key), default=None, metavar="VALUE",
                         help=f"{s.spec.help} [{key}]".replace("%", "%%"))
    cmd.add_argument(settings.BY_KEY["store"].flag, dest=settings.flag_dest("store"), default=None, metavar="URL",
                     help="act on this PostgreSQL database (postgresql://USER@HOST:PORT/DB) instead of the data "
                          "folder [store]")
    return cmd


def store_command(args: argparse.Namespace, config: Config) -> int:
    """Run migrate, copy, backup, restore, compact, check or token issue; a refusal is one line on stderr and exit 2."""
    path = config.data_dir
    if args.command == "copy":
        return copying.run(args, config)
    if config.store:
        require_postgres_driver()
    if config.store and args.command in ("backup", "restore", "compact"):
        raise StoreError(f"the store is the PostgreSQL database {_safe(config.store)}, and {args.command} is for LMDB "
                         "data folders: use PostgreSQL's tools (pg_dump, base backups), or copy the fabric into a "
                         "data folder with `fabricd copy --from URL --to FOLDER`")
    if args.command == "migrate":
        from fabricd.store.postgres.migrate import migrate_url

        print(asyncio.run(migrate_url(config.store)))
    elif args.command == "backup":
        size = maintenance.backup(path, args.to)
        print(f"backed up {path} to {args.to} ({size} bytes); restore it with "
              f"`fabricd restore --from {args.to} --data-dir NEW_FOLDER`")
    elif args.command == "restore":
        maintenance.restore(args.source, path, force=args.force, group=config.socket.group)
        print(f"restored {args.source} into {path}; start the daemon on it")
    elif args.command == "compact":
        before, after = maintenance.compact(path)
        print(f"compacted {path}: {before} bytes -> {after} bytes")
    elif args.command == "check" and config.store:
        from fabricd.store.postgres import check as pg_check
        from fabricd.store.postgres.migrate import safe

        if args.repair:
            print("fabricd check: --repair is for LMDB data folders; fix a database's rows with SQL",
                  file=sys.stderr)
            return 2
        lines, status = pg_check.describe(safe(config.store), asyncio.run(pg_check.check(config.store)))
        print("\n".join(lines))
        return status
    elif args.command == "check":
        from fabricd.store.lmdb import check

        lines, status = check.describe(path, check.check(path, repair=args.repair), args.repair)
        print("\n".join(lines))
        return status
    else:
        if args.admin == bool(args.agent):
            print("fabricd token issue: pass exactly one of --admin and --agent NAME", file=sys.stderr)
            return 2
        scope = "admin" if args.admin else "agent"
        if config.store:
            from fabricd.store.postgres.offline import issue_token

            token, secret = asyncio.run(issue_token(config.store, scope, args.agent, args.label, tuple(args.name)))
            print(secret)
            print(f"token id {token.token_id}: keep the token secret, it is not shown again; every fabricd node "
                  f"serving {_safe(config.store)} accepts it now", file=sys.stderr)
            return 0
        issued = maintenance.issue_token(path, scope, args.agent, args.label, map_size=config.map_size,
                                         group=config.socket.group, session_names=tuple(args.name))
        print(issued.secret)
        where = (f"the daemon serving {path} (pid {issued.daemon_pid}) accepts it now" if issued.daemon_pid
                 else f"a daemon serving {path} accepts it once started")
        print(f"token id {issued.token.token_id}: keep the token secret, it is not shown again; {where}",
              file=sys.stderr)
    return 0


def _safe(url: str) -> str:
    """A database URL without its password, for messages."""
    from fabricd.store.postgres.migrate import safe

    return safe(url)


def load(args: argparse.Namespace) -> Config:
    return settings.resolve(args).config


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.command == "version":
        print(__version__)
        return 0
    if args.command == "systemd-unit":
        return install_unit(args.user, args.install)
    try:
        if args.command == "config":
            print(settings.describe(settings.resolve(args)), end="")
            return 0
        resolved = settings.resolve(args)
        config = resolved.config
        failpoint = settings.testing_failpoint()
    except settings.ConfigError as exc:
        print(f"fabricd: configuration: {exc}", file=sys.stderr)
        return 2
    if args.command != "serve":
        try:
            return store_command(args, config)
        except StoreError as exc:
            print(f"fabricd {args.command}: {exc}", file=sys.stderr)
            return 2
        except FabricError as exc:  # a bad token request (agent name)
            print(f"fabricd {args.command}: {exc.message}", file=sys.stderr)
            return 2
    try:
        loop = eventloop.choose(config.server.event_loop)
    except eventloop.LoopUnavailable as exc:
        print(f"fabricd: configuration: server.event_loop = {config.server.event_loop} "
              f"({resolved.sources['server.event_loop']}): {exc}", file=sys.stderr)
        return 2
    logs.setup(config.log_level, config.log_format)
    try:
        with asyncio.Runner(loop_factory=loop.new) as runner:
            runner.run(App(config, reconfigure=lambda: load(args), failpoint=failpoint).run())
    except (StoreError, ListenError) as exc:
        logging.getLogger("fabricd").error("fabricd: %s", exc)
        return 2
    return 0


def install_unit(user: bool, install: bool) -> int:
    executable = shutil.which("fabricd") or os.path.join(os.path.dirname(sys.executable), "fabricd")
    text = units.render(executable, user=user)
    hidden = [] if user else units.hidden([executable, sys.executable, sys.base_prefix, os.path.dirname(__file__)])
    if not install:
        print(text, end="")
        if hidden:
            print(f"fabricd systemd-unit: warning: {units.advice(hidden)}", file=sys.stderr)
        return 0
    if hidden:
        print(f"fabricd systemd-unit: not installed: {units.advice(hidden)}", file=sys.stderr)
        return 2
    folder = os.path.expanduser("~/.config/systemd/user") if user else "/etc/systemd/system"
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "fabricd.service")
    with open(path, "w") as f:
        f.write(text)
    print(f"wrote {path}")
    reload = ["systemctl", *(["--user"] if user else []), "daemon-reload"]
    if shutil.which("systemctl") and subprocess.run(reload).returncode == 0:
        print(f"enable and start it with: systemctl {'--user ' if user else ''}enable --now fabricd")
    return 0


if __name__ == "__main__":
    sys.exit(main())
