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

class ChannelDelivery(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CHANNEL_DELIVERY_UNSPECIFIED: _ClassVar[ChannelDelivery]
    CHANNEL_DELIVERY_MAILBOX: _ClassVar[ChannelDelivery]
    CHANNEL_DELIVERY_LOG: _ClassVar[ChannelDelivery]
CHANNEL_DELIVERY_UNSPECIFIED: ChannelDelivery
CHANNEL_DELIVERY_MAILBOX: ChannelDelivery
CHANNEL_DELIVERY_LOG: ChannelDelivery

class ChannelRetention(_message.Message):
    __slots__ = ("max_messages", "max_bytes", "max_age")
    MAX_MESSAGES_FIELD_NUMBER: _ClassVar[int]
    MAX_BYTES_FIELD_NUMBER: _ClassVar[int]
    MAX_AGE_FIELD_NUMBER: _ClassVar[int]
    max_messages: int
    max_bytes: int
    max_age: _duration_pb2.Duration
    def __init__(self, max_messages: _Optional[int] = ..., max_bytes: _Optional[int] = ..., max_age: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class Channel(_message.Message):
    __slots__ = ("name", "description", "open", "retention", "creator", "create_time", "last_seq", "first_seq", "message_count", "retained_bytes", "member_count")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    OPEN_FIELD_NUMBER: _ClassVar[int]
    RETENTION_FIELD_NUMBER: _ClassVar[int]
    CREATOR_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    LAST_SEQ_FIELD_NUMBER: _ClassVar[int]
    FIRST_SEQ_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_COUNT_FIELD_NUMBER: _ClassVar[int]
    RETAINED_BYTES_FIELD_NUMBER: _ClassVar[int]
    MEMBER_COUNT_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    open: bool
    retention: ChannelRetention
    creator: str
    create_time: _timestamp_pb2.Timestamp
    last_seq: int
    first_seq: int
    message_count: int
    retained_bytes: int
    member_count: int
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., open: _Optional[bool] = ..., retention: _Optional[_Union[ChannelRetention, _Mapping]] = ..., creator: _Optional[str] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., last_seq: _Optional[int] = ..., first_seq: _Optional[int] = ..., message_count: _Optional[int] = ..., retained_bytes: _Optional[int] = ..., member_count: _Optional[int] = ...) -> None: ...

class ChannelMember(_message.Message):
    __slots__ = ("channel", "agent_id", "delivery", "join_time", "joined_after_seq")
    CHANNEL_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    DELIVERY_FIELD_NUMBER: _ClassVar[int]
    JOIN_TIME_FIELD_NUMBER: _ClassVar[int]
    JOINED_AFTER_SEQ_FIELD_NUMBER: _ClassVar[int]
    channel: str
    agent_id: str
    delivery: ChannelDelivery
    join_time: _timestamp_pb2.Timestamp
    joined_after_seq: int
    def __init__(self, channel: _Optional[str] = ..., agent_id: _Optional[str] = ..., delivery: _Optional[_Union[ChannelDelivery, str]] = ..., join_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., joined_after_seq: _Optional[int] = ...) -> None: ...

class ChannelPost(_message.Message):
    __slots__ = ("channel", "seq", "message")
    CHANNEL_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    channel: str
    seq: int
    message: _types_pb2.Message
    def __init__(self, channel: _Optional[str] = ..., seq: _Optional[int] = ..., message: _Optional[_Union[_types_pb2.Message, _Mapping]] = ...) -> None: ...

class CreateChannelRequest(_message.Message):
    __slots__ = ("channel",)
    CHANNEL_FIELD_NUMBER: _ClassVar[int]
    channel: Channel
    def __init__(self, channel: _Optional[_Union[Channel, _Mapping]] = ...) -> None: ...

class CreateChannelResponse(_message.Message):
    __slots__ = ("channel",)
    CHANNEL_FIELD_NUMBER: _ClassVar[int]
    channel: Channel
    def __init__(self, channel: _Optional[_Union[Channel, _Mapping]] = ...) -> None: ...

class GetChannelRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class GetChannelResponse(_message.Message):
    __slots__ = ("channel",)
    CHANNEL_FIELD_NUMBER: _ClassVar[int]
    channel: Channel
    def __init__(self, channel: _Optional[_Union[Channel, _Mapping]] = ...) -> None: ...

class ListChannelsRequest(_message.Message):
    __slots__ = ("page_size", "page_token")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListChannelsResponse(_message.Message):
    __slots__ = ("channels", "next_page_token")
    CHANNELS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    channels: _containers.RepeatedCompositeFieldContainer[Channel]
    next_page_token: str
    def __init__(self, channels: _Optional[_Iterable[_Union[Channel, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class DeleteChannelRequest(_message.Message):
    __slots__ = ("name", "purge")
    NAME_FIELD_NUMBER: _ClassVar[int]
    PURGE_FIELD_NUMBER: _ClassVar[int]
    name: str
    purge: bool
    def __init__(self, name: _Optional[str] = ..., purge: _Optional[bool] = ...) -> None: ...

class DeleteChannelResponse(_message.Message):
    __slots__ = ("purged",)
    PURGED_FIELD_NUMBER: _ClassVar[int]
    purged: int
    def __init__(self, purged: _Optional[int] = ...) -> None: ...

class JoinChannelRequest(_message.Message):
    __slots__ = ("channel", "agent_id", "delivery")
    CHANNEL_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    DELIVERY_FIELD_NUMBER: _ClassVar[int]
    channel: str
    agent_id: str
    delivery: ChannelDelivery
    def __init__(self, channel: _Optional[str] = ..., agent_id: _Optional[str] = ..., delivery: _Optional[_Union[ChannelDelivery, str]] = ...) -> None: ...

class JoinChannelResponse(_message.Message):
    __slots__ = ("member", "joined")
    MEMBER_FIELD_NUMBER: _ClassVar[int]
    JOINED_FIELD_NUMBER: _ClassVar[int]
    member: ChannelMember
    joined: bool
    def __init__(self, member: _Optional[_Union[ChannelMember, _Mapping]] = ..., joined: _Optional[bool] = ...) -> None: ...

class LeaveChannelRequest(_message.Message):
    __slots__ = ("channel", "agent_id")
    CHANNEL_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    channel: str
    agent_id: str
    def __init__(self, channel: _Optional[str] = ..., agent_id: _Optional[str] = ...) -> None: ...

class LeaveChannelResponse(_message.Message):
    __slots__ = ("left",)
    LEFT_FIELD_NUMBER: _ClassVar[int]
    left: bool
    def __init__(self, left: _Optional[bool] = ...) -> None: ...

class ListMembersRequest(_message.Message):
    __slots__ = ("channel", "page_size", "page_token")
    CHANNEL_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    channel: str
    page_size: int
    page_token: str
    def __init__(self, channel: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListMembersResponse(_message.Message):
    __slots__ = ("members", "next_page_token")
    MEMBERS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    members: _containers.RepeatedCompositeFieldContainer[ChannelMember]
    next_page_token: str
    def __init__(self, members: _Optional[_Iterable[_Union[ChannelMember, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class PublishRequest(_message.Message):
    __slots__ = ("channel", "message")
    CHANNEL_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    channel: str
    message: _types_pb2.Message
    def __init__(self, channel: _Optional[str] = ..., message: _Optional[_Union[_types_pb2.Message, _Mapping]] = ...) -> None: ...

class SkippedCopy(_message.Message):
    __slots__ = ("agent_id", "reason")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    reason: str
    def __init__(self, agent_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class PublishResponse(_message.Message):
    __slots__ = ("post", "duplicate", "delivered", "skipped", "skipped_copies")
    POST_FIELD_NUMBER: _ClassVar[int]
    DUPLICATE_FIELD_NUMBER: _ClassVar[int]
    DELIVERED_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_COPIES_FIELD_NUMBER: _ClassVar[int]
    post: ChannelPost
    duplicate: bool
    delivered: int
    skipped: int
    skipped_copies: _containers.RepeatedCompositeFieldContainer[SkippedCopy]
    def __init__(self, post: _Optional[_Union[ChannelPost, _Mapping]] = ..., duplicate: _Optional[bool] = ..., delivered: _Optional[int] = ..., skipped: _Optional[int] = ..., skipped_copies: _Optional[_Iterable[_Union[SkippedCopy, _Mapping]]] = ...) -> None: ...

class ReadChannelRequest(_message.Message):
    __slots__ = ("channel", "after_seq", "page_size", "max_bytes")
    CHANNEL_FIELD_NUMBER: _ClassVar[int]
    AFTER_SEQ_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    MAX_BYTES_FIELD_NUMBER: _ClassVar[int]
    channel: str
    after_seq: int
    page_size: int
    max_bytes: int
    def __init__(self, channel: _Optional[str] = ..., after_seq: _Optional[int] = ..., page_size: _Optional[int] = ..., max_bytes: _Optional[int] = ...) -> None: ...

class ReadChannelResponse(_message.Message):
    __slots__ = ("posts", "first_seq", "last_seq")
    POSTS_FIELD_NUMBER: _ClassVar[int]
    FIRST_SEQ_FIELD_NUMBER: _ClassVar[int]
    LAST_SEQ_FIELD_NUMBER: _ClassVar[int]
    posts: _containers.RepeatedCompositeFieldContainer[ChannelPost]
    first_seq: int
    last_seq: int
    def __init__(self, posts: _Optional[_Iterable[_Union[ChannelPost, _Mapping]]] = ..., first_seq: _Optional[int] = ..., last_seq: _Optional[int] = ...) -> None: ...

class SubscribeChannelRequest(_message.Message):
    __slots__ = ("channel", "after_seq")
    CHANNEL_FIELD_NUMBER: _ClassVar[int]
    AFTER_SEQ_FIELD_NUMBER: _ClassVar[int]
    channel: str
    after_seq: int
    def __init__(self, channel: _Optional[str] = ..., after_seq: _Optional[int] = ...) -> None: ...

class SubscribeChannelResponse(_message.Message):
    __slots__ = ("posts", "keepalive")
    POSTS_FIELD_NUMBER: _ClassVar[int]
    KEEPALIVE_FIELD_NUMBER: _ClassVar[int]
    posts: _containers.RepeatedCompositeFieldContainer[ChannelPost]
    keepalive: bool
    def __init__(self, posts: _Optional[_Iterable[_Union[ChannelPost, _Mapping]]] = ..., keepalive: _Optional[bool] = ...) -> None: ...

class SearchMessagesRequest(_message.Message):
    __slots__ = ("query", "channel", "sender", "after_time", "before_time", "page_size", "page_token")
    QUERY_FIELD_NUMBER: _ClassVar[int]
    CHANNEL_FIELD_NUMBER: _ClassVar[int]
    SENDER_FIELD_NUMBER: _ClassVar[int]
    AFTER_TIME_FIELD_NUMBER: _ClassVar[int]
    BEFORE_TIME_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    query: str
    channel: str
    sender: str
    after_time: _timestamp_pb2.Timestamp
    before_time: _timestamp_pb2.Timestamp
    page_size: int
    page_token: str
    def __init__(self, query: _Optional[str] = ..., channel: _Optional[str] = ..., sender: _Optional[str] = ..., after_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., before_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class SearchHit(_message.Message):
    __slots__ = ("channel", "seq", "sender", "send_time", "snippet", "message_id")
    CHANNEL_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    SENDER_FIELD_NUMBER: _ClassVar[int]
    SEND_TIME_FIELD_NUMBER: _ClassVar[int]
    SNIPPET_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_ID_FIELD_NUMBER: _ClassVar[int]
    channel: str
    seq: int
    sender: str
    send_time: _timestamp_pb2.Timestamp
    snippet: str
    message_id: str
    def __init__(self, channel: _Optional[str] = ..., seq: _Optional[int] = ..., sender: _Optional[str] = ..., send_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., snippet: _Optional[str] = ..., message_id: _Optional[str] = ...) -> None: ...

class SearchMessagesResponse(_message.Message):
    __slots__ = ("hits", "next_page_token")
    HITS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    hits: _containers.RepeatedCompositeFieldContainer[SearchHit]
    next_page_token: str
    def __init__(self, hits: _Optional[_Iterable[_Union[SearchHit, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...
