"""Quota usage kept by the backends: the sender a consumed message is credited to."""

from __future__ import annotations


def test_the_sender_read_from_the_front_of_a_message_is_the_parsed_one() -> None:
    from fabricd.store.usage import sender_of
    from fabricd.v1 import types_pb2 as pb

    for message in (pb.Message(id="m" * 300, sender=pb.Address(agent_id="alice", session_id="s"), text="x" * 10_000),
                    pb.Message(sender=pb.Address(agent_id="bob")), pb.Message(id="only-id", text="t"),
                    pb.Message(text="no id, no sender"), pb.Message(),
                    pb.Message(id="i", sender=pb.Address(session_id="only a session"), text="t"),
                    pb.Message(sender=pb.Address(agent_id="ä" * 200, session_id="s" * 300), text="long ids"),
                    pb.Message(sender=pb.Address(), recipient=pb.Address(agent_id="r"))):
        encoded = message.SerializeToString()
        assert sender_of(encoded) == message.sender.agent_id


def test_a_sender_written_out_of_field_order_is_still_the_parsed_one() -> None:
    from fabricd.store.usage import sender_of
    from fabricd.v1 import types_pb2 as pb

    # protobuf keeps the last of a repeated scalar field: an address with agent_id written twice, or after
    # the session id, is not the canonical shape the front read assumes
    twice = b"\x0a\x01a\x12\x01s\x0a\x01b"
    late = b"\x12\x01s\x0a\x01c"
    for address in (twice, late):
        encoded = b"\x0a\x02id\x12" + bytes((len(address),)) + address + b"\x32\x01t"
        assert sender_of(encoded) == pb.Message.FromString(encoded).sender.agent_id
