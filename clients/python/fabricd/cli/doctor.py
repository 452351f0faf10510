"""`fabric doctor`: check the way to the daemon and the daemon's health, and say how to fix each problem."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from dataclasses import asdict, dataclass
from typing import Any

import click

from fabricd.cli import show
from fabricd.cli.admin import replication
from fabricd.cli.app import Context, cli, client_version
from fabricd.client import Client, FabricError, PermissionDenied, Unauthenticated, Unavailable

MAX_SKEW_S = 2.0  # ages and presence are computed on the daemon's clock; more than this shows wrong ages
MAX_STORE_USE = 0.9  # a full map refuses every write (RESOURCE_EXHAUSTED)


@dataclass
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""
    warning: bool = False  # shown, but not a reason to exit non-zero


async def diagnose(ctx: Context, client: Client) -> list[Check]:
    checks: list[Check] = []
    how = f"looked at {client.tried}" if client.discovered else "from --target or FABRICD_TARGET"
    sent = time.time()
    try:
        status = await client.status()
    except Unavailable:
        checks.append(Check("target", False, f"nothing answers at {client.target} ({how})",
                            "start the daemon: `fabricd serve` (or `systemctl --user start fabricd`), or pass "
                            "--target / set FABRICD_TARGET to where it listens"))
        return checks
    except (Unauthenticated, PermissionDenied) as exc:
        checks.append(Check("target", True, f"{client.target} ({how})"))
        checks.append(Check("token", False, f"{exc.message} [{exc.reason}]",
                            "pass --token TOKEN or set FABRICD_TOKEN; an admin issues one with "
                            "`fabric token issue --agent ID` on the daemon's unix socket"))
        return checks
    received = time.time()
    checks.append(Check("target", True, f"{client.target} ({how})"))

    mine = client_version()
    checks.append(Check("versions", status.version == mine, f"client {mine}, daemon {status.version}",
                        "" if status.version == mine else "install the client and the daemon from the same release",
                        warning=status.version != mine))

    token = bool(ctx.token)
    mode = status.auth_tokens or "unknown (daemon too old to say)"
    unix = client.target.startswith("unix:")
    needed = status.auth_tokens == "on" or (status.auth_tokens == "auto" and not unix)
    detail = f"tokens {mode}; " + ("a token was sent and accepted" if token else
                                   "no token sent" + (", and none is needed here" if not needed else ""))
    checks.append(Check("auth", True, detail))

    if status.store_kind == "postgresql":
        p = status.postgres
        checks.append(Check("store", not p.in_recovery,
                            f"PostgreSQL {p.server_version}, database {p.database} at {p.url} (schema version "
                            f"{p.schema_version}, {p.database_bytes / 2**20:.1f} MiB); pool {p.pool_size} of "
                            f"{p.pool_max_size} connections ({p.pool_idle} idle); {replication(p)}",
                            "" if not p.in_recovery else "point the daemon's store at the primary server"))
        return _rest(checks, status, sent, received)
    used, size = status.map_used_bytes, max(1, status.map_size_bytes)
    share = used / size
    checks.append(Check("store", share < MAX_STORE_USE,
                        f"{used / 2**20:.1f} MiB used of a {size / 2**30:g} GiB map ({share:.1%}) in "
                        f"{status.data_dir}",
                        "" if share < MAX_STORE_USE else "raise map_size (--map-size or FABRICD_MAP_SIZE) and "
                                                         "restart fabricd before writes are refused"))
    return _rest(checks, status, sent, received)


def _rest(checks: list[Check], status: Any, sent: float, received: float) -> list[Check]:
    """The checks after the store's: the clock and the listeners."""
    if status.HasField("current_time"):
        daemon_now = status.current_time.seconds + status.current_time.nanos / 1e9
        skew = daemon_now - (sent + received) / 2
        ok = abs(skew) <= MAX_SKEW_S + (received - sent) / 2
        checks.append(Check("clock", ok, f"the daemon's clock is {abs(skew):.3f}s "
                                         f"{'ahead of' if skew > 0 else 'behind'} this machine's",
                            "" if ok else "synchronise the clocks (e.g. `timedatectl set-ntp true` on both "
                                          "machines): ages and presence are computed on the daemon's clock"))
    else:
        checks.append(Check("clock", True, "unknown (the daemon does not report its time)", warning=True))

    checks.append(Check("listeners", True, ", ".join(status.listen_addresses) or "none reported"))
    return checks


@cli.command()
@click.pass_obj
def doctor(ctx: Context) -> None:
    """Check the way to fabricd and its health: target, versions, auth, store, clock, listeners.

    Exits 1 when a check fails, with the fix for each problem.
    """

    async def run() -> list[Check]:
        async with ctx.connect() as client:
            return await diagnose(ctx, client)

    try:
        checks = asyncio.run(run())
    except FabricError as exc:  # a bad --target, say
        ctx.fail(exc)
    except KeyboardInterrupt:
        sys.exit(130)
    failed = [c for c in checks if not c.ok and not c.warning]
    if ctx.json:
        for c in checks:
            click.echo(json.dumps({k: v for k, v in asdict(c).items() if v != ""}))
    else:
        for c in checks:
            mark = ("ok  ", "green") if c.ok else (("warn", "yellow") if c.warning else ("FAIL", "red"))
            show.write([mark, (" ", ""), (f"{c.name:<9}", "bold"), (f" {c.detail}", "")])
            if c.fix:
                show.write([("     ", ""), ("fix:", "dim"), (f" {c.fix}", "")])
        ctx.out.print(f"{len(failed)} problem{'s' if len(failed) != 1 else ''} found" if failed else
                      "no problems found", highlight=False)
    sys.exit(1 if failed else 0)
