"""Record encodings. Messages and entries are fabricd.v1 protobuf; small fixed records are structs."""

from __future__ import annotations

import struct

from fabricd import wire
from fabricd.core.model import IdRecord, MailboxEntry, Message
from fabricd.v1 import types_pb2 as pb

# entry record: u64 last_seq, u8 change, then fabricd.v1.MailboxEntry bytes
_ENTRY_HEAD = struct.Struct(">QB")
# id record: u64 seq, u64 send_time_ns, 16-byte digest (zeros for server-minted ids), recipient utf-8
_ID_HEAD = struct.Struct(">QQ16s")
_NO_DIGEST = bytes(16)


def encode_entry(e: MailboxEntry) -> bytes:
    return _ENTRY_HEAD.pack(e.last_seq, int(e.change)) + wire.entry_out(e).SerializeToString()


def decode_entry(raw: bytes) -> MailboxEntry:
    last_seq, change = _ENTRY_HEAD.unpack_from(raw)
    return wire.entry_in(pb.MailboxEntry.FromString(raw[_ENTRY_HEAD.size :]), last_seq, change)


def encode_message(m: Message) -> bytes:
    return wire.message_out(m).SerializeToString()


def decode_message(raw: bytes) -> Message:
    return wire.message_in(pb.Message.FromString(raw))


def encode_id(recipient: str, seq: int, send_time_ns: int, digest: bytes) -> bytes:
    return _ID_HEAD.pack(seq, send_time_ns, digest or _NO_DIGEST) + recipient.encode("utf-8", "surrogatepass")


def decode_id(raw: bytes) -> IdRecord:
    seq, send_ns, digest = _ID_HEAD.unpack_from(raw)
    recipient = raw[_ID_HEAD.size :].decode("utf-8", "surrogatepass")
    return IdRecord(recipient, seq, send_ns, b"" if digest == _NO_DIGEST else digest)
