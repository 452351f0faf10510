import datetime

from fabricd.v1 import types_pb2 as _types_pb2
from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class MailboxEventType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MAILBOX_EVENT_TYPE_UNSPECIFIED: _ClassVar[MailboxEventType]
    MAILBOX_EVENT_TYPE_SNAPSHOT: _ClassVar[MailboxEventType]
    MAILBOX_EVENT_TYPE_CREATED: _ClassVar[MailboxEventType]
    MAILBOX_EVENT_TYPE_REGISTERED: _ClassVar[MailboxEventType]
    MAILBOX_EVENT_TYPE_TOUCHED: _ClassVar[MailboxEventType]
    MAILBOX_EVENT_TYPE_BUSY_CHANGED: _ClassVar[MailboxEventType]
    MAILBOX_EVENT_TYPE_CAPABILITIES_CHANGED: _ClassVar[MailboxEventType]
    MAILBOX_EVENT_TYPE_UNREGISTERED: _ClassVar[MailboxEventType]

class WakeHookState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    WAKE_HOOK_STATE_UNSPECIFIED: _ClassVar[WakeHookState]
    WAKE_HOOK_STATE_ACTIVE: _ClassVar[WakeHookState]
    WAKE_HOOK_STATE_BACKING_OFF: _ClassVar[WakeHookState]
    WAKE_HOOK_STATE_DISABLED: _ClassVar[WakeHookState]
MAILBOX_EVENT_TYPE_UNSPECIFIED: MailboxEventType
MAILBOX_EVENT_TYPE_SNAPSHOT: MailboxEventType
MAILBOX_EVENT_TYPE_CREATED: MailboxEventType
MAILBOX_EVENT_TYPE_REGISTERED: MailboxEventType
MAILBOX_EVENT_TYPE_TOUCHED: MailboxEventType
MAILBOX_EVENT_TYPE_BUSY_CHANGED: MailboxEventType
MAILBOX_EVENT_TYPE_CAPABILITIES_CHANGED: MailboxEventType
MAILBOX_EVENT_TYPE_UNREGISTERED: MailboxEventType
WAKE_HOOK_STATE_UNSPECIFIED: WakeHookState
WAKE_HOOK_STATE_ACTIVE: WakeHookState
WAKE_HOOK_STATE_BACKING_OFF: WakeHookState
WAKE_HOOK_STATE_DISABLED: WakeHookState

class RegisterRequest(_message.Message):
    __slots__ = ("agent_id", "session_name", "capabilities", "cwd", "metadata")
    class MetadataEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    SESSION_NAME_FIELD_NUMBER: _ClassVar[int]
    CAPABILITIES_FIELD_NUMBER: _ClassVar[int]
    CWD_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    session_name: str
    capabilities: _containers.RepeatedCompositeFieldContainer[_types_pb2.Capability]
    cwd: str
    metadata: _containers.ScalarMap[str, str]
    def __init__(self, agent_id: _Optional[str] = ..., session_name: _Optional[str] = ..., capabilities: _Optional[_Iterable[_Union[_types_pb2.Capability, _Mapping]]] = ..., cwd: _Optional[str] = ..., metadata: _Optional[_Mapping[str, str]] = ...) -> None: ...

class RegisterResponse(_message.Message):
    __slots__ = ("entry", "name_shared_with")
    ENTRY_FIELD_NUMBER: _ClassVar[int]
    NAME_SHARED_WITH_FIELD_NUMBER: _ClassVar[int]
    entry: _types_pb2.MailboxEntry
    name_shared_with: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, entry: _Optional[_Union[_types_pb2.MailboxEntry, _Mapping]] = ..., name_shared_with: _Optional[_Iterable[str]] = ...) -> None: ...

class TouchRequest(_message.Message):
    __slots__ = ("agent_id", "busy", "offline")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    BUSY_FIELD_NUMBER: _ClassVar[int]
    OFFLINE_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    busy: bool
    offline: bool
    def __init__(self, agent_id: _Optional[str] = ..., busy: _Optional[bool] = ..., offline: _Optional[bool] = ...) -> None: ...

class TouchResponse(_message.Message):
    __slots__ = ("created", "similar_names")
    CREATED_FIELD_NUMBER: _ClassVar[int]
    SIMILAR_NAMES_FIELD_NUMBER: _ClassVar[int]
    created: bool
    similar_names: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, created: _Optional[bool] = ..., similar_names: _Optional[_Iterable[str]] = ...) -> None: ...

class UnregisterRequest(_message.Message):
    __slots__ = ("agent_id", "purge")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    PURGE_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    purge: bool
    def __init__(self, agent_id: _Optional[str] = ..., purge: _Optional[bool] = ...) -> None: ...

class UnregisterResponse(_message.Message):
    __slots__ = ("purged_messages", "aborted_tickets")
    PURGED_MESSAGES_FIELD_NUMBER: _ClassVar[int]
    ABORTED_TICKETS_FIELD_NUMBER: _ClassVar[int]
    purged_messages: int
    aborted_tickets: int
    def __init__(self, purged_messages: _Optional[int] = ..., aborted_tickets: _Optional[int] = ...) -> None: ...

class ListMailboxesRequest(_message.Message):
    __slots__ = ("page_size", "page_token")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListMailboxesResponse(_message.Message):
    __slots__ = ("mailboxes", "next_page_token")
    MAILBOXES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    mailboxes: _containers.RepeatedCompositeFieldContainer[_types_pb2.MailboxEntry]
    next_page_token: str
    def __init__(self, mailboxes: _Optional[_Iterable[_Union[_types_pb2.MailboxEntry, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class ResolveNameRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class ResolveNameResponse(_message.Message):
    __slots__ = ("entry",)
    ENTRY_FIELD_NUMBER: _ClassVar[int]
    entry: _types_pb2.MailboxEntry
    def __init__(self, entry: _Optional[_Union[_types_pb2.MailboxEntry, _Mapping]] = ...) -> None: ...

class WatchMailboxesRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class MailboxEvent(_message.Message):
    __slots__ = ("type", "entry")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    ENTRY_FIELD_NUMBER: _ClassVar[int]
    type: MailboxEventType
    entry: _types_pb2.MailboxEntry
    def __init__(self, type: _Optional[_Union[MailboxEventType, str]] = ..., entry: _Optional[_Union[_types_pb2.MailboxEntry, _Mapping]] = ...) -> None: ...

class WatchMailboxesResponse(_message.Message):
    __slots__ = ("events", "snapshot_complete", "keepalive")
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    SNAPSHOT_COMPLETE_FIELD_NUMBER: _ClassVar[int]
    KEEPALIVE_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[MailboxEvent]
    snapshot_complete: bool
    keepalive: bool
    def __init__(self, events: _Optional[_Iterable[_Union[MailboxEvent, _Mapping]]] = ..., snapshot_complete: _Optional[bool] = ..., keepalive: _Optional[bool] = ...) -> None: ...

class WakeHook(_message.Message):
    __slots__ = ("url", "command", "quiet_period", "only_when_idle")
    URL_FIELD_NUMBER: _ClassVar[int]
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    QUIET_PERIOD_FIELD_NUMBER: _ClassVar[int]
    ONLY_WHEN_IDLE_FIELD_NUMBER: _ClassVar[int]
    url: str
    command: _containers.RepeatedScalarFieldContainer[str]
    quiet_period: _duration_pb2.Duration
    only_when_idle: bool
    def __init__(self, url: _Optional[str] = ..., command: _Optional[_Iterable[str]] = ..., quiet_period: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., only_when_idle: _Optional[bool] = ...) -> None: ...

class SetWakeHookRequest(_message.Message):
    __slots__ = ("agent_id", "hook")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    HOOK_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    hook: WakeHook
    def __init__(self, agent_id: _Optional[str] = ..., hook: _Optional[_Union[WakeHook, _Mapping]] = ...) -> None: ...

class SetWakeHookResponse(_message.Message):
    __slots__ = ("hook", "secret")
    HOOK_FIELD_NUMBER: _ClassVar[int]
    SECRET_FIELD_NUMBER: _ClassVar[int]
    hook: WakeHook
    secret: str
    def __init__(self, hook: _Optional[_Union[WakeHook, _Mapping]] = ..., secret: _Optional[str] = ...) -> None: ...

class GetWakeHookRequest(_message.Message):
    __slots__ = ("agent_id",)
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    def __init__(self, agent_id: _Optional[str] = ...) -> None: ...

class GetWakeHookResponse(_message.Message):
    __slots__ = ("hook", "fires", "last_fire_time", "armed", "state", "consecutive_failures", "last_error", "next_attempt_time", "disable_time")
    HOOK_FIELD_NUMBER: _ClassVar[int]
    FIRES_FIELD_NUMBER: _ClassVar[int]
    LAST_FIRE_TIME_FIELD_NUMBER: _ClassVar[int]
    ARMED_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    CONSECUTIVE_FAILURES_FIELD_NUMBER: _ClassVar[int]
    LAST_ERROR_FIELD_NUMBER: _ClassVar[int]
    NEXT_ATTEMPT_TIME_FIELD_NUMBER: _ClassVar[int]
    DISABLE_TIME_FIELD_NUMBER: _ClassVar[int]
    hook: WakeHook
    fires: int
    last_fire_time: _timestamp_pb2.Timestamp
    armed: bool
    state: WakeHookState
    consecutive_failures: int
    last_error: str
    next_attempt_time: _timestamp_pb2.Timestamp
    disable_time: _timestamp_pb2.Timestamp
    def __init__(self, hook: _Optional[_Union[WakeHook, _Mapping]] = ..., fires: _Optional[int] = ..., last_fire_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., armed: _Optional[bool] = ..., state: _Optional[_Union[WakeHookState, str]] = ..., consecutive_failures: _Optional[int] = ..., last_error: _Optional[str] = ..., next_attempt_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., disable_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...
