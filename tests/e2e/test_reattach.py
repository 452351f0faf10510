"""An Ask whose connection drops while the daemon lives: the resend of its request_key re-attaches.

The clients mint a request_key per Ask and re-send it when a call fails. A
keyed ticket outlives its dropped Ask for `reattach_grace` seconds; a resend
within it waits on the same ticket and gets the answer. An Ask without a key,
or a keyed one nobody comes back for, is retired as before.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
import uuid

import grpc
import pytest

from fabricd.client import Client
from fabricd.v1 import rendezvous_service_pb2 as rv
from tests.conftest import Daemon
from tests.reliability.helpers import eventually

BACKENDS = ["lmdb", "postgres"]


async def dropped_ask(target: str, worker: Client, key: str = "", task: str = "what is 6 x 7?") -> str:
    """Start an Ask on a channel of its own, close that channel once the ticket is queued and the daemon
    has seen the caller go; returns the ticket id. `worker` is a client of the same node (its waits are
    counted per node)."""
    before = (await worker.get_status()).open_waits
    asker = Client(target)
    call = asyncio.ensure_future(asker.rendezvous.Ask(rv.AskRequest(target="worker", task=task, request_key=key)))

    async def waiting() -> bool:
        return (await worker.get_status()).open_waits == before + 1

    await eventually(waiting, what="the Ask waiting")
    queued = [t for t in await worker.get_queue("worker") if t.task == task]
    assert len(queued) == 1
    await asker.close(0)  # the connection drops; the daemon lives
    with pytest.raises((grpc.aio.AioRpcError, asyncio.CancelledError)):
        await call

    async def gone() -> bool:
        return (await worker.get_status()).open_waits == before

    await eventually(gone, what="the daemon seeing the asker go")
    return queued[0].ticket_id


async def test_a_resent_ask_with_the_same_key_reattaches_after_its_connection_dropped(make_daemon) -> None:
    daemon = make_daemon().start()
    async with Client(daemon.target) as worker, Client(daemon.target) as again:
        await worker.register("worker")
        key = str(uuid.uuid4())
        ticket_id = await dropped_ask(daemon.target, worker, key)
        assert (await worker.get_ticket(ticket_id)).state == rv.TICKET_STATE_QUEUED  # kept for the resend

        resent = asyncio.ensure_future(again.rendezvous.Ask(rv.AskRequest(target="worker", task="what is 6 x 7?",
                                                                          request_key=key)))

        async def reattached() -> bool:
            return (await worker.get_status()).open_waits == 1

        await eventually(reattached, what="the resent Ask waiting")
        assert [t.ticket_id for t in await worker.get_queue("worker")] == [ticket_id]  # asked once
        assert await worker.reply("worker", "42") == ticket_id
        answer = await asyncio.wait_for(resent, 30)
        assert (answer.ticket_id, answer.result) == (ticket_id, "42")


async def test_an_ask_without_a_key_is_retired_when_its_connection_drops(make_daemon) -> None:
    daemon = make_daemon().start()
    async with Client(daemon.target) as worker:
        await worker.register("worker")
        ticket_id = await dropped_ask(daemon.target, worker)

        async def retired() -> bool:
            return (await worker.get_ticket(ticket_id)).state == rv.TICKET_STATE_ABORTED

        await eventually(retired, what="the unkeyed ticket retired")
        assert "disconnected" in (await worker.get_ticket(ticket_id)).reason
        assert await worker.get_queue("worker") == []


async def test_a_keyed_ticket_nobody_comes_back_for_is_retired_after_the_grace(make_daemon) -> None:
    daemon = make_daemon("--reattach-grace", "0.5").start()
    async with Client(daemon.target) as worker:
        await worker.register("worker")
        first = await dropped_ask(daemon.target, worker, str(uuid.uuid4()), "first")  # nobody comes back
        second = await dropped_ask(daemon.target, worker, key := str(uuid.uuid4()), "second")
        async with Client(daemon.target) as again:  # the second's resend re-attaches; then the grace passes
            resent = asyncio.ensure_future(again.rendezvous.Ask(rv.AskRequest(target="worker", task="second",
                                                                              request_key=key)))

            async def first_retired() -> bool:
                return (await worker.get_ticket(first)).state == rv.TICKET_STATE_ABORTED

            await eventually(first_retired, what="the abandoned keyed ticket retired after the grace")
            assert "did not come back within 0.5s" in (await worker.get_ticket(first)).reason
            third = await dropped_ask(daemon.target, worker, str(uuid.uuid4()), "third")

            async def third_retired() -> bool:  # its grace began after the second's drop: that one's is over
                return (await worker.get_ticket(third)).state == rv.TICKET_STATE_ABORTED

            await eventually(third_retired, what="a later dropped ticket retired")
            assert (await worker.get_ticket(second)).state == rv.TICKET_STATE_QUEUED  # the resend kept it
            assert await worker.reply("worker", "answered", ticket_id=second) == second
            assert (await asyncio.wait_for(resent, 30)).result == "answered"


async def test_a_resend_on_another_node_keeps_the_ticket_past_the_first_nodes_grace(pg_url: str, tmp_path) -> None:
    folders = [tempfile.mkdtemp(prefix=f"ra{i}-", dir="/tmp") for i in range(2)]
    a, b = (Daemon(str(tmp_path / f"data{i}"), folder, "--store", pg_url, "--reattach-grace", "0.5")
            for i, folder in enumerate(folders))
    try:
        a.start()
        b.start()
        async with Client(a.target) as on_a, Client(b.target) as on_b:
            await on_b.register("worker")
            key = str(uuid.uuid4())
            ticket_id = await dropped_ask(a.target, on_a, key)  # node A lives; its client's connection drops
            resent = asyncio.ensure_future(on_b.rendezvous.Ask(rv.AskRequest(target="worker", task="what is 6 x 7?",
                                                                             request_key=key)))

            async def waiting_on_b() -> bool:
                return (await on_b.get_status()).open_waits == 1

            await eventually(waiting_on_b, what="the resend waiting on node B")
            later = await dropped_ask(a.target, on_a, str(uuid.uuid4()), "later")

            async def later_retired() -> bool:  # its grace on node A began after the first one's: that one is over
                return (await on_a.get_ticket(later)).state == rv.TICKET_STATE_ABORTED

            await eventually(later_retired, what="a later dropped ticket retired by node A")
            assert (await on_a.get_ticket(ticket_id)).state == rv.TICKET_STATE_QUEUED  # node A left it to B's waiter
            assert await on_b.reply("worker", "42", ticket_id=ticket_id) == ticket_id
            assert (await asyncio.wait_for(resent, 30)).result == "42"
    finally:
        for d in (a, b):
            if d.proc is not None and d.proc.poll() is None:
                d.kill()
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)
