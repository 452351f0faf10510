"""`fabric ask`: ask an agent and wait, showing the ticket and its place in the queue while it waits.

The ask is one Ask call, so a caller that goes away (Ctrl-C, a closed
terminal, a kill) retires its ticket in the daemon. Beside it, WatchQueue
finds our ticket (the new one with our task and source) and reports its
position as the queue moves; on Ctrl-C we wait until the ticket has left the
queue before saying it was withdrawn.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import click

from fabricd.cli import show
from fabricd.cli.app import Context, cli, text_argument
from fabricd.client import Client, FabricError
from fabricd.v1 import rendezvous_service_pb2 as rv_pb

WITHDRAW_CONFIRM_S = 5.0


class Progress:
    """Follows the target's queue and reports where our ticket stands."""

    def __init__(self, target: str, matches: Callable[[Any], bool], say: Callable[[str], None]) -> None:
        self.target = target
        self._matches = matches
        self._say = say
        self._known: set[str] = set()
        self.ticket_id = ""
        self._position: int | None = None
        self.gone = asyncio.Event()

    def baseline(self, tickets: list[Any]) -> None:
        self._known = {t.ticket_id for t in tickets}

    def update(self, tickets: list[Any]) -> None:
        if not self.ticket_id:
            mine = next((t for t in tickets if t.ticket_id not in self._known and self._matches(t)), None)
            if mine is None:
                return
            self.ticket_id = mine.ticket_id
        here = next((t for t in tickets if t.ticket_id == self.ticket_id), None)
        if here is None:
            self.gone.set()
            return
        if here.position == self._position:
            return
        first = self._position is None
        self._position = here.position
        where = (f"is at the head of {self.target}'s queue: waiting for the answer" if here.position == 0 else
                 f"is at position {here.position} in {self.target}'s queue ({here.position} ahead)")
        self._say(("asked " + self.target + ": " if first else "") + f"ticket {self.ticket_id} {where}")


async def _follow(updates: AsyncIterator[list[Any]], progress: Progress) -> None:
    with contextlib.suppress(FabricError):  # the view is a courtesy: the ask itself reports real errors
        async for tickets in updates:
            progress.update(tickets)


async def ask_with_progress(ctx: Context, client: Client, target: str, task: str,
                            **options: Any) -> rv_pb.AskResponse | None:
    """The answer, or None after Ctrl-C (the ticket withdrawn, and said so)."""
    source = options.get("source_agent") or ""

    def matches(t: Any) -> bool:
        if options.get("continue_ticket_id"):  # a follow-up: the same ticket, queued again
            return t.ticket_id == options["continue_ticket_id"]
        return (t.task == task and t.source.agent_id == source and t.conversation_id == options["conversation_id"]
                and (not options["requester"] or t.requester == options["requester"]))

    progress = Progress(target, matches, ctx.note)
    updates = client.watch_queue(target, max_tickets=1000)
    follower = None
    try:
        try:
            progress.baseline(await anext(updates))
        except (FabricError, StopAsyncIteration):
            pass  # the Ask below reports why (an unknown target, say)
        else:
            follower = asyncio.create_task(_follow(updates, progress))
        asking = asyncio.ensure_future(client.ask_answer(target, task, **options))
        try:
            return await asking
        except asyncio.CancelledError:  # Ctrl-C: asyncio.run cancels us, and the Ask call with us
            asking.cancel()
            await _confirm_withdrawn(ctx, client, progress)
            return None
    finally:
        if follower is not None:
            follower.cancel()
            await asyncio.gather(follower, return_exceptions=True)  # it holds the generator until it stops
        await updates.aclose()


async def _confirm_withdrawn(ctx: Context, client: Client, progress: Progress) -> None:
    if not progress.ticket_id:
        ctx.note(f"ask cancelled: its ticket leaves {progress.target}'s queue as the call ends")
        return
    with contextlib.suppress(FabricError):  # at the head it can be retired at once, not only when the call ends
        await client.cancel_head(progress.target, progress.ticket_id)
    try:
        await asyncio.wait_for(progress.gone.wait(), WITHDRAW_CONFIRM_S)
    except TimeoutError:
        ctx.note(f"could not confirm that ticket {progress.ticket_id} was withdrawn: see `fabric queue "
                 f"{progress.target}`")
    else:
        ctx.note(f"withdrew ticket {progress.ticket_id} from {progress.target}'s queue")


@cli.command()
@click.argument("target")
@click.argument("task", required=False)
@click.option("--file", "-f", "path", type=click.Path(dir_okay=False, allow_dash=True),
              help="the task is the text of this file ('-' for standard input)")
@click.option("--timeout", type=float, default=None, help="seconds to wait (default: until answered)")
@click.option("--from", "source_agent", default="", envvar="FABRIC_AGENT", help="the asking agent id ($FABRIC_AGENT)")
@click.option("--requester", default="", help="a display label for who asks")
@click.option("--conversation", default="", help="a conversation id")
@click.option("--continue", "continue_ticket_id", default="", metavar="TICKET",
              help="answer TICKET's question (it was answered input-required): the same ticket, its next turn")
@click.pass_obj
def ask(ctx: Context, target: str, task: str | None, path: str | None, timeout: float | None, source_agent: str,
        requester: str, conversation: str, continue_ticket_id: str) -> None:
    """Ask TARGET to do TASK (or --file PATH, or piped standard input) and wait for its reply.

    While it waits, the ticket id and its place in TARGET's queue are shown on
    standard error; Ctrl-C withdraws the ticket. The reply is printed; when TARGET
    did not complete the task (it asks back, rejects or failed) a note on standard
    error says so and the exit status is 3.
    """
    task = text_argument(task, path, "TASK")
    answer = ctx.run(lambda c: ask_with_progress(ctx, c, target, task, timeout=timeout,
                                                 source_agent=source_agent or None, requester=requester,
                                                 conversation_id=conversation,
                                                 continue_ticket_id=continue_ticket_id))
    if answer is None:
        raise SystemExit(130)
    outcome = OUTCOMES.get(answer.outcome, "completed")
    if ctx.json:
        click.echo(json.dumps({"result": answer.result, "outcome": outcome, "ticket_id": answer.ticket_id},
                              ensure_ascii=False))
    else:
        show.write([(answer.result, "")])
    if outcome == "input-required":
        ctx.note(f"{target} asks back (input required): answer with `fabric ask {target} ANSWER --continue "
                 f"{answer.ticket_id}`")
    elif outcome != "completed":
        ctx.note(f"{target} did not complete the task: {outcome}")
    if outcome != "completed":
        raise SystemExit(3)


OUTCOMES = {rv_pb.TICKET_OUTCOME_INPUT_REQUIRED: "input-required", rv_pb.TICKET_OUTCOME_REJECTED: "rejected",
            rv_pb.TICKET_OUTCOME_FAILED: "failed"}
