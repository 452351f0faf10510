import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class RequestState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    REQUEST_STATE_UNSPECIFIED: _ClassVar[RequestState]
    REQUEST_STATE_PENDING: _ClassVar[RequestState]
    REQUEST_STATE_SETTLED: _ClassVar[RequestState]

class RequestFilter(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    REQUEST_FILTER_UNSPECIFIED: _ClassVar[RequestFilter]
    REQUEST_FILTER_PENDING: _ClassVar[RequestFilter]
    REQUEST_FILTER_NOTIFICATIONS: _ClassVar[RequestFilter]
    REQUEST_FILTER_ALL: _ClassVar[RequestFilter]
REQUEST_STATE_UNSPECIFIED: RequestState
REQUEST_STATE_PENDING: RequestState
REQUEST_STATE_SETTLED: RequestState
REQUEST_FILTER_UNSPECIFIED: RequestFilter
REQUEST_FILTER_PENDING: RequestFilter
REQUEST_FILTER_NOTIFICATIONS: RequestFilter
REQUEST_FILTER_ALL: RequestFilter

class Agent(_message.Message):
    __slots__ = ("agent_id", "name", "description", "instructions", "settings", "create_time")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    INSTRUCTIONS_FIELD_NUMBER: _ClassVar[int]
    SETTINGS_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    name: str
    description: str
    instructions: str
    settings: str
    create_time: _timestamp_pb2.Timestamp
    def __init__(self, agent_id: _Optional[str] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., instructions: _Optional[str] = ..., settings: _Optional[str] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class Thread(_message.Message):
    __slots__ = ("thread_id", "agent_id", "title", "kind", "create_time", "contexts")
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    CONTEXTS_FIELD_NUMBER: _ClassVar[int]
    thread_id: str
    agent_id: str
    title: str
    kind: str
    create_time: _timestamp_pb2.Timestamp
    contexts: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, thread_id: _Optional[str] = ..., agent_id: _Optional[str] = ..., title: _Optional[str] = ..., kind: _Optional[str] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., contexts: _Optional[_Iterable[str]] = ...) -> None: ...

class Submission(_message.Message):
    __slots__ = ("text", "data", "profile", "response", "source_kind", "source_label", "publication", "create_time", "contexts", "related", "retry_of", "root", "causal_depth")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    PROFILE_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_KIND_FIELD_NUMBER: _ClassVar[int]
    SOURCE_LABEL_FIELD_NUMBER: _ClassVar[int]
    PUBLICATION_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    CONTEXTS_FIELD_NUMBER: _ClassVar[int]
    RELATED_FIELD_NUMBER: _ClassVar[int]
    RETRY_OF_FIELD_NUMBER: _ClassVar[int]
    ROOT_FIELD_NUMBER: _ClassVar[int]
    CAUSAL_DEPTH_FIELD_NUMBER: _ClassVar[int]
    text: str
    data: str
    profile: str
    response: str
    source_kind: str
    source_label: str
    publication: str
    create_time: _timestamp_pb2.Timestamp
    contexts: _containers.RepeatedScalarFieldContainer[str]
    related: str
    retry_of: str
    root: str
    causal_depth: int
    def __init__(self, text: _Optional[str] = ..., data: _Optional[str] = ..., profile: _Optional[str] = ..., response: _Optional[str] = ..., source_kind: _Optional[str] = ..., source_label: _Optional[str] = ..., publication: _Optional[str] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., contexts: _Optional[_Iterable[str]] = ..., related: _Optional[str] = ..., retry_of: _Optional[str] = ..., root: _Optional[str] = ..., causal_depth: _Optional[int] = ...) -> None: ...

class RepairInfo(_message.Message):
    __slots__ = ("key", "generation", "attempt", "configuration", "confirm_time", "start_time")
    KEY_FIELD_NUMBER: _ClassVar[int]
    GENERATION_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    CONFIGURATION_FIELD_NUMBER: _ClassVar[int]
    CONFIRM_TIME_FIELD_NUMBER: _ClassVar[int]
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    key: str
    generation: int
    attempt: int
    configuration: str
    confirm_time: _timestamp_pb2.Timestamp
    start_time: _timestamp_pb2.Timestamp
    def __init__(self, key: _Optional[str] = ..., generation: _Optional[int] = ..., attempt: _Optional[int] = ..., configuration: _Optional[str] = ..., confirm_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class Request(_message.Message):
    __slots__ = ("request_id", "agent_id", "thread_id", "submission", "state", "admit_time", "settle_time", "interactive", "notify", "notification_sent", "repair")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    SUBMISSION_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    ADMIT_TIME_FIELD_NUMBER: _ClassVar[int]
    SETTLE_TIME_FIELD_NUMBER: _ClassVar[int]
    INTERACTIVE_FIELD_NUMBER: _ClassVar[int]
    NOTIFY_FIELD_NUMBER: _ClassVar[int]
    NOTIFICATION_SENT_FIELD_NUMBER: _ClassVar[int]
    REPAIR_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    agent_id: str
    thread_id: str
    submission: Submission
    state: RequestState
    admit_time: _timestamp_pb2.Timestamp
    settle_time: _timestamp_pb2.Timestamp
    interactive: bool
    notify: bool
    notification_sent: bool
    repair: RepairInfo
    def __init__(self, request_id: _Optional[str] = ..., agent_id: _Optional[str] = ..., thread_id: _Optional[str] = ..., submission: _Optional[_Union[Submission, _Mapping]] = ..., state: _Optional[_Union[RequestState, str]] = ..., admit_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., settle_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., interactive: _Optional[bool] = ..., notify: _Optional[bool] = ..., notification_sent: _Optional[bool] = ..., repair: _Optional[_Union[RepairInfo, _Mapping]] = ...) -> None: ...

class DirectoryData(_message.Message):
    __slots__ = ("sequence", "pending", "ordinary_pending", "notification_pending", "profiles", "availability", "default_agent", "initial_thread", "notifications")
    SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    PENDING_FIELD_NUMBER: _ClassVar[int]
    ORDINARY_PENDING_FIELD_NUMBER: _ClassVar[int]
    NOTIFICATION_PENDING_FIELD_NUMBER: _ClassVar[int]
    PROFILES_FIELD_NUMBER: _ClassVar[int]
    AVAILABILITY_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_AGENT_FIELD_NUMBER: _ClassVar[int]
    INITIAL_THREAD_FIELD_NUMBER: _ClassVar[int]
    NOTIFICATIONS_FIELD_NUMBER: _ClassVar[int]
    sequence: int
    pending: int
    ordinary_pending: int
    notification_pending: int
    profiles: str
    availability: str
    default_agent: Agent
    initial_thread: Thread
    notifications: int
    def __init__(self, sequence: _Optional[int] = ..., pending: _Optional[int] = ..., ordinary_pending: _Optional[int] = ..., notification_pending: _Optional[int] = ..., profiles: _Optional[str] = ..., availability: _Optional[str] = ..., default_agent: _Optional[_Union[Agent, _Mapping]] = ..., initial_thread: _Optional[_Union[Thread, _Mapping]] = ..., notifications: _Optional[int] = ...) -> None: ...

class InitializeRequest(_message.Message):
    __slots__ = ("instructions", "settings")
    INSTRUCTIONS_FIELD_NUMBER: _ClassVar[int]
    SETTINGS_FIELD_NUMBER: _ClassVar[int]
    instructions: str
    settings: str
    def __init__(self, instructions: _Optional[str] = ..., settings: _Optional[str] = ...) -> None: ...

class InitializeResponse(_message.Message):
    __slots__ = ("agent", "thread")
    AGENT_FIELD_NUMBER: _ClassVar[int]
    THREAD_FIELD_NUMBER: _ClassVar[int]
    agent: Agent
    thread: Thread
    def __init__(self, agent: _Optional[_Union[Agent, _Mapping]] = ..., thread: _Optional[_Union[Thread, _Mapping]] = ...) -> None: ...

class CreateAgentRequest(_message.Message):
    __slots__ = ("name", "description", "instructions", "settings")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    INSTRUCTIONS_FIELD_NUMBER: _ClassVar[int]
    SETTINGS_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    instructions: str
    settings: str
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., instructions: _Optional[str] = ..., settings: _Optional[str] = ...) -> None: ...

class CreateAgentResponse(_message.Message):
    __slots__ = ("agent",)
    AGENT_FIELD_NUMBER: _ClassVar[int]
    agent: Agent
    def __init__(self, agent: _Optional[_Union[Agent, _Mapping]] = ...) -> None: ...

class GetAgentRequest(_message.Message):
    __slots__ = ("agent_id",)
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    def __init__(self, agent_id: _Optional[str] = ...) -> None: ...

class GetAgentResponse(_message.Message):
    __slots__ = ("agent",)
    AGENT_FIELD_NUMBER: _ClassVar[int]
    agent: Agent
    def __init__(self, agent: _Optional[_Union[Agent, _Mapping]] = ...) -> None: ...

class ListAgentsRequest(_message.Message):
    __slots__ = ("page_size", "page_token")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListAgentsResponse(_message.Message):
    __slots__ = ("agents", "next_page_token")
    AGENTS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    agents: _containers.RepeatedCompositeFieldContainer[Agent]
    next_page_token: str
    def __init__(self, agents: _Optional[_Iterable[_Union[Agent, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class CreateThreadRequest(_message.Message):
    __slots__ = ("agent_id", "title", "kind", "create_time", "contexts", "request_key")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    CONTEXTS_FIELD_NUMBER: _ClassVar[int]
    REQUEST_KEY_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    title: str
    kind: str
    create_time: _timestamp_pb2.Timestamp
    contexts: _containers.RepeatedScalarFieldContainer[str]
    request_key: str
    def __init__(self, agent_id: _Optional[str] = ..., title: _Optional[str] = ..., kind: _Optional[str] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., contexts: _Optional[_Iterable[str]] = ..., request_key: _Optional[str] = ...) -> None: ...

class CreateThreadResponse(_message.Message):
    __slots__ = ("thread",)
    THREAD_FIELD_NUMBER: _ClassVar[int]
    thread: Thread
    def __init__(self, thread: _Optional[_Union[Thread, _Mapping]] = ...) -> None: ...

class ListThreadsRequest(_message.Message):
    __slots__ = ("agent_id", "page_size", "page_token")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    page_size: int
    page_token: str
    def __init__(self, agent_id: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListThreadsResponse(_message.Message):
    __slots__ = ("threads", "next_page_token")
    THREADS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    threads: _containers.RepeatedCompositeFieldContainer[Thread]
    next_page_token: str
    def __init__(self, threads: _Optional[_Iterable[_Union[Thread, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class AdmitRequest(_message.Message):
    __slots__ = ("agent_id", "thread_id", "submission", "optional_work", "request_key")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    SUBMISSION_FIELD_NUMBER: _ClassVar[int]
    OPTIONAL_WORK_FIELD_NUMBER: _ClassVar[int]
    REQUEST_KEY_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    thread_id: str
    submission: Submission
    optional_work: bool
    request_key: str
    def __init__(self, agent_id: _Optional[str] = ..., thread_id: _Optional[str] = ..., submission: _Optional[_Union[Submission, _Mapping]] = ..., optional_work: _Optional[bool] = ..., request_key: _Optional[str] = ...) -> None: ...

class AdmitResponse(_message.Message):
    __slots__ = ("accepted", "reason", "thread_id", "request_id")
    ACCEPTED_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    accepted: bool
    reason: str
    thread_id: str
    request_id: str
    def __init__(self, accepted: _Optional[bool] = ..., reason: _Optional[str] = ..., thread_id: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class SettleRequest(_message.Message):
    __slots__ = ("request_id", "thread_id", "interactive", "notify")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    THREAD_ID_FIELD_NUMBER: _ClassVar[int]
    INTERACTIVE_FIELD_NUMBER: _ClassVar[int]
    NOTIFY_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    thread_id: str
    interactive: bool
    notify: bool
    def __init__(self, request_id: _Optional[str] = ..., thread_id: _Optional[str] = ..., interactive: _Optional[bool] = ..., notify: _Optional[bool] = ...) -> None: ...

class SettleResponse(_message.Message):
    __slots__ = ("request",)
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    request: Request
    def __init__(self, request: _Optional[_Union[Request, _Mapping]] = ...) -> None: ...

class NotificationSentRequest(_message.Message):
    __slots__ = ("request_id",)
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    def __init__(self, request_id: _Optional[str] = ...) -> None: ...

class NotificationSentResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListRequestsRequest(_message.Message):
    __slots__ = ("filter", "page_size", "page_token")
    FILTER_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    filter: RequestFilter
    page_size: int
    page_token: str
    def __init__(self, filter: _Optional[_Union[RequestFilter, str]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListRequestsResponse(_message.Message):
    __slots__ = ("requests", "next_page_token")
    REQUESTS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    requests: _containers.RepeatedCompositeFieldContainer[Request]
    next_page_token: str
    def __init__(self, requests: _Optional[_Iterable[_Union[Request, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class AdvertiseRequest(_message.Message):
    __slots__ = ("profiles", "availability")
    PROFILES_FIELD_NUMBER: _ClassVar[int]
    AVAILABILITY_FIELD_NUMBER: _ClassVar[int]
    profiles: str
    availability: str
    def __init__(self, profiles: _Optional[str] = ..., availability: _Optional[str] = ...) -> None: ...

class AdvertiseResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ReconcileRepairRequest(_message.Message):
    __slots__ = ("key", "text", "configuration", "create_time", "confirm_time", "publication", "attempt", "generation", "start_time")
    KEY_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    CONFIGURATION_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    CONFIRM_TIME_FIELD_NUMBER: _ClassVar[int]
    PUBLICATION_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    GENERATION_FIELD_NUMBER: _ClassVar[int]
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    key: str
    text: str
    configuration: str
    create_time: _timestamp_pb2.Timestamp
    confirm_time: _timestamp_pb2.Timestamp
    publication: str
    attempt: int
    generation: int
    start_time: _timestamp_pb2.Timestamp
    def __init__(self, key: _Optional[str] = ..., text: _Optional[str] = ..., configuration: _Optional[str] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., confirm_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., publication: _Optional[str] = ..., attempt: _Optional[int] = ..., generation: _Optional[int] = ..., start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ReconcileRepairResponse(_message.Message):
    __slots__ = ("request_id",)
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    request_id: str
    def __init__(self, request_id: _Optional[str] = ...) -> None: ...

class GetDirectoryDataRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetDirectoryDataResponse(_message.Message):
    __slots__ = ("data",)
    DATA_FIELD_NUMBER: _ClassVar[int]
    data: DirectoryData
    def __init__(self, data: _Optional[_Union[DirectoryData, _Mapping]] = ...) -> None: ...

class WatchDirectoryDataRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class WatchDirectoryDataResponse(_message.Message):
    __slots__ = ("data", "gap", "keepalive")
    DATA_FIELD_NUMBER: _ClassVar[int]
    GAP_FIELD_NUMBER: _ClassVar[int]
    KEEPALIVE_FIELD_NUMBER: _ClassVar[int]
    data: DirectoryData
    gap: bool
    keepalive: bool
    def __init__(self, data: _Optional[_Union[DirectoryData, _Mapping]] = ..., gap: _Optional[bool] = ..., keepalive: _Optional[bool] = ...) -> None: ...
