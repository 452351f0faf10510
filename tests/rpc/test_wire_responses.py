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
