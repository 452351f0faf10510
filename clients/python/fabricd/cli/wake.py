"""`fabric wake set|show|clear AGENT`: the wake hook that rouses an idle agent when work arrives.

    fabric wake set reviewer --url https://hooks.example/wake --quiet-period 60
    fabric wake set reviewer --command -- /usr/local/bin/start-reviewer --one-turn
"""

from __future__ import annotations

import json
import sys

import click

from fabricd.cli.app import Context, agent_named, cli
from fabricd.client import Client
from fabricd.v1 import directory_service_pb2 as dir_pb


def _describe(hook: dir_pb.WakeHook) -> str:
    what = f"POST {hook.url}" if hook.url else "run " + " ".join(hook.command)
    when = "only while idle (no Subscribe stream, not busy)" if hook.only_when_idle else "on every arrival"
    return f"{what}; at most one wake per {hook.quiet_period.ToNanoseconds() / 1e9:g}s, {when}"


def _as_dict(agent_id: str, hook: dir_pb.WakeHook) -> dict[str, object]:
    return {"agent_id": agent_id, "url": hook.url, "command": list(hook.command),
            "quiet_period_s": hook.quiet_period.ToNanoseconds() / 1e9, "only_when_idle": hook.only_when_idle}


@cli.group("wake")
def wake_group() -> None:
    """Wake an idle agent when mail or a request arrives: POST to a URL, or run a command."""


@wake_group.command("set")
@click.argument("agent_id")
@click.option("--url", default="", help="POST the wake (JSON, signed with Fabricd-Signature) to this http(s) URL")
@click.option("--command", "is_command", is_flag=True,
              help="run the program given after -- (no shell) with the wake's JSON on stdin; admin only")
@click.option("--quiet-period", type=float, default=None, help="least seconds between two wakes (default 30)")
@click.option("--always", is_flag=True, help="wake even while the agent is subscribed or busy")
@click.argument("argv", nargs=-1, type=click.UNPROCESSED)
@click.pass_obj
def wake_set(ctx: Context, agent_id: str, url: str, is_command: bool, quiet_period: float | None, always: bool,
             argv: tuple[str, ...]) -> None:
    """Set AGENT_ID's wake hook: `--url URL`, or `--command -- PROGRAM [ARG...]`."""
    if is_command == bool(url) or (is_command and not argv) or (argv and not is_command):
        raise click.UsageError("give exactly one of --url URL and --command -- PROGRAM [ARG...]")

    async def run(client: Client) -> dir_pb.SetWakeHookResponse:
        return await client.set_wake_hook(await agent_named(client, agent_id), url=url, command=argv, quiet_period=quiet_period,
                                          only_when_idle=not always)

    set_ = ctx.run(run)
    if ctx.json:
        click.echo(json.dumps({**_as_dict(agent_id, set_.hook), "secret": set_.secret}))
        return
    ctx.out.print(f"{agent_id}: {_describe(set_.hook)}", markup=False)
    if set_.secret:
        ctx.out.print(f"secret: {set_.secret}", markup=False)
        ctx.err.print("keep the secret: it is shown only now; each POST carries Fabricd-Signature, the hex "
                      "HMAC-SHA256 of the body keyed with it", markup=False)


@wake_group.command("show")
@click.argument("agent_id")
@click.pass_obj
def wake_show(ctx: Context, agent_id: str) -> None:
    """Show AGENT_ID's wake hook and how often it fired (never its secret)."""
    async def run(client: Client) -> dir_pb.GetWakeHookResponse:
        return await client.get_wake_hook(await agent_named(client, agent_id))

    got = ctx.run(run)
    if not got.HasField("hook"):
        if ctx.json:
            click.echo(json.dumps({"agent_id": agent_id, "hook": None}))
        else:
            ctx.err.print(f"{agent_id} has no wake hook", markup=False)
        sys.exit(1)
    last = got.last_fire_time.ToDatetime().isoformat() + "Z" if got.HasField("last_fire_time") else ""
    if ctx.json:
        click.echo(json.dumps({**_as_dict(agent_id, got.hook), "fires": got.fires, "last_fire_time": last,
                               "armed": got.armed, "state": _STATES.get(got.state, ""),
                               "consecutive_failures": got.consecutive_failures, "last_error": got.last_error}))
        return
    ctx.out.print(f"{agent_id}: {_describe(got.hook)}", markup=False)
    ctx.out.print(f"fired {got.fires} time(s){', last at ' + last if last else ''}"
                  f"{'; work waits for the next wake' if got.armed else ''}", markup=False)
    if got.state == dir_pb.WAKE_HOOK_STATE_DISABLED:
        ctx.out.print(f"disabled after {got.consecutive_failures} failed sends in a row ({got.last_error}); set "
                      "the hook again to enable it", markup=False)
    elif got.state == dir_pb.WAKE_HOOK_STATE_BACKING_OFF:
        at = got.next_attempt_time.ToDatetime().isoformat() + "Z"
        ctx.out.print(f"backing off after {got.consecutive_failures} failed send(s) ({got.last_error}); next try "
                      f"at {at}", markup=False)


_STATES = {dir_pb.WAKE_HOOK_STATE_ACTIVE: "active", dir_pb.WAKE_HOOK_STATE_BACKING_OFF: "backing_off",
           dir_pb.WAKE_HOOK_STATE_DISABLED: "disabled"}


@wake_group.command("clear")
@click.argument("agent_id")
@click.pass_obj
def wake_clear(ctx: Context, agent_id: str) -> None:
    """Remove AGENT_ID's wake hook."""
    async def run(client: Client) -> None:
        await client.clear_wake_hook(await agent_named(client, agent_id))

    ctx.run(run)
    click.echo(json.dumps({"agent_id": agent_id, "cleared": True}) if ctx.json else f"{agent_id}: no wake hook")
