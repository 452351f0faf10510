import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class GetStatusRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetStatusResponse(_message.Message):
    __slots__ = ("version", "start_time", "data_dir", "listen_addresses", "map_size_bytes", "map_used_bytes", "commits", "writes", "mailboxes", "queued_tickets", "open_streams", "waiters", "open_waits", "outbox_pending", "outbox_rows")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    DATA_DIR_FIELD_NUMBER: _ClassVar[int]
    LISTEN_ADDRESSES_FIELD_NUMBER: _ClassVar[int]
    MAP_SIZE_BYTES_FIELD_NUMBER: _ClassVar[int]
    MAP_USED_BYTES_FIELD_NUMBER: _ClassVar[int]
    COMMITS_FIELD_NUMBER: _ClassVar[int]
    WRITES_FIELD_NUMBER: _ClassVar[int]
    MAILBOXES_FIELD_NUMBER: _ClassVar[int]
    QUEUED_TICKETS_FIELD_NUMBER: _ClassVar[int]
    OPEN_STREAMS_FIELD_NUMBER: _ClassVar[int]
    WAITERS_FIELD_NUMBER: _ClassVar[int]
    OPEN_WAITS_FIELD_NUMBER: _ClassVar[int]
    OUTBOX_PENDING_FIELD_NUMBER: _ClassVar[int]
    OUTBOX_ROWS_FIELD_NUMBER: _ClassVar[int]
    version: str
    start_time: _timestamp_pb2.Timestamp
    data_dir: str
    listen_addresses: _containers.RepeatedScalarFieldContainer[str]
    map_size_bytes: int
    map_used_bytes: int
    commits: int
    writes: int
    mailboxes: int
    queued_tickets: int
    open_streams: int
    waiters: int
    open_waits: int
    outbox_pending: int
    outbox_rows: int
    def __init__(self, version: _Optional[str] = ..., start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., data_dir: _Optional[str] = ..., listen_addresses: _Optional[_Iterable[str]] = ..., map_size_bytes: _Optional[int] = ..., map_used_bytes: _Optional[int] = ..., commits: _Optional[int] = ..., writes: _Optional[int] = ..., mailboxes: _Optional[int] = ..., queued_tickets: _Optional[int] = ..., open_streams: _Optional[int] = ..., waiters: _Optional[int] = ..., open_waits: _Optional[int] = ..., outbox_pending: _Optional[int] = ..., outbox_rows: _Optional[int] = ...) -> None: ...
