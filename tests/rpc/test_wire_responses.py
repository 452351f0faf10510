"""Responses built from stored encodings (fabricd.wire.messages_response) are the messages as stored."""

from __future__ import annotations

from fabricd import wire
from fabricd.core.model import Envelope
from fabricd.v1 import mailbox_service_pb2 as mbx_pb
from fabricd.v1 import types_pb2 as pb


def test_a_response_holds_every_stored_message_whatever_its_size() -> None:
    # one-byte lengths (under 128), the edges, and multi-byte lengths
    messages = [pb.Message(id=f"m{i}", sender=pb.Address(agent_id="a"), text="x" * size, seq=i)
                for i, size in enumerate((0, 1, 100, 113, 114, 115, 200, 16_384, 300_000))]
    encoded = [m.SerializeToString() for m in messages]
    assert {len(e) < 0x80 for e in encoded} == {True, False}
    envelopes = [Envelope(m.seq, e) for m, e in zip(messages, encoded, strict=True)]
    for cls in (mbx_pb.SubscribeResponse, mbx_pb.DrainMessagesResponse, mbx_pb.PeekMessagesResponse):
        response = wire.messages_response(cls, envelopes)
        assert list(response.messages) == messages
    assert list(wire.messages_response(mbx_pb.SubscribeResponse, []).messages) == []
    # Subscribe writes the field's bytes as its response, unparsed: they are the response protobuf writes
    assert wire.messages_field(envelopes) == mbx_pb.SubscribeResponse(messages=messages).SerializeToString()


def test_a_field_is_the_length_delimited_field_protobuf_writes() -> None:
    for size in (1, 2, 127, 128, 300, 20_000):  # one-byte lengths (the precomputed ones) and longer
        text = "x" * size
        address = pb.Address(agent_id=text)
        assert wire.field(1, text.encode()) == address.SerializeToString()
        assert wire.field(2, text.encode()) == pb.Address(session_id=text).SerializeToString()
        assert wire.field(3, address.SerializeToString()) == pb.Message(recipient=address).SerializeToString()
        assert wire.field(4, address.SerializeToString()) == pb.Message(reply_to=[address]).SerializeToString()
    assert wire.field(1, b"") == b"\x0a\x00"
    result = mbx_pb.SendMessageResult(message=pb.Message(id="m", text="t" * 200), duplicate=True)
    assert wire.field(1, result.message.SerializeToString()) + b"\x10\x01" == result.SerializeToString()
