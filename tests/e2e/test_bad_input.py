"""Every bad mailbox request gets its status code and a message a person can act on, and writes nothing."""

from __future__ import annotations

import grpc
import pytest

from fabricd.client import Client
from fabricd.v1 import mailbox_service_pb2 as mbx_pb
from fabricd.v1 import types_pb2 as pb

INVALID = grpc.StatusCode.INVALID_ARGUMENT


def msg(**kw) -> pb.Message:  # noqa: ANN003
    kw.setdefault("recipient", pb.Address(agent_id="alice"))
    return pb.Message(**kw)


SEND_CASES = [
    ("no message", mbx_pb.SendMessageRequest(), "recipient.agent_id is required"),
    ("empty recipient", mbx_pb.SendMessageRequest(message=msg(recipient=pb.Address())), "is required"),
    ("recipient 257 chars", mbx_pb.SendMessageRequest(message=msg(recipient=pb.Address(agent_id="r" * 257))),
     "limit is 256"),
    ("session id 257 chars", mbx_pb.SendMessageRequest(
        message=msg(recipient=pb.Address(agent_id="a", session_id="s" * 257))), "recipient.session_id"),
    ("sender 257 chars", mbx_pb.SendMessageRequest(message=msg(sender=pb.Address(agent_id="s" * 257))),
     "sender.agent_id"),
    ("id 257 chars", mbx_pb.SendMessageRequest(message=msg(id="i" * 257)), "message.id"),
    ("control character in id", mbx_pb.SendMessageRequest(message=msg(id="a\nb")), "control characters"),
    ("reply_to without agent", mbx_pb.SendMessageRequest(message=msg(reply_to=[pb.Address()])), "reply_to[0]"),
    ("negative hops", mbx_pb.SendMessageRequest(message=msg(hops=-1)), "hops"),
    ("empty header key", mbx_pb.SendMessageRequest(message=msg(headers={"": "v"})), "empty key"),
]


@pytest.mark.parametrize(("name", "request_", "text"), SEND_CASES, ids=[c[0] for c in SEND_CASES])
async def test_bad_send_is_invalid_argument_and_stores_nothing(client: Client, name, request_, text) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await client.mailbox.SendMessage(request_)
    assert err.value.code() == INVALID
    assert text in err.value.details()
    assert await client.list_mailboxes() == []


OTHER_CASES = [
    ("peek without agent", "PeekMessages", mbx_pb.PeekMessagesRequest(), "agent_id is required"),
    ("peek limit too high", "PeekMessages", mbx_pb.PeekMessagesRequest(agent_id="a", limit=1001), "limit must be"),
    ("drain without agent", "DrainMessages", mbx_pb.DrainMessagesRequest(), "agent_id is required"),
    ("drain limit too high", "DrainMessages", mbx_pb.DrainMessagesRequest(agent_id="a", limit=5000), "limit must be"),
    ("ack without ids", "AckMessages", mbx_pb.AckMessagesRequest(agent_id="a"), "ack 1 to 1000"),
    ("ack with an empty id", "AckMessages", mbx_pb.AckMessagesRequest(agent_id="a", message_ids=[""]),
     "message_ids[0] is required"),
    ("ack too many", "AckMessages", mbx_pb.AckMessagesRequest(agent_id="a", message_ids=["x"] * 1001), "not 1001"),
    ("empty batch", "SendMessages", mbx_pb.SendMessagesRequest(), "send 1 to 1000"),
    ("batch too big", "SendMessages", mbx_pb.SendMessagesRequest(messages=[msg()] * 1001), "not 1001"),
]


@pytest.mark.parametrize(("name", "method", "request_", "text"), OTHER_CASES, ids=[c[0] for c in OTHER_CASES])
async def test_bad_mailbox_request_is_invalid_argument(client: Client, name, method, request_, text) -> None:
    await client.send("a", "kept", id="kept", create_mailbox=True)
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await getattr(client.mailbox, method)(request_)
    assert err.value.code() == INVALID
    assert text in err.value.details()
    peek = await client.peek("a")
    assert [m.id for m in peek.messages] == ["kept"]


async def test_errors_carry_error_info_with_a_stable_reason(client: Client) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await client.mailbox.SendMessage(mbx_pb.SendMessageRequest(message=msg(id="i" * 257)))
    from google.rpc import error_details_pb2
    from grpc_status import rpc_status

    status = rpc_status.from_call(err.value)
    info = error_details_pb2.ErrorInfo()
    assert status.details[0].Unpack(info)
    assert (info.reason, info.domain, info.metadata["field"]) == ("FIELD_TOO_LONG", "fabricd.dev", "message.id")


async def test_a_message_over_the_size_limit_is_resource_exhausted_with_a_hint(client: Client) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await client.mailbox.SendMessage(mbx_pb.SendMessageRequest(message=msg(data=b"x" * ((1 << 20) + 1))))
    assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "the limit is 1048576" in err.value.details() and "split" in err.value.details()
    assert await client.list_mailboxes() == []


async def test_message_size_limit_is_configurable(make_daemon) -> None:
    from fabricd.client import ResourceExhausted

    daemon = make_daemon("--max-message-bytes", "1K").start()
    async with Client(daemon.target) as client:
        await client.send("a", data=b"x" * 1024, create_mailbox=True)
        with pytest.raises(ResourceExhausted) as err:
            await client.send("a", data=b"x" * 1025)
        assert err.value.reason == "MESSAGE_TOO_LARGE"
        assert (err.value.metadata["size"], err.value.metadata["limit"]) == ("1025", "1024")
