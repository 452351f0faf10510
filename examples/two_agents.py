"""Two agents on one fabric: bob mails alice, then asks her a question and waits for the answer.

    python examples/two_agents.py          (a daemon must run: `python3 scripts/dev serve`)

alice registers as "reviewer" and follows her inbox; bob finds her by that
name. Mail is just delivered; an ask queues a ticket in alice's rendezvous
FIFO and bob's call returns with her reply. It ends by itself.
"""

from __future__ import annotations

import asyncio

from fabricd.client import Client


async def alice(client: Client, ready: asyncio.Event) -> None:
    await client.register("example-alice", session_name="example-reviewer", capabilities=["review"])
    ready.set()
    async with client.subscribe("example-alice") as inbox:  # her mail, then new mail as it arrives
        async for message in inbox:
            if message.ticket_id:  # a request someone is waiting on: answer it
                await client.reply("example-alice", "looks safe to me", ticket_id=message.ticket_id)
                return
            print(f"alice read: {message.text!r} from {message.sender.agent_id}")


async def bob(client: Client, ready: asyncio.Event) -> None:
    await client.register("example-bob")
    await ready.wait()
    sent = await client.send("example-reviewer", "please review PR 12", sender="example-bob")
    print(f"bob sent {sent.message.id} to {sent.message.recipient.agent_id}")
    answer = await client.ask("example-reviewer", "is PR 12 safe to merge?", source_agent="example-bob", timeout=60)
    print(f"bob got the answer: {answer!r}")


async def main() -> None:
    async with Client() as client:  # $FABRICD_TARGET, else the daemon's default socket
        ready = asyncio.Event()
        await asyncio.gather(alice(client, ready), bob(client, ready))
        await client.unregister("example-alice")
        await client.unregister("example-bob")


if __name__ == "__main__":
    asyncio.run(main())
