"""An agent asks a person, and waits until the person answers in the overseer page.

    python examples/ask_a_human.py [--person alice]

A daemon must run with the page on (`python3 scripts/dev serve` turns it on at http://127.0.0.1:7078/).
The person signs in there with an admin token, acting as `alice` (the agent `human:alice`), and answers
under "Asks waiting for human:alice". The agent's `ask` is an ordinary rendezvous ask: it blocks until
the answer comes, as it would for an agent. It ends by itself once answered (or after --timeout seconds).
"""

from __future__ import annotations

import argparse
import asyncio

from fabricd.client import Client, NotFound

AGENT = "example-deployer"


async def main(person: str, timeout: float) -> None:
    human = f"human:{person}"
    async with Client() as client:  # $FABRICD_TARGET, else the daemon's default socket
        await client.register(AGENT, capabilities=["deploy"])
        try:
            await client.resolve(human)
        except NotFound:  # the person has not signed in yet: give them their mailbox now, so the ask can wait
            await client.register(human, metadata={"kind": "human"})
        print(f"{AGENT} asks {human}: answer it in the overseer page, signed in as {person!r}", flush=True)
        answer = await client.ask(human, "Deploy build 1.4 to production?", source_agent=AGENT, timeout=timeout)
        print(f"{human} answered: {answer!r}")
        await client.unregister(AGENT)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--person", default="alice", help="the person's name in the page (default alice)")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds to wait for the answer")
    args = parser.parse_args()
    asyncio.run(main(args.person, args.timeout))
