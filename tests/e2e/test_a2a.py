"""Every agent on the fabric speaks A2A: the official a2a-sdk client against a real daemon.

The agent side is a fabric agent answering through fabricd.v1 (Client.reply); the caller side is
a2a-sdk's ClientFactory over the gRPC binding, routed to the agent by the card's tenant. Every
test runs on LMDB and on PostgreSQL.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import grpc
import pytest
from a2a.types import (
    CancelTaskRequest,
    GetTaskRequest,
    ListTasksRequest,
    SendMessageRequest,
    SubscribeToTaskRequest,
    TaskState,
)
from a2a.utils.errors import InvalidParamsError, TaskNotCancelableError, TaskNotFoundError, VersionNotSupportedError

from fabricd.client import Client
from tests.e2e.a2a_helpers import AGENT, collect, factory, queued, resolve, text_message

BACKENDS = ["lmdb", "postgres"]
pytestmark = pytest.mark.timeout(60)


@pytest.fixture
async def fabric(daemon):  # noqa: ANN201
    async with Client(daemon.target) as c:
        await c.register(AGENT, session_name="research", capabilities=["summarise", "search"])
        yield c


async def test_the_card_resolves_through_the_sdk_with_one_grpc_interface_per_listener(daemon, fabric) -> None:
    card = await resolve(daemon.target, "research")  # the session name routes too
    assert card.name == "research"
    assert [(i.url, i.protocol_binding, i.tenant, i.protocol_version) for i in card.supported_interfaces] == [
        (daemon.target, "GRPC", AGENT, "1.0")]
    assert sorted(s.id for s in card.skills) == ["search", "summarise"]
    assert card.capabilities.streaming and not card.capabilities.push_notifications
    assert card.security_schemes["bearer"].http_auth_security_scheme.scheme == "Bearer"


async def test_a_blocking_send_returns_the_agents_reply_as_a_completed_task(daemon, fabric) -> None:
    client = factory(streaming=False).create(await resolve(daemon.target, AGENT))
    sending = asyncio.ensure_future(collect(client.send_message(SendMessageRequest(
        message=text_message("summarise the paper", context_id="ctx-1")))))
    (ticket,) = await queued(fabric, AGENT, 1)
    await fabric.reply(AGENT, "it says 42", ticket_id=ticket.ticket_id)
    (event,) = await sending
    task = event.task
    assert (task.id, task.context_id, task.status.state) == (ticket.ticket_id, "ctx-1", TaskState.TASK_STATE_COMPLETED)
    assert [p.text for p in task.artifacts[0].parts] == ["it says 42"]
    await client.close()


async def test_a_streaming_send_shows_submitted_then_working_then_completed_with_the_artifact(daemon, fabric) -> None:
    first, _ = await fabric.enqueue(AGENT, "a task ahead"), None
    client = factory().create(await resolve(daemon.target, AGENT))
    events: list = []

    async def stream() -> None:
        async for event in client.send_message(SendMessageRequest(message=text_message("second"))):
            events.append(event)

    streaming = asyncio.ensure_future(stream())
    tickets = await queued(fabric, AGENT, 2)
    await fabric.reply(AGENT, "first done", ticket_id=first.ticket_id)
    await queued(fabric, AGENT, 1)
    await fabric.reply(AGENT, "second done", ticket_id=tickets[1].ticket_id)
    await streaming
    kinds = [e.WhichOneof("payload") for e in events]
    assert kinds == ["task", "status_update", "artifact_update", "status_update"], kinds
    assert events[0].task.status.state == TaskState.TASK_STATE_SUBMITTED
    assert events[0].task.status.message.metadata["fabricd"]["position"] == 1  # one task ahead of it
    assert events[1].status_update.status.state == TaskState.TASK_STATE_WORKING
    assert [p.text for p in events[2].artifact_update.artifact.parts] == ["second done"]
    assert events[3].status_update.status.state == TaskState.TASK_STATE_COMPLETED
    await client.close()


async def test_return_immediately_then_get_task_and_subscribe(daemon, fabric) -> None:
    client = factory(streaming=False, polling=True).create(await resolve(daemon.target, AGENT))
    (event,) = await collect(client.send_message(SendMessageRequest(message=text_message("later"))))
    assert event.task.status.state == TaskState.TASK_STATE_WORKING  # alone in the queue: at the head
    got = await client.get_task(GetTaskRequest(id=event.task.id, history_length=1))
    assert got.id == event.task.id and [p.text for p in got.history[0].parts] == ["later"]
    await client.close()
    client = factory().create(await resolve(daemon.target, AGENT))  # the SDK subscribes when it streams
    watching = client.subscribe(SubscribeToTaskRequest(id=event.task.id))
    first = await anext(watching)  # subscribed: the task as it stands
    assert first.task.status.state == TaskState.TASK_STATE_WORKING
    await fabric.reply(AGENT, "done", ticket_id=event.task.id)
    events = await collect(watching)
    assert events[-1].status_update.status.state == TaskState.TASK_STATE_COMPLETED
    ended = await collect(client.subscribe(SubscribeToTaskRequest(id=event.task.id)))  # finished: ends at once
    assert [e.task.status.state for e in ended] == [TaskState.TASK_STATE_COMPLETED]
    await client.close()


async def test_a_resend_with_the_same_message_id_creates_no_second_task(daemon, fabric) -> None:
    client = factory(streaming=False, polling=True).create(await resolve(daemon.target, AGENT))
    message = text_message("once", message_id="m-1")
    (a,) = await collect(client.send_message(SendMessageRequest(message=message)))
    (b,) = await collect(client.send_message(SendMessageRequest(message=message)))
    assert a.task.id == b.task.id
    assert len(await fabric.get_queue(AGENT)) == 1
    await client.close()


async def test_a_message_id_of_256_characters_makes_one_task(daemon, fabric) -> None:
    client = factory(streaming=False, polling=True).create(await resolve(daemon.target, AGENT))
    message = text_message("once", message_id="m" * 256)  # the ticket's key is longer: the caller's id comes first
    (a,) = await collect(client.send_message(SendMessageRequest(message=message)))
    (b,) = await collect(client.send_message(SendMessageRequest(message=message)))
    assert a.task.id == b.task.id
    assert len(await fabric.get_queue(AGENT)) == 1
    await client.close()


async def test_list_tasks_keeps_those_changed_after_status_timestamp_after_and_refuses_bad_filters(
        daemon, fabric) -> None:
    from fabricd.a2a import a2a_pb2 as a2a
    from fabricd.a2a import a2a_pb2_grpc as a2a_grpc

    async with grpc.aio.insecure_channel(daemon.target) as channel:
        stub = a2a_grpc.A2AServiceStub(channel)
        send = a2a.SendMessageRequest(tenant=AGENT, configuration=a2a.SendMessageConfiguration(return_immediately=True),
                                      message=a2a.Message(message_id="m-1", role=a2a.ROLE_USER,
                                                          parts=[a2a.Part(text="hi")]))
        task = (await stub.SendMessage(send)).task
        stamp = task.status.timestamp

        def listed(**kw):  # noqa: ANN003, ANN202 - the call, to await
            return stub.ListTasks(a2a.ListTasksRequest(tenant=AGENT, **kw))

        before = stamp.ToNanoseconds() - 1
        assert [t.id for t in (await listed(status_timestamp_after={"seconds": before // 10**9,
                                                                    "nanos": before % 10**9})).tasks] == [task.id]
        assert list((await listed(status_timestamp_after=stamp)).tasks) == []
        assert list((await listed(status_timestamp_after={"seconds": 253402300799})).tasks) == []
        for bad, field in (({"status_timestamp_after": {"seconds": 2**62}}, "status_timestamp_after"),
                           ({"status": 99}, "status"), ({"history_length": -1}, "history_length")):
            with pytest.raises(grpc.aio.AioRpcError) as err:
                await listed(**bad)
            assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT, bad
            assert field in err.value.details()
        send.message.message_id = "m-2"
        send.configuration.history_length = -1
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await stub.SendMessage(send)
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "history_length" in err.value.details()
    assert len(await fabric.get_queue(AGENT)) == 1  # the refused send queued nothing


async def test_cancel_task_withdraws_a_task_behind_the_head_and_a_finished_one_is_not_cancelable(daemon, fabric) -> None:
    client = factory(streaming=False, polling=True).create(await resolve(daemon.target, AGENT))
    (head,) = await collect(client.send_message(SendMessageRequest(message=text_message("head"))))
    (behind,) = await collect(client.send_message(SendMessageRequest(message=text_message("behind"))))
    assert behind.task.status.state == TaskState.TASK_STATE_SUBMITTED
    cancelled = await client.cancel_task(CancelTaskRequest(id=behind.task.id))
    assert cancelled.status.state == TaskState.TASK_STATE_CANCELED
    assert [t.ticket_id for t in await fabric.get_queue(AGENT)] == [head.task.id]
    unread = [m.ticket_id for m in (await fabric.peek(AGENT)).messages]
    assert unread == [head.task.id]  # the cancelled task's message was withdrawn from the mailbox
    await fabric.reply(AGENT, "done")
    with pytest.raises(TaskNotCancelableError):
        await client.cancel_task(CancelTaskRequest(id=head.task.id))
    await client.close()


async def test_unknown_tenant_task_and_version_give_the_sdks_typed_errors(daemon, fabric) -> None:
    client = factory(streaming=False).create(await resolve(daemon.target, AGENT))
    with pytest.raises(TaskNotFoundError):
        await client.get_task(GetTaskRequest(id="no-such-task"))
    await client.close()
    with pytest.raises(InvalidParamsError):
        await resolve(daemon.target, "nobody")
    async with grpc.aio.insecure_channel(daemon.target) as channel:
        from a2a.client.client import ClientCallContext
        from a2a.client.transports.grpc import GrpcTransport
        transport = GrpcTransport(channel, await resolve(daemon.target, AGENT))
        with pytest.raises(VersionNotSupportedError):
            await transport.get_task(GetTaskRequest(tenant=AGENT, id="x"),
                                     context=ClientCallContext(service_parameters={"A2A-Version": "0.3"}))


async def test_list_tasks_pages_through_the_tenants_tasks_newest_first(daemon, fabric) -> None:
    client = factory(streaming=False, polling=True).create(await resolve(daemon.target, AGENT))
    ids = []
    for n in range(5):
        (event,) = await collect(client.send_message(SendMessageRequest(message=text_message(f"t{n}",
                                                                                             context_id="c"))))
        ids.append(event.task.id)
    seen, token = [], ""
    while True:
        page = await client.list_tasks(ListTasksRequest(context_id="c", page_size=2, page_token=token))
        seen += [t.id for t in page.tasks]
        token = page.next_page_token
        if not token:
            break
    assert seen == ids[::-1]
    await client.close()


async def test_a_task_queued_across_a_daemon_restart_is_answered_to_a_new_subscriber(daemon, fabric) -> None:
    client = factory(streaming=False, polling=True).create(await resolve(daemon.target, AGENT))
    (event,) = await collect(client.send_message(SendMessageRequest(message=text_message("survive"))))
    await client.close()
    await fabric.close()
    daemon.restart()
    async with Client(daemon.target) as again:
        client = factory().create(await resolve(daemon.target, AGENT))
        watching = client.subscribe(SubscribeToTaskRequest(id=event.task.id))
        first = await anext(watching)
        assert first.task.id == event.task.id and first.task.status.state == TaskState.TASK_STATE_WORKING
        await again.reply(AGENT, "still here", ticket_id=event.task.id)
        events = await collect(watching)
        assert [p.text for p in events[-2].artifact_update.artifact.parts] == ["still here"]
        assert events[-1].status_update.status.state == TaskState.TASK_STATE_COMPLETED
        await client.close()


async def test_over_tcp_an_agent_token_sends_as_its_agent(make_daemon) -> None:
    daemon = make_daemon("--listen", "127.0.0.1:0").start()
    tcp = daemon.wait_for("127.0.0.1:").strip().rsplit(" ", 1)[-1]
    async with Client(daemon.target) as local:
        await local.register(AGENT)
        token = (await local.issue_token(agent_id="alice")).token
        card = await resolve(tcp, AGENT, token)
        client = factory(token, streaming=False, polling=True).create(card)
        (event,) = await collect(client.send_message(SendMessageRequest(message=text_message("from alice"))))
        (ticket,) = await local.get_queue(AGENT)
        assert ticket.ticket_id == event.task.id and ticket.source.agent_id == "alice"
        await local.enqueue(AGENT, "not alice's")
        listed = await client.list_tasks(ListTasksRequest())  # alice sees the tasks she sent, no others
        assert [t.id for t in listed.tasks] == [event.task.id]
        await client.close()


def test_fabric_a2a_card_prints_the_card_as_json(daemon) -> None:
    subprocess.run([sys.executable, "-m", "fabricd.cli.main", "--target", daemon.target, "register", AGENT],
                   check=True, capture_output=True)
    out = subprocess.run([sys.executable, "-m", "fabricd.cli.main", "--target", daemon.target, "a2a", "card", AGENT],
                         check=True, capture_output=True, text=True).stdout
    card = json.loads(out)
    assert card["name"] == AGENT and card["supportedInterfaces"][0]["protocolBinding"] == "GRPC"
