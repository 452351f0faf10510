"""`fabric`: register, touch, ls, resolve, send, peek, drain and tail, against a running fabricd.

Every command takes --target (or $FABRICD_TARGET) and --json for machine output.
"""

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
from rich.table import Table

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
    entry = ctx.run(lambda c: c.register(agent_id, session_name=session_name, capabilities=caps, cwd=cwd,
                                         metadata=metadata))
    if ctx.json:
        ctx.emit(entry)
    else:
        ctx.out.print(f"registered {entry.agent_id}" + (f" as {entry.session_name}" if entry.session_name else ""))


@cli.command()
@click.argument("agent_id")
@click.option("--busy/--idle", default=False, help="mark an agent run in progress (or finished)")
@click.pass_obj
def touch(ctx: Context, agent_id: str, busy: bool) -> None:
    """Send a heartbeat for AGENT_ID."""
    ctx.run(lambda c: c.touch(agent_id, busy=busy))
    if not ctx.json:
        ctx.out.print(f"touched {agent_id}" + (" (busy)" if busy else ""))


@cli.command("ls")
@click.option("--live", is_flag=True, help="only agents that are live or busy")
@click.pass_obj
def ls(ctx: Context, live: bool) -> None:
    """List every mailbox with presence, unread count and capabilities."""
    entries = ctx.run(lambda c: c.list_mailboxes())
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
        table.add_row(e.agent_id + ("" if e.registered else " [dim](not registered)[/]"), e.session_name or "-",
                      PRESENCE.get(e.presence, "?"), str(e.unread_count), age(e.last_activity_time),
                      ", ".join(c.name for c in e.capabilities) or "-", e.cwd or "-")
    ctx.out.print(table)
    if not entries:
        ctx.out.print("[dim]no mailboxes yet[/]")


@cli.command()
@click.argument("name")
@click.pass_obj
def resolve(ctx: Context, name: str) -> None:
    """Show which agent NAME (an id, a session name or name/suffix) means."""
    entry = ctx.run(lambda c: c.resolve(name))
    if ctx.json:
        ctx.emit(entry)
    else:
        ctx.out.print(entry.agent_id)


@cli.command()
@click.argument("to")
@click.argument("text", required=False)
@click.option("--from", "sender", default="", envvar="FABRIC_AGENT", help="the sending agent id ($FABRIC_AGENT)")
@click.option("--id", "message_id", default="", help="a client message id: resending it stores nothing new")
@click.option("--thread", default="", help="a thread id")
@click.option("--header", "-H", multiple=True, help="KEY=VALUE; repeatable")
@click.option("--reply-to", multiple=True, help="an agent id replies should go to; repeatable")
@click.option("--user", is_flag=True, help="mark the message as written by a person")
@click.pass_obj
def send(ctx: Context, to: str, text: str | None, sender: str, message_id: str, thread: str, header: tuple[str, ...],
         reply_to: tuple[str, ...], user: bool) -> None:
    """Send TEXT (or standard input) to TO, an agent id or session name."""
    if text is None:
        text = sys.stdin.read()
    headers = dict(h.split("=", 1) if "=" in h else (h, "") for h in header)
    result = ctx.run(lambda c: c.send(to, text, sender=sender or None, id=message_id, thread_id=thread,
                                      headers=headers, reply_to=reply_to,
                                      kind=pb.MESSAGE_KIND_USER if user else pb.MESSAGE_KIND_AGENT))
    if ctx.json:
        ctx.emit(result.message)
    else:
        note = " (duplicate: already stored)" if result.duplicate else ""
        ctx.out.print(f"sent {result.message.id} to {result.message.recipient.agent_id} #{result.message.seq}{note}")


@cli.command()
@click.argument("agent_id")
@click.option("--limit", "-n", default=0, help="at most this many (default 100, max 1000)")
@click.pass_obj
def peek(ctx: Context, agent_id: str, limit: int) -> None:
    """Show unread mail of AGENT_ID without consuming it."""
    response = ctx.run(lambda c: c.peek(agent_id, limit))
    print_messages(ctx, response.messages)
    if not ctx.json:
        ctx.out.print(f"[dim]{response.unread_count} unread[/]")


@cli.command()
@click.argument("agent_id")
@click.option("--limit", "-n", default=0, help="at most this many (default 100, max 1000)")
@click.pass_obj
def drain(ctx: Context, agent_id: str, limit: int) -> None:
    """Read and consume unread mail of AGENT_ID, oldest first."""
    response = ctx.run(lambda c: c.drain(agent_id, limit))
    print_messages(ctx, response.messages)
    if not ctx.json:
        ctx.out.print(f"[dim]{response.remaining} left unread[/]")


@cli.command()
@click.argument("agent_id")
@click.option("--ack", is_flag=True, help="consume what is shown (default: leave it unread)")
@click.option("--count", "-n", default=0, help="stop after this many messages")
@click.pass_obj
def tail(ctx: Context, agent_id: str, ack: bool, count: int) -> None:
    """Follow the inbox of AGENT_ID: unread mail, then new mail as it arrives."""

    async def follow(client: Client) -> None:
        shown = 0
        async with client.subscribe(agent_id, auto_ack=ack) as inbox:
            async for message in inbox:
                print_messages(ctx, [message])
                shown += 1
                if count and shown >= count:
                    return

    ctx.run(follow)


@cli.command()
@click.argument("target")
@click.argument("task", required=False)
@click.option("--timeout", type=float, default=None, help="seconds to wait (default: until answered)")
@click.option("--from", "source_agent", default="", envvar="FABRIC_AGENT", help="the asking agent id ($FABRIC_AGENT)")
@click.option("--requester", default="", help="a display label for who asks")
@click.option("--conversation", default="", help="a conversation id")
@click.pass_obj
def ask(ctx: Context, target: str, task: str | None, timeout: float | None, source_agent: str, requester: str,
        conversation: str) -> None:
    """Ask TARGET to do TASK (or standard input) and wait for its reply."""
    if task is None:
        task = sys.stdin.read()
    result = ctx.run(lambda c: c.ask(target, task, timeout=timeout, source_agent=source_agent or None,
                                     requester=requester, conversation_id=conversation))
    if ctx.json:
        click.echo(json.dumps({"result": result}, ensure_ascii=False))
    else:
        click.echo(result)


@cli.command()
@click.argument("agent_id")
@click.argument("result", required=False)
@click.option("--ticket", "ticket_id", default="", help="answer this ticket (default: the head of the queue)")
@click.pass_obj
def reply(ctx: Context, agent_id: str, result: str | None, ticket_id: str) -> None:
    """As AGENT_ID, answer the request at the head of its queue with RESULT (or standard input)."""
    if result is None:
        result = sys.stdin.read()
    answered = ctx.run(lambda c: c.reply(agent_id, result, ticket_id=ticket_id))
    if ctx.json:
        click.echo(json.dumps({"ticket_id": answered}))
    else:
        ctx.out.print(f"answered ticket {answered}")


@cli.command()
@click.argument("agent_id")
@click.pass_obj
def queue(ctx: Context, agent_id: str) -> None:
    """Show the requests waiting for AGENT_ID, head first."""
    tickets = ctx.run(lambda c: c.queue(agent_id))
    if ctx.json:
        for t in tickets:
            ctx.emit(t)
        return
    table = Table(box=None, header_style="bold")
    for column in ("POS", "TICKET", "REQUESTER", "AGE", "TASK"):
        table.add_column(column, justify="right" if column == "POS" else "left", no_wrap=column != "TASK")
    for t in tickets:
        preview = " ".join(t.task.split())
        table.add_row(str(t.position), t.ticket_id, t.requester, age(t.enqueue_time).removesuffix(" ago"),
                      preview[:60] + ("…" if len(preview) > 60 else ""))
    ctx.out.print(table)
    if not tickets:
        ctx.out.print(f"[dim]no requests waiting for {agent_id}[/]")


@cli.command()
@click.pass_obj
def status(ctx: Context) -> None:
    """Show the daemon's version, uptime, data folder, store use and counts."""
    s = ctx.run(lambda c: c.status())
    if ctx.json:
        ctx.emit(s)
        return
    uptime = age(s.start_time).removesuffix(" ago")
    used = s.map_used_bytes / max(1, s.map_size_bytes) * 100
    rows = [
        ("version", s.version), ("uptime", uptime), ("data dir", s.data_dir),
        ("listening on", ", ".join(s.listen_addresses)),
        ("store", f"{s.map_used_bytes / 2**20:.1f} MiB of {s.map_size_bytes / 2**30:.0f} GiB ({used:.2f}%)"),
        ("mailboxes", str(s.mailboxes)), ("queued tickets", str(s.queued_tickets)),
        ("outbox", f"{s.outbox_pending} pending of {s.outbox_rows} rows"),
        ("open streams", str(s.open_streams)), ("open waits", str(s.open_waits)),
        ("commits", f"{s.commits} ({s.writes} writes)"),
    ]
    table = Table(box=None, show_header=False)
    table.add_column(style="bold")
    table.add_column()
    for key, value in rows:
        table.add_row(key, value)
    ctx.out.print(table)


@cli.group()
def outbox() -> None:
    """The outbox: replies waiting, dead-lettered or delivered."""


ROW_STATES = {"pending": 1, "dead": 2, "delivered": 3, "all": 0}
ROW_STATE_NAMES = {1: "[yellow]pending[/]", 2: "[red]dead[/]", 3: "[green]delivered[/]"}


@outbox.command("ls")
@click.option("--state", type=click.Choice(list(ROW_STATES)), default="all", help="which rows")
@click.option("--limit", "-n", default=100, help="at most this many rows (max 1000)")
@click.option("--after", default="", help="rows after this key")
@click.pass_obj
def outbox_ls(ctx: Context, state: str, limit: int, after: str) -> None:
    """List outbox rows in key order with attempts, next attempt and last error."""
    page = ctx.run(lambda c: c.list_outbox(state=ROW_STATES[state], limit=limit, after_key=after))
    if ctx.json:
        for row in page.rows:
            ctx.emit(row)
        return
    table = Table(box=None, header_style="bold")
    for column in ("KEY", "STATE", "TO", "ATTEMPTS", "NEXT", "LAST ERROR"):
        table.add_column(column)
    for row in page.rows:
        nxt = time.strftime("%H:%M:%S", time.localtime(row.next_attempt_time.seconds)) if row.state == 1 else "-"
        table.add_row(row.key, ROW_STATE_NAMES.get(row.state, "?"), row.recipient.agent_id, str(row.attempts), nxt,
                      row.last_error or "-")
    ctx.out.print(table)
    if page.next_after_key:
        ctx.out.print(f"[dim]more: --after {page.next_after_key}[/]")


@outbox.command("retry")
@click.argument("keys", nargs=-1)
@click.pass_obj
def outbox_retry(ctx: Context, keys: tuple[str, ...]) -> None:
    """Put dead-lettered rows (all, or KEYS) back in the queue."""
    retried = ctx.run(lambda c: c.retry_dead_letters(keys))
    click.echo(json.dumps({"retried": retried}) if ctx.json else f"retried {retried} rows")


@outbox.command("drain")
@click.pass_obj
def outbox_drain(ctx: Context) -> None:
    """Deliver one page of due rows now."""
    r = ctx.run(lambda c: c.drain_outbox())
    if ctx.json:
        ctx.emit(r)
    else:
        click.echo(f"posted {r.posted}, failed {r.failed}" + (", more are due" if r.more else ""))


@cli.group()
def agents() -> None:
    """The agent directory's agents."""


@agents.command("ls")
@click.pass_obj
def agents_ls(ctx: Context) -> None:
    """List the directory's agents."""
    found = ctx.run(lambda c: c.list_agents())
    if ctx.json:
        for agent in found:
            ctx.emit(agent)
        return
    table = Table(box=None, header_style="bold")
    for column in ("AGENT", "NAME", "DESCRIPTION", "CREATED"):
        table.add_column(column)
    for a in found:
        table.add_row(a.agent_id, a.name, a.description or "-", age(a.create_time))
    ctx.out.print(table)


@agents.command("create")
@click.argument("name")
@click.option("--description", default="")
@click.option("--instructions", default="")
@click.option("--settings", default="", help="opaque, typically JSON")
@click.pass_obj
def agents_create(ctx: Context, name: str, description: str, instructions: str, settings: str) -> None:
    """Create an agent named NAME (names are unique)."""
    agent = ctx.run(lambda c: c.create_agent(name, description=description, instructions=instructions,
                                             settings=settings))
    if ctx.json:
        ctx.emit(agent)
    else:
        click.echo(agent.agent_id)


@cli.command()
@click.argument("agent_id")
@click.option("--create", "title", default=None, help="create a thread with this title instead of listing")
@click.pass_obj
def threads(ctx: Context, agent_id: str, title: str | None) -> None:
    """List the threads of AGENT_ID (or create one with --create TITLE)."""
    if title is not None:
        thread = ctx.run(lambda c: c.create_thread(agent_id, title=title))
        if ctx.json:
            ctx.emit(thread)
        else:
            click.echo(thread.thread_id)
        return
    found = ctx.run(lambda c: c.list_threads(agent_id))
    if ctx.json:
        for thread in found:
            ctx.emit(thread)
        return
    table = Table(box=None, header_style="bold")
    for column in ("THREAD", "TITLE", "KIND", "CREATED"):
        table.add_column(column)
    for t in found:
        table.add_row(t.thread_id, t.title or "-", t.kind or "-", age(t.create_time))
    ctx.out.print(table)


REQUEST_FILTERS = {"pending": 1, "notifications": 2, "all": 3}


@cli.command()
@click.option("--filter", "which", type=click.Choice(list(REQUEST_FILTERS)), default="pending")
@click.option("--limit", "-n", default=100, help="at most this many (max 1000)")
@click.pass_obj
def requests(ctx: Context, which: str, limit: int) -> None:
    """List admitted requests: pending (default), notifications owed, or all."""
    page = ctx.run(lambda c: c.list_requests(REQUEST_FILTERS[which], page_size=limit))
    if ctx.json:
        for request in page.requests:
            ctx.emit(request)
        return
    table = Table(box=None, header_style="bold")
    for column in ("REQUEST", "AGENT", "THREAD", "STATE", "SOURCE", "ADMITTED", "TEXT"):
        table.add_column(column)
    for r in page.requests:
        state = "pending" if r.state == 1 else ("settled" + (", notify" if r.notify and not r.notification_sent else ""))
        text = " ".join(r.submission.text.split())
        table.add_row(r.request_id, r.agent_id, r.thread_id, state, r.submission.source_kind or "-",
                      age(r.admit_time), text[:50] + ("…" if len(text) > 50 else ""))
    ctx.out.print(table)
    data = ctx.run(lambda c: c.directory_data())
    ctx.out.print(f"[dim]{data.pending} pending ({data.ordinary_pending} ordinary, {data.notification_pending} "
                  f"notification), {data.notifications} notifications owed, sequence {data.sequence}[/]")


@cli.command()
@click.argument("agent_id")
@click.argument("text")
@click.option("--thread", "thread_id", default="", help="admit into this thread (default: a new one)")
@click.option("--source-kind", default="", help='"notification" counts as notification pending')
@click.option("--response", default=None, help="an agent id to tell when the request settles")
@click.option("--optional", is_flag=True, help="work the host may decline while unavailable or busy")
@click.option("--depth", default=0, help="causal depth")
@click.pass_obj
def admit(ctx: Context, agent_id: str, text: str, thread_id: str, source_kind: str, response: str | None,
          optional: bool, depth: int) -> None:
    """Admit TEXT as a request to AGENT_ID; a refusal prints its reason and exits 1."""
    from fabricd.v1 import agent_directory_service_pb2 as ad

    submission = ad.Submission(text=text, source_kind=source_kind, causal_depth=depth, response=response)
    admission = ctx.run(lambda c: c.admit(agent_id, submission, thread_id=thread_id, optional_work=optional))
    if ctx.json:
        ctx.emit(admission)
    elif admission.accepted:
        click.echo(f"admitted {admission.request_id} in thread {admission.thread_id}")
    else:
        click.echo(f"refused: {admission.reason}", err=True)
    if not admission.accepted:
        sys.exit(1)


@cli.command()
@click.argument("request_id")
@click.option("--thread", "thread_id", default="", help="check that this thread holds the request")
@click.option("--notify", is_flag=True, help="keep it in the notifications set until notification-sent")
@click.option("--interactive", is_flag=True)
@click.pass_obj
def settle(ctx: Context, request_id: str, thread_id: str, notify: bool, interactive: bool) -> None:
    """Settle REQUEST_ID: it leaves the pending set (settling twice changes nothing)."""
    request = ctx.run(lambda c: c.settle(request_id, thread_id=thread_id, notify=notify, interactive=interactive))
    if ctx.json:
        ctx.emit(request)
    else:
        click.echo(f"settled {request.request_id}")


@cli.group()
def token() -> None:
    """Access tokens: issue, revoke, list (admin only)."""


@token.command("issue")
@click.option("--agent", "agent_id", default="", help="a token that acts as this agent only")
@click.option("--admin", is_flag=True, help="a token that may do everything")
@click.option("--label", default="", help="a note to tell tokens apart")
@click.pass_obj
def token_issue(ctx: Context, agent_id: str, admin: bool, label: str) -> None:
    """Issue a token; it is printed once and stored only as a hash."""
    if admin == bool(agent_id):
        raise click.UsageError("pass exactly one of --agent ID and --admin")
    issued = ctx.run(lambda c: c.issue_token(agent_id=agent_id, admin=admin, label=label))
    if ctx.json:
        click.echo(json.dumps({"token_id": issued.info.token_id, "token": issued.token}))
    else:
        click.echo(issued.token)
        click.echo(f"token id {issued.info.token_id}: keep the token secret; it is not shown again", err=True)


@token.command("revoke")
@click.argument("token_id")
@click.pass_obj
def token_revoke(ctx: Context, token_id: str) -> None:
    """Revoke a token by its id (see `fabric token ls`)."""
    revoked = ctx.run(lambda c: c.revoke_token(token_id))
    click.echo(json.dumps({"revoked": revoked}) if ctx.json else ("revoked" if revoked else "no such live token"))
    if not revoked:
        sys.exit(1)


@token.command("ls")
@click.pass_obj
def token_ls(ctx: Context) -> None:
    """List tokens (ids and scopes; never the tokens themselves)."""
    tokens = ctx.run(lambda c: c.list_tokens())
    if ctx.json:
        for t in tokens:
            ctx.emit(t)
        return
    table = Table(box=None, header_style="bold")
    for column in ("TOKEN ID", "SCOPE", "AGENT", "LABEL", "ISSUED", "REVOKED"):
        table.add_column(column)
    for t in tokens:
        table.add_row(t.token_id, "admin" if t.scope == 1 else "agent", t.agent_id or "-", t.label or "-",
                      age(t.create_time), age(t.revoke_time) if t.revoke_time.seconds else "-")
    ctx.out.print(table)


@cli.command()
@click.option("--agent", "agent_id", required=True, help="the agent id this bridge acts as")
@click.option("--name", "session_name", default="", help="a display name peers can address (default: none)")
@click.pass_obj
def mcp(ctx: Context, agent_id: str, session_name: str) -> None:
    """Run a Model Context Protocol server on stdio that puts an AI agent on the fabric as AGENT."""
    try:
        from fabricd.cli import mcp_bridge
        import mcp as _sdk  # noqa: F401
    except ImportError:
        raise click.ClickException("the MCP bridge needs the mcp SDK: pip install 'fabricd[mcp]'") from None
    ctx.run_plain(lambda: mcp_bridge.serve(ctx.target, ctx.token, agent_id, session_name))


def main() -> None:
    cli(prog_name="fabric")


if __name__ == "__main__":
    main()
