import datetime

from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.rpc import status_pb2 as _status_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class TicketOutcome(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TICKET_OUTCOME_UNSPECIFIED: _ClassVar[TicketOutcome]
    TICKET_OUTCOME_COMPLETED: _ClassVar[TicketOutcome]
    TICKET_OUTCOME_INPUT_REQUIRED: _ClassVar[TicketOutcome]
    TICKET_OUTCOME_REJECTED: _ClassVar[TicketOutcome]
    TICKET_OUTCOME_FAILED: _ClassVar[TicketOutcome]

class TicketState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TICKET_STATE_UNSPECIFIED: _ClassVar[TicketState]
    TICKET_STATE_QUEUED: _ClassVar[TicketState]
    TICKET_STATE_ANSWERED: _ClassVar[TicketState]
    TICKET_STATE_ABORTED: _ClassVar[TicketState]

class TicketSourceKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TICKET_SOURCE_KIND_UNSPECIFIED: _ClassVar[TicketSourceKind]
    TICKET_SOURCE_KIND_HUMAN: _ClassVar[TicketSourceKind]
    TICKET_SOURCE_KIND_AGENT: _ClassVar[TicketSourceKind]
TICKET_OUTCOME_UNSPECIFIED: TicketOutcome
TICKET_OUTCOME_COMPLETED: TicketOutcome
TICKET_OUTCOME_INPUT_REQUIRED: TicketOutcome
TICKET_OUTCOME_REJECTED: TicketOutcome
TICKET_OUTCOME_FAILED: TicketOutcome
TICKET_STATE_UNSPECIFIED: TicketState
TICKET_STATE_QUEUED: TicketState
TICKET_STATE_ANSWERED: TicketState
TICKET_STATE_ABORTED: TicketState
TICKET_SOURCE_KIND_UNSPECIFIED: TicketSourceKind
TICKET_SOURCE_KIND_HUMAN: TicketSourceKind
TICKET_SOURCE_KIND_AGENT: TicketSourceKind

class TicketTurn(_message.Message):
    __slots__ = ("task", "data", "headers", "result", "result_data", "result_headers")
    class HeadersEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    class ResultHeadersEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    TASK_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    HEADERS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    RESULT_DATA_FIELD_NUMBER: _ClassVar[int]
    RESULT_HEADERS_FIELD_NUMBER: _ClassVar[int]
    task: str
    data: bytes
    headers: _containers.ScalarMap[str, str]
    result: str
    result_data: bytes
    result_headers: _containers.ScalarMap[str, str]
    def __init__(self, task: _Optional[str] = ..., data: _Optional[bytes] = ..., headers: _Optional[_Mapping[str, str]] = ..., result: _Optional[str] = ..., result_data: _Optional[bytes] = ..., result_headers: _Optional[_Mapping[str, str]] = ...) -> None: ...

class Ticket(_message.Message):
    __slots__ = ("ticket_id", "target", "source", "requester", "conversation_id", "task", "data", "headers", "state", "position", "outcome", "result", "result_data", "result_headers", "reason", "enqueue_time", "finish_time", "earlier_turns")
    class HeadersEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    class ResultHeadersEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    TICKET_ID_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    REQUESTER_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    TASK_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    HEADERS_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    RESULT_DATA_FIELD_NUMBER: _ClassVar[int]
    RESULT_HEADERS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    ENQUEUE_TIME_FIELD_NUMBER: _ClassVar[int]
    FINISH_TIME_FIELD_NUMBER: _ClassVar[int]
    EARLIER_TURNS_FIELD_NUMBER: _ClassVar[int]
    ticket_id: str
    target: str
    source: TicketSource
    requester: str
    conversation_id: str
    task: str
    data: bytes
    headers: _containers.ScalarMap[str, str]
    state: TicketState
    position: int
    outcome: TicketOutcome
    result: str
    result_data: bytes
    result_headers: _containers.ScalarMap[str, str]
    reason: str
    enqueue_time: _timestamp_pb2.Timestamp
    finish_time: _timestamp_pb2.Timestamp
    earlier_turns: _containers.RepeatedCompositeFieldContainer[TicketTurn]
    def __init__(self, ticket_id: _Optional[str] = ..., target: _Optional[str] = ..., source: _Optional[_Union[TicketSource, _Mapping]] = ..., requester: _Optional[str] = ..., conversation_id: _Optional[str] = ..., task: _Optional[str] = ..., data: _Optional[bytes] = ..., headers: _Optional[_Mapping[str, str]] = ..., state: _Optional[_Union[TicketState, str]] = ..., position: _Optional[int] = ..., outcome: _Optional[_Union[TicketOutcome, str]] = ..., result: _Optional[str] = ..., result_data: _Optional[bytes] = ..., result_headers: _Optional[_Mapping[str, str]] = ..., reason: _Optional[str] = ..., enqueue_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., finish_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., earlier_turns: _Optional[_Iterable[_Union[TicketTurn, _Mapping]]] = ...) -> None: ...

class GetTicketRequest(_message.Message):
    __slots__ = ("ticket_id",)
    TICKET_ID_FIELD_NUMBER: _ClassVar[int]
    ticket_id: str
    def __init__(self, ticket_id: _Optional[str] = ...) -> None: ...

class GetTicketResponse(_message.Message):
    __slots__ = ("ticket",)
    TICKET_FIELD_NUMBER: _ClassVar[int]
    ticket: Ticket
    def __init__(self, ticket: _Optional[_Union[Ticket, _Mapping]] = ...) -> None: ...

class CancelTicketRequest(_message.Message):
    __slots__ = ("ticket_id",)
    TICKET_ID_FIELD_NUMBER: _ClassVar[int]
    ticket_id: str
    def __init__(self, ticket_id: _Optional[str] = ...) -> None: ...

class CancelTicketResponse(_message.Message):
    __slots__ = ("ticket", "cancelled")
    TICKET_FIELD_NUMBER: _ClassVar[int]
    CANCELLED_FIELD_NUMBER: _ClassVar[int]
    ticket: Ticket
    cancelled: bool
    def __init__(self, ticket: _Optional[_Union[Ticket, _Mapping]] = ..., cancelled: _Optional[bool] = ...) -> None: ...

class ListTicketsRequest(_message.Message):
    __slots__ = ("agent_id", "conversation_id", "states", "source_agent_id", "page_size", "page_token")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    STATES_FIELD_NUMBER: _ClassVar[int]
    SOURCE_AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    conversation_id: str
    states: _containers.RepeatedScalarFieldContainer[TicketState]
    source_agent_id: str
    page_size: int
    page_token: str
    def __init__(self, agent_id: _Optional[str] = ..., conversation_id: _Optional[str] = ..., states: _Optional[_Iterable[_Union[TicketState, str]]] = ..., source_agent_id: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListTicketsResponse(_message.Message):
    __slots__ = ("tickets", "next_page_token")
    TICKETS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    tickets: _containers.RepeatedCompositeFieldContainer[Ticket]
    next_page_token: str
    def __init__(self, tickets: _Optional[_Iterable[_Union[Ticket, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class TicketSource(_message.Message):
    __slots__ = ("kind", "agent_id")
    KIND_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    kind: TicketSourceKind
    agent_id: str
    def __init__(self, kind: _Optional[_Union[TicketSourceKind, str]] = ..., agent_id: _Optional[str] = ...) -> None: ...

class QueuedTicket(_message.Message):
    __slots__ = ("ticket_id", "source", "conversation_id", "requester", "task", "enqueue_time", "position", "target")
    TICKET_ID_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    REQUESTER_FIELD_NUMBER: _ClassVar[int]
    TASK_FIELD_NUMBER: _ClassVar[int]
    ENQUEUE_TIME_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    ticket_id: str
    source: TicketSource
    conversation_id: str
    requester: str
    task: str
    enqueue_time: _timestamp_pb2.Timestamp
    position: int
    target: str
    def __init__(self, ticket_id: _Optional[str] = ..., source: _Optional[_Union[TicketSource, _Mapping]] = ..., conversation_id: _Optional[str] = ..., requester: _Optional[str] = ..., task: _Optional[str] = ..., enqueue_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., position: _Optional[int] = ..., target: _Optional[str] = ...) -> None: ...

class AskRequest(_message.Message):
    __slots__ = ("target", "task", "requester", "source", "conversation_id", "timeout", "data", "headers", "continue_ticket_id", "request_key")
    class HeadersEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    TARGET_FIELD_NUMBER: _ClassVar[int]
    TASK_FIELD_NUMBER: _ClassVar[int]
    REQUESTER_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    HEADERS_FIELD_NUMBER: _ClassVar[int]
    CONTINUE_TICKET_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_KEY_FIELD_NUMBER: _ClassVar[int]
    target: str
    task: str
    requester: str
    source: TicketSource
    conversation_id: str
    timeout: _duration_pb2.Duration
    data: bytes
    headers: _containers.ScalarMap[str, str]
    continue_ticket_id: str
    request_key: str
    def __init__(self, target: _Optional[str] = ..., task: _Optional[str] = ..., requester: _Optional[str] = ..., source: _Optional[_Union[TicketSource, _Mapping]] = ..., conversation_id: _Optional[str] = ..., timeout: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., data: _Optional[bytes] = ..., headers: _Optional[_Mapping[str, str]] = ..., continue_ticket_id: _Optional[str] = ..., request_key: _Optional[str] = ...) -> None: ...

class AskResponse(_message.Message):
    __slots__ = ("ticket_id", "result", "outcome", "data", "headers")
    class HeadersEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    TICKET_ID_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    HEADERS_FIELD_NUMBER: _ClassVar[int]
    ticket_id: str
    result: str
    outcome: TicketOutcome
    data: bytes
    headers: _containers.ScalarMap[str, str]
    def __init__(self, ticket_id: _Optional[str] = ..., result: _Optional[str] = ..., outcome: _Optional[_Union[TicketOutcome, str]] = ..., data: _Optional[bytes] = ..., headers: _Optional[_Mapping[str, str]] = ...) -> None: ...

class EnqueueTicketRequest(_message.Message):
    __slots__ = ("target", "task", "requester", "source", "conversation_id", "data", "headers", "continue_ticket_id", "request_key")
    class HeadersEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    TARGET_FIELD_NUMBER: _ClassVar[int]
    TASK_FIELD_NUMBER: _ClassVar[int]
    REQUESTER_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    HEADERS_FIELD_NUMBER: _ClassVar[int]
    CONTINUE_TICKET_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_KEY_FIELD_NUMBER: _ClassVar[int]
    target: str
    task: str
    requester: str
    source: TicketSource
    conversation_id: str
    data: bytes
    headers: _containers.ScalarMap[str, str]
    continue_ticket_id: str
    request_key: str
    def __init__(self, target: _Optional[str] = ..., task: _Optional[str] = ..., requester: _Optional[str] = ..., source: _Optional[_Union[TicketSource, _Mapping]] = ..., conversation_id: _Optional[str] = ..., data: _Optional[bytes] = ..., headers: _Optional[_Mapping[str, str]] = ..., continue_ticket_id: _Optional[str] = ..., request_key: _Optional[str] = ...) -> None: ...

class EnqueueTicketResponse(_message.Message):
    __slots__ = ("ticket_id", "position")
    TICKET_ID_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    ticket_id: str
    position: int
    def __init__(self, ticket_id: _Optional[str] = ..., position: _Optional[int] = ...) -> None: ...

class AwaitReplyRequest(_message.Message):
    __slots__ = ("ticket_id", "timeout")
    TICKET_ID_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    ticket_id: str
    timeout: _duration_pb2.Duration
    def __init__(self, ticket_id: _Optional[str] = ..., timeout: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class AwaitReplyResponse(_message.Message):
    __slots__ = ("result", "outcome", "data", "headers")
    class HeadersEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    RESULT_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    HEADERS_FIELD_NUMBER: _ClassVar[int]
    result: str
    outcome: TicketOutcome
    data: bytes
    headers: _containers.ScalarMap[str, str]
    def __init__(self, result: _Optional[str] = ..., outcome: _Optional[_Union[TicketOutcome, str]] = ..., data: _Optional[bytes] = ..., headers: _Optional[_Mapping[str, str]] = ...) -> None: ...

class ReplyRequest(_message.Message):
    __slots__ = ("agent_id", "result", "ticket_id", "outcome", "data", "headers")
    class HeadersEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    TICKET_ID_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    HEADERS_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    result: str
    ticket_id: str
    outcome: TicketOutcome
    data: bytes
    headers: _containers.ScalarMap[str, str]
    def __init__(self, agent_id: _Optional[str] = ..., result: _Optional[str] = ..., ticket_id: _Optional[str] = ..., outcome: _Optional[_Union[TicketOutcome, str]] = ..., data: _Optional[bytes] = ..., headers: _Optional[_Mapping[str, str]] = ...) -> None: ...

class ReplyResponse(_message.Message):
    __slots__ = ("ticket_id",)
    TICKET_ID_FIELD_NUMBER: _ClassVar[int]
    ticket_id: str
    def __init__(self, ticket_id: _Optional[str] = ...) -> None: ...

class CancelHeadRequest(_message.Message):
    __slots__ = ("agent_id", "ticket_id")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    TICKET_ID_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    ticket_id: str
    def __init__(self, agent_id: _Optional[str] = ..., ticket_id: _Optional[str] = ...) -> None: ...

class CancelHeadResponse(_message.Message):
    __slots__ = ("cancelled",)
    CANCELLED_FIELD_NUMBER: _ClassVar[int]
    cancelled: bool
    def __init__(self, cancelled: _Optional[bool] = ...) -> None: ...

class CloseQueueRequest(_message.Message):
    __slots__ = ("agent_id", "reason")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    reason: str
    def __init__(self, agent_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class CloseQueueResponse(_message.Message):
    __slots__ = ("aborted",)
    ABORTED_FIELD_NUMBER: _ClassVar[int]
    aborted: int
    def __init__(self, aborted: _Optional[int] = ...) -> None: ...

class GetQueueRequest(_message.Message):
    __slots__ = ("agent_id", "page_size", "page_token")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    page_size: int
    page_token: str
    def __init__(self, agent_id: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class GetQueueResponse(_message.Message):
    __slots__ = ("tickets", "next_page_token")
    TICKETS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    tickets: _containers.RepeatedCompositeFieldContainer[QueuedTicket]
    next_page_token: str
    def __init__(self, tickets: _Optional[_Iterable[_Union[QueuedTicket, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class WatchQueueRequest(_message.Message):
    __slots__ = ("agent_id", "max_tickets")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    MAX_TICKETS_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    max_tickets: int
    def __init__(self, agent_id: _Optional[str] = ..., max_tickets: _Optional[int] = ...) -> None: ...

class WatchQueueResponse(_message.Message):
    __slots__ = ("tickets", "keepalive", "total", "truncated")
    TICKETS_FIELD_NUMBER: _ClassVar[int]
    KEEPALIVE_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    tickets: _containers.RepeatedCompositeFieldContainer[QueuedTicket]
    keepalive: bool
    total: int
    truncated: bool
    def __init__(self, tickets: _Optional[_Iterable[_Union[QueuedTicket, _Mapping]]] = ..., keepalive: _Optional[bool] = ..., total: _Optional[int] = ..., truncated: _Optional[bool] = ...) -> None: ...

class ServeRequest(_message.Message):
    __slots__ = ("seq", "open", "reply", "cancel_head")
    SEQ_FIELD_NUMBER: _ClassVar[int]
    OPEN_FIELD_NUMBER: _ClassVar[int]
    REPLY_FIELD_NUMBER: _ClassVar[int]
    CANCEL_HEAD_FIELD_NUMBER: _ClassVar[int]
    seq: int
    open: ServeOpen
    reply: ReplyRequest
    cancel_head: CancelHeadRequest
    def __init__(self, seq: _Optional[int] = ..., open: _Optional[_Union[ServeOpen, _Mapping]] = ..., reply: _Optional[_Union[ReplyRequest, _Mapping]] = ..., cancel_head: _Optional[_Union[CancelHeadRequest, _Mapping]] = ...) -> None: ...

class ServeOpen(_message.Message):
    __slots__ = ("agent_id", "window")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    WINDOW_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    window: int
    def __init__(self, agent_id: _Optional[str] = ..., window: _Optional[int] = ...) -> None: ...

class ServeResponse(_message.Message):
    __slots__ = ("tickets", "answer", "keepalive")
    TICKETS_FIELD_NUMBER: _ClassVar[int]
    ANSWER_FIELD_NUMBER: _ClassVar[int]
    KEEPALIVE_FIELD_NUMBER: _ClassVar[int]
    tickets: ServeTickets
    answer: ServeAnswer
    keepalive: bool
    def __init__(self, tickets: _Optional[_Union[ServeTickets, _Mapping]] = ..., answer: _Optional[_Union[ServeAnswer, _Mapping]] = ..., keepalive: _Optional[bool] = ...) -> None: ...

class ServeTickets(_message.Message):
    __slots__ = ("tickets", "total")
    TICKETS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    tickets: _containers.RepeatedCompositeFieldContainer[Ticket]
    total: int
    def __init__(self, tickets: _Optional[_Iterable[_Union[Ticket, _Mapping]]] = ..., total: _Optional[int] = ...) -> None: ...

class ServeAnswer(_message.Message):
    __slots__ = ("seq", "ticket_id", "cancelled", "error")
    SEQ_FIELD_NUMBER: _ClassVar[int]
    TICKET_ID_FIELD_NUMBER: _ClassVar[int]
    CANCELLED_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    seq: int
    ticket_id: str
    cancelled: bool
    error: _status_pb2.Status
    def __init__(self, seq: _Optional[int] = ..., ticket_id: _Optional[str] = ..., cancelled: _Optional[bool] = ..., error: _Optional[_Union[_status_pb2.Status, _Mapping]] = ...) -> None: ...
