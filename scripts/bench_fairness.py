"""The `flood` workload of scripts/bench: a well-behaved token's sends while another token floods the daemon.

One agent token ("flooder") keeps 16 SendMessages calls of 100 tiny messages in flight, its mailbox drained by a
local consumer so its quotas never refuse it; another ("calm") sends one message at a time. The flooder and
its consumer are a process of their own (this file run as a script), as a hostile agent is: in the calm
sender's process their responses would queue on the calm sender's event loop, and the figure would be the
load generator's. Figures: the calm token's send p50 and p99 alone (`flood_calm_alone_*`) and under the flood
(`flood_calm_*`), and the flood's rate (messages a second). The target: `flood_calm_p99_ms` at most 50 ms on the reference machine.

Import this only after `use_tree(root)` (see bench_workloads).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from typing import Any

if __name__ == "__main__":  # the flooder process: fabricd from the tree named first, before anything imports it
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from bench_common import use_tree

    use_tree(sys.argv[1])

from fabricd.client import Client
from fabricd.v1 import mailbox_service_pb2 as mbx_pb
from fabricd.v1 import types_pb2 as pb

FLOOD_CALLERS, FLOOD_BATCH = 16, 100


def _percentiles(samples: list[float]) -> tuple[float, float]:
    samples = sorted(samples)
    return samples[len(samples) // 2] * 1e3, samples[max(0, int(len(samples) * 0.99) - 1)] * 1e3


async def _calm_sends(client: Client, count: int) -> list[float]:
    stub, samples = client.mailbox, []
    for i in range(count):
        request = mbx_pb.SendMessageRequest(message=pb.Message(recipient=pb.Address(agent_id="calm-box"),
                                                               text=f"calm {i}"))
        t0 = time.perf_counter()
        await stub.SendMessage(request)
        samples.append(time.perf_counter() - t0)
    return samples


async def _flood(client: Client, stop: asyncio.Event, sent: list[int]) -> None:
    request = mbx_pb.SendMessagesRequest(messages=[pb.Message(recipient=pb.Address(agent_id="flood-box"), text="x")
                                                   for _ in range(FLOOD_BATCH)])

    async def caller() -> None:
        while not stop.is_set():
            response = await client.mailbox.SendMessages(request)
            sent[0] += sum(1 for r in response.results if not r.HasField("error"))

    await asyncio.gather(*(caller() for _ in range(FLOOD_CALLERS)))


async def _drain(client: Client, stop: asyncio.Event) -> None:
    """Keep the flood's mailbox near empty (its unread quotas would refuse it otherwise), a share at a time."""
    while not stop.is_set():
        if not (await client.drain("flood-box", limit=250)).messages:
            await asyncio.sleep(0.01)


class Flooder:
    """The flooding token's process: `count()` asks it how many messages it has stored so far."""

    def __init__(self, root: str, target: str, token: str) -> None:
        self._proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), root, target, token],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    async def count(self) -> int:
        proc = self._proc
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("count\n")
        proc.stdin.flush()
        line = await asyncio.to_thread(proc.stdout.readline)
        if not line:
            raise RuntimeError("the flooder ended")
        return int(line)

    async def stop(self) -> None:
        await asyncio.to_thread(self._proc.communicate, "")


async def flood(t: Any) -> dict[str, float]:
    """See the module docstring. `t` is bench_workloads.Tree."""
    local: Client = await t.client()
    for name in ("calm-box", "flood-box"):
        await local.register(name)
    target = t.target()
    tokens = {name: (await local.issue_token(agent_id=name)).token for name in ("calm", "flooder")}
    count = t.n(1000)
    async with Client(target, token=tokens["calm"]) as calm:
        alone = _percentiles(await _calm_sends(calm, count))
        flooder = Flooder(t.root, target, tokens["flooder"])
        try:
            while await flooder.count() < FLOOD_CALLERS * FLOOD_BATCH:  # under way before the calm token is timed
                await asyncio.sleep(0.01)
            start, before = time.perf_counter(), await flooder.count()
            flooded = _percentiles(await _calm_sends(calm, count))
            rate = (await flooder.count() - before) / (time.perf_counter() - start)
        finally:
            await flooder.stop()
    while (await local.drain("calm-box", limit=1000)).messages:  # a drain takes at most 1,000
        pass
    while (await local.drain("flood-box", limit=1000)).messages:
        pass
    return {"flood_calm_alone_p50_ms": alone[0], "flood_calm_alone_p99_ms": alone[1],
            "flood_calm_p50_ms": flooded[0], "flood_calm_p99_ms": flooded[1], "flood_rate": rate}


async def _flooder_main(target: str, token: str) -> None:
    """The flooder process: flood, and drain the flood's mailbox as a local (trusted) caller, until standard input
    closes, answering each line with the count stored."""
    stop, sent = asyncio.Event(), [0]
    async with Client(target, token=token) as client, Client(target) as local:
        tasks = [asyncio.create_task(_flood(client, stop, sent)), asyncio.create_task(_drain(local, stop))]
        while await asyncio.to_thread(sys.stdin.readline):
            print(sent[0], flush=True)
        stop.set()
        await asyncio.gather(*tasks)


if __name__ == "__main__":
    asyncio.run(_flooder_main(sys.argv[2], sys.argv[3]))
