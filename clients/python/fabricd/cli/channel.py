"""`fabric channel` (create, ls, join, leave, members, rm, read, tail), `fabric search`, and the post that
`fabric send '#team' TEXT` makes: a channel is named with the `#` sigil, which is not part of its name."""

from __future__ import annotations

import time
from typing import Any

import click
from rich.table import Table
from rich.text import Text

from fabricd.cli.app import Context, age, cli
from fabricd.cli.show import cell, preview, write
from fabricd.client import Client
from fabricd.v1 import channel_service_pb2 as ch_pb

DELIVERIES = {"mailbox": ch_pb.CHANNEL_DELIVERY_MAILBOX, "log": ch_pb.CHANNEL_DELIVERY_LOG}


def print_post(ctx: Context, post: ch_pb.ChannelPost) -> None:
    """One post: `#team 3 12:00:01 ann: text`, written and flushed."""
    if ctx.json:
        ctx.emit(post)
        return
    m = post.message
    when = time.strftime("%H:%M:%S", time.localtime(m.send_time.seconds))
    parts = [(f"#{post.channel} {post.seq} {when}", "dim"), (" ", ""), (m.sender.agent_id or "-", "bold"),
             (": ", ""), (m.text, "")]
    if m.data:
        parts += [(" ", ""), (f"({len(m.data)} bytes of data)", "dim")]
    write(parts)


def published(ctx: Context, response: ch_pb.PublishResponse) -> None:
    """What `fabric send '#team'` prints."""
    if ctx.json:
        ctx.emit(response)
        return
    post = response.post
    note = " (duplicate: already stored)" if response.duplicate else ""
    line = f"posted {post.message.id} to #{post.channel} #{post.seq}: {response.delivered} delivered{note}"
    if response.skipped:
        skipped = ", ".join(f"{s.agent_id} ({s.reason})" for s in response.skipped_copies)
        line += f"; {response.skipped} skipped (they read it from the channel): {skipped}"
    write([(line, "")])


@cli.group()
def channel() -> None:
    """Channels: a team's shared conversation (name them NAME or '#NAME')."""


@channel.command()
@click.argument("name")
@click.option("--description", "-d", default="", help="what the channel is for")
@click.option("--closed", is_flag=True, help="members are added by a member or an admin (default: anyone joins)")
@click.option("--max-messages", default=0, help="keep at most this many posts (0: no bound)")
@click.option("--max-bytes", default=0, help="keep at most this many bytes of posts (0: no bound)")
@click.option("--max-age", default=0.0, help="keep posts this many seconds (0: 30 days)")
@click.pass_obj
def create(ctx: Context, name: str, description: str, closed: bool, max_messages: int, max_bytes: int,
           max_age: float) -> None:
    """Create channel NAME (with an agent token, its agent is the first member)."""
    made = ctx.run(lambda c: c.create_channel(name, description=description, open=not closed,
                                              max_messages=max_messages, max_bytes=max_bytes, max_age=max_age))
    if ctx.json:
        ctx.emit(made)
    else:
        write([(f"created #{made.name} ({'open' if made.open else 'closed'})", "")])


@channel.command("ls")
@click.pass_obj
def ls(ctx: Context) -> None:
    """List the channels."""
    channels = ctx.run(lambda c: c.list_channels())
    if ctx.json:
        for c in channels:
            ctx.emit(c)
        return
    table = Table(box=None, header_style="bold")
    for column in ("CHANNEL", "ACCESS", "MEMBERS", "POSTS", "LAST", "DESCRIPTION"):
        table.add_column(column, no_wrap=column != "DESCRIPTION")
    for c in channels:
        table.add_row(cell("#" + c.name), "open" if c.open else "closed", str(c.member_count),
                      str(c.message_count), str(c.last_seq), cell(preview(c.description)))
    ctx.out.print(table)
    if not channels:
        ctx.out.print(Text("no channels yet: fabric channel create NAME", style="dim"))


@channel.command()
@click.argument("name")
@click.argument("agent_id", required=False, default="")
@click.option("--delivery", type=click.Choice(list(DELIVERIES)), default="mailbox",
              help="mailbox: a copy of each post in the agent's mailbox; log: none, it reads the channel")
@click.pass_obj
def join(ctx: Context, name: str, agent_id: str, delivery: str) -> None:
    """Make AGENT_ID (the token's agent when left out) a member of channel NAME."""
    response = ctx.run(lambda c: c.join_channel(name, agent_id, delivery=DELIVERIES[delivery]))
    if ctx.json:
        ctx.emit(response)
    else:
        verb = "joined" if response.joined else "is already a member of"
        write([(f"{response.member.agent_id} {verb} #{response.member.channel} ({delivery})", "")])


@channel.command()
@click.argument("name")
@click.argument("agent_id", required=False, default="")
@click.pass_obj
def leave(ctx: Context, name: str, agent_id: str) -> None:
    """Remove AGENT_ID (the token's agent when left out) from channel NAME."""
    left = ctx.run(lambda c: c.leave_channel(name, agent_id))
    if ctx.json:
        click.echo(f'{{"left": {str(left).lower()}}}')
    else:
        write([(f"left #{name.lstrip('#')}" if left else f"not a member of #{name.lstrip('#')}", "")])


@channel.command()
@click.argument("name")
@click.pass_obj
def members(ctx: Context, name: str) -> None:
    """List the members of channel NAME."""
    found = ctx.run(lambda c: c.list_members(name))
    if ctx.json:
        for m in found:
            ctx.emit(m)
        return
    table = Table(box=None, header_style="bold")
    for column in ("AGENT", "DELIVERY", "JOINED"):
        table.add_column(column, no_wrap=True)
    for m in found:
        table.add_row(cell(m.agent_id), ch_pb.ChannelDelivery.Name(m.delivery).removeprefix(
            "CHANNEL_DELIVERY_").lower(), age(m.join_time))
    ctx.out.print(table)


@channel.command("rm")
@click.argument("name")
@click.option("--purge", is_flag=True, help="delete its posts too (a channel with posts needs it)")
@click.pass_obj
def rm(ctx: Context, name: str, purge: bool) -> None:
    """Delete channel NAME with its members (and, with --purge, its history)."""
    purged = ctx.run(lambda c: c.delete_channel(name, purge=purge))
    if ctx.json:
        click.echo(f'{{"purged": {purged}}}')
    else:
        write([(f"deleted #{name.lstrip('#')} ({purged} posts)", "")])


@channel.command()
@click.argument("name")
@click.option("--after", default=0, help="posts after this seq (default: from the oldest retained)")
@click.option("--limit", "-n", default=0, help="at most this many (default 100, max 1000)")
@click.pass_obj
def read(ctx: Context, name: str, after: int, limit: int) -> None:
    """Show the retained history of channel NAME, oldest first."""
    response = ctx.run(lambda c: c.read_channel(name, after_seq=after, page_size=limit))
    for post in response.posts:
        print_post(ctx, post)
    if not response.posts and not ctx.json:
        ctx.note(f"no posts after #{after} (the channel's last is #{response.last_seq})")


@channel.command()
@click.argument("name")
@click.option("--after", default=0, help="start after this seq (default: every retained post)")
@click.option("--count", "-c", default=0, help="stop after this many posts")
@click.pass_obj
def tail(ctx: Context, name: str, after: int, count: int) -> None:
    """Follow channel NAME: its retained posts, then new ones as they are posted."""

    async def follow(client: Client) -> None:
        shown = 0
        async for batch in client.subscribe_channel(name, after_seq=after):
            for post in batch:
                print_post(ctx, post)
                shown += 1
                if count and shown >= count:
                    return

    ctx.run(follow)


@cli.command()
@click.argument("query")
@click.option("--channel", "-c", "in_channel", default="", help="only this channel")
@click.option("--from", "sender", default="", help="only this sender's posts")
@click.option("--limit", "-n", default=0, help="at most this many hits (default 20, max 100)")
@click.pass_obj
def search(ctx: Context, query: str, in_channel: str, sender: str, limit: int) -> None:
    """Search the channels you may read: words, "a phrase", -excluded, prefix*."""
    response = ctx.run(lambda c: c.search_messages(query, channel=in_channel, sender=sender, page_size=limit))
    if ctx.json:
        for hit in response.hits:
            ctx.emit(hit)
        return
    for hit in response.hits:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(hit.send_time.seconds))
        write([(f"#{hit.channel} {hit.seq} {when}", "dim"), (" ", ""), (hit.sender or "-", "bold"), (": ", ""),
               (hit.snippet, "")])
    if not response.hits:
        ctx.note(f"nothing matches {query!r}")


def publish(ctx: Context, to: str, text: str, **fields: Any) -> None:
    """`fabric send '#team' TEXT`: a post."""
    published(ctx, ctx.run(lambda c: c.publish(to, text, **fields)))
