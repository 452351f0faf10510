"""`fabric lease take|ls|renew|rm|check`: reserve files and other resources before working on them.

    fabric lease take 'src/api/**' --as builder --ttl 30m --reason "refactor"
    fabric lease check src/api/app.py --as reviewer     # exit 1 when another agent's lease is in the way

The agent is --as (or $FABRIC_AGENT). A refused take and a check that finds conflicts print each holder and
exit 1, for scripts and hooks; a check also prints the other agents' waiting takes in line for its paths.
"""

from __future__ import annotations

import json
import re
import sys
import time
from collections.abc import Sequence
from typing import Any

import click
from rich.table import Table

from fabricd.cli.app import Context, cli
from fabricd.client import Client, FabricError, conflict_holders
from fabricd.v1 import lease_service_pb2 as ls

_UNITS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}
_MODES = {ls.LEASE_MODE_EXCLUSIVE: "exclusive", ls.LEASE_MODE_SHARED: "shared"}


def seconds(value: str) -> float:
    """`90`, `90s`, `30m`, `2h`, `1d` (or `1h30m`) as seconds."""
    parts = re.findall(r"(\d+(?:\.\d+)?)([smhd]?)", value.strip())
    if not parts or "".join(n + u for n, u in parts) != value.strip():
        raise click.BadParameter(f"{value!r} is not a duration: write 90, 90s, 30m, 2h or 1d")
    return sum(float(n) * _UNITS[u] for n, u in parts)


def until(ts: Any) -> str:
    left = ts.seconds - time.time()
    if left <= 0:
        return "now"
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if left >= size:
            return f"in {int(left // size)}{unit}"
    return f"in {int(left)}s"


def _holder_line(h: ls.LeaseHolder) -> str:
    who = h.agent_id + (f" ({h.session_name})" if h.session_name and h.session_name != h.agent_id else "")
    return (f"{h.requested}: {_MODES.get(h.mode, '?')} lease {h.resource} held by {who}, ends {until(h.expire_time)}"
            + (f": {h.reason}" if h.reason else ""))


def holder_dict(h: ls.LeaseHolder) -> dict[str, object]:
    return {"path": h.requested, "resource": h.resource, "agent_id": h.agent_id, "session_name": h.session_name,
            "mode": _MODES.get(h.mode, ""), "reason": h.reason, "lease_id": h.lease_id,
            "expire_time": h.expire_time.ToJsonString(), "fencing_token": h.fencing_token}


def _ago(ts: Any) -> str:
    waited = max(0.0, time.time() - ts.seconds)
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if waited >= size:
            return f"{int(waited // size)}{unit}"
    return f"{int(waited)}s"


def _waiter_line(place: int, w: ls.LeaseWaiter) -> str:
    return (f"{w.requested}: in line #{place}: {w.agent_id} waits for {_MODES.get(w.mode, '?')} {w.resource} "
            f"(since {_ago(w.enqueue_time)} ago)")


def waiter_dict(place: int, w: ls.LeaseWaiter) -> dict[str, object]:
    return {"waiting": True, "place": place, "path": w.requested, "resource": w.resource, "agent_id": w.agent_id,
            "mode": _MODES.get(w.mode, ""), "resources": list(w.resources),
            "enqueue_time": w.enqueue_time.ToJsonString()}


def report_conflicts(ctx: Context, holders: Sequence[ls.LeaseHolder]) -> None:
    if ctx.json:
        for h in holders:
            click.echo(json.dumps(holder_dict(h), ensure_ascii=False))
        return
    for h in holders:
        ctx.out.print(_holder_line(h), markup=False)


def _agent(agent: str | None) -> str:
    if not agent:
        raise click.UsageError("name the agent: --as AGENT or $FABRIC_AGENT")
    return agent


AS_AGENT = click.option("--as", "agent", envvar="FABRIC_AGENT", default=None, help="the agent ($FABRIC_AGENT)")


@cli.group("lease")
def lease_group() -> None:
    """Reserve files and resources: paths, dir/** and *.py globs (see docs/leases.md)."""


@lease_group.command("take")
@click.argument("resources", nargs=-1, required=True)
@AS_AGENT
@click.option("--ttl", default=None, help="how long without a renewal: 90s, 30m, 2h (default: the daemon's)")
@click.option("--reason", default="", help="why, for the agents it keeps off")
@click.option("--shared", is_flag=True, help="a shared lease: others may share it; no one may take it exclusively")
@click.option("--wait", "wait", default=None, help="queue until granted, at most this long (30s, 5m)")
@click.option("--with-presence", is_flag=True, help="keep the lease while the agent is live, past its ttl")
@click.pass_obj
def lease_take(ctx: Context, resources: tuple[str, ...], agent: str | None, ttl: str | None, reason: str,
               shared: bool, wait: str | None, with_presence: bool) -> None:
    """Lease every RESOURCE, or none: a conflict prints each holder and exits 1."""
    who = _agent(agent)

    async def run(client: Client) -> ls.Lease | list[ls.LeaseHolder]:
        try:
            return await client.acquire_lease(who, resources, mode="shared" if shared else "exclusive",
                                              ttl=seconds(ttl) if ttl else None, reason=reason,
                                              wait=wait is not None, wait_timeout=seconds(wait) if wait else None,
                                              renew_with_presence=with_presence)
        except FabricError as exc:
            holders = conflict_holders(exc)
            if not holders:
                raise
            return holders  # a conflict is an answer here: each holder, then exit 1

    lease = ctx.run(run)
    if isinstance(lease, list):
        if not ctx.json:
            ctx.err.print(f"fabric: not granted: {len(lease)} conflict(s) [LEASE_CONFLICT]", markup=False)
        report_conflicts(ctx, lease)
        sys.exit(1)
    if ctx.json:
        ctx.emit(lease)
        return
    ctx.out.print(f"{lease.lease_id} {', '.join(lease.resources)} ({_MODES[lease.mode]}, token "
                  f"{lease.fencing_token}, ends {until(lease.expire_time)})", markup=False)


@lease_group.command("ls")
@click.option("--agent", default="", help="only this agent's leases")
@click.option("--resource", default="", help="only leases overlapping this path or pattern")
@click.pass_obj
def lease_ls(ctx: Context, agent: str, resource: str) -> None:
    """The live leases, oldest first."""
    leases = ctx.run(lambda c: c.list_leases(agent_id=agent, resource=resource))
    if ctx.json:
        for lease in leases:
            ctx.emit(lease)
        return
    table = Table(box=None, pad_edge=False)
    for column in ("LEASE", "AGENT", "RESOURCES", "MODE", "TOKEN", "ENDS", "REASON"):
        table.add_column(column)
    for lease in leases:
        table.add_row(lease.lease_id, lease.agent_id, " ".join(lease.resources), _MODES.get(lease.mode, "?"),
                      str(lease.fencing_token), until(lease.expire_time), lease.reason)
    ctx.out.print(table)


@lease_group.command("renew")
@click.argument("lease_id")
@click.option("--ttl", default=None, help="the new ttl from now (default: the lease's own)")
@click.pass_obj
def lease_renew(ctx: Context, lease_id: str, ttl: str | None) -> None:
    """Extend LEASE_ID from now."""
    lease = ctx.run(lambda c: c.renew_lease(lease_id, ttl=seconds(ttl) if ttl else None))
    if ctx.json:
        ctx.emit(lease)
    else:
        ctx.out.print(f"{lease.lease_id} ends {until(lease.expire_time)}", markup=False)


@lease_group.command("rm")
@click.argument("lease_ids", nargs=-1)
@click.option("--all", "everything", is_flag=True, help="every lease of the agent (--as)")
@AS_AGENT
@click.pass_obj
def lease_rm(ctx: Context, lease_ids: tuple[str, ...], everything: bool, agent: str | None) -> None:
    """Release LEASE_ID..., or with --all every lease of the agent."""
    if everything == bool(lease_ids):
        raise click.UsageError("give LEASE_ID... or --all (with --as AGENT)")

    async def run(client: Client) -> int:
        if everything:
            return await client.release_lease(agent_id=_agent(agent))
        return sum([await client.release_lease(lease_id) for lease_id in lease_ids])

    released = ctx.run(run)
    click.echo(json.dumps({"released": released}) if ctx.json else f"released {released} lease(s)")


@lease_group.command("check")
@click.argument("paths", nargs=-1, required=True)
@AS_AGENT
@click.option("--shared", is_flag=True, help="only reading: only exclusive leases conflict")
@click.option("--literal", is_flag=True, help="PATHS are files named as they are: their * and ? are characters")
@click.pass_obj
def lease_check(ctx: Context, paths: tuple[str, ...], agent: str | None, shared: bool, literal: bool) -> None:
    """Exit 1 (printing each holder) when another agent's lease covers one of PATHS; 0 when they are free.
    Other agents' waiting takes in line for PATHS are printed too (oldest first); they hold nothing yet, so
    they do not change the exit status (a take without --wait would be refused LEASE_QUEUED, though)."""
    mode = "shared" if shared else "exclusive"

    async def run(client: Client) -> tuple[list[ls.LeaseHolder], list[ls.LeaseWaiter]]:
        return (await client.check_leases(paths, agent_id=agent or "", mode=mode, literal=literal),
                await client.lease_waiters(paths, agent_id=agent or "", mode=mode, literal=literal))

    holders, waiters = ctx.run(run)
    report_conflicts(ctx, holders)
    # A waiter's place: its position among the distinct waiting calls shown (oldest first).
    places: dict[tuple[str, str], int] = {}
    for w in waiters:
        place = places.setdefault((w.agent_id, w.enqueue_time.ToJsonString()), len(places) + 1)
        if ctx.json:
            click.echo(json.dumps(waiter_dict(place, w), ensure_ascii=False))
        else:
            ctx.out.print(_waiter_line(place, w), markup=False)
    if holders:
        sys.exit(1)
