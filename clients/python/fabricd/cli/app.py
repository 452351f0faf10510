"""The `fabric` command group and what its commands share: the context, tables, time and message printing."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

import click
from google.protobuf import json_format
from rich.console import Console

from fabricd import paths
from fabricd.client import Client, FabricError
from fabricd.v1 import types_pb2 as pb

PRESENCE = {pb.PRESENCE_LIVE: "[green]live[/]", pb.PRESENCE_BUSY: "[yellow]busy[/]", pb.PRESENCE_OFFLINE: "[dim]offline[/]"}


class Context:
    def __init__(self, target: str, as_json: bool, token: str | None = None) -> None:
        self.target = target
        self.token = token
        self.json = as_json
        # Piped output is not cut to 80 columns: a wide virtual terminal keeps whole values.
        self.out = Console(soft_wrap=True, width=None if sys.stdout.isatty() else 4096)

    def run(self, fn: Callable[[Client], Awaitable[Any]]) -> Any:
        async def go() -> Any:
            async with Client(self.target, token=self.token) as client:
                return await fn(client)

        try:
            return asyncio.run(go())
        except FabricError as exc:
            click.echo(f"fabric: {exc.message} [{exc.reason}]", err=True)
            if exc.reason in {"UNAVAILABLE"}:
                click.echo(f"fabric: is fabricd running at {self.target}? (start it with `fabricd serve`)", err=True)
            sys.exit(1)
        except KeyboardInterrupt:
            sys.exit(130)

    def run_plain(self, fn: Callable[[], Awaitable[Any]]) -> Any:
        """Run a coroutine that makes its own client; daemon errors end it like any command's."""
        try:
            return asyncio.run(fn())
        except FabricError as exc:
            click.echo(f"fabric: {exc.message} [{exc.reason}]", err=True)
            sys.exit(1)
        except KeyboardInterrupt:
            sys.exit(130)

    def emit(self, message: Any) -> None:
        """One protobuf message as a JSON line."""
        click.echo(json.dumps(json_format.MessageToDict(message, preserving_proto_field_name=True), ensure_ascii=False))


def age(ts: Any) -> str:
    if not ts.seconds:
        return "-"
    seconds = max(0, time.time() - ts.seconds)
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit} ago"
    return f"{int(seconds)}s ago"


def print_messages(ctx: Context, messages: Any) -> None:
    if ctx.json:
        for m in messages:
            ctx.emit(m)
        return
    for m in messages:
        sender = m.sender.agent_id or "-"
        when = time.strftime("%H:%M:%S", time.localtime(m.send_time.seconds))
        extra = f" [dim]({len(m.data)} bytes of data)[/]" if m.data else ""
        ticket = f" [magenta]ticket {m.ticket_id}[/]" if m.ticket_id else ""
        ctx.out.print(f"[dim]#{m.seq} {when}[/] [bold]{sender}[/] → {m.recipient.agent_id}{ticket}: {m.text}{extra}",
                      markup=True, highlight=False)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--target", envvar="FABRICD_TARGET", default=None, show_envvar=True,
              help="daemon address: unix:PATH or HOST:PORT (default: the daemon's default socket)")
@click.option("--token", envvar="FABRICD_TOKEN", default=None, show_envvar=True,
              help="access token (needed on TCP listeners; TLS files come from $FABRICD_TLS_CA/_CERT/_KEY)")
@click.option("--json", "as_json", is_flag=True, help="machine output: one JSON object per line")
@click.pass_context
def cli(click_ctx: click.Context, target: str | None, token: str | None, as_json: bool) -> None:
    """Talk to a fabricd daemon: presence, mailboxes, rendezvous, outbox and the agent directory."""
    click_ctx.obj = Context(target or paths.default_target(), as_json, token)
