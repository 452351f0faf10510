"""Record encodings. Messages and entries are fabricd.v1 protobuf; small fixed records are structs."""

from __future__ import annotations

import json
import struct
from typing import TypedDict

from fabricd import wire
from fabricd.core import agentdir, turns, wake
from fabricd.core.model import (
    Address,
    IdRecord,
    MailboxEntry,
    Message,
    OutboxRow,
    RowState,
    Ticket,
    TicketOutcome,
    TicketSourceKind,
    TicketState,
    Turn,
)
from fabricd.core.tokens import Token
from fabricd.core.wake import WakeHook
from fabricd.store.lmdb import sealed
from fabricd.v1 import agent_directory_service_pb2 as ad_pb
from fabricd.v1 import types_pb2 as pb

# entry record: u64 last_seq, u8 change, then fabricd.v1.MailboxEntry bytes
_ENTRY_HEAD = struct.Struct(">QB")
# id record: u64 seq, u64 send_time_ns, 16-byte digest (zeros for server-minted ids), recipient utf-8, and for
# an id whose key is hashed (keys.message_id) NUL + the id utf-8: the key alone cannot give it back to `fabricd copy`
_ID_HEAD = struct.Struct(">QQ16s")
_NO_DIGEST = bytes(16)
_SEQ = struct.Struct(">Q")  # the head's first field


def encode_entry(e: MailboxEntry) -> bytes:
    return _ENTRY_HEAD.pack(e.last_seq, int(e.change)) + wire.entry_out(e).SerializeToString()


def decode_entry(raw: bytes) -> MailboxEntry:
    last_seq, change = _ENTRY_HEAD.unpack_from(raw)
    return wire.entry_in(pb.MailboxEntry.FromString(raw[_ENTRY_HEAD.size :]), last_seq, change)


def encode_message(m: Message) -> bytes:
    return wire.message_out(m).SerializeToString()


def decode_message(raw: bytes) -> Message:
    return wire.message_in(pb.Message.FromString(raw))


def encode_id(recipient: str, seq: int, send_time_ns: int, digest: bytes, hashed_id: str = "",
              sender: str = "") -> bytes:
    """An id record; `hashed_id` is the message id when its key is a digest (recipients are printable: no NUL),
    then (schema 4) NUL and its sender, whose idempotency key the id is (a minted id's record: NUL NUL sender)."""
    raw = _ID_HEAD.pack(seq, send_time_ns, digest or _NO_DIGEST) + recipient.encode("utf-8", "surrogatepass")
    if not hashed_id and not sender:
        return raw
    return raw + b"\0" + hashed_id.encode("utf-8", "surrogatepass") + b"\0" + sender.encode("utf-8", "surrogatepass")


def decode_id(raw: bytes) -> IdRecord:
    seq, send_ns, digest = _ID_HEAD.unpack_from(raw)
    end = raw.find(b"\0", _ID_HEAD.size)
    recipient = bytes(raw[_ID_HEAD.size : end if end >= 0 else len(raw)]).decode("utf-8", "surrogatepass")
    return IdRecord(recipient, seq, send_ns, b"" if digest == _NO_DIGEST else digest)


def unread_seq(raw: bytes, recipient: bytes) -> int:
    """The seq of an id record whose recipient is `recipient` (UTF-8); 0 (never a seq) for another recipient.

    What an ack needs of each id, read without decoding the record: the recipient is the bytes after the
    head, up to the end or the NUL before a hashed id."""
    end = _ID_HEAD.size + len(recipient)
    if raw[_ID_HEAD.size:end] != recipient or (len(raw) > end and raw[end] != 0):
        return 0
    return int(_SEQ.unpack_from(raw)[0])


def hashed_id(raw: bytes) -> str | None:
    """The message id kept in an id record whose key is hashed; None in records written before it was kept."""
    return id_texts(raw)[0]


def id_texts(raw: bytes) -> tuple[str | None, str | None]:
    """(message id, sender) kept in an id record; None for what an older record (or a minted id's) lacks."""
    parts = bytes(raw[_ID_HEAD.size :]).split(b"\0")
    text = parts[1].decode("utf-8", "surrogatepass") or None if len(parts) > 1 else None
    sender = parts[2].decode("utf-8", "surrogatepass") if len(parts) > 2 else None
    return text, sender


# request key record (in ad_repairs): 16-byte digest of the request, created id, then NUL scope NUL key (the
# key is hashed; records written before the text was kept end after the created id)


def encode_request_key(scope: str, key: str, digest: bytes, created_id: str) -> bytes:
    return digest + created_id.encode() + b"\0" + scope.encode("utf-8", "surrogatepass") + b"\0" + \
        key.encode("utf-8", "surrogatepass")


def decode_request_key(raw: bytes) -> tuple[bytes, str, tuple[str, str] | None]:
    """(digest, created id, (scope, key) or None when the record predates keeping them)."""
    raw = bytes(raw)
    created, sep, rest = raw[16:].partition(b"\0")
    where = None
    if sep:
        scope, _, key = rest.partition(b"\0")
        where = (scope.decode("utf-8", "surrogatepass"), key.decode("utf-8", "surrogatepass"))
    return raw[:16], created.decode(), where


# ticket record: u8 version, u8 state, u8 source kind, u64 seq, u64 enqueue_ns, u64 finish_ns,
# then 8 strings, each u32 length + UTF-8: id, target, task, source agent, requester, conversation, result, reason;
# version 2 goes on with u8 outcome, data and result data (each u32 length + bytes), then 3 strings of JSON:
# headers, result headers, earlier turns; version 3 ends with u32 reattached. Records of older versions (stored
# before) read with the defaults.
_TICKET_HEAD = struct.Struct(">BBBQQQ")
_LEN = struct.Struct(">I")
_TICKET_VERSION = 3


def _strings(values: tuple[str, ...]) -> bytes:
    out = bytearray()
    for value in values:
        raw = value.encode("utf-8", "surrogatepass")
        out += _LEN.pack(len(raw))
        out += raw
    return bytes(out)


def _read_strings(raw: bytes, offset: int, count: int) -> list[str]:
    out = []
    for _ in range(count):
        (n,) = _LEN.unpack_from(raw, offset)
        offset += _LEN.size
        out.append(raw[offset : offset + n].decode("utf-8", "surrogatepass"))
        offset += n
    return out


def _blob(value: bytes) -> bytes:
    return _LEN.pack(len(value)) + value


def _read_blob(raw: bytes, offset: int) -> tuple[bytes, int]:
    (n,) = _LEN.unpack_from(raw, offset)
    start = offset + _LEN.size
    return bytes(raw[start : start + n]), start + n


def _end_of_strings(raw: bytes, offset: int, count: int) -> int:
    for _ in range(count):
        offset += _LEN.size + _LEN.unpack_from(raw, offset)[0]
    return offset


def encode_ticket(t: Ticket) -> bytes:
    head = _TICKET_HEAD.pack(_TICKET_VERSION, int(t.state), int(t.source_kind), t.seq, t.enqueue_ns, t.finish_ns)
    return head + _strings(
        (t.ticket_id, t.target, t.task, t.source_agent, t.requester, t.conversation_id, t.result, t.reason)
    ) + bytes((int(t.outcome),)) + _blob(t.data) + _blob(t.result_data) + _strings(
        (json.dumps(t.headers), json.dumps(t.result_headers), turns.encode(t.earlier))) + _LEN.pack(t.reattached)


class _TicketExtra(TypedDict, total=False):
    """The Ticket fields a record of version 2 (and 3: reattached) adds to version 1's."""

    outcome: TicketOutcome
    data: bytes
    result_data: bytes
    headers: dict[str, str]
    result_headers: dict[str, str]
    earlier: list[Turn]
    reattached: int


def decode_ticket(raw: bytes) -> Ticket:
    version, state, kind, seq, enqueue_ns, finish_ns = _TICKET_HEAD.unpack_from(raw)
    ticket_id, target, task, source_agent, requester, conversation, result, reason = _read_strings(
        raw, _TICKET_HEAD.size, 8
    )
    extra: _TicketExtra = {}
    if version >= 2:
        offset = _end_of_strings(raw, _TICKET_HEAD.size, 8)
        outcome = TicketOutcome(raw[offset])
        data, offset = _read_blob(raw, offset + 1)
        result_data, offset = _read_blob(raw, offset)
        headers, result_headers, earlier = _read_strings(raw, offset, 3)
        extra = _TicketExtra(outcome=outcome, data=data, result_data=result_data, headers=json.loads(headers),
                             result_headers=json.loads(result_headers), earlier=turns.decode(earlier))
        if version >= 3:
            extra["reattached"] = _LEN.unpack_from(raw, _end_of_strings(raw, offset, 3))[0]
    return Ticket(
        ticket_id=ticket_id,
        target=target,
        task=task,
        source_kind=TicketSourceKind(kind),
        source_agent=source_agent,
        requester=requester,
        conversation_id=conversation,
        seq=seq,
        enqueue_ns=enqueue_ns,
        state=TicketState(state),
        result=result,
        reason=reason,
        finish_ns=finish_ns,
        **extra,
    )


# outbox row: u8 version, u8 state, u32 attempts, u64 next_attempt_ns, u64 create_ns, u64 deliver_ns, u64 seq,
# then 8 strings: key, recipient agent, recipient session, sender agent, sender session, job id, content, last error
_ROW_HEAD = struct.Struct(">BBIQQQQ")


def encode_row(r: OutboxRow) -> bytes:
    head = _ROW_HEAD.pack(1, int(r.state), r.attempts, r.next_attempt_ns, r.create_ns, r.deliver_ns, r.seq)
    return head + _strings((r.key, r.recipient.agent_id, r.recipient.session_id, r.sender.agent_id,
                            r.sender.session_id, r.job_id, r.content, r.last_error))


def decode_row(raw: bytes) -> OutboxRow:
    _version, state, attempts, next_ns, create_ns, deliver_ns, seq = _ROW_HEAD.unpack_from(raw)
    key, r_agent, r_session, s_agent, s_session, job_id, content, last_error = _read_strings(raw, _ROW_HEAD.size, 8)
    return OutboxRow(key=key, state=RowState(state), recipient=Address(r_agent, r_session),
                     sender=Address(s_agent, s_session), job_id=job_id, content=content, attempts=attempts,
                     next_attempt_ns=next_ns, last_error=last_error, create_ns=create_ns, deliver_ns=deliver_ns,
                     seq=seq)


def encode_request(request: agentdir.WorkRequest) -> bytes:
    return request.seq.to_bytes(8, "big") + wire.to_pb(request, ad_pb.Request).SerializeToString()


def decode_request(raw: bytes) -> agentdir.WorkRequest:
    request = wire.from_pb(ad_pb.Request.FromString(raw[8:]), agentdir.WorkRequest)
    request.seq = int.from_bytes(raw[:8], "big")
    return request


# token: u8 version, u64 create_ns, u64 revoke_ns, then strings: token_id, scope, agent_id, label, and (version 2)
# the bound session names joined by "\n" (names are printable: never a newline)
_TOKEN_HEAD = struct.Struct(">BQQ")


def encode_token(t: Token) -> bytes:
    return _TOKEN_HEAD.pack(2, t.create_ns, t.revoke_ns) + _strings((t.token_id, t.scope, t.agent_id, t.label,
                                                                      "\n".join(t.session_names)))


def decode_token(raw: bytes) -> Token:
    version, create_ns, revoke_ns = _TOKEN_HEAD.unpack_from(raw)
    if version < 2:  # written before names were bound to tokens: none
        token_id, scope, agent_id, label = _read_strings(raw, _TOKEN_HEAD.size, 4)
        return Token(token_id, scope, agent_id, label, create_ns, revoke_ns)
    token_id, scope, agent_id, label, names = _read_strings(raw, _TOKEN_HEAD.size, 5)
    return Token(token_id, scope, agent_id, label, create_ns, revoke_ns, tuple(names.split("\n")) if names else ())


def encode_wake_hook(hook: WakeHook) -> bytes:
    """A wake hook as meta holds it: its JSON (fabricd.core.wake.encode) sealed in place."""
    return sealed.seal_meta(wake.encode(hook))


def decode_wake_hook(raw: bytes) -> WakeHook | None:
    """A stored wake hook (sealed, or JSON stored before hooks were sealed); None when corrupt."""
    value = sealed.unseal_meta(raw)
    if value is None:
        return None
    try:
        return wake.decode(value)
    except (ValueError, TypeError, AttributeError):  # JSON that no longer parses, or not a hook's fields
        return None
