"""A Python agent asks a Node agent (examples/node_agent.mjs) three questions and prints its answers.

    node examples/node_agent.mjs --count 3 &
    python examples/ask_node_agent.py

It waits (up to a minute) for the Node agent to register, so the two can be
started in any order. It ends by itself.
"""

from __future__ import annotations

import asyncio

from fabricd.client import Client

TARGET = "example-node"


async def until_registered(client: Client, name: str) -> None:
    """Return once `name` is in the directory: the snapshot, then every change."""
    async for response in client.watch_mailboxes():
        if any(e.entry.agent_id == name and e.entry.registered for e in response.events):
            return


async def main() -> None:
    async with Client() as client:
        await client.register("example-python", capabilities=["asking"])
        await asyncio.wait_for(until_registered(client, TARGET), 60)
        for question in ("1 2 3", "40 2", "-5 5"):
            answer = await client.ask(TARGET, question, source_agent="example-python", timeout=60)
            print(f"asked {question!r}: {answer}")
        await client.unregister("example-python")


if __name__ == "__main__":
    asyncio.run(main())
