"""The `fabricd` command: serve, print the effective configuration, print or install the systemd unit."""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys

from fabricd import __version__
from fabricd.daemon import logs, settings, units
from fabricd.daemon.app import App
from fabricd.daemon.config import Config
from fabricd.rpc.server import ListenError
from fabricd.store.lmdb_store import StoreError


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="fabricd", description="The fabricd messaging daemon.")
    sub = p.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run the daemon until SIGTERM or SIGINT (SIGHUP reloads)")
    settings.add_flags(serve)
    config = sub.add_parser("config", help="print the effective configuration and where each value comes from")
    settings.add_flags(config)
    unit = sub.add_parser("systemd-unit", help="print (or --install) the systemd unit for this installation")
    unit.add_argument("--user", action="store_true", help="the user unit (systemctl --user)")
    unit.add_argument("--install", action="store_true", help="write it to the unit folder and reload systemd")
    sub.add_parser("version", help="print the version")
    return p


def load(args: argparse.Namespace) -> Config:
    return Config.from_values(settings.resolve(args).values)


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
        config = load(args)
    except settings.ConfigError as exc:
        print(f"fabricd: configuration: {exc}", file=sys.stderr)
        return 2
    logs.setup(config.log_level, config.log_format)
    try:
        asyncio.run(App(config, reconfigure=lambda: load(args)).run())
    except (StoreError, ListenError) as exc:
        print(f"fabricd: {exc}", file=sys.stderr)
        return 2
    return 0


def install_unit(user: bool, install: bool) -> int:
    executable = shutil.which("fabricd") or os.path.join(os.path.dirname(sys.executable), "fabricd")
    text = units.render(executable, user=user)
    if not install:
        print(text, end="")
        return 0
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
