import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class TokenScope(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TOKEN_SCOPE_UNSPECIFIED: _ClassVar[TokenScope]
    TOKEN_SCOPE_ADMIN: _ClassVar[TokenScope]
    TOKEN_SCOPE_AGENT: _ClassVar[TokenScope]
TOKEN_SCOPE_UNSPECIFIED: TokenScope
TOKEN_SCOPE_ADMIN: TokenScope
TOKEN_SCOPE_AGENT: TokenScope

class TokenInfo(_message.Message):
    __slots__ = ("token_id", "scope", "agent_id", "label", "create_time", "revoke_time", "session_names")
    TOKEN_ID_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    REVOKE_TIME_FIELD_NUMBER: _ClassVar[int]
    SESSION_NAMES_FIELD_NUMBER: _ClassVar[int]
    token_id: str
    scope: TokenScope
    agent_id: str
    label: str
    create_time: _timestamp_pb2.Timestamp
    revoke_time: _timestamp_pb2.Timestamp
    session_names: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, token_id: _Optional[str] = ..., scope: _Optional[_Union[TokenScope, str]] = ..., agent_id: _Optional[str] = ..., label: _Optional[str] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., revoke_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., session_names: _Optional[_Iterable[str]] = ...) -> None: ...

class IssueTokenRequest(_message.Message):
    __slots__ = ("scope", "agent_id", "label", "session_names")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    SESSION_NAMES_FIELD_NUMBER: _ClassVar[int]
    scope: TokenScope
    agent_id: str
    label: str
    session_names: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, scope: _Optional[_Union[TokenScope, str]] = ..., agent_id: _Optional[str] = ..., label: _Optional[str] = ..., session_names: _Optional[_Iterable[str]] = ...) -> None: ...

class IssueTokenResponse(_message.Message):
    __slots__ = ("info", "token")
    INFO_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    info: TokenInfo
    token: str
    def __init__(self, info: _Optional[_Union[TokenInfo, _Mapping]] = ..., token: _Optional[str] = ...) -> None: ...

class RevokeTokenRequest(_message.Message):
    __slots__ = ("token_id",)
    TOKEN_ID_FIELD_NUMBER: _ClassVar[int]
    token_id: str
    def __init__(self, token_id: _Optional[str] = ...) -> None: ...

class RevokeTokenResponse(_message.Message):
    __slots__ = ("revoked",)
    REVOKED_FIELD_NUMBER: _ClassVar[int]
    revoked: bool
    def __init__(self, revoked: _Optional[bool] = ...) -> None: ...

class ListTokensRequest(_message.Message):
    __slots__ = ("page_size", "page_token")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListTokensResponse(_message.Message):
    __slots__ = ("tokens", "next_page_token")
    TOKENS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    tokens: _containers.RepeatedCompositeFieldContainer[TokenInfo]
    next_page_token: str
    def __init__(self, tokens: _Optional[_Iterable[_Union[TokenInfo, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class GetStatusRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetStatusResponse(_message.Message):
    __slots__ = ("version", "start_time", "data_dir", "listen_addresses", "map_size_bytes", "map_used_bytes", "commits", "writes", "mailboxes", "queued_tickets", "open_streams", "waiters", "open_waits", "outbox_pending", "outbox_rows", "map_free_bytes", "current_time", "auth_tokens", "store_kind", "postgres")
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
    MAP_FREE_BYTES_FIELD_NUMBER: _ClassVar[int]
    CURRENT_TIME_FIELD_NUMBER: _ClassVar[int]
    AUTH_TOKENS_FIELD_NUMBER: _ClassVar[int]
    STORE_KIND_FIELD_NUMBER: _ClassVar[int]
    POSTGRES_FIELD_NUMBER: _ClassVar[int]
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
    map_free_bytes: int
    current_time: _timestamp_pb2.Timestamp
    auth_tokens: str
    store_kind: str
    postgres: PostgresStatus
    def __init__(self, version: _Optional[str] = ..., start_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., data_dir: _Optional[str] = ..., listen_addresses: _Optional[_Iterable[str]] = ..., map_size_bytes: _Optional[int] = ..., map_used_bytes: _Optional[int] = ..., commits: _Optional[int] = ..., writes: _Optional[int] = ..., mailboxes: _Optional[int] = ..., queued_tickets: _Optional[int] = ..., open_streams: _Optional[int] = ..., waiters: _Optional[int] = ..., open_waits: _Optional[int] = ..., outbox_pending: _Optional[int] = ..., outbox_rows: _Optional[int] = ..., map_free_bytes: _Optional[int] = ..., current_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., auth_tokens: _Optional[str] = ..., store_kind: _Optional[str] = ..., postgres: _Optional[_Union[PostgresStatus, _Mapping]] = ...) -> None: ...

class PostgresStatus(_message.Message):
    __slots__ = ("url", "server_version", "database", "schema_version", "pool_size", "pool_max_size", "pool_idle", "in_recovery", "replicas", "database_bytes")
    URL_FIELD_NUMBER: _ClassVar[int]
    SERVER_VERSION_FIELD_NUMBER: _ClassVar[int]
    DATABASE_FIELD_NUMBER: _ClassVar[int]
    SCHEMA_VERSION_FIELD_NUMBER: _ClassVar[int]
    POOL_SIZE_FIELD_NUMBER: _ClassVar[int]
    POOL_MAX_SIZE_FIELD_NUMBER: _ClassVar[int]
    POOL_IDLE_FIELD_NUMBER: _ClassVar[int]
    IN_RECOVERY_FIELD_NUMBER: _ClassVar[int]
    REPLICAS_FIELD_NUMBER: _ClassVar[int]
    DATABASE_BYTES_FIELD_NUMBER: _ClassVar[int]
    url: str
    server_version: str
    database: str
    schema_version: int
    pool_size: int
    pool_max_size: int
    pool_idle: int
    in_recovery: bool
    replicas: int
    database_bytes: int
    def __init__(self, url: _Optional[str] = ..., server_version: _Optional[str] = ..., database: _Optional[str] = ..., schema_version: _Optional[int] = ..., pool_size: _Optional[int] = ..., pool_max_size: _Optional[int] = ..., pool_idle: _Optional[int] = ..., in_recovery: _Optional[bool] = ..., replicas: _Optional[int] = ..., database_bytes: _Optional[int] = ...) -> None: ...

class BackupStoreRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class BackupStoreResponse(_message.Message):
    __slots__ = ("data", "offset", "total_bytes", "sha256")
    DATA_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    TOTAL_BYTES_FIELD_NUMBER: _ClassVar[int]
    SHA256_FIELD_NUMBER: _ClassVar[int]
    data: bytes
    offset: int
    total_bytes: int
    sha256: str
    def __init__(self, data: _Optional[bytes] = ..., offset: _Optional[int] = ..., total_bytes: _Optional[int] = ..., sha256: _Optional[str] = ...) -> None: ...
