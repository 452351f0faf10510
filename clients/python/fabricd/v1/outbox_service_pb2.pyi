import datetime

from fabricd.v1 import types_pb2 as _types_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class JobOutcome(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    JOB_OUTCOME_UNSPECIFIED: _ClassVar[JobOutcome]
    JOB_OUTCOME_COMPLETED: _ClassVar[JobOutcome]
    JOB_OUTCOME_FAILED: _ClassVar[JobOutcome]
    JOB_OUTCOME_OUTCOME_UNKNOWN: _ClassVar[JobOutcome]
    JOB_OUTCOME_INTERRUPTED: _ClassVar[JobOutcome]
    JOB_OUTCOME_CANCELLED: _ClassVar[JobOutcome]

class OutboxRowState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    OUTBOX_ROW_STATE_UNSPECIFIED: _ClassVar[OutboxRowState]
    OUTBOX_ROW_STATE_PENDING: _ClassVar[OutboxRowState]
    OUTBOX_ROW_STATE_DEAD_LETTER: _ClassVar[OutboxRowState]
    OUTBOX_ROW_STATE_DELIVERED: _ClassVar[OutboxRowState]
JOB_OUTCOME_UNSPECIFIED: JobOutcome
JOB_OUTCOME_COMPLETED: JobOutcome
JOB_OUTCOME_FAILED: JobOutcome
JOB_OUTCOME_OUTCOME_UNKNOWN: JobOutcome
JOB_OUTCOME_INTERRUPTED: JobOutcome
JOB_OUTCOME_CANCELLED: JobOutcome
OUTBOX_ROW_STATE_UNSPECIFIED: OutboxRowState
OUTBOX_ROW_STATE_PENDING: OutboxRowState
OUTBOX_ROW_STATE_DEAD_LETTER: OutboxRowState
OUTBOX_ROW_STATE_DELIVERED: OutboxRowState

class SettledJob(_message.Message):
    __slots__ = ("job_id", "outcome", "agent", "mail")
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    AGENT_FIELD_NUMBER: _ClassVar[int]
    MAIL_FIELD_NUMBER: _ClassVar[int]
    job_id: str
    outcome: JobOutcome
    agent: _types_pb2.Address
    mail: _types_pb2.Mail
    def __init__(self, job_id: _Optional[str] = ..., outcome: _Optional[_Union[JobOutcome, str]] = ..., agent: _Optional[_Union[_types_pb2.Address, _Mapping]] = ..., mail: _Optional[_Union[_types_pb2.Mail, _Mapping]] = ...) -> None: ...

class AgentJobPayload(_message.Message):
    __slots__ = ("session_id", "command_fact_id", "mail")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    COMMAND_FACT_ID_FIELD_NUMBER: _ClassVar[int]
    MAIL_FIELD_NUMBER: _ClassVar[int]
    session_id: str
    command_fact_id: str
    mail: _types_pb2.Mail
    def __init__(self, session_id: _Optional[str] = ..., command_fact_id: _Optional[str] = ..., mail: _Optional[_Union[_types_pb2.Mail, _Mapping]] = ...) -> None: ...

class OutboxReceipt(_message.Message):
    __slots__ = ("deliver_time", "message_id", "seq")
    DELIVER_TIME_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_ID_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    deliver_time: _timestamp_pb2.Timestamp
    message_id: str
    seq: int
    def __init__(self, deliver_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., message_id: _Optional[str] = ..., seq: _Optional[int] = ...) -> None: ...

class OutboxRow(_message.Message):
    __slots__ = ("key", "state", "recipient", "sender", "job_id", "attempts", "next_attempt_time", "last_error", "create_time", "receipt", "content")
    KEY_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    RECIPIENT_FIELD_NUMBER: _ClassVar[int]
    SENDER_FIELD_NUMBER: _ClassVar[int]
    JOB_ID_FIELD_NUMBER: _ClassVar[int]
    ATTEMPTS_FIELD_NUMBER: _ClassVar[int]
    NEXT_ATTEMPT_TIME_FIELD_NUMBER: _ClassVar[int]
    LAST_ERROR_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    RECEIPT_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    key: str
    state: OutboxRowState
    recipient: _types_pb2.Address
    sender: _types_pb2.Address
    job_id: str
    attempts: int
    next_attempt_time: _timestamp_pb2.Timestamp
    last_error: str
    create_time: _timestamp_pb2.Timestamp
    receipt: OutboxReceipt
    content: str
    def __init__(self, key: _Optional[str] = ..., state: _Optional[_Union[OutboxRowState, str]] = ..., recipient: _Optional[_Union[_types_pb2.Address, _Mapping]] = ..., sender: _Optional[_Union[_types_pb2.Address, _Mapping]] = ..., job_id: _Optional[str] = ..., attempts: _Optional[int] = ..., next_attempt_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., last_error: _Optional[str] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., receipt: _Optional[_Union[OutboxReceipt, _Mapping]] = ..., content: _Optional[str] = ...) -> None: ...

class FanOutRequest(_message.Message):
    __slots__ = ("job", "content")
    JOB_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    job: SettledJob
    content: str
    def __init__(self, job: _Optional[_Union[SettledJob, _Mapping]] = ..., content: _Optional[str] = ...) -> None: ...

class FanOutResponse(_message.Message):
    __slots__ = ("reply_keys", "written")
    REPLY_KEYS_FIELD_NUMBER: _ClassVar[int]
    WRITTEN_FIELD_NUMBER: _ClassVar[int]
    reply_keys: _containers.RepeatedScalarFieldContainer[str]
    written: int
    def __init__(self, reply_keys: _Optional[_Iterable[str]] = ..., written: _Optional[int] = ...) -> None: ...

class DrainOutboxRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class DrainOutboxResponse(_message.Message):
    __slots__ = ("posted", "failed", "more")
    POSTED_FIELD_NUMBER: _ClassVar[int]
    FAILED_FIELD_NUMBER: _ClassVar[int]
    MORE_FIELD_NUMBER: _ClassVar[int]
    posted: int
    failed: int
    more: bool
    def __init__(self, posted: _Optional[int] = ..., failed: _Optional[int] = ..., more: _Optional[bool] = ...) -> None: ...

class ListOutboxRequest(_message.Message):
    __slots__ = ("limit", "after_key", "state", "page_size", "page_token")
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    AFTER_KEY_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    limit: int
    after_key: str
    state: OutboxRowState
    page_size: int
    page_token: str
    def __init__(self, limit: _Optional[int] = ..., after_key: _Optional[str] = ..., state: _Optional[_Union[OutboxRowState, str]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListOutboxResponse(_message.Message):
    __slots__ = ("rows", "next_after_key", "next_page_token")
    ROWS_FIELD_NUMBER: _ClassVar[int]
    NEXT_AFTER_KEY_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    rows: _containers.RepeatedCompositeFieldContainer[OutboxRow]
    next_after_key: str
    next_page_token: str
    def __init__(self, rows: _Optional[_Iterable[_Union[OutboxRow, _Mapping]]] = ..., next_after_key: _Optional[str] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class RetryDeadLettersRequest(_message.Message):
    __slots__ = ("keys",)
    KEYS_FIELD_NUMBER: _ClassVar[int]
    keys: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, keys: _Optional[_Iterable[str]] = ...) -> None: ...

class RetryDeadLettersResponse(_message.Message):
    __slots__ = ("retried",)
    RETRIED_FIELD_NUMBER: _ClassVar[int]
    retried: int
    def __init__(self, retried: _Optional[int] = ...) -> None: ...

class PruneReceiptsRequest(_message.Message):
    __slots__ = ("before_time",)
    BEFORE_TIME_FIELD_NUMBER: _ClassVar[int]
    before_time: _timestamp_pb2.Timestamp
    def __init__(self, before_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class PruneReceiptsResponse(_message.Message):
    __slots__ = ("pruned",)
    PRUNED_FIELD_NUMBER: _ClassVar[int]
    pruned: int
    def __init__(self, pruned: _Optional[int] = ...) -> None: ...
