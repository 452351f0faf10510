"""`fabric`: talk to a running fabricd from a shell.

Every command takes --target (or $FABRICD_TARGET; else the daemon's socket is
found, see fabricd.client._target), --token (or $FABRICD_TOKEN) and --json for
machine output. This module holds presence and mail; ask.py the ask with its
progress; work.py the rest of the rendezvous, the outbox and the agent
directory; admin.py status, tokens and the MCP bridge; doctor.py and watch.py
the checks and the live view.
"""

from __future__ import annotations

import json
import re
import sys
import warnings
from typing import Any

import click
from rich.table import Table
from rich.text import Text

from fabricd.cli import show
from fabricd.cli.app import (
    PRESENCE,
    Context,
    age,
    agent_named,
    cli,
    consume,
    print_message,
    print_messages,
    text_argument,
)
from fabricd.client import AmbiguousNameWarning, Client
from fabricd.v1 import types_pb2 as pb


@cli.command()
@click.argument("agent_id")
@click.option("--name", "session_name", default="", help="a session name peers can address")
@click.option("--capability", "-c", "capabilities", multiple=True, help="NAME or NAME=description; repeatable")
@click.option("--cwd", default="", help="the agent's working folder")
@click.option("--meta", "-m", multiple=True, help="KEY=VALUE metadata; repeatable")
@click.pass_obj
def register(ctx: Context, agent_id: str, session_name: str, capabilities: tuple[str, ...], cwd: str,
             meta: tuple[str, ...]) -> None:
    """Announce AGENT_ID so peers can find it before any mail."""
    caps = [pb.Capability(name=c.split("=", 1)[0], description=c.split("=", 1)[1] if "=" in c else "")
            for c in capabilities]
    metadata = dict(m.split("=", 1) if "=" in m else (m, "") for m in meta)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", AmbiguousNameWarning)
        entry = ctx.run(lambda c: c.register(agent_id, session_name=session_name, capabilities=caps, cwd=cwd,
                                             metadata=metadata))
    if ctx.json:
        ctx.emit(entry)
    else:
        ctx.out.print(f"registered {entry.agent_id}" + (f" as {entry.session_name}" if entry.session_name else ""))
    for warning in caught:
        if issubclass(warning.category, AmbiguousNameWarning):
            click.echo(f"fabric: warning: {warning.message}; peers must address it as "
                       f"{entry.session_name}/<last part of the agent id> or by agent id", err=True)


@cli.command()
@click.argument("agent_id")
@click.option("--busy/--idle", default=False, help="mark an agent run in progress (or finished)")
@click.option("--offline", is_flag=True, help="say goodbye: show the agent OFFLINE until it is heard from again")
@click.pass_obj
def touch(ctx: Context, agent_id: str, busy: bool, offline: bool) -> None:
    """Send a heartbeat for AGENT_ID."""
    response = ctx.run(lambda c: c.touch(agent_id, busy=busy, offline=offline))
    if response.created:
        similar = ", ".join(response.similar_names)
        click.echo(f"fabric: {agent_id!r} was not known: created a new mailbox"
                   + (f" (did you mean {similar}?)" if similar else ""), err=True)
    if ctx.json:
        ctx.emit(response)
    else:
        ctx.out.print(f"touched {agent_id}" + (" (offline)" if offline else " (busy)" if busy else ""))


@cli.command()
@click.argument("agent_id")
@click.option("--purge", is_flag=True, help="also delete its unread mail and abort its queued tickets")
@click.pass_obj
def unregister(ctx: Context, agent_id: str, purge: bool) -> None:
    """Remove AGENT_ID's mailbox and directory entry (refused while it holds mail or tickets, unless --purge)."""
    response = ctx.run(lambda c: c.unregister(agent_id, purge=purge))
    if ctx.json:
        ctx.emit(response)
    else:
        ctx.out.print(f"unregistered {agent_id}: deleted {response.purged_messages} unread messages, "
                      f"aborted {response.aborted_tickets} queued tickets")


@cli.command("ls")
@click.option("--live", is_flag=True, help="only agents that are live or busy")
@click.pass_obj
def ls(ctx: Context, live: bool) -> None:
    """List every mailbox with presence, unread count and capabilities."""
    entries = sorted(ctx.run(lambda c: c.list_mailboxes()), key=lambda e: e.agent_id)  # every page, then sorted
    if live:
        entries = [e for e in entries if e.presence in (pb.PRESENCE_LIVE, pb.PRESENCE_BUSY)]
    if ctx.json:
        for e in entries:
            ctx.emit(e)
        return
    table = Table(box=None, header_style="bold")
    for column in ("AGENT", "NAME", "PRESENCE", "UNREAD", "LAST ACTIVE", "CAPABILITIES", "CWD"):
        table.add_column(column, justify="right" if column == "UNREAD" else "left")
    for e in entries:
        agent = show.cell(e.agent_id) + (Text("") if e.registered else Text(" (not registered)", style="dim"))
        table.add_row(agent, show.cell(e.session_name or "-"), PRESENCE.get(e.presence, "?"), str(e.unread_count),
                      age(e.last_activity_time), show.cell(", ".join(c.name for c in e.capabilities) or "-"),
                      show.cell(e.cwd or "-"))
    ctx.out.print(table)
    if not entries:
        ctx.out.print(Text("no mailboxes yet", style="dim"))


@cli.command()
@click.argument("name")
@click.pass_obj
def resolve(ctx: Context, name: str) -> None:
    """Show which agent NAME (an id, a session name or name/suffix) means."""
    entry = ctx.run(lambda c: c.resolve(name))
    if ctx.json:
        ctx.emit(entry)
    else:
        show.write([(entry.agent_id, "")])


@cli.command()
@click.argument("to")
@click.argument("text", required=False)
@click.option("--from", "sender", default="", envvar="FABRIC_AGENT", help="the sending agent id ($FABRIC_AGENT)")
@click.option("--id", "message_id", default="", help="a client message id: resending it stores nothing new")
@click.option("--thread", default="", help="a thread id")
@click.option("--header", "-H", multiple=True, help="KEY=VALUE; repeatable")
@click.option("--reply-to", multiple=True, help="an agent id replies should go to; repeatable")
@click.option("--user", is_flag=True, help="mark the message as written by a person")
@click.option("--create", is_flag=True,
              help="create TO's mailbox if no agent or mailbox has that name (mail for an agent not registered yet)")
@click.option("--file", "-f", "path", type=click.Path(dir_okay=False, allow_dash=True),
              help="send the text of this file ('-' for standard input)")
@click.option("--data", "data_arg", default=None, metavar="@FILE|TEXT",
              help="bytes to carry beside the text: @FILE reads a file as it is (@- standard input), anything "
                   "else is sent as UTF-8; name their type with -H content-type=...")
@click.pass_obj
def send(ctx: Context, to: str, text: str | None, sender: str, message_id: str, thread: str, header: tuple[str, ...],
         reply_to: tuple[str, ...], user: bool, create: bool, path: str | None, data_arg: str | None) -> None:
    """Send TEXT (or --file PATH, or piped standard input) to TO, an agent id or session name; '#NAME' posts
    to channel NAME (quote it: a shell reads # as a comment).

    With --data and no TEXT or --file, the message carries the data and no text.
    """
    data = data_argument(data_arg)
    text = "" if data_arg is not None and text is None and path is None else text_argument(text, path, "TEXT")
    headers = dict(h.split("=", 1) if "=" in h else (h, "") for h in header)
    if to.startswith("#"):  # a channel: a post to its members
        channel.publish(ctx, to, text, sender=sender, id=message_id, thread_id=thread, data=data, headers=headers)
        return
    result = ctx.run(lambda c: c.send(to, text, sender=sender or None, id=message_id, thread_id=thread, data=data,
                                      headers=headers, reply_to=reply_to,
                                      kind=pb.MESSAGE_KIND_USER if user else pb.MESSAGE_KIND_AGENT,
                                      create_mailbox=create))
    if ctx.json:
        ctx.emit(result.message)
    else:
        note = " (duplicate: already stored)" if result.duplicate else ""
        show.write([(f"sent {result.message.id} to {result.message.recipient.agent_id} #{result.message.seq}{note}", "")])


def data_argument(value: str | None) -> bytes:
    """--data: `@FILE` (the file's bytes, `@-` standard input's), else the value itself in UTF-8."""
    if value is None:
        return b""
    if not value.startswith("@"):
        return value.encode("utf-8", "surrogateescape")
    if value == "@-":
        return sys.stdin.buffer.read()
    try:
        with open(value[1:], "rb") as f:
            return f.read()
    except OSError as exc:
        raise click.BadParameter(f"cannot read {value[1:]}: {exc.strerror}", param_hint="--data") from None


@cli.command()
@click.argument("agent_id")
@click.option("--limit", "-n", default=0, help="at most this many (default 100, max 1000)")
@click.pass_obj
def peek(ctx: Context, agent_id: str, limit: int) -> None:
    """Show unread mail of AGENT_ID (or of the agent with that session name) without consuming it."""

    async def read(client: Client) -> Any:
        return await client.peek(await agent_named(client, agent_id, must_exist=True), limit)

    response = ctx.run(read)
    print_messages(ctx, response.messages)
    if not ctx.json:
        ctx.out.print(Text(f"{response.unread_count} unread", style="dim"))


@cli.command()
@click.argument("agent_id")
@click.option("--limit", "-n", default=0, help="at most this many (default 100, max 1000)")
@click.pass_obj
def drain(ctx: Context, agent_id: str, limit: int) -> None:
    """Read and consume unread mail of AGENT_ID, oldest first.

    Only what was shown is consumed: a message that could not be printed (a closed pipe, Ctrl-C) stays unread.
    """

    async def read(client: Client) -> int:
        agent = await agent_named(client, agent_id, must_exist=True)
        peeked = await client.peek(agent, limit)
        return peeked.unread_count - await consume(ctx, client, agent, peeked.messages)

    remaining = ctx.run(read)
    if not ctx.json:
        ctx.out.print(Text(f"{remaining} left unread", style="dim"))


@cli.command()
@click.argument("agent_id")
@click.option("--ack", is_flag=True, help="consume what is shown (default: leave it unread)")
@click.option("--count", "-n", default=0, help="stop after this many messages")
@click.option("--wait", type=click.FloatRange(min=0), default=30.0, show_default=True,
              help="seconds to keep trying while fabricd cannot be reached (0: forever, for services)")
@click.pass_obj
def tail(ctx: Context, agent_id: str, ack: bool, count: int, wait: float) -> None:  # noqa: F811 - the option; fabricd.cli.wait is imported below
    """Follow the inbox of AGENT_ID: unread mail, then new mail as it arrives."""

    async def follow(client: Client) -> None:
        shown = 0
        agent = await agent_named(client, agent_id, must_exist=True)
        async with client.subscribe(agent, auto_ack=ack, wait=wait, on_wait=ctx.note) as inbox:
            async for message in inbox:
                print_message(ctx, message)
                shown += 1
                if count and shown >= count:
                    return

    ctx.run(follow)


from fabricd.cli import a2a, admin, ask, channel, doctor, hooks, ticket, wait, wake, watch, work  # noqa: E402, F401 - their commands join the group


def main(args: list[str] | None = None) -> None:
    """`fabric`: usage errors too come as one JSON object on stderr when --json is anywhere on the line."""
    argv = sys.argv[1:] if args is None else args
    try:
        status = cli.main(argv, prog_name="fabric", standalone_mode=False)  # an int after --help or --version
    except click.exceptions.Abort:
        sys.exit(130)

    except click.ClickException as exc:
        if "--json" in argv[: argv.index("--") if "--" in argv else len(argv)]:
            reason = re.sub(r"(?<!^)(?=[A-Z])", "_", type(exc).__name__).upper()  # NoSuchOption: NO_SUCH_OPTION
            click.echo(json.dumps({"code": "USAGE", "reason": reason, "message": exc.format_message(),
                                   "metadata": {}}), err=True)
            sys.exit(exc.exit_code)
        hint = ""
        if isinstance(exc, click.UsageError) and exc.ctx is not None:
            click.echo(exc.ctx.get_usage(), err=True)
            hint = f" (see '{exc.ctx.command_path} --help')"
        show.write([(f"fabric: {exc.format_message().rstrip('.')}{hint}", "")], err=True)  # every error line alike
        sys.exit(exc.exit_code)
    sys.exit(status if isinstance(status, int) else 0)


if __name__ == "__main__":
    main()
