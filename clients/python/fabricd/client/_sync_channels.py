"""SyncClient's twins of the ChannelService calls (a mixin of SyncClient; docstrings are Client's)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Coroutine, Iterator, Mapping
from typing import Any, TypeVar

from fabricd.client._client import Client
from fabricd.client._paging import Page
from fabricd.v1 import channel_service_pb2 as ch_pb

T = TypeVar("T")


class SyncChannelCalls:
    _client: Client

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        raise NotImplementedError

    def _iterate(self, stream: AsyncIterator[T]) -> Iterator[T]:
        raise NotImplementedError

    def create_channel(self, name: str, *, description: str = "", open: bool = True,
                       max_messages: int = 0, max_bytes: int = 0, max_age: float = 0.0) -> ch_pb.Channel:
        return self._run(self._client.create_channel(name, description=description, open=open,
                                                     max_messages=max_messages, max_bytes=max_bytes,
                                                     max_age=max_age))

    def get_channel(self, name: str) -> ch_pb.Channel:
        return self._run(self._client.get_channel(name))

    def list_channels(self, *, page_size: int = 0, page_token: str = "") -> Page[ch_pb.Channel]:
        return self._run(self._client.list_channels(page_size=page_size, page_token=page_token))

    def delete_channel(self, name: str, *, purge: bool = False) -> int:
        return self._run(self._client.delete_channel(name, purge=purge))

    def join_channel(self, name: str, agent_id: str = "", *,
                     delivery: int = ch_pb.CHANNEL_DELIVERY_MAILBOX) -> ch_pb.JoinChannelResponse:
        return self._run(self._client.join_channel(name, agent_id, delivery=delivery))

    def leave_channel(self, name: str, agent_id: str = "") -> bool:
        return self._run(self._client.leave_channel(name, agent_id))

    def list_members(self, name: str, *, page_size: int = 0, page_token: str = "") -> Page[ch_pb.ChannelMember]:
        return self._run(self._client.list_members(name, page_size=page_size, page_token=page_token))

    def publish(self, channel: str, text: str = "", *, sender: str = "", id: str = "",
                data: bytes = b"", headers: Mapping[str, str] | None = None,
                thread_id: str = "") -> ch_pb.PublishResponse:
        return self._run(self._client.publish(channel, text, sender=sender, id=id, data=data, headers=headers,
                                              thread_id=thread_id))

    def read_channel(self, name: str, *, after_seq: int = 0, page_size: int = 0,
                     max_bytes: int = 0) -> ch_pb.ReadChannelResponse:
        return self._run(self._client.read_channel(name, after_seq=after_seq, page_size=page_size,
                                                   max_bytes=max_bytes))

    def subscribe_channel(self, name: str, *, after_seq: int = 0) -> Iterator[list[ch_pb.ChannelPost]]:
        return self._iterate(self._client.subscribe_channel(name, after_seq=after_seq))

    def search_messages(self, query: str, *, channel: str = "", sender: str = "", after_ns: int = 0,
                        before_ns: int = 0, page_size: int = 0,
                        page_token: str = "") -> ch_pb.SearchMessagesResponse:
        return self._run(self._client.search_messages(query, channel=channel, sender=sender, after_ns=after_ns,
                                                      before_ns=before_ns, page_size=page_size,
                                                      page_token=page_token))
