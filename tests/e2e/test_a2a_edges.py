"""A2A tasks at the edges: their agent gone, resends, cancels and subscriptions of finished tasks (raw stubs)."""

from __future__ import annotations

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2

from fabricd.a2a import a2a_pb2 as a2a
from fabricd.a2a import a2a_pb2_grpc as a2a_grpc
from fabricd.client import Client

BACKENDS = ["lmdb", "postgres"]
pytestmark = pytest.mark.timeout(60)
AGENT = "researcher"


@pytest.fixture
async def fabric(daemon):  # noqa: ANN001, ANN201
    async with Client(daemon.target) as c:
        await c.register(AGENT)
        yield c


@pytest.fixture
async def stub(daemon):  # noqa: ANN001, ANN201
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


async def test_a_task_whose_agent_was_unregistered_can_still_be_fetched_by_the_agent_id(fabric, stub) -> None:  # noqa: ANN001
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
