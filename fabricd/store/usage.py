"""What the backends share to keep the quota counters of fabricd.core.quota in step with their records."""

from __future__ import annotations

from google.protobuf.message import DecodeError

from fabricd.v1 import types_pb2 as pb

_ID, _SENDER = 0x0A, 0x12  # field 1 (id) and field 2 (sender), length-delimited


def _varint(raw: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = raw[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7


def sender_of(encoded: bytes) -> str:
    """The sender's agent id of a stored fabricd.v1.Message encoding (charged for its unread bytes).

    Protobuf writes fields in field-number order, so the sender (field 2) follows the id (field 1) at the
    front: reading just those spares parsing (and copying) a megabyte of text on every consume. Anything
    else falls back to a whole parse.
    """
    try:
        pos = 0
        if encoded[0] == _ID:
            size, pos = _varint(encoded, 1)
            pos += size
        if pos < len(encoded) and encoded[pos] == _SENDER:
            size, start = _varint(encoded, pos + 1)
            return pb.Address.FromString(encoded[start:start + size]).agent_id
    except (IndexError, DecodeError):
        pass
    return pb.Message.FromString(encoded).sender.agent_id


def id_of(encoded: bytes) -> str:
    """The message id of a stored fabricd.v1.Message encoding (field 1 comes first, as for sender_of)."""
    try:
        if encoded[0] == _ID:
            size, pos = _varint(encoded, 1)
            return bytes(encoded[pos:pos + size]).decode("utf-8", "surrogatepass")
        if encoded[0] == _SENDER:
            return ""
    except (IndexError, UnicodeDecodeError):
        pass
    return pb.Message.FromString(encoded).id


def counter_name(quota: str, agent_id: str) -> str:
    """The name of an agent's usage counter among a backend's named counters."""
    return f"usage/{quota}/{agent_id}"
