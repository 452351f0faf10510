"""The bidirectional streams as a client generated from the protos sees them: plain grpc stubs, no fabricd client.

RendezvousService.Serve (a replier's tickets in, answers out) and MailboxService.SendStream
(a sender's pipelined sends, acks and asks): frame order, answers only after the commit,
per-frame errors with the unary call's reason, windows, and what ends a stream.
"""

from __future__ import annotations

import asyncio

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from fabricd.client import Client
from fabricd.v1 import mailbox_service_pb2 as mb
from fabricd.v1 import mailbox_service_pb2_grpc as mb_grpc
from fabricd.v1 import rendezvous_service_pb2 as rv
from fabricd.v1 import rendezvous_service_pb2_grpc as rv_grpc
from fabricd.v1 import types_pb2 as pb

BACKENDS = ("lmdb", "postgres")


def reason_of(status) -> str:  # a google.rpc.Status
    for detail in status.details:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            return info.reason
    return ""


def call_reason(exc: grpc.aio.AioRpcError) -> str:
    status = rpc_status.from_call(exc)
    return reason_of(status) if status is not None else ""


def send_frame(seq: int, to: str, text: str, *, id: str = "") -> mb.SendStreamRequest:
    return mb.SendStreamRequest(seq=seq, send=mb.SendMessageRequest(message=pb.Message(
        id=id, recipient=pb.Address(agent_id=to), sender=pb.Address(agent_id="s"), text=text)))


async def next_frame(call, kind: str):  # noqa: ANN201
    """The next ServeResponse of `kind`, keepalives skipped."""
    while True:
        response = await asyncio.wait_for(call.read(), 30)
        assert response is not grpc.aio.EOF
        if response.WhichOneof("frame") == kind:
            return getattr(response, kind)


async def test_a_sender_stream_answers_each_frame_in_order_with_the_unary_calls_reasons(daemon) -> None:
    async with Client(daemon.target, streams=False) as client:
        await client.register("bob")
        stub = mb_grpc.MailboxServiceStub(client._channel)
        call = stub.SendStream()
        await call.write(send_frame(1, "bob", "one", id="m-1"))
        await call.write(send_frame(2, "nobody", "lost"))
        await call.write(mb.SendStreamRequest(seq=3, send_many=mb.SendMessagesRequest(messages=[
            pb.Message(recipient=pb.Address(agent_id="bob"), text="two"),
            pb.Message(recipient=pb.Address(agent_id="bob"), text="three")])))
        await call.write(send_frame(4, "bob", "one", id="m-1"))  # a resend: a duplicate, nothing stored
        await call.write(mb.SendStreamRequest(seq=5))
        await call.write(mb.SendStreamRequest(seq=6, ack=mb.AckMessagesRequest(agent_id="bob", message_ids=["m-1"])))
        answers = [await asyncio.wait_for(call.read(), 30) for _ in range(6)]
        assert [a.seq for a in answers] == [1, 2, 3, 4, 5, 6]
        assert answers[0].send.message.id == "m-1" and not answers[0].send.duplicate
        assert answers[1].error.code == grpc.StatusCode.NOT_FOUND.value[0]
        assert reason_of(answers[1].error) == "UNKNOWN_RECIPIENT"  # as SendMessage says it
        assert [r.message.text for r in answers[2].send_many.results] == ["two", "three"]
        assert answers[3].send.duplicate
        assert reason_of(answers[4].error) == "MISSING_FIELD"
        assert answers[5].ack.acked == 1
        await call.done_writing()
        assert await call.read() is grpc.aio.EOF
        peeked = await client.peek("bob")
        assert [m.text for m in peeked.messages] == ["two", "three"]  # the frames' order; m-1 acked


async def test_a_sender_stream_frame_out_of_order_ends_the_stream(daemon) -> None:
    async with Client(daemon.target, streams=False) as client:
        await client.register("bob")
        call = mb_grpc.MailboxServiceStub(client._channel).SendStream()
        await call.write(send_frame(2, "bob", "a"))
        await call.write(send_frame(2, "bob", "b"))
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            while True:
                await asyncio.wait_for(call.read(), 30)
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert call_reason(caught.value) == "FRAME_SEQ"


async def test_an_ask_on_a_sender_stream_is_answered_by_a_replier_stream(daemon) -> None:
    async with Client(daemon.target, streams=False) as client:
        await client.register("worker")
        replier = rv_grpc.RendezvousServiceStub(client._channel).Serve()
        await replier.write(rv.ServeRequest(open=rv.ServeOpen(agent_id="worker", window=4)))
        sender = mb_grpc.MailboxServiceStub(client._channel).SendStream()
        for i in (1, 2):
            await sender.write(mb.SendStreamRequest(seq=i, ask=rv.AskRequest(
                target="worker", task=f"task {i}", request_key=f"k{i}")))
        shown = []
        while len(shown) < 2:
            shown += (await next_frame(replier, "tickets")).tickets
        assert [t.task for t in shown] == ["task 1", "task 2"] and [t.position for t in shown] == [0, 1]
        # answer the second first: the asks are answered as their tickets are, the later one first
        await replier.write(rv.ServeRequest(seq=1, reply=rv.ReplyRequest(ticket_id=shown[1].ticket_id, result="r2")))
        answered = await next_frame(replier, "answer")
        assert (answered.seq, answered.ticket_id) == (1, shown[1].ticket_id)
        first = await asyncio.wait_for(sender.read(), 30)
        assert (first.seq, first.ask.result, first.ask.ticket_id) == (2, "r2", shown[1].ticket_id)
        # the answer came after the commit: the ticket reads ANSWERED already
        assert (await client.get_ticket(shown[1].ticket_id)).state == rv.TICKET_STATE_ANSWERED
        await replier.write(rv.ServeRequest(seq=2, reply=rv.ReplyRequest(
            result="r1", outcome=rv.TICKET_OUTCOME_INPUT_REQUIRED)))  # the head
        assert (await next_frame(replier, "answer")).ticket_id == shown[0].ticket_id
        second = await asyncio.wait_for(sender.read(), 30)
        assert (second.seq, second.ask.outcome) == (1, rv.TICKET_OUTCOME_INPUT_REQUIRED)
        # a reply to a ticket no longer queued fails as the unary Reply does; the stream goes on
        await replier.write(rv.ServeRequest(seq=3, reply=rv.ReplyRequest(ticket_id=shown[0].ticket_id, result="x")))
        failed = await next_frame(replier, "answer")
        assert failed.seq == 3 and failed.error.code == grpc.StatusCode.FAILED_PRECONDITION.value[0]
        assert reason_of(failed.error) == "NO_PENDING_REQUEST"
        # the follow-up turn of the same ticket comes again
        await sender.write(mb.SendStreamRequest(seq=3, ask=rv.AskRequest(
            target="worker", task="more", continue_ticket_id=shown[0].ticket_id, request_key="k3")))
        (again,) = (await next_frame(replier, "tickets")).tickets
        assert (again.ticket_id, again.task) == (shown[0].ticket_id, "more")
        await replier.write(rv.ServeRequest(seq=4, cancel_head=rv.CancelHeadRequest(ticket_id=again.ticket_id)))
        assert (await next_frame(replier, "answer")).cancelled
        aborted = await asyncio.wait_for(sender.read(), 30)
        assert aborted.seq == 3 and reason_of(aborted.error) == "TICKET_ABORTED"
        replier.cancel()
        sender.cancel()


async def test_a_replier_that_never_answers_holds_no_more_than_its_window(daemon) -> None:
    async with Client(daemon.target, streams=False) as client:
        await client.register("worker")
        queued = [(await client.enqueue("worker", f"t{i}")).ticket_id for i in range(5)]
        replier = rv_grpc.RendezvousServiceStub(client._channel).Serve()
        await replier.write(rv.ServeRequest(open=rv.ServeOpen(agent_id="worker", window=2)))
        first = await next_frame(replier, "tickets")
        assert [t.ticket_id for t in first.tickets] == queued[:2] and first.total == 5
        # more work arriving shows nothing beyond the window
        await client.enqueue("worker", "t5")
        await client.cancel_ticket(queued[4])  # a change of the queue past the window: nothing to show
        await replier.write(rv.ServeRequest(seq=1, reply=rv.ReplyRequest(ticket_id=queued[0], result="ok")))
        frames = []
        while len(frames) < 2:
            response = await asyncio.wait_for(replier.read(), 30)
            if response.WhichOneof("frame") != "keepalive":
                frames.append(response)
        kinds = {r.WhichOneof("frame"): r for r in frames}
        assert kinds["answer"].answer.ticket_id == queued[0]
        assert [t.ticket_id for t in kinds["tickets"].tickets.tickets] == [queued[2]]  # one in, as one left
        replier.cancel()


async def test_a_serve_stream_starts_with_an_open_frame(daemon) -> None:
    async with Client(daemon.target, streams=False) as client:
        replier = rv_grpc.RendezvousServiceStub(client._channel).Serve()
        await replier.write(rv.ServeRequest(seq=1, reply=rv.ReplyRequest(result="x")))
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await asyncio.wait_for(replier.read(), 30)
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert call_reason(caught.value) == "SERVE_OPEN_FIRST"


async def test_a_shutdown_ends_idle_sender_and_replier_streams_at_once_unavailable(make_daemon) -> None:
    # A grace of an hour: a stream that held the shutdown would hold it that long (the stop below gives 30 s).
    daemon = make_daemon("--grace", "3600").start()
    async with Client(daemon.target, streams=False) as client:
        await client.register("worker")
        sender = mb_grpc.MailboxServiceStub(client._channel).SendStream()
        await sender.write(send_frame(1, "worker", "before the stop"))
        assert (await asyncio.wait_for(sender.read(), 30)).send.message.text == "before the stop"
        replier = rv_grpc.RendezvousServiceStub(client._channel).Serve()
        await replier.write(rv.ServeRequest(open=rv.ServeOpen(agent_id="worker")))
        await asyncio.wait_for(replier.wait_for_connection(), 30)
        await asyncio.to_thread(daemon.stop)  # both streams idle, waiting on their callers
        for call in (sender, replier):
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                while True:
                    response = await asyncio.wait_for(call.read(), 30)
                    assert response is not grpc.aio.EOF  # the stream ends with an error, not OK
            assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
            assert call_reason(caught.value) == "SHUTTING_DOWN"
