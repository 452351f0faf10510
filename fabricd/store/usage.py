"""What the backends share to keep the quota counters of fabricd.core.quota in step with their records."""

from __future__ import annotations

from google.protobuf.message import DecodeError

from fabricd.v1 import types_pb2 as pb

_ID, _SENDER = 0x0A, 0x12  # field 1 (id) and field 2 (sender), length-delimited
_AGENT_ID, _SESSION_ID = 0x0A, 0x12  # an Address's field 1 (agent_id) and field 2 (session_id)


def _varint(raw: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = raw[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7


def _length(raw: bytes, pos: int) -> tuple[int, int]:
    """A length prefix at `pos`: (length, where the payload starts); most are one byte."""
    size = raw[pos]
    return (size, pos + 1) if size < 0x80 else _varint(raw, pos)


def sender_of(encoded: bytes) -> str:
    """The sender's agent id of a stored fabricd.v1.Message encoding (charged for its unread bytes).

    Protobuf writes fields in field-number order, so the sender (field 2) follows the id (field 1) at the
    front, and in the sender the agent id (field 1) comes before the session id (field 2): reading just
    those spares parsing (and copying) a megabyte of text, or even building the Address, on every consume.
    Anything else falls back to a whole parse.
    """
    try:
        pos = 0
        if encoded[0] == _ID:
            size = encoded[1]  # lengths under 128 take one byte: most ids and agent ids
            pos = 2 + size if size < 0x80 else sum(_varint(encoded, 1))
        if pos < len(encoded) and encoded[pos] == _SENDER:
            size, start = _length(encoded, pos + 1)
            end = start + size
            if start == end:
                return ""
            if encoded[start] == _AGENT_ID:
                size = encoded[start + 1]
                at = start + 2
                if size >= 0x80:
                    size, at = _varint(encoded, start + 1)
                stop = at + size
                if stop < end and encoded[stop] == _SESSION_ID:  # then the session id, up to the end
                    size, after = _length(encoded, stop + 1)
                    if after + size == end:
                        return encoded[at:stop].decode()
                elif stop == end:
                    return encoded[at:stop].decode()
            elif encoded[start] == _SESSION_ID:
                size, at = _length(encoded, start + 1)
                if at + size == end:
                    return ""
            return pb.Address.FromString(encoded[start:end]).agent_id
    except (IndexError, DecodeError, UnicodeDecodeError):
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
