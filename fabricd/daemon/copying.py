"""`fabricd copy --from SRC --to DST`: move a whole fabric between an LMDB data folder and a PostgreSQL database."""

from __future__ import annotations

import argparse
import asyncio
import os

from fabricd.daemon import settings
from fabricd.daemon.config import Config
from fabricd.store import transfer
from fabricd.store.errors import StoreError

HELP = ("copy a whole fabric from a data folder or postgresql:// URL into another that holds no fabric "
        "(an embedded fabric into a database, or a database's backup into a folder)")


def add_parser(sub: argparse._SubParsersAction) -> None:
    cmd = sub.add_parser("copy", help=HELP, description=HELP)
    cmd.add_argument("--from", dest="source", required=True, metavar="FOLDER|URL",
                     help="the fabric to copy: an LMDB data folder (a daemon may be serving it), a backup file, or "
                     "postgresql://...")
    cmd.add_argument("--to", dest="target", required=True, metavar="FOLDER|URL",
                     help="where to copy it: a new data folder or a postgresql:// database holding no fabric")
    cmd.add_argument("--config", metavar="PATH", help="TOML configuration file (default $FABRICD_CONFIG)")
    for key in ("map_size", "socket.group"):
        s = settings.BY_KEY[key]
        cmd.add_argument(s.flag, dest=settings.flag_dest(key), default=None, metavar="VALUE",
                         help=f"{s.spec.help} (for a data folder --to) [{key}]".replace("%", "%%"))


def _where(location: str) -> str:
    if transfer.is_postgres(location):
        from fabricd.store.postgres.migrate import safe

        return safe(location)
    return location


def run(args: argparse.Namespace, config: Config) -> int:
    """Copy, printing progress and a summary; StoreError (one line, exit 2 in main) on a refusal."""
    source, target = args.source, args.target
    folders = not transfer.is_postgres(source) and not transfer.is_postgres(target)
    if source == target or folders and os.path.realpath(source) == os.path.realpath(target):
        raise StoreError("--from and --to name the same store; copy into another folder or database")
    if "://" in source and not transfer.is_postgres(source) or "://" in target and not transfer.is_postgres(target):
        raise StoreError("a store is a data folder or a postgresql://USER@HOST:PORT/DB URL")
    print(f"copying {_where(source)} -> {_where(target)}", flush=True)
    src = transfer.open_source(source)
    dst = transfer.open_target(target, map_size=config.map_size, group=config.socket.group)
    counts = asyncio.run(transfer.copy(src, dst, progress=lambda line: print(line, flush=True)))
    print(f"copied {sum(counts.values())} records into {_where(target)}:")
    for line in transfer.summary(counts, src.skipped):
        print(line)
    return 0
