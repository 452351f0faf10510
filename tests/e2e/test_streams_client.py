"""The Python client on the streams: sends, acks and asks on SendStream, `serve` on Serve, by default.

What a stream must keep of the unary calls: answers only after the commit, nothing acknowledged
lost and nothing duplicated when the stream is cut and the client resends, the unary path
against a daemon without the streams.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import urllib.request

import grpc
import pytest

from fabricd.client import Client, DeadlineExceeded, NotFound, Replier
from fabricd.v1 import mailbox_service_pb2 as mb
from fabricd.v1 import mailbox_service_pb2_grpc as mb_grpc
from fabricd.v1 import rendezvous_service_pb2 as rv
from fabricd.v1 import types_pb2 as pb
from tests.e2e.test_node import NODE_CLIENT

BACKENDS = ("lmdb", "postgres")


def calls(body: str, method: str) -> float:
    """fabricd_rpc_total for `method` with code OK; 0 when the series is absent."""
    prefix = f'fabricd_rpc_total{{code="OK",method="{method}"}} '
    return sum(float(line[len(prefix):]) for line in body.splitlines() if line.startswith(prefix))


async def test_asks_served_on_the_streams_take_no_unary_leg(make_daemon) -> None:
    daemon = make_daemon("--metrics-listen", "127.0.0.1:0").start()
    metrics = "http://" + daemon.wait_for("metrics on").split("http://", 1)[1].strip()
    async with Client(daemon.target) as asker, Client(daemon.target) as worker:
        await worker.register("worker")
        server = asyncio.create_task(worker.serve("worker", lambda t: f"done: {t.task}"))
        answers = [await asker.ask("worker", f"task {i}", timeout=30) for i in range(20)]
        question = await asker.ask_answer("worker", "other")
        sent = await asker.send("worker", "a note", sender="boss", id="note-1")
        assert await asker.ack("worker", [sent.message.id]) == 1
        server.cancel()
        assert answers == [f"done: task {i}" for i in range(20)] and question.result == "done: other"
        assert (await asker.peek("worker")).unread_count == 0  # the tasks consumed by the replies, the note acked
    body = urllib.request.urlopen(metrics, timeout=30).read().decode()
    for method in ("Ask", "Reply", "WatchQueue", "AckMessages", "SendMessage", "Subscribe"):
        assert calls(body, method) == 0, method
    assert calls(body, "Register") == 1


async def test_a_sender_stream_cut_by_the_client_loses_and_duplicates_nothing(daemon) -> None:
    async with Client(daemon.target) as client:
        await client.register("box")

        async def sends() -> list[str]:
            return [(await client.send("box", f"m{i}", id=f"id-{i}")).message.id for i in range(200)]

        sending = asyncio.create_task(sends())
        cut, give_up = 0, asyncio.get_running_loop().time() + 30
        while cut < 5 and not sending.done() and asyncio.get_running_loop().time() < give_up:
            # cut the stream under the sender, five times, with frames in flight
            await asyncio.sleep(0.02)
            call = client._sender._call
            if call is not None:
                call.cancel()
                cut += 1
        assert cut == 5
        assert await asyncio.wait_for(sending, 60) == [f"id-{i}" for i in range(200)]
        peeked = await client.peek("box", 1000)
        assert [m.id for m in peeked.messages] == [f"id-{i}" for i in range(200)]  # once each, in order


async def test_a_sender_stream_cut_by_a_restart_loses_and_duplicates_nothing(daemon) -> None:
    async with Client(daemon.target, retry_window=30) as client:
        await client.register("box")
        acked: list[str] = []

        async def sends() -> None:
            for i in range(300):
                acked.append((await client.send("box", f"m{i}", id=f"id-{i}")).message.id)

        sending = asyncio.create_task(sends())
        while len(acked) < 50:
            await asyncio.sleep(0.01)
        await asyncio.to_thread(daemon.restart)
        await asyncio.wait_for(sending, 90)
        peeked = await client.peek("box", 1000)
        assert [m.id for m in peeked.messages] == [f"id-{i}" for i in range(300)]


async def test_per_frame_errors_are_the_unary_calls_errors(client: Client) -> None:
    await client.register("box")
    with pytest.raises(NotFound) as unknown:
        await client.send("nobody", "x")
    assert unknown.value.reason == "UNKNOWN_RECIPIENT"
    results = await client.send_many([pb.Message(recipient=pb.Address(agent_id="box"), text="ok"),
                                      pb.Message(recipient=pb.Address(agent_id="nobody"), text="no")])
    assert results[0].message.text == "ok" and isinstance(results[1], NotFound)
    with pytest.raises(DeadlineExceeded) as late:
        await client.ask("box", "nobody answers", timeout=0.1)
    assert late.value.reason == "REPLY_TIMEOUT"
    assert (await client.send("box", "after")).message.text == "after"  # the stream went on


async def test_an_ask_whose_caller_leaves_retires_its_ticket(client: Client) -> None:
    await client.register("worker")
    asking = asyncio.create_task(client.ask("worker", "never mind"))
    while not await client.get_queue("worker"):
        await asyncio.sleep(0.01)
    asking.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asking
    while await client.get_queue("worker"):  # withdrawn in the background, as a dropped unary Ask's
        await asyncio.sleep(0.01)


async def test_a_replier_goes_on_through_a_restart(daemon) -> None:
    async with Client(daemon.target, retry_window=30) as client:
        await client.register("worker")
        served = asyncio.create_task(client.serve("worker", lambda t: t.task.upper()))
        assert await client.ask("worker", "one", timeout=30) == "ONE"
        await asyncio.to_thread(daemon.restart)
        assert await client.ask("worker", "two", timeout=60) == "TWO"
        served.cancel()


async def test_a_replier_answers_in_any_order_within_its_window(client: Client) -> None:
    await client.register("worker")
    ids = [(await client.enqueue("worker", f"t{i}")).ticket_id for i in range(3)]
    async with Replier(client, "worker", window=3) as replier:
        shown = [await replier.__anext__() for _ in range(3)]
        assert [t.ticket_id for t in shown] == ids
        assert await replier.reply(ids[2], "last first") == ids[2]
        assert await replier.cancel_head(ids[0])
        assert not await replier.cancel_head(ids[2])  # answered already: not the head
    assert (await client.await_answer(ids[2], timeout=5)).result == "last first"
    assert (await client.get_ticket(ids[1])).state == rv.TICKET_STATE_QUEUED


class _OldMailbox(mb_grpc.MailboxServiceServicer):
    """A daemon of before the streams: SendMessage only (the rest UNIMPLEMENTED)."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    async def SendMessage(self, request, context):  # noqa: ANN202
        self.sent.append(request.message.text)
        return mb.SendMessageResponse(message=request.message)


async def test_a_daemon_without_the_streams_gets_unary_calls() -> None:
    server = grpc.aio.server()
    old = _OldMailbox()
    mb_grpc.add_MailboxServiceServicer_to_server(old, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        async with Client(f"127.0.0.1:{port}") as client:
            for i in range(3):
                assert (await client.send("bob", f"m{i}")).message.text == f"m{i}"
            assert not client._sender.offered  # learnt once
        assert old.sent == ["m0", "m1", "m2"]
    finally:
        await server.stop(None)


async def test_the_node_client_serves_sends_and_asks_on_the_streams(make_daemon) -> None:
    node = shutil.which("node")
    if node is None or not os.path.isdir(os.path.join(NODE_CLIENT, "node_modules", "@grpc")):
        pytest.fail("Node and clients/node/node_modules are needed: `python3 scripts/dev test` installs them")
    daemon = make_daemon("--metrics-listen", "127.0.0.1:0").start()
    metrics = "http://" + daemon.wait_for("metrics on").split("http://", 1)[1].strip()
    proc = await asyncio.create_subprocess_exec(node, "test/streams.mjs", daemon.target, cwd=NODE_CLIENT,
                                                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate(), 90)
    assert proc.returncode == 0, err.decode()
    steps = {s["step"]: s for s in map(json.loads, out.decode().splitlines())}
    assert steps["asked"]["results"] == ["node: t1", "node: t2", "node: t3"]
    assert steps["sent"] == {"step": "sent", "id": "note-1", "duplicate": True, "batch": ["b1", 5]}  # 5: NOT_FOUND
    assert steps["acked"]["acked"] == 1
    assert steps["resend"] == {"step": "resend", "minted": True, "chosen": False}  # a chosen id's ack is not resent
    assert steps["error"] == {"step": "error", "code": "NOT_FOUND", "reason": "UNKNOWN_RECIPIENT"}
    assert "done" in steps
    body = urllib.request.urlopen(metrics, timeout=30).read().decode()
    for method in ("Ask", "Reply", "WatchQueue", "AckMessages", "SendMessage", "SendMessages", "Subscribe"):
        assert calls(body, method) == 0, method


def test_the_sync_client_serves_with_a_plain_function(daemon) -> None:
    from fabricd.client import SyncClient

    with SyncClient(daemon.target) as worker, SyncClient(daemon.target) as asker:
        worker.register("sync-worker")
        tickets = [asker.enqueue("sync-worker", f"t{i}").ticket_id for i in range(2)]

        def handle(ticket: rv.Ticket) -> rv.ReplyRequest | str:
            if ticket.task == "t1":
                return rv.ReplyRequest(result="which one?", outcome=rv.TICKET_OUTCOME_INPUT_REQUIRED)
            return ticket.task.upper()

        worker.serve("sync-worker", handle, limit=2)  # returns once two are answered
        first, second = (asker.await_answer(t, timeout=10) for t in tickets)
        assert (first.result, second.result, second.outcome) == ("T0", "which one?", rv.TICKET_OUTCOME_INPUT_REQUIRED)
