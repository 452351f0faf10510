"""Domain objects to and from their fabricd.v1 protobuf form.

Shared by the rpc layer (the wire) and the store (records are the same
protobuf messages, like etcd keeps mvccpb.KeyValue in bbolt), so each
conversion is written once. Imports protobuf, never grpc or lmdb.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeVar

from google.protobuf.duration_pb2 import Duration
from google.protobuf.message import Message as ProtoMessage
from google.protobuf.timestamp_pb2 import Timestamp

from fabricd.core.errors import InvalidArgument
from fabricd.core.model import (
    NO_ADDRESS,
    Address,
    Capability,
    Change,
    Envelope,
    JobOutcome,
    Mail,
    MailboxEntry,
    Message,
    MessageKind,
    OutboxRow,
    Presence,
    RowState,
    Sent,
    SettledJob,
    Ticket,
    TicketSourceKind,
)
from fabricd.v1 import directory_service_pb2 as dir_pb
from fabricd.v1 import outbox_service_pb2 as ob_pb
from fabricd.v1 import rendezvous_service_pb2 as rv_pb
from fabricd.v1 import types_pb2 as pb

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

M = TypeVar("M", bound=ProtoMessage)
D = TypeVar("D", bound="DataclassInstance")

_NS = 1_000_000_000
_KINDS = {int(k): k for k in MessageKind}


def address_in(p: pb.Address) -> Address:
    return Address(p.agent_id, p.session_id)


_ADDRESSES: dict[tuple[str, str], Address] = {}
"""Addresses met lately (they are frozen): a batch of 100 from one sender to one mailbox builds two."""


def _address(agent_id: str, session_id: str) -> Address:
    key = (agent_id, session_id)
    found = _ADDRESSES.get(key)
    if found is None:
        if len(_ADDRESSES) >= 4096:  # bounded: forget them all, the next batch builds its own again
            _ADDRESSES.clear()
        found = _ADDRESSES[key] = Address(agent_id, session_id)
    return found


def message_in(p: pb.Message) -> Message:
    """A protobuf Message as the domain sees it (no validation here: the core validates)."""
    kind = p.kind
    sender = p.sender
    recipient = p.recipient
    return Message(
        p.id,
        _address(sender.agent_id, sender.session_id) if p.HasField("sender") else NO_ADDRESS,
        _address(recipient.agent_id, recipient.session_id),
        tuple([Address(a.agent_id, a.session_id) for a in p.reply_to]) if p.reply_to else (),
        p.thread_id,
        p.text,
        p.data,
        dict(p.headers) if p.headers else {},
        _KINDS.get(kind, MessageKind.AGENT) if kind else MessageKind.AGENT,
        p.hops,
        _ns(p.send_time) if p.HasField("send_time") else 0,
        p.seq,
        p.ticket_id,
    )


def message_out(m: Message, out: pb.Message | None = None) -> pb.Message:
    if out is None:
        out = pb.Message()
    out.id = m.id
    if m.sender.agent_id or m.sender.session_id:
        out.sender.agent_id = m.sender.agent_id
        out.sender.session_id = m.sender.session_id
    out.recipient.agent_id = m.recipient.agent_id
    if m.recipient.session_id:
        out.recipient.session_id = m.recipient.session_id
    for a in m.reply_to:
        out.reply_to.add(agent_id=a.agent_id, session_id=a.session_id)
    if m.thread_id:
        out.thread_id = m.thread_id
    if m.text:
        out.text = m.text
    if m.data:
        out.data = m.data
    if m.headers:
        out.headers.update(m.headers)
    out.kind = int(m.kind)  # type: ignore[assignment]  # the proto enum's numbers (wire.py asserts they match)
    if m.hops:
        out.hops = m.hops
    if m.send_time_ns:
        out.send_time.seconds, out.send_time.nanos = divmod(m.send_time_ns, _NS)
    out.seq = m.seq
    if m.ticket_id:
        out.ticket_id = m.ticket_id
    return out


def _varint(n: int) -> bytes:
    if n < 0x80:
        return bytes((n,))
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


_HEADS = {number: [bytes(((number << 3) | 2, size)) for size in range(0x80)] for number in (1, 2, 3)}
"""Tag and one-byte length of a length-delimited field 1, 2 or 3 under 128 bytes, by length: most messages."""


def field(number: int, payload: bytes) -> bytes:
    """One length-delimited protobuf field: how a stored message is placed in a response unparsed."""
    size = len(payload)
    if size < 0x80 and number in _HEADS:
        return _HEADS[number][size] + payload
    return bytes(((number << 3) | 2,)) + _varint(size) + payload


def varint_field(number: int, value: int) -> bytes:
    """One varint protobuf field (a seq); nothing for 0, as protobuf writes it."""
    return bytes(((number << 3),)) + _varint(value) if value else b""


def messages_response(cls: type[M], envelopes: Sequence[Envelope], number: int = 1) -> M:
    """A response whose repeated Message field `number` holds the stored encodings, parsed once in C."""
    return cls.FromString(messages_field(envelopes, number))


def messages_field(envelopes: Sequence[Envelope], number: int = 1) -> bytes:
    """The stored encodings as the repeated Message field `number` of a response: the response's bytes when
    it has no other field set (a Subscribe batch goes out so, never parsed)."""
    heads = _HEADS.get(number)
    if heads is None:
        return b"".join([field(number, e.encoded) for e in envelopes])
    parts: list[bytes] = []
    add = parts.append
    for e in envelopes:  # field(number, e.encoded), without building each field: a Subscribe batch is 512
        encoded = e.encoded
        size = len(encoded)
        add(heads[size] if size < 0x80 else heads[0][:1] + _varint(size))
        add(encoded)
    return b"".join(parts)


def sent_result(sent: Sent) -> bytes:
    """A SendMessageResult{message, duplicate} as bytes, reusing the stored encoding when there is one."""
    if sent.encoded:
        return field(1, sent.encoded)
    return field(1, message_out(sent.message).SerializeToString()) + (b"\x10\x01" if sent.duplicate else b"")


def capability_in(p: pb.Capability) -> Capability:
    return Capability(p.name, p.description, p.payload)


_MIN_SECONDS, _MAX_SECONDS = -62135596800, 253402300799  # 0001-01-01 .. 9999-12-31, as google.protobuf says


def _ns(t: Timestamp) -> int:
    return t.seconds * _NS + t.nanos


def timestamp_in(t: Timestamp, field: str) -> int:
    """A request's Timestamp in ns; INVALID_ARGUMENT when it is not a valid Timestamp."""
    if not (_MIN_SECONDS <= t.seconds <= _MAX_SECONDS and 0 <= t.nanos < _NS):
        raise InvalidArgument(f"{field} is not a valid timestamp (seconds {t.seconds}, nanos {t.nanos})",
                              reason="INVALID_FIELD", field=field)
    return _ns(t)


def _set_time(t: Timestamp, ns: int) -> None:
    if ns:
        t.seconds, t.nanos = divmod(ns, _NS)


def entry_out(e: MailboxEntry, presence: Presence = Presence.UNSPECIFIED) -> pb.MailboxEntry:
    out = pb.MailboxEntry(
        agent_id=e.agent_id,
        session_name=e.session_name,
        cwd=e.cwd,
        capabilities=[pb.Capability(name=c.name, description=c.description, payload=c.payload) for c in e.capabilities],
        metadata=e.metadata,
        registered=e.registered,
        busy=e.busy,
        unread_count=e.unread_count,
        presence=int(presence),  # type: ignore[arg-type]  # the proto enum's numbers
        revision=e.revision,
    )
    _set_time(out.last_activity_time, e.last_activity_ns)
    _set_time(out.register_time, e.register_time_ns)
    _set_time(out.heartbeat_time, e.heartbeat_ns)
    return out


def entry_in(p: pb.MailboxEntry, last_seq: int = 0, change: int = 0) -> MailboxEntry:
    return MailboxEntry(
        agent_id=p.agent_id,
        session_name=p.session_name,
        cwd=p.cwd,
        capabilities=tuple(capability_in(c) for c in p.capabilities),
        metadata=dict(p.metadata),
        registered=p.registered,
        busy=p.busy,
        last_activity_ns=_ns(p.last_activity_time),
        register_time_ns=_ns(p.register_time),
        heartbeat_ns=_ns(p.heartbeat_time),
        unread_count=p.unread_count,
        last_seq=last_seq,
        revision=p.revision,
        change=Change(change) if change in Change._value2member_map_ else Change.UNSPECIFIED,
    )


def duration_in(d: Duration, field: str = "timeout") -> float:
    if not (-_NS < d.nanos < _NS) or (d.seconds > 0 > d.nanos) or (d.seconds < 0 < d.nanos):
        raise InvalidArgument(f"{field} is not a valid duration", reason="INVALID_FIELD", field=field)
    return d.seconds + d.nanos / 1e9


def queue_out(tickets: Sequence[Ticket], first: int = 0) -> list[rv_pb.QueuedTicket]:
    """A FIFO snapshot with positions counted from the head (0), the first one at `first`."""
    out = []
    for position, t in enumerate(tickets, first):
        q = rv_pb.QueuedTicket(
            ticket_id=t.ticket_id,
            source=rv_pb.TicketSource(kind=int(t.source_kind), agent_id=t.source_agent),  # type: ignore[arg-type]  # the proto enum's numbers
            conversation_id=t.conversation_id,
            requester=t.requester,
            task=t.task,
            position=position,
            target=t.target,
        )
        _set_time(q.enqueue_time, t.enqueue_ns)
        out.append(q)
    return out


def ticket_out(t: Ticket, position: int = -1) -> rv_pb.Ticket:
    """A ticket in any state, with its earlier turns."""
    out = rv_pb.Ticket(
        ticket_id=t.ticket_id, target=t.target,
        source=rv_pb.TicketSource(kind=int(t.source_kind), agent_id=t.source_agent),  # type: ignore[arg-type]  # the proto enum's numbers
        requester=t.requester, conversation_id=t.conversation_id, task=t.task, data=t.data, headers=t.headers,
        state=int(t.state), position=position, outcome=int(t.outcome),  # type: ignore[arg-type]  # the proto enums' numbers
        result=t.result, result_data=t.result_data,
        result_headers=t.result_headers, reason=t.reason,
        earlier_turns=[rv_pb.TicketTurn(task=e.task, data=e.data, headers=e.headers, result=e.result,
                                        result_data=e.result_data, result_headers=e.result_headers)
                       for e in t.earlier],
    )
    _set_time(out.enqueue_time, t.enqueue_ns)
    _set_time(out.finish_time, t.finish_ns)
    return out


def mail_in(p: pb.Mail) -> Mail:
    return Mail(
        key=p.key,
        sender=address_in(p.sender),
        recipient=address_in(p.recipient),
        reply_to=tuple(address_in(a) for a in p.reply_to),
        content=p.content,
        create_ns=_ns(p.create_time),
    )


def settled_job_in(p: ob_pb.SettledJob) -> SettledJob:
    return SettledJob(job_id=p.job_id, outcome=p.outcome, agent=address_in(p.agent),
                      mail=mail_in(p.mail) if p.HasField("mail") else None)


def row_out(r: OutboxRow) -> ob_pb.OutboxRow:
    out = ob_pb.OutboxRow(
        key=r.key,
        state=int(r.state),  # type: ignore[arg-type]  # the proto enum's numbers
        recipient=pb.Address(agent_id=r.recipient.agent_id, session_id=r.recipient.session_id),
        sender=pb.Address(agent_id=r.sender.agent_id, session_id=r.sender.session_id),
        job_id=r.job_id,
        attempts=r.attempts,
        last_error=r.last_error,
        content=r.content,
    )
    _set_time(out.create_time, r.create_ns)
    if r.state == RowState.PENDING:
        _set_time(out.next_attempt_time, r.next_attempt_ns)
    if r.state == RowState.DELIVERED:
        out.receipt.message_id = r.key
        out.receipt.seq = r.seq
        _set_time(out.receipt.deliver_time, r.deliver_ns)
    return out


def to_pb(obj: object, cls: type[M]) -> M:
    """A domain dataclass as the protobuf message of the same field names.

    `x_ns` fields become `x_time` Timestamps; None leaves an optional field
    unset; nested dataclasses become nested messages; fields the message lacks
    are skipped.
    """
    out = cls()
    names = cls.DESCRIPTOR.fields_by_name
    assert dataclasses.is_dataclass(obj)
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        name = f.name[:-3] + "_time" if f.name.endswith("_ns") else f.name
        if name not in names or value is None:
            continue
        if f.name.endswith("_ns"):
            _set_time(getattr(out, name), value)
        elif dataclasses.is_dataclass(value):
            getattr(out, name).CopyFrom(to_pb(value, type(getattr(out, name))))
        elif isinstance(value, (tuple, list)):
            getattr(out, name).extend(value)
        else:
            setattr(out, name, value)
    return out


def from_pb(msg: ProtoMessage, cls: type[D]) -> D:
    """A protobuf message as the domain dataclass of the same field names (the inverse of to_pb)."""
    hints = typing.get_type_hints(cls)
    descriptor = msg.DESCRIPTOR.fields_by_name
    kwargs: dict[str, object] = {}
    for f in dataclasses.fields(cls):
        name = f.name[:-3] + "_time" if f.name.endswith("_ns") else f.name
        field = descriptor.get(name)
        if field is None:
            continue
        hint = hints[f.name]
        nested = next((t for t in typing.get_args(hint) or (hint,) if isinstance(t, type) and dataclasses.is_dataclass(t)),
                      None)
        if f.name.endswith("_ns"):
            kwargs[f.name] = _ns(getattr(msg, name))
        elif nested is not None:
            kwargs[f.name] = from_pb(getattr(msg, name), nested) if msg.HasField(name) else None
        elif field.has_presence and field.message_type is None and type(None) in typing.get_args(hint):
            kwargs[f.name] = getattr(msg, name) if msg.HasField(name) else None
        elif field.is_repeated:
            kwargs[f.name] = tuple(getattr(msg, name))
        else:
            kwargs[f.name] = getattr(msg, name)
    return cls(**kwargs)


def change_out(change: Change) -> dir_pb.MailboxEventType:
    return int(change)  # type: ignore[return-value]  # Change mirrors fabricd.v1.MailboxEventType value for value


assert all(dir_pb.MailboxEventType.Value(f"MAILBOX_EVENT_TYPE_{c.name}") == c.value for c in Change)
assert all(pb.Presence.Value(f"PRESENCE_{p.name}") == p.value for p in Presence)
assert all(rv_pb.TicketSourceKind.Value(f"TICKET_SOURCE_KIND_{k.name}") == k.value for k in TicketSourceKind)
assert all(ob_pb.JobOutcome.Value(f"JOB_OUTCOME_{o.name}") == o.value for o in JobOutcome)
assert all(ob_pb.OutboxRowState.Value(f"OUTBOX_ROW_STATE_{s.name}") == s.value for s in RowState)
