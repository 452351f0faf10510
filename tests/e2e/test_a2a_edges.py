"""A2A tasks at the edges: their agent gone, resends, cancels and subscriptions of finished tasks (raw stubs)."""

from __future__ import annotations

import asyncio
import math

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2

from fabricd.a2a import a2a_pb2 as a2a
from fabricd.a2a import a2a_pb2_grpc as a2a_grpc
from fabricd.client import Client
from fabricd.v1 import rendezvous_service_pb2 as rv

BACKENDS = ["lmdb", "postgres"]
pytestmark = pytest.mark.timeout(60)
AGENT = "researcher"


@pytest.fixture
async def fabric(daemon):  # noqa: ANN201
    async with Client(daemon.target) as c:
        await c.register(AGENT)
        yield c


@pytest.fixture
async def stub(daemon):  # noqa: ANN201
    async with grpc.aio.insecure_channel(daemon.target) as channel:
        yield a2a_grpc.A2AServiceStub(channel)


def send(message_id: str, tenant: str = AGENT, text: str = "hi") -> a2a.SendMessageRequest:
    return a2a.SendMessageRequest(tenant=tenant, configuration=a2a.SendMessageConfiguration(return_immediately=True),
                                  message=a2a.Message(message_id=message_id, role=a2a.ROLE_USER,
                                                      parts=[a2a.Part(text=text)]))


def reason(err: grpc.aio.AioRpcError) -> str:
    for key, value in err.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            info = error_details_pb2.ErrorInfo()
            status_pb2.Status.FromString(value).details[0].Unpack(info)
            return info.reason
    return ""


async def test_a_task_whose_agent_was_unregistered_can_still_be_fetched_by_the_agent_id(fabric, stub) -> None:
    task = (await stub.SendMessage(send("m-1"))).task
    await fabric.unregister(AGENT, purge=True)
    seen = await stub.GetTask(a2a.GetTaskRequest(tenant=AGENT, id=task.id))
    assert seen.status.state == a2a.TASK_STATE_FAILED
    assert "unregistered" in seen.status.message.parts[0].text
    (listed,) = (await stub.ListTasks(a2a.ListTasksRequest(tenant=AGENT))).tasks
    assert listed.id == task.id
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await stub.CancelTask(a2a.CancelTaskRequest(tenant=AGENT, id=task.id))
    assert reason(err.value) == "TASK_NOT_CANCELABLE"
    with pytest.raises(grpc.aio.AioRpcError) as err:  # a new task for it is still refused
        await stub.SendMessage(send("m-2"))
    assert err.value.code() == grpc.StatusCode.NOT_FOUND and reason(err.value) == "INVALID_PARAMS"
    with pytest.raises(grpc.aio.AioRpcError) as err:  # a tenant that never had a task is still no agent
        await stub.ListTasks(a2a.ListTasksRequest(tenant="nobody"))
    assert err.value.code() == grpc.StatusCode.NOT_FOUND and "nobody" in err.value.details()


async def test_a_task_stream_cut_by_a_shutdown_ends_unavailable_not_as_if_complete(daemon, fabric, stub) -> None:
    task = (await stub.SendMessage(send("m-1"))).task
    watching = stub.SubscribeToTask(a2a.SubscribeToTaskRequest(tenant=AGENT, id=task.id))
    first = await watching.read()
    assert first.task.status.state == a2a.TASK_STATE_WORKING
    stopping = asyncio.ensure_future(asyncio.to_thread(daemon.stop))
    with pytest.raises(grpc.aio.AioRpcError) as err:  # a clean end would tell the caller its task had ended
        while await watching.read() is not grpc.aio.EOF:
            pass
    assert err.value.code() == grpc.StatusCode.UNAVAILABLE
    assert await stopping == 0


async def test_a_streaming_send_refuses_a_negative_history_length_before_queuing_and_honours_one(fabric, stub) -> None:
    request = send("m-1")
    request.configuration.history_length = -1
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await anext(aiter(stub.SendStreamingMessage(request)))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "history_length" in err.value.details()
    assert await fabric.get_queue(AGENT) == []
    request.configuration.history_length = 0
    first = await anext(aiter(stub.SendStreamingMessage(request)))
    assert first.task.id and list(first.task.history) == []


async def test_a_follow_up_resent_continues_once_and_one_to_a_finished_or_other_context_task_is_refused(
        fabric, stub) -> None:
    task = (await stub.SendMessage(send("m-1"))).task
    await fabric.reply(AGENT, "which one?", outcome=rv.TICKET_OUTCOME_INPUT_REQUIRED)
    follow_up = send("m-2", text="the blue one")
    follow_up.message.task_id = task.id
    first = (await stub.SendMessage(follow_up)).task
    again = (await stub.SendMessage(follow_up)).task  # a resend: the same turn, not a third one
    assert first.id == again.id == task.id and again.status.state == a2a.TASK_STATE_WORKING
    assert len(again.history) == 3
    (message,) = (await fabric.peek(AGENT)).messages
    assert message.headers["fabricd-ticket-turn"] == "2"
    other = send("m-3", text="wrong conversation")
    other.message.task_id, other.message.context_id = task.id, "not-" + task.context_id
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await stub.SendMessage(other)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "context" in err.value.details()
    await fabric.reply(AGENT, "done", ticket_id=task.id)
    late = send("m-4", text="and another")
    late.message.task_id = task.id
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await stub.SendMessage(late)
    assert reason(err.value) == "UNSUPPORTED_OPERATION"
    assert (await fabric.peek(AGENT)).messages == [] and await fabric.get_queue(AGENT) == []
    resent = (await stub.SendMessage(follow_up)).task  # the accepted follow-up, resent after the end
    assert resent.status.state == a2a.TASK_STATE_COMPLETED and len(resent.history) == 4


async def test_an_agent_token_neither_sees_cancels_nor_continues_another_agents_task(make_daemon) -> None:
    daemon = make_daemon("--listen", "127.0.0.1:0").start()
    tcp = daemon.wait_for("127.0.0.1:").strip().rsplit(" ", 1)[-1]
    async with Client(daemon.target) as local:
        await local.register(AGENT)
        alice, bob = [(await local.issue_token(agent_id=a)).token for a in ("alice", "bob")]
        async with grpc.aio.insecure_channel(tcp) as channel:
            stub = a2a_grpc.A2AServiceStub(channel)

            def as_(token: str) -> tuple:
                return (("authorization", f"Bearer {token}"),)

            task = (await stub.SendMessage(send("m-1"), metadata=as_(alice))).task
            await local.reply(AGENT, "which one?", outcome=rv.TICKET_OUTCOME_INPUT_REQUIRED)
            follow_up = send("m-2")
            follow_up.message.task_id = task.id
            for call in (stub.GetTask(a2a.GetTaskRequest(tenant=AGENT, id=task.id), metadata=as_(bob)),
                         stub.CancelTask(a2a.CancelTaskRequest(tenant=AGENT, id=task.id), metadata=as_(bob)),
                         stub.SendMessage(follow_up, metadata=as_(bob))):
                with pytest.raises(grpc.aio.AioRpcError) as err:
                    await call
                assert reason(err.value) == "TASK_NOT_FOUND"
            assert list((await stub.ListTasks(a2a.ListTasksRequest(tenant=AGENT), metadata=as_(bob))).tasks) == []
            seen = await stub.GetTask(a2a.GetTaskRequest(tenant=AGENT, id=task.id), metadata=as_(alice))
            assert seen.status.state == a2a.TASK_STATE_INPUT_REQUIRED  # bob changed nothing


async def test_a_streamed_task_whose_agent_is_unregistered_ends_failed(fabric, stub) -> None:
    request = send("m-1")
    request.configuration.return_immediately = False
    streaming = stub.SendStreamingMessage(request)
    first = await streaming.read()
    assert first.task.status.state == a2a.TASK_STATE_WORKING
    await fabric.unregister(AGENT, purge=True)
    events = []
    while (event := await streaming.read()) is not grpc.aio.EOF:
        events.append(event)
    assert [e.status_update.status.state for e in events] == [a2a.TASK_STATE_FAILED]
    assert "unregistered" in events[-1].status_update.status.message.parts[0].text


async def test_the_same_message_id_to_two_agents_makes_two_tasks(fabric, stub) -> None:
    await fabric.register("writer")
    a = (await stub.SendMessage(send("m-1"))).task
    b = (await stub.SendMessage(send("m-1", tenant="writer"))).task
    assert a.id != b.id and b.metadata["fabricd"]["target"] == "writer"
    assert len(await fabric.get_queue(AGENT)) == len(await fabric.get_queue("writer")) == 1


async def test_a_cancelled_question_keeps_the_agents_question_in_the_history(fabric, stub) -> None:
    task = (await stub.SendMessage(send("m-1", text="book a table"))).task
    await fabric.reply(AGENT, "for how many?", outcome=rv.TICKET_OUTCOME_INPUT_REQUIRED)
    cancelled = await stub.CancelTask(a2a.CancelTaskRequest(tenant=AGENT, id=task.id))
    seen = await stub.GetTask(a2a.GetTaskRequest(tenant=AGENT, id=task.id))
    for got in (cancelled, seen):
        assert got.status.state == a2a.TASK_STATE_CANCELED
        assert [(m.role, [p.text for p in m.parts]) for m in got.history] == [
            (a2a.ROLE_USER, ["book a table"]), (a2a.ROLE_AGENT, ["for how many?"])]


async def test_cancelling_a_terminal_task_fails_task_not_cancelable_a_second_cancel_included(fabric, stub) -> None:
    first = (await stub.SendMessage(send("m-1"))).task
    cancelled = await stub.CancelTask(a2a.CancelTaskRequest(tenant=AGENT, id=first.id))
    assert cancelled.status.state == a2a.TASK_STATE_CANCELED
    with pytest.raises(grpc.aio.AioRpcError) as again:  # it returned the CANCELED task as if it had cancelled it
        await stub.CancelTask(a2a.CancelTaskRequest(tenant=AGENT, id=first.id))
    assert again.value.code() == grpc.StatusCode.FAILED_PRECONDITION and reason(again.value) == "TASK_NOT_CANCELABLE"
    done = (await stub.SendMessage(send("m-2"))).task
    await fabric.reply(AGENT, "finished", ticket_id=done.id)
    with pytest.raises(grpc.aio.AioRpcError) as completed:
        await stub.CancelTask(a2a.CancelTaskRequest(tenant=AGENT, id=done.id))
    assert reason(completed.value) == "TASK_NOT_CANCELABLE"


async def test_list_tasks_sets_total_size_before_paging(fabric, stub) -> None:
    ids = [(await stub.SendMessage(send(f"m-{i}"))).task.id for i in range(5)]
    await stub.CancelTask(a2a.CancelTaskRequest(tenant=AGENT, id=ids[0]))
    page = await stub.ListTasks(a2a.ListTasksRequest(tenant=AGENT, page_size=2))
    assert (len(page.tasks), page.total_size) == (2, 5) and page.next_page_token
    submitted = await stub.ListTasks(a2a.ListTasksRequest(tenant=AGENT, page_size=2, status=a2a.TASK_STATE_SUBMITTED))
    canceled = await stub.ListTasks(a2a.ListTasksRequest(tenant=AGENT, status=a2a.TASK_STATE_CANCELED))
    assert (len(submitted.tasks), submitted.total_size) == (2, 3)  # queued behind the head (WORKING)
    assert (len(canceled.tasks), canceled.total_size) == (1, 1)


async def test_a_nan_or_infinity_in_a_parts_struct_is_invalid_params_and_queues_nothing(fabric, stub) -> None:
    # JSON has no NaN or Infinity: a Struct holding one cannot be kept. In a part's metadata (or a data part
    # sent with others) protobuf's json_format refuses it with an error that is no ValueError: it was UNKNOWN.
    def data(number: float):  # noqa: ANN202
        part = a2a.Part(media_type="application/json")
        part.data.struct_value.update({"score": number})
        return part

    def raw_with_metadata(number: float):  # noqa: ANN202
        part = a2a.Part(raw=b"x")
        part.metadata.update({"score": number})
        return part

    for i, parts in enumerate(([a2a.Part(text="t"), raw_with_metadata(math.inf)], [data(math.nan)],
                               [data(1.0), data(-math.inf)], [a2a.Part(text="t"), raw_with_metadata(math.nan)])):
        request = send(f"m-{i}")
        request.message.ClearField("parts")
        request.message.parts.extend(parts)
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await stub.SendMessage(request)
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT and reason(err.value) == "INVALID_PARAMS"
        assert "JSON numbers are finite" in (err.value.details() or "")
    assert list(await fabric.get_queue(AGENT)) == []
    assert list((await stub.ListTasks(a2a.ListTasksRequest(tenant=AGENT))).tasks) == []
