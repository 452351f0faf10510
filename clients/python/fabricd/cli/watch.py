"""`fabric watch`: a live view of the fabric in the terminal, from WatchMailboxes and WatchQueue.

One WatchMailboxes stream gives every mailbox with its presence; a WatchQueue
stream per mailbox (at most MAX_QUEUES) gives its requests; unread counts and
the channels (their members and last post) are re-read each second. What changes between two updates (mail delivered or
read, tickets queued or gone, agents registered or busy) is listed as recent
activity. `--once` prints one snapshot and exits;
`--events N` exits after N changes, for scripts and tests.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import sys
import time
from typing import Any

import click
from rich.console import Group
from rich.live import Live
from rich.table import Table
from rich.text import Text

from fabricd.cli import show
from fabricd.cli.app import PRESENCE, Context, age, cli, to_json
from fabricd.client import Client, FabricError

MAX_QUEUES = 64  # WatchQueue streams one view opens; more mailboxes show without their queues
RECENT = 12


class View:
    """What the screen shows, updated from the streams; `changed` wakes the renderer."""

    def __init__(self, on_event: Any) -> None:
        self.mailboxes: dict[str, Any] = {}
        self.queues: dict[str, list[Any]] = {}
        self.channels: dict[str, Any] = {}
        self.recent: collections.deque[tuple[float, str]] = collections.deque(maxlen=RECENT)
        self.events = 0
        self.changed = asyncio.Event()
        self._on_event = on_event

    def event(self, text: str) -> None:
        self.recent.append((time.time(), text))
        self.events += 1
        self._on_event(text)

    def mailbox(self, entry: Any, initial: bool) -> None:
        before = self.mailboxes.get(entry.agent_id)
        self.mailboxes[entry.agent_id] = entry
        if initial:
            return
        name = entry.agent_id
        if before is None:
            self.event(f"{name} {'registered' if entry.registered else 'created by arriving mail'}")
        elif entry.registered and not before.registered:
            self.event(f"{name} registered")
        if entry.unread_count != (before.unread_count if before else 0):
            delta = entry.unread_count - (before.unread_count if before else 0)
            self.event(f"{delta} new message{'s' if delta != 1 else ''} for {name}" if delta > 0 else
                       f"{name} read {-delta} message{'s' if delta != -1 else ''}")
        if before is not None and entry.busy != before.busy:
            self.event(f"{name} is {'busy' if entry.busy else 'idle'}")
        self.changed.set()

    def queue(self, agent_id: str, tickets: list[Any], initial: bool) -> None:
        before = {t.ticket_id for t in self.queues.get(agent_id, [])}
        self.queues[agent_id] = tickets
        if initial:
            return
        now = {t.ticket_id for t in tickets}
        for t in tickets:
            if t.ticket_id not in before:
                self.event(f"ticket {t.ticket_id} queued for {agent_id} by {t.requester or '?'}")
        for ticket_id in sorted(before - now):
            self.event(f"ticket {ticket_id} left {agent_id}'s queue (answered or withdrawn)")
        self.changed.set()

    def channel_list(self, channels: list[Any], initial: bool) -> None:
        """The channels as listed now: new posts and new or deleted channels are activity."""
        before = self.channels
        self.channels = {c.name: c for c in channels}
        if initial:
            return
        for name, c in self.channels.items():
            old = before.get(name)
            if old is None:
                self.event(f"channel #{name} created")
            elif c.last_seq > old.last_seq:
                n = c.last_seq - old.last_seq
                self.event(f"{n} new post{'s' if n != 1 else ''} in #{name}")
        for name in sorted(set(before) - set(self.channels)):
            self.event(f"channel #{name} deleted")
        self.changed.set()

    def recall(self) -> None:
        """Recent activity from the snapshot, for a view that saw no change yet (`--once`): each mailbox's
        last activity and each queued ticket's arrival, newest last."""
        past = [(e.last_activity_time.seconds + e.last_activity_time.nanos / 1e9,
                 f"{a} active ({e.unread_count} unread)")
                for a, e in self.mailboxes.items() if e.last_activity_time.seconds]
        past += [(t.enqueue_time.seconds + t.enqueue_time.nanos / 1e9,
                  f"ticket {t.ticket_id} queued for {a} by {t.requester or '?'}")
                 for a, tickets in self.queues.items() for t in tickets]
        self.recent.extend(sorted(past)[-RECENT:])

    def render(self) -> Group:
        boxes = Table(title="mailboxes", title_justify="left", box=None, header_style="bold")
        for column in ("AGENT", "NAME", "PRESENCE", "UNREAD", "QUEUED", "LAST ACTIVE"):
            boxes.add_column(column, justify="right" if column in ("UNREAD", "QUEUED") else "left")
        for agent_id in sorted(self.mailboxes):
            e = self.mailboxes[agent_id]
            queued = len(self.queues[agent_id]) if agent_id in self.queues else "-"
            boxes.add_row(show.cell(agent_id), show.cell(e.session_name or "-"), PRESENCE.get(e.presence, "?"),
                          str(e.unread_count),
                          str(queued), age(e.last_activity_time))
        channels = Table(title="channels", title_justify="left", box=None, header_style="bold")
        for column in ("CHANNEL", "MEMBERS", "POSTS", "LAST", "DESCRIPTION"):
            channels.add_column(column, justify="right" if column in ("MEMBERS", "POSTS", "LAST") else "left")
        for name in sorted(self.channels):
            c = self.channels[name]
            channels.add_row(show.cell("#" + name), str(c.member_count), str(c.message_count), str(c.last_seq),
                             show.cell(show.preview(c.description, 40)))
        queues = Table(title="queues", title_justify="left", box=None, header_style="bold")
        for column in ("TARGET", "POS", "TICKET", "REQUESTER", "WAITING", "TASK"):
            queues.add_column(column, justify="right" if column == "POS" else "left", no_wrap=column != "TASK")
        for agent_id in sorted(self.queues):
            for t in self.queues[agent_id]:
                queues.add_row(show.cell(agent_id), str(t.position), show.cell(t.ticket_id),
                               show.cell(t.requester or "-"), age(t.enqueue_time).removesuffix(" ago"),
                               show.cell(show.preview(t.task, 50)))
        recent = Text("recent activity\n", style="italic")
        for when, text in self.recent:
            recent.append(f"{time.strftime('%H:%M:%S', time.localtime(when))} {show.one_line(text)}\n")
        if not self.recent:
            recent.append("nothing yet\n", style="dim")
        parts: list[Any] = [boxes if self.mailboxes else Text("no mailboxes yet", style="dim"), Text("")]
        if self.channels:  # no section at all on a fabric without channels
            parts += [channels, Text("")]
        parts += [queues if any(self.queues.values()) else Text("no requests waiting", style="dim"), Text(""), recent]
        return Group(*parts)

    def as_json(self) -> dict[str, Any]:
        return {"mailboxes": [to_json(self.mailboxes[a]) for a in sorted(self.mailboxes)],
                "queues": {a: [to_json(t) for t in ts] for a, ts in sorted(self.queues.items()) if ts},
                "channels": [to_json(self.channels[n]) for n in sorted(self.channels)],
                "recent": [{"time": when, "event": text} for when, text in self.recent]}


class Streams:
    """The streams behind a view: WatchMailboxes, a WatchQueue per mailbox, and a poll of unread counts.

    WatchMailboxes reports registrations, heartbeats and busy changes but not
    arriving or consumed mail, so unread counts are re-read every POLL_S.
    """

    POLL_S = 1.0

    def __init__(self, client: Client, view: View) -> None:
        self.client = client
        self.view = view
        self.tasks: set[asyncio.Task[None]] = set()

    async def saw(self, entries: list[Any], initial: bool) -> None:
        """Record entries; start (and, in the snapshot, wait for) a queue stream for each new mailbox."""
        started = []
        for entry in entries:
            fresh = entry.agent_id not in self.view.mailboxes
            self.view.mailbox(entry, initial)
            if fresh and len(self.tasks) < MAX_QUEUES:
                started.append(asyncio.Event())
                self.tasks.add(asyncio.create_task(self._queue(entry.agent_id, started[-1])))
        if initial:
            await asyncio.gather(*(queue_ready.wait() for queue_ready in started))
        self.view.changed.set()

    async def _queue(self, agent_id: str, ready: asyncio.Event) -> None:
        initial = True
        with contextlib.suppress(FabricError):
            async for tickets in self.client.watch_queue(agent_id):
                self.view.queue(agent_id, tickets, initial)
                if initial:
                    initial = False
                    ready.set()
        ready.set()

    async def follow(self, ready: asyncio.Event) -> None:
        """The mailbox stream until it ends; a poll of unread counts once the snapshot is in."""
        initial = True
        async for response in self.client.watch_mailboxes():
            await self.saw([e.entry for e in response.events], initial)
            if response.snapshot_complete and initial:
                initial = False
                await self._channels(True)
                ready.set()
                self.tasks.add(asyncio.create_task(self._poll()))

    async def _poll(self) -> None:
        with contextlib.suppress(FabricError):
            while True:
                await asyncio.sleep(self.POLL_S)
                await self.saw(await self.client.list_mailboxes(), False)
                await self._channels(False)

    async def _channels(self, initial: bool) -> None:
        """The channels now (a daemon without ChannelService, or a refusal: none shown)."""
        try:
            channels = await self.client.list_channels()
        except FabricError:
            return
        self.view.channel_list(list(channels), initial)

    async def stop(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)


async def watch_fabric(ctx: Context, client: Client, once: bool, events: int) -> None:
    emit_events = ctx.json and not once
    view = View(lambda text: click.echo(json.dumps({"time": time.time(), "event": text})) if emit_events else None)
    ready = asyncio.Event()
    streams = Streams(client, view)
    follower = asyncio.create_task(streams.follow(ready))
    try:
        await _first(ready.wait(), follower)
        if once:
            view.recall()
            if ctx.json:
                click.echo(json.dumps(view.as_json(), ensure_ascii=False))
            else:
                ctx.out.print(view.render())
            return
        ctx.note(f"watching {len(view.mailboxes)} mailboxes and their queues (Ctrl-C to stop)")
        with contextlib.suppress(asyncio.CancelledError), Live(view.render(), console=ctx.out,
                                                               auto_refresh=False, redirect_stdout=False) as live:
            while not (events and view.events >= events):
                view.changed.clear()
                await _first(view.changed.wait(), follower)
                if not ctx.json:
                    live.update(view.render(), refresh=True)
            if ctx.json:
                live.update(Text(""))
    finally:
        follower.cancel()
        await asyncio.gather(follower, return_exceptions=True)
        await streams.stop()


async def _first(waiting: Any, follower: asyncio.Task[None]) -> None:
    """Wait for `waiting`; if the mailbox stream ends first, its error (or its end) ends the view."""
    waiter = asyncio.ensure_future(waiting)
    try:
        await asyncio.wait({waiter, follower}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiter.cancel()
    if not waiter.done() or waiter.cancelled():
        follower.result()  # raises the stream's error
        raise FabricError("the daemon ended the watch (it is shutting down)", reason="STREAM_ENDED")


@cli.command()
@click.option("--once", is_flag=True, help="print one snapshot and exit")
@click.option("--events", "-n", type=click.IntRange(min=0), default=0,
              help="exit after this many changes (default: run until Ctrl-C)")
@click.pass_obj
def watch(ctx: Context, once: bool, events: int) -> None:
    """A live view: mailboxes with presence and unread counts, channels, queues with positions, recent activity."""
    ctx.run(lambda c: watch_fabric(ctx, c, once, events))
    sys.exit(0)
