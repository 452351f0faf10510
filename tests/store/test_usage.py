"""Quota usage kept by the backends: the sender a consumed message is credited to."""

from __future__ import annotations


def test_the_sender_read_from_the_front_of_a_message_is_the_parsed_one() -> None:
    from fabricd.store.usage import sender_of
    from fabricd.v1 import types_pb2 as pb

    for message in (pb.Message(id="m" * 300, sender=pb.Address(agent_id="alice", session_id="s"), text="x" * 10_000),
                    pb.Message(sender=pb.Address(agent_id="bob")), pb.Message(id="only-id", text="t"),
                    pb.Message(text="no id, no sender"), pb.Message()):
        encoded = message.SerializeToString()
        assert sender_of(encoded) == message.sender.agent_id
