from fabricd.v1 import rendezvous_service_pb2 as _rendezvous_service_pb2
from fabricd.v1 import types_pb2 as _types_pb2
from google.rpc import status_pb2 as _status_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SendMessageRequest(_message.Message):
    __slots__ = ("message", "create_mailbox")
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    CREATE_MAILBOX_FIELD_NUMBER: _ClassVar[int]
    message: _types_pb2.Message
    create_mailbox: bool
    def __init__(self, message: _Optional[_Union[_types_pb2.Message, _Mapping]] = ..., create_mailbox: _Optional[bool] = ...) -> None: ...

class SendMessageResponse(_message.Message):
    __slots__ = ("message", "duplicate")
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    DUPLICATE_FIELD_NUMBER: _ClassVar[int]
    message: _types_pb2.Message
    duplicate: bool
    def __init__(self, message: _Optional[_Union[_types_pb2.Message, _Mapping]] = ..., duplicate: _Optional[bool] = ...) -> None: ...

class SendMessagesRequest(_message.Message):
    __slots__ = ("messages", "atomic", "create_mailbox")
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    ATOMIC_FIELD_NUMBER: _ClassVar[int]
    CREATE_MAILBOX_FIELD_NUMBER: _ClassVar[int]
    messages: _containers.RepeatedCompositeFieldContainer[_types_pb2.Message]
    atomic: bool
    create_mailbox: bool
    def __init__(self, messages: _Optional[_Iterable[_Union[_types_pb2.Message, _Mapping]]] = ..., atomic: _Optional[bool] = ..., create_mailbox: _Optional[bool] = ...) -> None: ...

class SendMessageResult(_message.Message):
    __slots__ = ("message", "duplicate", "error")
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    DUPLICATE_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    message: _types_pb2.Message
    duplicate: bool
    error: _status_pb2.Status
    def __init__(self, message: _Optional[_Union[_types_pb2.Message, _Mapping]] = ..., duplicate: _Optional[bool] = ..., error: _Optional[_Union[_status_pb2.Status, _Mapping]] = ...) -> None: ...

class SendMessagesResponse(_message.Message):
    __slots__ = ("results",)
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    results: _containers.RepeatedCompositeFieldContainer[SendMessageResult]
    def __init__(self, results: _Optional[_Iterable[_Union[SendMessageResult, _Mapping]]] = ...) -> None: ...

class PeekMessagesRequest(_message.Message):
    __slots__ = ("agent_id", "limit", "max_bytes")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    MAX_BYTES_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    limit: int
    max_bytes: int
    def __init__(self, agent_id: _Optional[str] = ..., limit: _Optional[int] = ..., max_bytes: _Optional[int] = ...) -> None: ...

class PeekMessagesResponse(_message.Message):
    __slots__ = ("messages", "unread_count")
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    UNREAD_COUNT_FIELD_NUMBER: _ClassVar[int]
    messages: _containers.RepeatedCompositeFieldContainer[_types_pb2.Message]
    unread_count: int
    def __init__(self, messages: _Optional[_Iterable[_Union[_types_pb2.Message, _Mapping]]] = ..., unread_count: _Optional[int] = ...) -> None: ...

class DrainMessagesRequest(_message.Message):
    __slots__ = ("agent_id", "limit", "max_bytes")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    MAX_BYTES_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    limit: int
    max_bytes: int
    def __init__(self, agent_id: _Optional[str] = ..., limit: _Optional[int] = ..., max_bytes: _Optional[int] = ...) -> None: ...

class DrainMessagesResponse(_message.Message):
    __slots__ = ("messages", "remaining")
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    REMAINING_FIELD_NUMBER: _ClassVar[int]
    messages: _containers.RepeatedCompositeFieldContainer[_types_pb2.Message]
    remaining: int
    def __init__(self, messages: _Optional[_Iterable[_Union[_types_pb2.Message, _Mapping]]] = ..., remaining: _Optional[int] = ...) -> None: ...

class SubscribeRequest(_message.Message):
    __slots__ = ("agent_id",)
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    def __init__(self, agent_id: _Optional[str] = ...) -> None: ...

class SubscribeResponse(_message.Message):
    __slots__ = ("messages", "keepalive")
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    KEEPALIVE_FIELD_NUMBER: _ClassVar[int]
    messages: _containers.RepeatedCompositeFieldContainer[_types_pb2.Message]
    keepalive: bool
    def __init__(self, messages: _Optional[_Iterable[_Union[_types_pb2.Message, _Mapping]]] = ..., keepalive: _Optional[bool] = ...) -> None: ...

class AckMessagesRequest(_message.Message):
    __slots__ = ("agent_id", "message_ids")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_IDS_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    message_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, agent_id: _Optional[str] = ..., message_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class AckMessagesResponse(_message.Message):
    __slots__ = ("acked",)
    ACKED_FIELD_NUMBER: _ClassVar[int]
    acked: int
    def __init__(self, acked: _Optional[int] = ...) -> None: ...

class SendStreamRequest(_message.Message):
    __slots__ = ("seq", "send", "send_many", "ack", "ask")
    SEQ_FIELD_NUMBER: _ClassVar[int]
    SEND_FIELD_NUMBER: _ClassVar[int]
    SEND_MANY_FIELD_NUMBER: _ClassVar[int]
    ACK_FIELD_NUMBER: _ClassVar[int]
    ASK_FIELD_NUMBER: _ClassVar[int]
    seq: int
    send: SendMessageRequest
    send_many: SendMessagesRequest
    ack: AckMessagesRequest
    ask: _rendezvous_service_pb2.AskRequest
    def __init__(self, seq: _Optional[int] = ..., send: _Optional[_Union[SendMessageRequest, _Mapping]] = ..., send_many: _Optional[_Union[SendMessagesRequest, _Mapping]] = ..., ack: _Optional[_Union[AckMessagesRequest, _Mapping]] = ..., ask: _Optional[_Union[_rendezvous_service_pb2.AskRequest, _Mapping]] = ...) -> None: ...

class SendStreamResponse(_message.Message):
    __slots__ = ("seq", "send", "send_many", "ack", "ask", "error")
    SEQ_FIELD_NUMBER: _ClassVar[int]
    SEND_FIELD_NUMBER: _ClassVar[int]
    SEND_MANY_FIELD_NUMBER: _ClassVar[int]
    ACK_FIELD_NUMBER: _ClassVar[int]
    ASK_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    seq: int
    send: SendMessageResponse
    send_many: SendMessagesResponse
    ack: AckMessagesResponse
    ask: _rendezvous_service_pb2.AskResponse
    error: _status_pb2.Status
    def __init__(self, seq: _Optional[int] = ..., send: _Optional[_Union[SendMessageResponse, _Mapping]] = ..., send_many: _Optional[_Union[SendMessagesResponse, _Mapping]] = ..., ack: _Optional[_Union[AckMessagesResponse, _Mapping]] = ..., ask: _Optional[_Union[_rendezvous_service_pb2.AskResponse, _Mapping]] = ..., error: _Optional[_Union[_status_pb2.Status, _Mapping]] = ...) -> None: ...
