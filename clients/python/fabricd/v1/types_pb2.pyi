import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class MessageKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MESSAGE_KIND_UNSPECIFIED: _ClassVar[MessageKind]
    MESSAGE_KIND_AGENT: _ClassVar[MessageKind]
    MESSAGE_KIND_USER: _ClassVar[MessageKind]

class Presence(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PRESENCE_UNSPECIFIED: _ClassVar[Presence]
    PRESENCE_LIVE: _ClassVar[Presence]
    PRESENCE_BUSY: _ClassVar[Presence]
    PRESENCE_OFFLINE: _ClassVar[Presence]
MESSAGE_KIND_UNSPECIFIED: MessageKind
MESSAGE_KIND_AGENT: MessageKind
MESSAGE_KIND_USER: MessageKind
PRESENCE_UNSPECIFIED: Presence
PRESENCE_LIVE: Presence
PRESENCE_BUSY: Presence
PRESENCE_OFFLINE: Presence

class Address(_message.Message):
    __slots__ = ("agent_id", "session_id")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    session_id: str
    def __init__(self, agent_id: _Optional[str] = ..., session_id: _Optional[str] = ...) -> None: ...

class Message(_message.Message):
    __slots__ = ("id", "sender", "recipient", "reply_to", "thread_id", "text", "data", "headers", "kind", "hops", "send_time", "seq", "ticket_id")
    class HeadersEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    ID_FIELD_NUMBER: _ClassVar[int]
    SENDER_FIELD_NUMBER: _ClassVar[int]
    RECIPIENT_FIELD_NUMBER: _ClassVar[int]
    REPLY_TO_FIELD_NUMBER: _ClassVar[int]
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    HEADERS_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    HOPS_FIELD_NUMBER: _ClassVar[int]
    SEND_TIME_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    TICKET_ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    sender: Address
    recipient: Address
    reply_to: _containers.RepeatedCompositeFieldContainer[Address]
    thread_id: str
    text: str
    data: bytes
    headers: _containers.ScalarMap[str, str]
    kind: MessageKind
    hops: int
    send_time: _timestamp_pb2.Timestamp
    seq: int
    ticket_id: str
    def __init__(self, id: _Optional[str] = ..., sender: _Optional[_Union[Address, _Mapping]] = ..., recipient: _Optional[_Union[Address, _Mapping]] = ..., reply_to: _Optional[_Iterable[_Union[Address, _Mapping]]] = ..., thread_id: _Optional[str] = ..., text: _Optional[str] = ..., data: _Optional[bytes] = ..., headers: _Optional[_Mapping[str, str]] = ..., kind: _Optional[_Union[MessageKind, str]] = ..., hops: _Optional[int] = ..., send_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., seq: _Optional[int] = ..., ticket_id: _Optional[str] = ...) -> None: ...

class Capability(_message.Message):
    __slots__ = ("name", "description", "payload")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    PAYLOAD_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    payload: str
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., payload: _Optional[str] = ...) -> None: ...

class MailboxEntry(_message.Message):
    __slots__ = ("agent_id", "session_name", "cwd", "capabilities", "metadata", "registered", "busy", "last_activity_time", "register_time", "unread_count", "presence", "heartbeat_time", "revision")
    class MetadataEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    SESSION_NAME_FIELD_NUMBER: _ClassVar[int]
    CWD_FIELD_NUMBER: _ClassVar[int]
    CAPABILITIES_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    REGISTERED_FIELD_NUMBER: _ClassVar[int]
    BUSY_FIELD_NUMBER: _ClassVar[int]
    LAST_ACTIVITY_TIME_FIELD_NUMBER: _ClassVar[int]
    REGISTER_TIME_FIELD_NUMBER: _ClassVar[int]
    UNREAD_COUNT_FIELD_NUMBER: _ClassVar[int]
    PRESENCE_FIELD_NUMBER: _ClassVar[int]
    HEARTBEAT_TIME_FIELD_NUMBER: _ClassVar[int]
    REVISION_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    session_name: str
    cwd: str
    capabilities: _containers.RepeatedCompositeFieldContainer[Capability]
    metadata: _containers.ScalarMap[str, str]
    registered: bool
    busy: bool
    last_activity_time: _timestamp_pb2.Timestamp
    register_time: _timestamp_pb2.Timestamp
    unread_count: int
    presence: Presence
    heartbeat_time: _timestamp_pb2.Timestamp
    revision: int
    def __init__(self, agent_id: _Optional[str] = ..., session_name: _Optional[str] = ..., cwd: _Optional[str] = ..., capabilities: _Optional[_Iterable[_Union[Capability, _Mapping]]] = ..., metadata: _Optional[_Mapping[str, str]] = ..., registered: _Optional[bool] = ..., busy: _Optional[bool] = ..., last_activity_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., register_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., unread_count: _Optional[int] = ..., presence: _Optional[_Union[Presence, str]] = ..., heartbeat_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., revision: _Optional[int] = ...) -> None: ...

class Mail(_message.Message):
    __slots__ = ("key", "sender", "recipient", "reply_to", "content", "create_time")
    KEY_FIELD_NUMBER: _ClassVar[int]
    SENDER_FIELD_NUMBER: _ClassVar[int]
    RECIPIENT_FIELD_NUMBER: _ClassVar[int]
    REPLY_TO_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    key: str
    sender: Address
    recipient: Address
    reply_to: _containers.RepeatedCompositeFieldContainer[Address]
    content: str
    create_time: _timestamp_pb2.Timestamp
    def __init__(self, key: _Optional[str] = ..., sender: _Optional[_Union[Address, _Mapping]] = ..., recipient: _Optional[_Union[Address, _Mapping]] = ..., reply_to: _Optional[_Iterable[_Union[Address, _Mapping]]] = ..., content: _Optional[str] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...
