import datetime

from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class LeaseMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    LEASE_MODE_UNSPECIFIED: _ClassVar[LeaseMode]
    LEASE_MODE_EXCLUSIVE: _ClassVar[LeaseMode]
    LEASE_MODE_SHARED: _ClassVar[LeaseMode]

class LeaseEndCause(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    LEASE_END_CAUSE_UNSPECIFIED: _ClassVar[LeaseEndCause]
    LEASE_END_CAUSE_RELEASED: _ClassVar[LeaseEndCause]
    LEASE_END_CAUSE_EXPIRED: _ClassVar[LeaseEndCause]
    LEASE_END_CAUSE_UNREGISTERED: _ClassVar[LeaseEndCause]
    LEASE_END_CAUSE_HOLDER_OFFLINE: _ClassVar[LeaseEndCause]

class LeaseEventType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    LEASE_EVENT_TYPE_UNSPECIFIED: _ClassVar[LeaseEventType]
    LEASE_EVENT_TYPE_SNAPSHOT: _ClassVar[LeaseEventType]
    LEASE_EVENT_TYPE_ACQUIRED: _ClassVar[LeaseEventType]
    LEASE_EVENT_TYPE_RENEWED: _ClassVar[LeaseEventType]
    LEASE_EVENT_TYPE_ENDED: _ClassVar[LeaseEventType]
LEASE_MODE_UNSPECIFIED: LeaseMode
LEASE_MODE_EXCLUSIVE: LeaseMode
LEASE_MODE_SHARED: LeaseMode
LEASE_END_CAUSE_UNSPECIFIED: LeaseEndCause
LEASE_END_CAUSE_RELEASED: LeaseEndCause
LEASE_END_CAUSE_EXPIRED: LeaseEndCause
LEASE_END_CAUSE_UNREGISTERED: LeaseEndCause
LEASE_END_CAUSE_HOLDER_OFFLINE: LeaseEndCause
LEASE_EVENT_TYPE_UNSPECIFIED: LeaseEventType
LEASE_EVENT_TYPE_SNAPSHOT: LeaseEventType
LEASE_EVENT_TYPE_ACQUIRED: LeaseEventType
LEASE_EVENT_TYPE_RENEWED: LeaseEventType
LEASE_EVENT_TYPE_ENDED: LeaseEventType

class Lease(_message.Message):
    __slots__ = ("lease_id", "agent_id", "session_name", "resources", "mode", "reason", "fencing_token", "acquire_time", "expire_time", "ttl", "renew_with_presence")
    LEASE_ID_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    SESSION_NAME_FIELD_NUMBER: _ClassVar[int]
    RESOURCES_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    FENCING_TOKEN_FIELD_NUMBER: _ClassVar[int]
    ACQUIRE_TIME_FIELD_NUMBER: _ClassVar[int]
    EXPIRE_TIME_FIELD_NUMBER: _ClassVar[int]
    TTL_FIELD_NUMBER: _ClassVar[int]
    RENEW_WITH_PRESENCE_FIELD_NUMBER: _ClassVar[int]
    lease_id: str
    agent_id: str
    session_name: str
    resources: _containers.RepeatedScalarFieldContainer[str]
    mode: LeaseMode
    reason: str
    fencing_token: int
    acquire_time: _timestamp_pb2.Timestamp
    expire_time: _timestamp_pb2.Timestamp
    ttl: _duration_pb2.Duration
    renew_with_presence: bool
    def __init__(self, lease_id: _Optional[str] = ..., agent_id: _Optional[str] = ..., session_name: _Optional[str] = ..., resources: _Optional[_Iterable[str]] = ..., mode: _Optional[_Union[LeaseMode, str]] = ..., reason: _Optional[str] = ..., fencing_token: _Optional[int] = ..., acquire_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., expire_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., ttl: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., renew_with_presence: _Optional[bool] = ...) -> None: ...

class LeaseHolder(_message.Message):
    __slots__ = ("lease_id", "agent_id", "session_name", "resource", "requested", "mode", "reason", "expire_time", "fencing_token")
    LEASE_ID_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    SESSION_NAME_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_FIELD_NUMBER: _ClassVar[int]
    REQUESTED_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    EXPIRE_TIME_FIELD_NUMBER: _ClassVar[int]
    FENCING_TOKEN_FIELD_NUMBER: _ClassVar[int]
    lease_id: str
    agent_id: str
    session_name: str
    resource: str
    requested: str
    mode: LeaseMode
    reason: str
    expire_time: _timestamp_pb2.Timestamp
    fencing_token: int
    def __init__(self, lease_id: _Optional[str] = ..., agent_id: _Optional[str] = ..., session_name: _Optional[str] = ..., resource: _Optional[str] = ..., requested: _Optional[str] = ..., mode: _Optional[_Union[LeaseMode, str]] = ..., reason: _Optional[str] = ..., expire_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., fencing_token: _Optional[int] = ...) -> None: ...

class LeaseConflict(_message.Message):
    __slots__ = ("holders",)
    HOLDERS_FIELD_NUMBER: _ClassVar[int]
    holders: _containers.RepeatedCompositeFieldContainer[LeaseHolder]
    def __init__(self, holders: _Optional[_Iterable[_Union[LeaseHolder, _Mapping]]] = ...) -> None: ...

class AcquireRequest(_message.Message):
    __slots__ = ("agent_id", "resources", "mode", "ttl", "reason", "wait", "wait_timeout", "renew_with_presence")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    RESOURCES_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    TTL_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    WAIT_FIELD_NUMBER: _ClassVar[int]
    WAIT_TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    RENEW_WITH_PRESENCE_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    resources: _containers.RepeatedScalarFieldContainer[str]
    mode: LeaseMode
    ttl: _duration_pb2.Duration
    reason: str
    wait: bool
    wait_timeout: _duration_pb2.Duration
    renew_with_presence: bool
    def __init__(self, agent_id: _Optional[str] = ..., resources: _Optional[_Iterable[str]] = ..., mode: _Optional[_Union[LeaseMode, str]] = ..., ttl: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., reason: _Optional[str] = ..., wait: _Optional[bool] = ..., wait_timeout: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., renew_with_presence: _Optional[bool] = ...) -> None: ...

class AcquireResponse(_message.Message):
    __slots__ = ("lease",)
    LEASE_FIELD_NUMBER: _ClassVar[int]
    lease: Lease
    def __init__(self, lease: _Optional[_Union[Lease, _Mapping]] = ...) -> None: ...

class RenewRequest(_message.Message):
    __slots__ = ("lease_id", "ttl")
    LEASE_ID_FIELD_NUMBER: _ClassVar[int]
    TTL_FIELD_NUMBER: _ClassVar[int]
    lease_id: str
    ttl: _duration_pb2.Duration
    def __init__(self, lease_id: _Optional[str] = ..., ttl: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class RenewResponse(_message.Message):
    __slots__ = ("lease",)
    LEASE_FIELD_NUMBER: _ClassVar[int]
    lease: Lease
    def __init__(self, lease: _Optional[_Union[Lease, _Mapping]] = ...) -> None: ...

class ReleaseRequest(_message.Message):
    __slots__ = ("lease_id", "agent_id")
    LEASE_ID_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    lease_id: str
    agent_id: str
    def __init__(self, lease_id: _Optional[str] = ..., agent_id: _Optional[str] = ...) -> None: ...

class ReleaseResponse(_message.Message):
    __slots__ = ("released",)
    RELEASED_FIELD_NUMBER: _ClassVar[int]
    released: int
    def __init__(self, released: _Optional[int] = ...) -> None: ...

class ListLeasesRequest(_message.Message):
    __slots__ = ("page_size", "page_token", "agent_id", "resource")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    agent_id: str
    resource: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., agent_id: _Optional[str] = ..., resource: _Optional[str] = ...) -> None: ...

class ListLeasesResponse(_message.Message):
    __slots__ = ("leases", "next_page_token")
    LEASES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    leases: _containers.RepeatedCompositeFieldContainer[Lease]
    next_page_token: str
    def __init__(self, leases: _Optional[_Iterable[_Union[Lease, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class CheckLeasesRequest(_message.Message):
    __slots__ = ("agent_id", "paths", "mode", "literal")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    PATHS_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    LITERAL_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    paths: _containers.RepeatedScalarFieldContainer[str]
    mode: LeaseMode
    literal: bool
    def __init__(self, agent_id: _Optional[str] = ..., paths: _Optional[_Iterable[str]] = ..., mode: _Optional[_Union[LeaseMode, str]] = ..., literal: _Optional[bool] = ...) -> None: ...

class CheckLeasesResponse(_message.Message):
    __slots__ = ("conflicts", "waiting")
    CONFLICTS_FIELD_NUMBER: _ClassVar[int]
    WAITING_FIELD_NUMBER: _ClassVar[int]
    conflicts: _containers.RepeatedCompositeFieldContainer[LeaseHolder]
    waiting: _containers.RepeatedCompositeFieldContainer[LeaseWaiter]
    def __init__(self, conflicts: _Optional[_Iterable[_Union[LeaseHolder, _Mapping]]] = ..., waiting: _Optional[_Iterable[_Union[LeaseWaiter, _Mapping]]] = ...) -> None: ...

class LeaseWaiter(_message.Message):
    __slots__ = ("agent_id", "resources", "mode", "enqueue_time", "resource", "requested")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    RESOURCES_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    ENQUEUE_TIME_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_FIELD_NUMBER: _ClassVar[int]
    REQUESTED_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    resources: _containers.RepeatedScalarFieldContainer[str]
    mode: LeaseMode
    enqueue_time: _timestamp_pb2.Timestamp
    resource: str
    requested: str
    def __init__(self, agent_id: _Optional[str] = ..., resources: _Optional[_Iterable[str]] = ..., mode: _Optional[_Union[LeaseMode, str]] = ..., enqueue_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., resource: _Optional[str] = ..., requested: _Optional[str] = ...) -> None: ...

class WatchLeasesRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class LeaseEvent(_message.Message):
    __slots__ = ("type", "lease", "cause", "revision")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    LEASE_FIELD_NUMBER: _ClassVar[int]
    CAUSE_FIELD_NUMBER: _ClassVar[int]
    REVISION_FIELD_NUMBER: _ClassVar[int]
    type: LeaseEventType
    lease: Lease
    cause: LeaseEndCause
    revision: int
    def __init__(self, type: _Optional[_Union[LeaseEventType, str]] = ..., lease: _Optional[_Union[Lease, _Mapping]] = ..., cause: _Optional[_Union[LeaseEndCause, str]] = ..., revision: _Optional[int] = ...) -> None: ...

class WatchLeasesResponse(_message.Message):
    __slots__ = ("events", "snapshot_complete", "keepalive", "reset")
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    SNAPSHOT_COMPLETE_FIELD_NUMBER: _ClassVar[int]
    KEEPALIVE_FIELD_NUMBER: _ClassVar[int]
    RESET_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[LeaseEvent]
    snapshot_complete: bool
    keepalive: bool
    reset: bool
    def __init__(self, events: _Optional[_Iterable[_Union[LeaseEvent, _Mapping]]] = ..., snapshot_complete: _Optional[bool] = ..., keepalive: _Optional[bool] = ..., reset: _Optional[bool] = ...) -> None: ...
