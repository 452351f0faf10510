"""`fabric ticket`: one rendezvous ticket in any state (show, cancel), and an agent's tickets (ls)."""

from __future__ import annotations

import click
from rich.table import Table
from rich.text import Text

from fabricd.cli.app import Context, age, cli
from fabricd.cli.show import cell, preview, write
from fabricd.v1 import rendezvous_service_pb2 as rv_pb

STATES = {"queued": rv_pb.TICKET_STATE_QUEUED, "answered": rv_pb.TICKET_STATE_ANSWERED,
          "aborted": rv_pb.TICKET_STATE_ABORTED}


def _state(t: rv_pb.Ticket) -> str:
    if t.state == rv_pb.TICKET_STATE_QUEUED:
        return "queued (head)" if t.position == 0 else f"queued ({t.position} ahead)"
    if t.state == rv_pb.TICKET_STATE_ANSWERED:
        return rv_pb.TicketOutcome.Name(t.outcome).removeprefix("TICKET_OUTCOME_").lower().replace("_", "-")
    return "aborted"


@cli.group()
def ticket() -> None:
    """Rendezvous tickets: show one, cancel one, list an agent's."""


@ticket.command()
@click.argument("ticket_id")
@click.pass_obj
def show(ctx: Context, ticket_id: str) -> None:
    """Show TICKET_ID: its state (position while queued, outcome once answered), task and result."""
    t = ctx.run(lambda c: c.get_ticket(ticket_id))
    if ctx.json:
        ctx.emit(t)
        return
    write([(f"ticket {t.ticket_id} for {t.target} from {t.requester}: {_state(t)}", "")])
    if t.conversation_id:
        write([(f"conversation: {t.conversation_id}", "")])
    for n, turn in enumerate(t.earlier_turns, 1):
        write([(f"turn {n} task: {turn.task}\nturn {n} asked back: {turn.result}", "")])
    write([(f"task: {t.task}", "")])
    if t.data:
        write([(f"task data: {len(t.data)} bytes ({t.headers.get('content-type', 'no content-type')})", "")])
    if t.state == rv_pb.TICKET_STATE_ANSWERED:
        write([(f"result: {t.result}", "")])
    elif t.state == rv_pb.TICKET_STATE_ABORTED:
        write([(f"reason: {t.reason}", "")])


@ticket.command()
@click.argument("ticket_id")
@click.pass_obj
def cancel(ctx: Context, ticket_id: str) -> None:
    """Withdraw TICKET_ID wherever it stands in its queue (a finished ticket is left as it is)."""
    response = ctx.run(lambda c: c.cancel_ticket(ticket_id))
    if ctx.json:
        ctx.emit(response)
    elif response.cancelled:
        ctx.out.print(f"cancelled ticket {ticket_id}")
    else:
        ctx.out.print(f"ticket {ticket_id} had already finished ({_state(response.ticket)}): left as it is")


@ticket.command("ls")
@click.argument("agent_id")
@click.option("--state", "states", type=click.Choice(list(STATES)), multiple=True, help="only these states")
@click.option("--conversation", default="", help="only this conversation")
@click.option("--asked-by", default="", help="only tickets this agent asked")
@click.option("--limit", "-n", default=0, help="at most this many (newest first); default: every ticket kept")
@click.pass_obj
def ls(ctx: Context, agent_id: str, states: tuple[str, ...], conversation: str, asked_by: str, limit: int) -> None:
    """List AGENT_ID's tickets in any state, newest first (finished ones are kept for the retention)."""
    tickets = ctx.run(lambda c: c.list_tickets(agent_id, conversation_id=conversation,
                                               states=[STATES[s] for s in states], source_agent_id=asked_by,
                                               page_size=limit))
    if ctx.json:
        for t in tickets:
            ctx.emit(t)
        return
    table = Table(box=None, header_style="bold")
    for column in ("TICKET", "STATE", "REQUESTER", "AGE", "TASK"):
        table.add_column(column, no_wrap=column != "TASK")
    for t in tickets:
        table.add_row(cell(t.ticket_id), _state(t), cell(t.requester),
                      age(t.enqueue_time).removesuffix(" ago"), cell(preview(t.task)))
    ctx.out.print(table)
    if not tickets:
        ctx.out.print(Text(f"no tickets for {agent_id}", style="dim"))
