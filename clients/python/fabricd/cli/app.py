"""The `fabric` command group and what its commands share: the context, tables, time and message printing."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from importlib import metadata
from typing import Any, NoReturn

import click
import grpc
from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor
from rich.console import Console
from rich.text import Text

from fabricd import __version__
from fabricd.cli import show
from fabricd.client import Client, FabricError, NotFound, Unavailable, _target
from fabricd.v1 import types_pb2 as pb

PRESENCE = {pb.PRESENCE_LIVE: Text("live", style="green"), pb.PRESENCE_BUSY: Text("busy", style="yellow"),
            pb.PRESENCE_OFFLINE: Text("offline", style="dim")}


HINTS = {
    "MISSING_TOKEN": "this listener needs a token: pass --token TOKEN or set FABRICD_TOKEN (an admin issues one with "
                     "`fabric token issue --agent ID` on the daemon's unix socket)",
    "BAD_TOKEN": "the token given with --token or $FABRICD_TOKEN is unknown or revoked: ask an admin for a new one "
                 "(`fabric token issue`)",
    "BAD_TARGET": "set --target or $FABRICD_TARGET to unix:PATH, a socket path, or HOST:PORT",
}


class Context:
    def __init__(self, target: str | None, as_json: bool, token: str | None = None) -> None:
        self.target = target  # None: discover the socket (see fabricd.client._target)
        self.token = token
        self.json = as_json
        # Piped output is not cut to 80 columns: a wide virtual terminal keeps whole values. No markup, emoji
        # codes or highlighting: a plain string prints as written (styled text is a rich Text; see show.py).
        plain = {"soft_wrap": True, "markup": False, "emoji": False, "highlight": False}
        self.out = Console(width=None if show.is_terminal(sys.stdout) else 4096, **plain)
        self.err = Console(stderr=True, **plain)
        self.client: Client | None = None

    def connect(self) -> Client:
        """A client for this command's target (a bad target raises InvalidArgument, BAD_TARGET)."""
        self.client = Client(self.target, token=self.token)
        return self.client

    def run(self, fn: Callable[[Client], Awaitable[Any]]) -> Any:
        async def go() -> Any:
            async with self.connect() as client:
                return await fn(client)

        return self.run_plain(go)

    def run_plain(self, fn: Callable[[], Awaitable[Any]]) -> Any:
        """Run a coroutine; daemon errors end it with one line (or one JSON object) on stderr and exit 1."""
        try:
            return asyncio.run(fn())
        except FabricError as exc:
            self.fail(exc)
        except KeyboardInterrupt:
            sys.exit(130)

    def fail(self, exc: FabricError, status: int = 1) -> NoReturn:
        """Report a daemon (or target) error and exit: what went wrong, its reason, and what to do."""
        hint = HINTS.get(exc.reason)
        message = exc.message
        if exc.code == grpc.StatusCode.UNAVAILABLE and exc.reason == "UNAVAILABLE":
            # gRPC's own words ("failed to connect to all addresses; last error: ...") stay in the metadata.
            target = self.client.target if self.client is not None else self.target
            message = f"cannot reach fabricd at {target}"
            exc.metadata.setdefault("grpc_message", exc.message)
        if exc.code == grpc.StatusCode.UNAVAILABLE and exc.reason == "UNAVAILABLE":
            where = self.client.tried if self.client is not None else _target.resolve(self.target).describe()
            hint = f"is fabricd running? tried {where}; start it with `fabricd serve` (or pass --target)"
        if exc.reason == "UNAUTHENTICATED" and not hint:
            hint = HINTS["MISSING_TOKEN"]
        if self.json:
            out = {"code": exc.code.name, "reason": exc.reason, "message": message, "metadata": exc.metadata}
            click.echo(json.dumps({**out, **({"hint": hint} if hint else {})}, ensure_ascii=False), err=True)
        else:
            show.write([(f"fabric: {message} [{exc.reason}]", "")], err=True)
            if hint:
                show.write([(f"fabric: {hint}", "")], err=True)
        sys.exit(status)

    def note(self, text: str) -> None:
        """A progress line for a person, on stderr (never mixed into output a script reads)."""
        if self.json:
            click.echo(json.dumps({"event": "note", "message": text}, ensure_ascii=False), err=True)
        else:
            show.write([(f"fabric: {text}", "")], err=True)

    def emit(self, message: Any) -> None:
        """One protobuf message as a JSON line, written and flushed before this returns."""
        show.write([(json.dumps(to_json(message), ensure_ascii=False), "")], raw=True)


_INT64 = {FieldDescriptor.CPPTYPE_INT64, FieldDescriptor.CPPTYPE_UINT64}


async def queue_heads(client: Client, agent_id: str, max_tickets: int = 0) -> AsyncIterator[list[Any]]:
    """The head of `agent_id`'s queue now and after each change, for commands that wait for a request.

    The daemon ends a WatchQueue when it stops, and a restart makes it unreachable for a moment: neither is a
    change of the queue, so the queue is watched again (backing off to 2 s) instead of the wait ending.
    """
    backoff = 0.05
    while True:
        try:
            async for tickets in client.watch_queue(agent_id, max_tickets=max_tickets):
                backoff = 0.05
                yield tickets
        except Unavailable:
            pass
        await asyncio.sleep(backoff)
        backoff = min(backoff * 2, 2.0)


async def agent_named(client: Client, name: str, *, must_exist: bool = False) -> str:
    """The agent id NAME means (an agent id, or an agent's session name). An ambiguous name raises. When
    nothing matches: with `must_exist` (commands that read a mailbox) NotFound with the closest names, as
    the daemon words it; else NAME itself, so the daemon's own refusal is what the user reads.

    The daemon answers a read of a mailbox no one has with an empty inbox (an agent may subscribe before
    its first mail makes its mailbox); a person typing a name gets told instead (docs/cli-output.md)."""
    try:
        return (await client.resolve(name)).agent_id
    except NotFound:
        if must_exist:
            raise
        return name
    except Unavailable:  # not reachable yet: the command's own call waits for the daemon, or fails
        return name


def to_json(message: Any) -> dict[str, Any]:
    """A message as JSON: every field, zero values included, 64-bit integers as numbers (not strings), and keys
    in the message's field order whichever fields are set (MessageToDict puts the unset ones last)."""
    out = json_format.MessageToDict(message, preserving_proto_field_name=True,
                                    always_print_fields_with_no_presence=True)
    _numbers(message.DESCRIPTOR, out)
    return _ordered(message.DESCRIPTOR, out)


def _ordered(descriptor: Any, value: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for field in sorted(descriptor.fields, key=lambda f: f.number):
        if field.name not in value:
            continue
        v = value[field.name]
        inner = field.message_type
        if inner is not None and not inner.full_name.startswith("google.protobuf.") and \
                not inner.GetOptions().map_entry:
            v = [_ordered(inner, x) if isinstance(x, dict) else x for x in v] if isinstance(v, list) else \
                _ordered(inner, v) if isinstance(v, dict) else v
        out[field.name] = v
    return out


def _numbers(descriptor: Any, value: dict[str, Any]) -> None:
    for field in descriptor.fields:
        if field.name not in value:
            continue
        v = value[field.name]
        if field.cpp_type in _INT64:
            value[field.name] = [int(x) for x in v] if isinstance(v, list) else int(v)
        elif field.message_type is not None and field.message_type.GetOptions().map_entry:
            inner = field.message_type.fields_by_name["value"]
            if inner.cpp_type in _INT64:
                value[field.name] = {k: int(x) for k, x in v.items()}
            elif inner.message_type is not None:
                for x in v.values():
                    _numbers(inner.message_type, x)
        elif field.message_type is not None and not field.message_type.full_name.startswith("google.protobuf."):
            for x in v if isinstance(v, list) else [v]:
                if isinstance(x, dict):
                    _numbers(field.message_type, x)


def text_argument(text: str | None, path: str | None, name: str) -> str:
    """The text of a command: the argument, else --file, else piped standard input; never a silent wait on a terminal."""
    if text is not None and path is not None:
        raise click.UsageError(f"give {name} or --file, not both")
    if text is not None:
        return text
    if path is not None and path != "-":
        try:
            with open(path, encoding="utf-8", newline="") as f:  # as written: CR LF and lone CRs kept
                return f.read()
        except (OSError, UnicodeDecodeError) as exc:
            raise click.BadParameter(f"cannot read {path}: {exc}", param_hint="--file") from None
    if sys.stdin is None or sys.stdin.isatty():
        raise click.UsageError(f"no {name}: give it as an argument, with --file PATH, or pipe it in "
                               f"(standard input is a terminal, so nothing would arrive)")
    data = sys.stdin.buffer.read()  # bytes, not text mode: newlines are not translated
    if not data:  # `echo -n | fabric send A`: most likely a failed command upstream, not a wish to send nothing
        raise click.UsageError(f"standard input was empty, so there is no {name} and nothing was sent (to send "
                               f"an empty {name} on purpose, give '' as {name})")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise click.BadParameter(f"standard input is not UTF-8 text ({exc})", param_hint=name) from None


def age(ts: Any) -> str:
    if not ts.seconds:
        return "-"
    seconds = max(0, time.time() - ts.seconds)
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit} ago"
    return f"{int(seconds)}s ago"


def print_messages(ctx: Context, messages: Any) -> None:
    for m in messages:
        print_message(ctx, m)


def print_message(ctx: Context, m: Any) -> None:
    """One message, written and flushed (a closed pipe raises here): its text exactly as stored (see show.py)."""
    if ctx.json:
        ctx.emit(m)
        return
    when = time.strftime("%H:%M:%S", time.localtime(m.send_time.seconds))
    parts = [(f"#{m.seq} {when}", "dim"), (" ", ""), (m.sender.agent_id or "-", "bold"),
             (f" → {m.recipient.agent_id}", "")]
    if m.ticket_id:
        parts += [(" ", ""), (f"ticket {m.ticket_id}", "magenta")]
    parts += [(": ", ""), (m.text, "")]
    if m.data:
        parts += [(" ", ""), (f"({len(m.data)} bytes of data)", "dim")]
    show.write(parts)


async def consume(ctx: Context, client: Client, agent_id: str, messages: Any) -> int:
    """Show `messages` (peeked, oldest first) and consume only those shown; returns how many.

    A crash while printing leaves that message and the rest unread. A closed pipe consumes nothing: a reader
    that stopped early (`| head -1`) may have read more than it printed, so every message comes again (shown
    twice rather than lost). On Ctrl-C the ack is cancelled with the rest, so nothing is consumed either.
    """
    shown: list[str] = []
    try:
        for m in messages:
            print_message(ctx, m)
            shown.append(m.id)
    except BrokenPipeError:
        shown.clear()
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit's flush
        ctx.note(f"the output was closed before all was read: {len(messages)} messages stay unread")
        sys.exit(141)
    finally:
        if shown:
            await client.ack(agent_id, shown)
    return len(shown)


def _json_flag(click_ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value:
        click_ctx.find_object(Context).json = True


class Command(click.Command):
    """A `fabric` command: also takes --json after its name (`fabric ls --json`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.params.append(click.Option(["--json"], is_flag=True, expose_value=False, callback=_json_flag,
                                        help="machine output: one JSON object per line"))


SECTIONS = (
    ("Start here", ("doctor", "register", "send", "peek", "tail", "ask", "reply")),
    ("Mail and presence", ("ls", "drain", "wait", "watch", "resolve", "touch", "unregister", "wake")),
    ("Channels", ("channel", "search")),
    ("Requests between agents", ("queue", "ticket", "outbox")),
    ("Agent directory", ("agents", "threads", "admit", "requests", "settle")),
    ("Coding agents and other protocols", ("lease", "mcp", "hook", "a2a")),
    ("Operators", ("status", "token", "backup")),
)
"""`fabric --help` lists the commands by task in this order; a command in no section comes last, under Other."""


class Group(click.Group):
    command_class = Command
    group_class = type  # subgroups are Groups too, so their commands take --json as well

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        if self.name != "cli":  # a subgroup (fabric ticket, fabric outbox): click's plain list
            super().format_commands(ctx, formatter)
            return
        commands = {name: self.get_command(ctx, name) for name in self.list_commands(ctx)}
        listed = {name for _, names in SECTIONS for name in names}
        sections = [*SECTIONS, ("Other", tuple(n for n in commands if n not in listed))]
        width = formatter.width - 6 - max(map(len, commands), default=0)
        for title, names in sections:
            rows = [(n, commands[n].get_short_help_str(width)) for n in names if commands.get(n) is not None
                    and not commands[n].hidden]
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)


def client_version() -> str:
    try:
        return metadata.version("fabricd")
    except metadata.PackageNotFoundError:
        return __version__


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(client_version(), "--version", "-V", prog_name="fabric",
                      message="%(prog)s %(version)s (the fabricd client; `fabric doctor` shows the daemon's)")
@click.option("--target", "targets", envvar="FABRICD_TARGET", multiple=True, show_envvar=True,
              help="daemon address: unix:PATH, a socket path, or HOST:PORT (default: the first socket found of "
                   "$XDG_RUNTIME_DIR/fabricd.sock, ~/.local/state/fabricd/fabricd.sock, /run/fabricd/fabricd.sock); "
                   "several nodes: repeat it or separate with commas, and calls move to the next node when one is "
                   "unavailable")
@click.option("--token", envvar="FABRICD_TOKEN", default=None, show_envvar=True,
              help="access token (needed on TCP listeners; TLS files come from $FABRICD_TLS_CA/_CERT/_KEY)")
@click.option("--json", "as_json", is_flag=True, help="machine output: one JSON object per line")
@click.pass_context
def cli(click_ctx: click.Context, targets: tuple[str, ...], token: str | None, as_json: bool) -> None:
    """Talk to a fabricd daemon: presence, mailboxes, rendezvous, outbox and the agent directory."""
    # Several --target options are one comma-separated list: what $FABRICD_TARGET and every Client accept.
    click_ctx.obj = Context(",".join(targets) or None, as_json, token)
