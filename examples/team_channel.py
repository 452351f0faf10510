"""Three agents coordinate through a channel: a lead posts the plan, two workers claim their parts.

    python examples/team_channel.py        (a daemon must run: `python3 scripts/dev serve`)

The lead makes #example-team and the workers join it. A post lands in every other member's mailbox (its
headers name the channel and its seq), so each worker reads the plan from its own inbox, as it reads any
mail, and answers in the channel. Anyone joining later reads the history, and anything said can be found
again with a search. It ends by itself.
"""

from __future__ import annotations

import asyncio

from fabricd.client import Client, NotFound

TEAM = "example-team"
LEAD, WORKERS = "example-lead", ("example-api", "example-ui")


async def worker(client: Client, me: str, part: str) -> None:
    async with client.subscribe(me) as inbox:  # posts arrive as mail, with the channel in their headers
        async for message in inbox:
            if message.headers.get("fabricd-channel") == TEAM:
                print(f"{me} read #{TEAM} {message.headers['fabricd-channel-seq']}: {message.text!r}")
                await client.publish(TEAM, f"I took the {part}", sender=me)
                return


async def main() -> None:
    async with Client() as client:  # $FABRICD_TARGET, else the daemon's default socket
        for agent in (LEAD, *WORKERS):
            await client.register(agent)
        try:
            await client.delete_channel(TEAM, purge=True)  # a channel left by an earlier run
        except NotFound:
            pass
        await client.create_channel(TEAM, description="the example's team")
        for agent in (LEAD, *WORKERS):
            await client.join_channel(TEAM, agent)
        parts = zip(WORKERS, ("API", "UI"), strict=True)
        workers = [asyncio.ensure_future(worker(client, me, part)) for me, part in parts]
        sent = await client.publish(TEAM, "plan: one of you takes the API, one the UI", sender=LEAD)
        print(f"{LEAD} posted #{TEAM} {sent.post.seq} to {sent.delivered} members")
        await asyncio.gather(*workers)
        history = await client.read_channel(TEAM)
        for post in history.posts:
            print(f"history #{post.seq} {post.message.sender.agent_id}: {post.message.text}")
        found = await client.search_messages("took", channel=TEAM)
        print(f"search 'took': {len(found.hits)} hits, e.g. {found.hits[0].snippet}")
        await client.delete_channel(TEAM, purge=True)
        for agent in (LEAD, *WORKERS):
            await client.unregister(agent, purge=True)


if __name__ == "__main__":
    asyncio.run(main())
