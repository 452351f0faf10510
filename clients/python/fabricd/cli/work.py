"""`fabric` commands for work between agents: reply and queue (ask.py: ask); the outbox; the agent directory."""

from __future__ import annotations

import asyncio
import json
import shlex
import sys
import time

import click
from rich.table import Table
from rich.text import Text

from fabricd.cli import show
from fabricd.cli.app import Context, age, cli, queue_heads, text_argument
from fabricd.client import Client
from fabricd.v1 import rendezvous_service_pb2 as rv_pb

OUTCOMES = {"completed": rv_pb.TICKET_OUTCOME_COMPLETED, "input-required": rv_pb.TICKET_OUTCOME_INPUT_REQUIRED,
            "rejected": rv_pb.TICKET_OUTCOME_REJECTED, "failed": rv_pb.TICKET_OUTCOME_FAILED}


@cli.command()
@click.argument("agent_id")
@click.argument("result", required=False)
@click.option("--ticket", "ticket_id", default="", help="answer this ticket (default: the head of the queue)")
@click.option("--file", "-f", "path", type=click.Path(dir_okay=False, allow_dash=True),
              help="the result is the text of this file ('-' for standard input)")
@click.option("--wait", "wait_s", default=0.0, show_default=True,
              help="seconds to wait for a request to arrive when none is queued (0: answer now or fail)")
@click.option("--outcome", type=click.Choice(list(OUTCOMES)), default="completed", show_default=True,
              help="input-required: RESULT is a question the asker answers by continuing the ticket; "
                   "rejected, failed: RESULT says why")
@click.pass_obj
def reply(ctx: Context, agent_id: str, result: str | None, ticket_id: str, path: str | None, wait_s: float,
          outcome: str) -> None:
    """As AGENT_ID, answer the request at the head of its queue with RESULT (or --file PATH, or piped input)."""
    result = text_argument(result, path, "RESULT")

    async def answer(client: Client) -> str:
        if wait_s > 0:
            try:
                await asyncio.wait_for(_queued(client, agent_id, ticket_id), wait_s)
            except TimeoutError:
                raise click.ClickException(f"no request for {agent_id} arrived within {wait_s:g}s") from None
        return await client.reply(agent_id, result, ticket_id=ticket_id, outcome=OUTCOMES[outcome])

    answered = ctx.run(answer)
    if ctx.json:
        click.echo(json.dumps({"ticket_id": answered}))
    else:
        ctx.out.print(f"answered ticket {answered}")


async def _queued(client: Client, agent_id: str, ticket_id: str) -> None:
    """Return once `agent_id`'s queue holds a request (`ticket_id`, when given)."""
    async for tickets in queue_heads(client, agent_id, max_tickets=1000):  # through daemon restarts
        if any(not ticket_id or t.ticket_id == ticket_id for t in tickets):
            return


@cli.command()
@click.argument("agent_id")
@click.pass_obj
def queue(ctx: Context, agent_id: str) -> None:
    """Show the requests waiting for AGENT_ID, head first."""
    tickets = ctx.run(lambda c: c.get_queue(agent_id))
    if ctx.json:
        for t in tickets:
            ctx.emit(t)
        return
    table = Table(box=None, header_style="bold")
    for column in ("POS", "TICKET", "REQUESTER", "AGE", "TASK"):
        table.add_column(column, justify="right" if column == "POS" else "left", no_wrap=column != "TASK")
    for t in tickets:
        table.add_row(str(t.position), show.cell(t.ticket_id), show.cell(t.requester),
                      age(t.enqueue_time).removesuffix(" ago"), show.cell(show.preview(t.task)))
    ctx.out.print(table)
    if not tickets:
        ctx.out.print(Text(f"no requests waiting for {agent_id}", style="dim"))


@cli.group()
def outbox() -> None:
    """The outbox: replies waiting, dead-lettered or delivered."""


ROW_STATES = {"pending": 1, "dead": 2, "delivered": 3, "all": 0}
ROW_STATE_NAMES = {1: Text("pending", style="yellow"), 2: Text("dead", style="red"),
                   3: Text("delivered", style="green")}


@outbox.command("ls")
@click.option("--state", type=click.Choice(list(ROW_STATES)), default="all", help="which rows")
@click.option("--limit", "-n", default=0, help="one page of at most this many rows (max 1000); default: every row")
@click.option("--after", default="", help="rows after this key (after every agent's row with it)")
@click.option("--after-agent", default=None, help="with --after: go on after this settling agent's row of the key")
@click.pass_obj
def outbox_ls(ctx: Context, state: str, limit: int, after: str, after_agent: str | None) -> None:
    """List outbox rows in key order (then settling agent) with attempts, next attempt and last error."""
    if after_agent is not None:
        after += "\0" + after_agent  # a row cursor, as next_after_key hands out
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
        table.add_row(show.cell(row.key), ROW_STATE_NAMES.get(row.state, "?"), show.cell(row.recipient.agent_id),
                      str(row.attempts), nxt, show.cell(row.last_error or "-"))
    ctx.out.print(table)
    if page.next_after_key:
        key, sep, agent = page.next_after_key.partition("\0")  # the last row's cursor: key NUL settling agent
        more = f"--after {shlex.quote(key)}" + (f" --after-agent {shlex.quote(agent)}" if sep else "")
        ctx.out.print(Text(f"more: {more}", style="dim"))


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
    found = sorted(ctx.run(lambda c: c.list_agents()), key=lambda a: (a.create_time.ToNanoseconds(), a.agent_id))
    if ctx.json:
        for agent in found:
            ctx.emit(agent)
        return
    table = Table(box=None, header_style="bold")
    for column in ("AGENT", "NAME", "DESCRIPTION", "CREATED"):
        table.add_column(column)
    for a in found:
        table.add_row(show.cell(a.agent_id), show.cell(a.name), show.cell(a.description or "-"), age(a.create_time))
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
        table.add_row(show.cell(t.thread_id), show.cell(t.title or "-"), show.cell(t.kind or "-"), age(t.create_time))
    ctx.out.print(table)


REQUEST_FILTERS = {"pending": 1, "notifications": 2, "all": 3}


@cli.command()
@click.option("--filter", "which", type=click.Choice(list(REQUEST_FILTERS)), default="pending")
@click.option("--limit", "-n", default=0, help="only the first this many (max 1000); default: every request")
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
        table.add_row(show.cell(r.request_id), show.cell(r.agent_id), show.cell(r.thread_id), state,
                      show.cell(r.submission.source_kind or "-"), age(r.admit_time),
                      show.cell(show.preview(r.submission.text, 50)))
    ctx.out.print(table)
    data = ctx.run(lambda c: c.get_directory_data())
    ctx.out.print(Text(f"{data.pending} pending ({data.ordinary_pending} ordinary, {data.notification_pending} "
                       f"notification), {data.notifications} notifications owed, sequence {data.sequence}",
                       style="dim"))


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
