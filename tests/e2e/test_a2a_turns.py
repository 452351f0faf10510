"""A2A tasks the agent answers INPUT_REQUIRED, REJECTED or FAILED, follow-ups, and parts beyond text."""

from __future__ import annotations

import asyncio

import pytest
from a2a.types import (
    CancelTaskRequest,
    GetTaskRequest,
    ListTasksRequest,
    Message,
    Part,
    Role,
    SendMessageRequest,
    TaskState,
)
from a2a.utils.errors import UnsupportedOperationError
from google.protobuf import struct_pb2

from fabricd.client import Client
from fabricd.v1 import rendezvous_service_pb2 as rv
from tests.e2e.a2a_helpers import AGENT, collect, factory, queued, resolve, text_message

BACKENDS = ["lmdb", "postgres"]
pytestmark = pytest.mark.timeout(60)


@pytest.fixture
async def fabric(daemon):  # noqa: ANN201
    async with Client(daemon.target) as c:
        await c.register(AGENT)
        yield c


def texts(parts) -> list[str]:
    return [p.text for p in parts]


async def test_input_required_then_a_follow_up_with_the_task_id_continues_the_same_task(daemon, fabric) -> None:
    client = factory(streaming=False).create(await resolve(daemon.target, AGENT))
    sending = asyncio.ensure_future(collect(client.send_message(SendMessageRequest(
        message=text_message("book a table", context_id="dinner")))))
    await queued(fabric, AGENT, 1)
    await fabric.reply(AGENT, "for how many?", outcome=rv.TICKET_OUTCOME_INPUT_REQUIRED)
    (event,) = await sending
    task = event.task
    assert task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED and not task.artifacts
    assert texts(task.status.message.parts) == ["for how many?"]

    follow_up = Message(message_id="m-2", context_id="dinner", task_id=task.id, role=Role.ROLE_USER,
                        parts=[Part(text="four")])
    sending = asyncio.ensure_future(collect(client.send_message(SendMessageRequest(message=follow_up))))
    (ticket,) = await queued(fabric, AGENT, 1)
    assert (ticket.ticket_id, ticket.conversation_id) == (task.id, "dinner")  # the same task, queued again
    working = await client.get_task(GetTaskRequest(id=task.id))
    assert working.status.state == TaskState.TASK_STATE_WORKING
    (message,) = (await fabric.peek(AGENT)).messages  # the agent sees the follow-up as the ticket's next turn
    assert message.ticket_id == task.id and message.headers["fabricd-ticket-turn"] == "2"
    assert message.text.endswith("four")
    await fabric.reply(AGENT, "booked for four", ticket_id=task.id)
    (event,) = await sending
    done = event.task
    assert (done.id, done.status.state) == (task.id, TaskState.TASK_STATE_COMPLETED)
    assert texts(done.artifacts[0].parts) == ["booked for four"]
    assert [(m.role, texts(m.parts)) for m in done.history] == [
        (Role.ROLE_USER, ["book a table"]), (Role.ROLE_AGENT, ["for how many?"]),
        (Role.ROLE_USER, ["four"]), (Role.ROLE_AGENT, ["booked for four"])]
    with pytest.raises(UnsupportedOperationError):  # completed: no more follow-ups
        await collect(client.send_message(SendMessageRequest(message=Message(
            message_id="m-3", task_id=task.id, role=Role.ROLE_USER, parts=[Part(text="and wine")]))))
    await client.close()


async def test_rejected_and_failed_replies_are_the_tasks_states_and_input_required_can_be_cancelled(
        daemon, fabric) -> None:
    client = factory(streaming=False, polling=True).create(await resolve(daemon.target, AGENT))
    ids = []
    for n in range(3):
        (event,) = await collect(client.send_message(SendMessageRequest(message=text_message(f"task {n}"))))
        ids.append(event.task.id)
    await fabric.reply(AGENT, "not my job", ticket_id=ids[0], outcome=rv.TICKET_OUTCOME_REJECTED)
    await fabric.reply(AGENT, "the tool crashed", ticket_id=ids[1], outcome=rv.TICKET_OUTCOME_FAILED)
    await fabric.reply(AGENT, "which file?", ticket_id=ids[2], outcome=rv.TICKET_OUTCOME_INPUT_REQUIRED)
    rejected, failed, waiting = [await client.get_task(GetTaskRequest(id=i)) for i in ids]
    assert (rejected.status.state, texts(rejected.status.message.parts)) == (TaskState.TASK_STATE_REJECTED,
                                                                            ["not my job"])
    assert (failed.status.state, texts(failed.status.message.parts)) == (TaskState.TASK_STATE_FAILED,
                                                                        ["the tool crashed"])
    assert waiting.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
    for state, expected in ((TaskState.TASK_STATE_REJECTED, [ids[0]]), (TaskState.TASK_STATE_FAILED, [ids[1]]),
                            (TaskState.TASK_STATE_INPUT_REQUIRED, [ids[2]]), (TaskState.TASK_STATE_COMPLETED, [])):
        listed = await client.list_tasks(ListTasksRequest(status=state, page_size=1))
        assert [t.id for t in listed.tasks] == expected, state
    cancelled = await client.cancel_task(CancelTaskRequest(id=ids[2]))  # nobody will answer the question
    assert cancelled.status.state == TaskState.TASK_STATE_CANCELED
    asker = await fabric.await_answer(ids[0], timeout=5)  # a fabricd.v1 asker sees the outcome too
    assert (asker.outcome, asker.result) == (rv.TICKET_OUTCOME_REJECTED, "not my job")
    await client.close()


async def test_raw_data_and_url_parts_reach_the_agent_as_data_and_headers_and_round_trip(daemon, fabric) -> None:
    client = factory(streaming=False, polling=True).create(await resolve(daemon.target, AGENT))
    image = Part(raw=b"\x89PNG\x00\xff", media_type="image/png", filename="chart.png")
    sent = Message(message_id="p-1", role=Role.ROLE_USER, parts=[Part(text="describe this"), image])
    (event,) = await collect(client.send_message(SendMessageRequest(message=sent)))
    (message,) = (await fabric.peek(AGENT)).messages
    assert message.data == b"\x89PNG\x00\xff" and message.text.endswith("describe this")
    assert {k: message.headers[k] for k in ("a2a-part", "content-type", "a2a-filename")} == {
        "a2a-part": "raw", "content-type": "image/png", "a2a-filename": "chart.png"}
    await fabric.reply(AGENT, "a bar chart", data=b'{"bars": 3}', headers={"content-type": "application/json"})
    task = await client.get_task(GetTaskRequest(id=event.task.id))
    assert list(task.history[0].parts) == list(sent.parts)
    (text_part, data_part) = task.artifacts[0].parts
    assert (text_part.text, data_part.raw, data_part.media_type) == ("a bar chart", b'{"bars": 3}',
                                                                     "application/json")

    value = struct_pb2.Value()
    value.struct_value.update({"rows": [1, 2], "name": "q3"})
    data_only = Message(message_id="p-2", role=Role.ROLE_USER, parts=[Part(data=value)])
    mixed = Message(message_id="p-3", role=Role.ROLE_USER, parts=[
        Part(text="compare"), Part(url="https://example.org/a.csv", media_type="text/csv", filename="a.csv"),
        Part(data=value)])
    for sent, layout in ((data_only, "data"), (mixed, "parts")):
        (event,) = await collect(client.send_message(SendMessageRequest(message=sent)))
        ticket = await fabric.get_ticket(event.task.id)
        assert ticket.headers["a2a-part"] == layout and ticket.headers["content-type"] == "application/json"
        task = await client.get_task(GetTaskRequest(id=event.task.id))
        assert list(task.history[0].parts) == list(sent.parts)
    assert (await fabric.get_ticket(event.task.id)).task == "compare"
    await client.close()
