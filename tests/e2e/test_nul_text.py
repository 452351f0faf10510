"""A NUL character in free text the daemon stores is INVALID_ARGUMENT on every backend, and nothing is written.

PostgreSQL's text and jsonb cannot hold U+0000: a task, result, close reason,
cwd, capability or metadata with one failed INTERNAL there (an unhandled driver
error) while LMDB stored it. The rule is the core's, so both backends answer
alike. Message text, data and headers keep their NUL: they are stored as bytes.
"""

from __future__ import annotations

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from fabricd.client import Client
from fabricd.v1 import directory_service_pb2 as dir_pb
from fabricd.v1 import outbox_service_pb2 as ob
from fabricd.v1 import rendezvous_service_pb2 as rv
from fabricd.v1 import types_pb2 as pb

BACKENDS = ("lmdb", "postgres")


def info(err: grpc.aio.AioRpcError) -> error_details_pb2.ErrorInfo:
    out = error_details_pb2.ErrorInfo()
    assert rpc_status.from_call(err).details[0].Unpack(out)
    return out


async def refused(call, request, field: str) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await call(request)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT, err.value.details()
    assert (info(err.value).reason, info(err.value).metadata["field"]) == ("INVALID_CHARACTERS", field)
    assert "NUL" in err.value.details()


@pytest.mark.parametrize("call", ["enqueue", "ask"])
async def test_a_task_with_a_nul_is_refused_and_queues_nothing(client: Client, call: str) -> None:
    await client.register("worker")
    if call == "enqueue":
        await refused(client.rendezvous.EnqueueTicket, rv.EnqueueTicketRequest(target="worker", task="a\0b"), "task")
    else:
        await refused(client.rendezvous.Ask, rv.AskRequest(target="worker", task="a\0b"), "task")
    assert list(await client.get_queue("worker")) == []
    assert list((await client.peek("worker")).messages) == []


async def test_a_result_with_a_nul_is_refused_and_the_ticket_stays_queued(client: Client) -> None:
    await client.register("worker")
    ticket = (await client.rendezvous.EnqueueTicket(rv.EnqueueTicketRequest(target="worker", task="do it"))).ticket_id
    await refused(client.rendezvous.Reply, rv.ReplyRequest(agent_id="worker", ticket_id=ticket, result="r\0"),
                  "result")
    assert [t.ticket_id for t in await client.get_queue("worker")] == [ticket]


async def test_a_close_reason_with_a_nul_is_refused_and_aborts_nothing(client: Client) -> None:
    await client.register("worker")
    ticket = (await client.rendezvous.EnqueueTicket(rv.EnqueueTicketRequest(target="worker", task="do it"))).ticket_id
    await refused(client.rendezvous.CloseQueue, rv.CloseQueueRequest(agent_id="worker", reason="gone\0"), "reason")
    assert [t.ticket_id for t in await client.get_queue("worker")] == [ticket]


REGISTRATIONS = [
    ("cwd", dict(cwd="/a\0b"), "cwd"),
    ("capability description", dict(capabilities=[pb.Capability(name="c", description="d\0")]),
     "capabilities[0].description"),
    ("capability payload", dict(capabilities=[pb.Capability(name="c", payload="p\0")]), "capabilities[0].payload"),
    ("metadata value", dict(metadata={"k": "v\0"}), "metadata"),
    ("metadata key", dict(metadata={"k\0": "v"}), "metadata"),
]


@pytest.mark.parametrize(("name", "fields", "field"), REGISTRATIONS, ids=[r[0] for r in REGISTRATIONS])
async def test_a_registration_with_a_nul_is_refused_and_registers_nothing(client: Client, name, fields,
                                                                          field) -> None:
    await refused(client.directory.Register, dir_pb.RegisterRequest(agent_id="carol", **fields), field)
    assert list(await client.list_mailboxes()) == []


async def test_a_fan_out_reply_with_a_nul_is_refused_and_writes_no_row(client: Client) -> None:
    job = ob.SettledJob(job_id="j", outcome=ob.JOB_OUTCOME_COMPLETED,
                        agent=pb.Address(agent_id="child", session_id="s"),
                        mail=pb.Mail(key="k", sender=pb.Address(agent_id="parent", session_id="p"),
                                     recipient=pb.Address(agent_id="child", session_id="s")))
    await refused(client.outbox.FanOut, ob.FanOutRequest(job=job, content="done\0"), "content")
    assert list((await client.list_outbox()).rows) == []


async def test_message_text_and_headers_keep_their_nul(client: Client) -> None:
    await client.send_message(pb.Message(recipient=pb.Address(agent_id="a"), id="m", text="a\0b",
                                         headers={"k": "v\0"}), create_mailbox=True)
    (got,) = (await client.peek("a")).messages
    assert (got.text, got.headers["k"]) == ("a\0b", "v\0")
