"""Client processes for the kill -9 suite. Each writes what the daemon acknowledged, one JSON line per fact.

    python -m tests.reliability.workload ROLE TARGET LOG

TARGET may name several nodes, comma-separated: the client fails over between them.

Roles: sender (idempotent sends to box-d and box-s), drainer (drains box-d),
subscriber (follows box-s with acks), asker and replier (rendezvous through
worker-t), settler (outbox fan-outs), publisher (idempotent posts to a channel of two members), leaser (three
agents taking turns on one exclusive lease, one of them waiting in line). Every role retries through daemon
restarts and stops cleanly on SIGTERM.
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys

from fabricd.client import (
    Aborted,
    AlreadyExists,
    Client,
    DeadlineExceeded,
    FabricError,
    FailedPrecondition,
    NotFound,
    Unavailable,
)
from fabricd.v1 import outbox_service_pb2 as ob
from fabricd.v1 import types_pb2 as pb

RECIPIENTS = [f"fan-{i}" for i in range(8)]


class Log:
    def __init__(self, path: str) -> None:
        self._file = open(path, "a", buffering=1)  # lives as long as the process

    def __call__(self, **fact: object) -> None:
        self._file.write(json.dumps(fact) + "\n")


async def retry(call, stop: asyncio.Event):  # noqa: ANN201
    """Call until the daemon answers (it may be restarting); None if asked to stop first."""
    while not stop.is_set():
        try:
            return await call()
        except Unavailable:
            await asyncio.sleep(0.05)
    return None


async def sender(client: Client, log: Log, stop: asyncio.Event) -> None:
    i = 0
    while not stop.is_set():
        box = "box-d" if i % 2 else "box-s"
        mid = f"m-{i}"
        sent = await retry(lambda: client.send(box, f"payload {i}", id=mid, sender="load", create_mailbox=True), stop)  # noqa: B023 - retry() calls it within this iteration
        if sent is not None:
            log(kind="sent", box=box, id=mid, seq=sent.message.seq)
        i += 1


async def drainer(client: Client, log: Log, stop: asyncio.Event) -> None:
    while not stop.is_set():
        try:
            drained = await client.drain("box-d", 7)
        except Unavailable:
            log(kind="drain-lost")  # in flight at a kill: what it took may never be seen
            await asyncio.sleep(0.05)
            continue
        for m in drained.messages:
            log(kind="drained", id=m.id)
        if not drained.messages:
            await asyncio.sleep(0.01)


async def subscriber(client: Client, log: Log, stop: asyncio.Event) -> None:
    while not stop.is_set():
        try:
            async with client.subscribe("box-s") as inbox:
                while not stop.is_set():
                    try:
                        message = await asyncio.wait_for(anext(inbox), 0.5)
                    except TimeoutError:
                        continue
                    log(kind="delivered", id=message.id, seq=message.seq)
                return
        except FabricError:
            await asyncio.sleep(0.05)


async def replier(client: Client, log: Log, stop: asyncio.Event) -> None:
    while not stop.is_set():
        try:
            async with client.subscribe("worker-t") as inbox:
                while not stop.is_set():
                    try:
                        message = await asyncio.wait_for(anext(inbox), 0.5)
                    except TimeoutError:
                        continue
                    if message.ticket_id:
                        try:
                            await client.reply("worker-t", f"answer to {message.ticket_id}",
                                               ticket_id=message.ticket_id)
                            log(kind="replied", ticket=message.ticket_id)
                        except FabricError:
                            pass  # retired meanwhile, or the daemon died: it is redelivered if still queued
                return
        except FabricError:
            await asyncio.sleep(0.05)


async def asker(client: Client, log: Log, stop: asyncio.Event) -> None:
    await retry(lambda: client.register("worker-t"), stop)
    i = 0
    while not stop.is_set():
        # One request key per task: a retry after a lost answer (a node killed mid-call) queues nothing new.
        enqueued = await retry(lambda: client.enqueue("worker-t", f"task {i}", source_agent="asker",  # noqa: B023
                                                      request_key=f"task-{i}"), stop)  # noqa: B023 - retry() calls it within this iteration
        if enqueued is None:
            return
        log(kind="ticket", ticket=enqueued.ticket_id)
        while True:
            try:
                result = await client.await_reply(enqueued.ticket_id, timeout=2)
                log(kind="answered", ticket=enqueued.ticket_id, result=result)
                break
            except (Unavailable, DeadlineExceeded):
                if stop.is_set():
                    break
                await asyncio.sleep(0.05)
            except (Aborted, NotFound) as exc:
                log(kind="aborted", ticket=enqueued.ticket_id, reason=exc.reason)
                break
        i += 1


async def settler(client: Client, log: Log, stop: asyncio.Event) -> None:
    j = 0
    while not stop.is_set():
        job = ob.SettledJob(job_id=f"job-{j}", outcome=ob.JOB_OUTCOME_COMPLETED,
                            agent=pb.Address(agent_id="worker", session_id="w"),
                            mail=pb.Mail(key=f"req-{j}", reply_to=[pb.Address(agent_id=r, session_id="s")
                                                                   for r in RECIPIENTS]))
        response = await retry(lambda: client.fan_out(job, f"result {j}"), stop)  # noqa: B023 - retry() calls it within this iteration
        if response is not None:
            log(kind="fanned", keys=list(response.reply_keys))
        j += 1


CHANNEL, MEMBERS = "chk-team", ("member-a", "member-b")


async def publisher(client: Client, log: Log, stop: asyncio.Event) -> None:
    """Idempotent posts to a channel whose two members get a copy of each."""
    async def setup() -> None:
        for member in MEMBERS:
            await client.register(member)
        try:
            await client.create_channel(CHANNEL)
        except AlreadyExists:  # made by a run whose answer a kill cut
            pass
        for member in MEMBERS:
            await client.join_channel(CHANNEL, member)

    await retry(setup, stop)
    i = 0
    while not stop.is_set():
        pid = f"p-{i}"
        posted = await retry(lambda: client.publish(CHANNEL, f"post {i}", sender="poster", id=pid), stop)  # noqa: B023 - retry() calls it within this iteration
        if posted is not None:
            log(kind="posted", id=pid, seq=posted.post.seq)
        i += 1


async def leaser(client: Client, log: Log, stop: asyncio.Event) -> None:
    """Three agents take turns on one exclusive lease (ttl 1.5 s), each releasing what it was granted: two
    try and retry, one waits in line (its place cut by the kills: a restart or its expiry ends it)."""

    async def agent(name: str, wait: bool = False) -> None:
        while not stop.is_set():
            try:
                lease = await client.acquire_lease(name, ["kill9/shared.txt"], ttl=1.5, wait=wait,
                                                   wait_timeout=3 if wait else None)
            except (FailedPrecondition, Unavailable, DeadlineExceeded):
                await asyncio.sleep(0.05)
                continue
            log(kind="granted", agent=name, lease=lease.lease_id, token=int(lease.fencing_token),
                acquire_ns=lease.acquire_time.ToNanoseconds(), expire_ns=lease.expire_time.ToNanoseconds())
            await asyncio.sleep(0.1)
            log(kind="releasing", lease=lease.lease_id)  # before the call: a release cut by a kill may commit
            await retry(lambda: client.release_lease(lease.lease_id), stop)  # noqa: B023 - called in this turn

    await asyncio.gather(agent("lease-a"), agent("lease-b"), agent("lease-w", wait=True))


ROLES = {f.__name__: f for f in (sender, drainer, subscriber, replier, asker, settler, publisher, leaser)}


async def main(role: str, target: str, path: str) -> None:
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    async with Client(target) as client:
        print("ready", flush=True)
        await ROLES[role](client, Log(path), stop)


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))
