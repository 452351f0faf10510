"""`fabric wait AGENT`: block until AGENT has work (unread mail or a queued request), then say what is there.

For shell loops and harnesses that run one headless agent turn per wake:

    while fabric wait reviewer --timeout 3600; do my-agent --one-turn; done
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys

import click

from fabricd.cli.app import Context, agent_named, cli, queue_heads
from fabricd.client import Client

TIMED_OUT = 124
"""The exit status when nothing arrived in time, as timeout(1) has it."""


async def _work(client: Client, agent_id: str) -> tuple[int, list[str]]:
    """(unread messages, ids of queued tickets) now."""
    peeked = await client.peek(agent_id, limit=1)
    queue = await client.get_queue(agent_id)
    return peeked.unread_count, [t.ticket_id for t in queue]


async def _arrival(client: Client, agent_id: str) -> None:
    """Return on the first sign of work: a message in the inbox or a ticket in the queue."""

    async def mail() -> None:
        async with client.subscribe(agent_id, auto_ack=False, wait=0) as inbox:
            await anext(inbox)

    async def ticket() -> None:
        async for queue in queue_heads(client, agent_id):  # through daemon restarts, as the subscription (wait=0)
            if queue:
                return

    tasks = [asyncio.ensure_future(mail()), asyncio.ensure_future(ticket())]
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for task in done:
            task.result()  # a stream's error (auth, unknown agent) is the command's error
    finally:
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task


@cli.command("wait")
@click.argument("agent_id")
@click.option("--timeout", "timeout_s", default=0.0, help="give up after this many seconds (exit 124); 0 waits forever")
@click.pass_obj
def wait_for_work(ctx: Context, agent_id: str, timeout_s: float) -> None:
    """Wait until AGENT_ID has unread mail or a queued request, print what is waiting, exit 0.

    Nothing is read or consumed: the agent's own turn does that.
    """

    async def run(client: Client) -> tuple[int, list[str]] | None:
        agent = await agent_named(client, agent_id, must_exist=True)
        unread, tickets = await _work(client, agent)
        if not unread and not tickets:
            try:
                await asyncio.wait_for(_arrival(client, agent), timeout_s or None)
            except TimeoutError:
                return None
            unread, tickets = await _work(client, agent)
        return unread, tickets

    found = ctx.run(run)
    if found is None:
        click.echo(f"fabric: nothing arrived for {agent_id} within {timeout_s:g}s", err=True)
        sys.exit(TIMED_OUT)
    unread, tickets = found
    if ctx.json:
        click.echo(json.dumps({"agent_id": agent_id, "unread": unread, "queued_tickets": tickets}))
    else:
        ctx.out.print(f"{agent_id}: {unread} unread, {len(tickets)} queued request(s)"
                      + (f" (next ticket {tickets[0]})" if tickets else ""))
