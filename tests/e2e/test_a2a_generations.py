"""A2A tasks carry a generation (A2A 1.1) and SubscribeToTask resumes after one, replaying what was missed.

The caller side is the official a2a-sdk client where it can say it (the resume header goes as a service
parameter); the SDK's 1.0 types do not name the 1.1 fields, so its messages are read again as
lf.a2a.v1 messages of the vendored proto, which keeps the fields the SDK passed through unread. Calls
the SDK cannot make (GetTask's current_generation, if_generation_match) go through the generated stubs.
Every test runs on LMDB and on PostgreSQL.
"""

from __future__ import annotations

import asyncio

import grpc
import pytest
from a2a.client import ClientCallContext
from a2a.types import SendMessageRequest, SubscribeToTaskRequest, TaskState
from a2a.utils.errors import InvalidParamsError
from google.rpc import error_details_pb2, status_pb2

from fabricd.a2a import a2a_pb2 as a2a
from fabricd.a2a import a2a_pb2_grpc as a2a_grpc
from fabricd.client import Client
from fabricd.v1 import rendezvous_service_pb2 as rv
from tests.e2e.a2a_helpers import AGENT, collect, factory, queued, resolve, text_message

BACKENDS = ["lmdb", "postgres"]
pytestmark = pytest.mark.timeout(60)
RESUME = "fabricd-after-generation"


@pytest.fixture
async def fabric(daemon):  # noqa: ANN201
    async with Client(daemon.target) as c:
        await c.register(AGENT)
        yield c


def wire(event) -> a2a.StreamResponse:  # an a2a-sdk StreamResponse
    """An SDK event as the vendored proto reads it: with the generation fields the SDK's types do not name."""
    return a2a.StreamResponse.FromString(event.SerializeToString())


def generation(event: a2a.StreamResponse) -> int:
    return getattr(event, event.WhichOneof("payload")).generation


def resumed(after: int | str) -> ClientCallContext:
    return ClientCallContext(service_parameters={RESUME: str(after)})


def send(text: str, task_id: str = "", match: int | None = None) -> a2a.SendMessageRequest:
    config = a2a.SendMessageConfiguration(return_immediately=True)
    if match is not None:
        config.if_generation_match = match
    return a2a.SendMessageRequest(tenant=AGENT, configuration=config, message=a2a.Message(
        message_id=f"m-{text}", task_id=task_id, role=a2a.ROLE_USER, parts=[a2a.Part(text=text)]))


async def test_each_event_carries_the_next_generation_and_a_move_up_the_queue_alone_sends_none(
        daemon, fabric) -> None:
    ahead = [await fabric.enqueue(AGENT, f"ahead {n}") for n in range(2)]
    client = factory().create(await resolve(daemon.target, AGENT))
    streaming = asyncio.ensure_future(collect(client.send_message(SendMessageRequest(message=text_message("mine")))))
    tickets = await queued(fabric, AGENT, 3)
    for ticket in ahead:  # position 2, 1 (both SUBMITTED), then 0: WORKING
        await fabric.reply(AGENT, "done", ticket_id=ticket.ticket_id)
    await fabric.reply(AGENT, "mine done", ticket_id=tickets[2].ticket_id)
    events = [wire(e) for e in await streaming]
    assert [e.WhichOneof("payload") for e in events] == ["task", "status_update", "artifact_update", "status_update"]
    assert [generation(e) for e in events] == [1, 2, 3, 4]
    assert events[0].task.status.state == a2a.TASK_STATE_SUBMITTED
    assert events[1].status_update.status.state == a2a.TASK_STATE_WORKING
    assert events[3].status_update.status.state == a2a.TASK_STATE_COMPLETED
    async with grpc.aio.insecure_channel(daemon.target) as channel:
        got = await a2a_grpc.A2AServiceStub(channel).GetTask(a2a.GetTaskRequest(tenant=AGENT, id=tickets[2].ticket_id))
    assert got.generation == 4
    await client.close()


async def test_a_resumed_subscribe_replays_what_the_caller_missed_across_a_restart(daemon, fabric) -> None:
    ahead = await fabric.enqueue(AGENT, "ahead")
    sender = factory(streaming=False, polling=True).create(await resolve(daemon.target, AGENT))
    mine = (await collect(sender.send_message(SendMessageRequest(message=text_message("mine")))))[0].task
    await sender.close()
    client = factory().create(await resolve(daemon.target, AGENT))
    watching = client.subscribe(SubscribeToTaskRequest(id=mine.id))  # it sees the task, then loses its connection
    first = wire(await anext(watching))
    assert (first.task.status.state, first.task.generation) == (a2a.TASK_STATE_SUBMITTED, 1)
    await watching.aclose()
    await client.close()
    await fabric.reply(AGENT, "ahead done", ticket_id=ahead.ticket_id)  # mine: WORKING (2) while nobody watched
    await fabric.close()
    daemon.restart()
    async with Client(daemon.target) as again:
        client = factory().create(await resolve(daemon.target, AGENT))
        stream = client.subscribe(SubscribeToTaskRequest(id=mine.id), context=resumed(1))
        replayed = wire(await anext(stream))  # no task first: the events after generation 1, from storage
        assert (replayed.status_update.status.state, generation(replayed)) == (a2a.TASK_STATE_WORKING, 2)
        await again.reply(AGENT, "mine done", ticket_id=mine.id)
        rest = [wire(e) for e in await collect(stream)]
        assert [(e.WhichOneof("payload"), generation(e)) for e in rest] == [("artifact_update", 3),
                                                                            ("status_update", 4)]
        assert [p.text for p in rest[0].artifact_update.artifact.parts] == ["mine done"]
        late = [wire(e) for e in await collect(client.subscribe(SubscribeToTaskRequest(id=mine.id),
                                                                context=resumed(2)))]
        assert [generation(e) for e in late] == [3, 4]  # finished: the replay, then the stream ends
        assert await collect(client.subscribe(SubscribeToTaskRequest(id=mine.id), context=resumed(4))) == []
        await client.close()


async def test_a_resume_from_an_earlier_turn_replays_its_question_and_the_follow_up(daemon, fabric) -> None:
    async with grpc.aio.insecure_channel(daemon.target) as channel:
        stub = a2a_grpc.A2AServiceStub(channel)
        task = (await stub.SendMessage(send("book a table"))).task
        assert task.generation == 2  # alone in the queue: WORKING at once
        await fabric.reply(AGENT, "for how many?", outcome=rv.TICKET_OUTCOME_INPUT_REQUIRED)
        await stub.SendMessage(send("four", task_id=task.id))
        await fabric.reply(AGENT, "booked")
        replay = [e async for e in stub.SubscribeToTask(a2a.SubscribeToTaskRequest(tenant=AGENT, id=task.id),
                                                        metadata=((RESUME, "2"),))]
        got = await stub.GetTask(a2a.GetTaskRequest(tenant=AGENT, id=task.id))
    assert [generation(e) for e in replay] == list(range(3, got.generation + 1)) == [3, 4, 5, 6, 7]
    states = [e.status_update.status.state if e.HasField("status_update") else "artifact" for e in replay]
    assert states == [a2a.TASK_STATE_INPUT_REQUIRED, a2a.TASK_STATE_SUBMITTED, a2a.TASK_STATE_WORKING, "artifact",
                      a2a.TASK_STATE_COMPLETED]
    assert [p.text for p in replay[0].status_update.status.message.parts] == ["for how many?"]


async def test_a_cursor_ahead_of_the_task_or_not_a_number_is_invalid_params(daemon, fabric) -> None:
    client = factory().create(await resolve(daemon.target, AGENT))
    (event,) = await collect(factory(streaming=False, polling=True).create(await resolve(daemon.target, AGENT))
                             .send_message(SendMessageRequest(message=text_message("x"))))
    for cursor in ("3", "-1", "two"):
        with pytest.raises(InvalidParamsError):
            await collect(client.subscribe(SubscribeToTaskRequest(id=event.task.id), context=resumed(cursor)))
    assert event.task.status.state == TaskState.TASK_STATE_WORKING  # generation 2: a cursor of 2 waits, 3 is ahead
    await client.close()


async def test_get_task_with_current_generation_waits_for_a_newer_one(daemon, fabric) -> None:
    async with grpc.aio.insecure_channel(daemon.target) as channel:
        stub = a2a_grpc.A2AServiceStub(channel)
        task = (await stub.SendMessage(send("poll me"))).task
        now = await stub.GetTask(a2a.GetTaskRequest(tenant=AGENT, id=task.id, current_generation=task.generation - 1))
        assert now.generation == task.generation  # already past the caller's: at once
        held = await stub.GetTask(a2a.GetTaskRequest(tenant=AGENT, id=task.id, current_generation=task.generation),
                                  timeout=0.5)
        assert held.generation == task.generation  # nothing moved before the deadline: the task as it stands
        polling = asyncio.ensure_future(stub.GetTask(a2a.GetTaskRequest(tenant=AGENT, id=task.id,
                                                                         current_generation=task.generation)))
        await fabric.reply(AGENT, "polled")
        done = await polling
    assert (done.status.state, done.generation) == (a2a.TASK_STATE_COMPLETED, task.generation + 2)


async def test_a_follow_up_with_a_stale_if_generation_match_is_refused_and_writes_nothing(daemon, fabric) -> None:
    async with grpc.aio.insecure_channel(daemon.target) as channel:
        stub = a2a_grpc.A2AServiceStub(channel)
        task = (await stub.SendMessage(send("which?"))).task
        await fabric.reply(AGENT, "red or blue?", outcome=rv.TICKET_OUTCOME_INPUT_REQUIRED)
        asked = await stub.GetTask(a2a.GetTaskRequest(tenant=AGENT, id=task.id))
        assert (asked.status.state, asked.generation) == (a2a.TASK_STATE_INPUT_REQUIRED, 3)
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await stub.SendMessage(send("red", task_id=task.id, match=2))
        assert caught.value.code() == grpc.StatusCode.ABORTED
        status = status_pb2.Status.FromString(dict(caught.value.trailing_metadata())["grpc-status-details-bin"])
        info = error_details_pb2.ErrorInfo()
        status.details[0].Unpack(info)
        assert (info.reason, info.domain, info.metadata["generation"]) == ("TASK_GENERATION_MISMATCH",
                                                                          "a2a-protocol.org", "3")
        assert await fabric.get_queue(AGENT) == []  # nothing was queued
        again = await stub.SendMessage(send("blue", task_id=task.id, match=3))
        resent = await stub.SendMessage(send("blue", task_id=task.id, match=3))  # its answer was lost, say
    assert (again.task.status.state, again.task.generation) == (a2a.TASK_STATE_WORKING, 5)
    assert resent.task.generation == 5 and len(await fabric.get_queue(AGENT)) == 1  # the same turn, once
