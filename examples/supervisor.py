"""A supervisor fans tasks out to two workers and watches their queues drain.

    python examples/supervisor.py          (a daemon must run: `python3 scripts/dev serve`)

Four asks go to two workers at once; each worker answers its FIFO in order,
and the supervisor prints every queue change it sees through WatchQueue, then
the answers. It ends by itself.
"""

from __future__ import annotations

import asyncio

from fabricd.client import Client

WORKERS = ("example-worker-1", "example-worker-2")
TASKS = 2  # per worker


async def worker(client: Client, name: str) -> None:
    answered = 0
    async with client.subscribe(name) as inbox:
        async for message in inbox:
            if message.ticket_id:
                await asyncio.sleep(0.05)  # pretend to work, so the queue is visible
                await client.reply(name, f"{name} did: {message.text.splitlines()[-1]}", ticket_id=message.ticket_id)
                answered += 1
                if answered == TASKS:
                    return


async def watch(client: Client, name: str, watching: asyncio.Event) -> None:
    async for queue in client.watch_queue(name):  # the FIFO now, then after every change
        watching.set()
        print(f"{name}: {len(queue)} queued " + " ".join(f"[{t.position}] {t.requester}" for t in queue))


async def main() -> None:
    async with Client() as client:
        for name in WORKERS:
            await client.register(name, capabilities=["work"])
        watching = [asyncio.Event() for _ in WORKERS]
        watchers = [asyncio.create_task(watch(client, name, w)) for name, w in zip(WORKERS, watching, strict=True)]
        await asyncio.gather(*(w.wait() for w in watching))
        workers = [asyncio.create_task(worker(client, name)) for name in WORKERS]
        asks = [client.ask(name, f"task {i}", requester=f"supervisor#{i}", timeout=60)
                for i in range(TASKS) for name in WORKERS]
        for answer in await asyncio.gather(*asks):
            print("answer:", answer)
        await asyncio.gather(*workers)
        for task in watchers:
            task.cancel()
        for name in WORKERS:
            assert not await client.get_queue(name), "every task was answered"
            await client.unregister(name)


if __name__ == "__main__":
    asyncio.run(main())
