"""The calls of ChannelService: channels, members, publish, read, subscribe, search.

A mixin of Client: it uses the stubs and `_call` that Client sets up. A channel name may be given with
the CLI's `#` sigil (`"#team"`): it is not part of the name, so it is taken off.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any

import grpc

from fabricd.client._errors import FabricError
from fabricd.client._paging import Page, read_pages
from fabricd.v1 import channel_service_pb2 as ch_pb
from fabricd.v1 import types_pb2 as pb


def channel_name(name: str) -> str:
    """A channel's name without the CLI's `#` sigil."""
    return name[1:] if name.startswith("#") else name


class ChannelCalls:
    channels: Any
    target: str

    async def _call(self, rpc: Any, request: Any, timeout: float | None = None, *, resend: bool = False) -> Any:
        raise NotImplementedError

    def _stream_error(self, exc: grpc.RpcError, target: str) -> FabricError:
        raise NotImplementedError

    async def create_channel(self, name: str, *, description: str = "", open: bool = True,
                             max_messages: int = 0, max_bytes: int = 0, max_age: float = 0.0) -> ch_pb.Channel:
        """Create a channel; an agent token's agent is its first member. `max_age` in seconds (0: 30 days)."""
        spec = ch_pb.Channel(name=channel_name(name), description=description, open=open,
                             retention=ch_pb.ChannelRetention(max_messages=max_messages, max_bytes=max_bytes))
        if max_age:
            spec.retention.max_age.FromNanoseconds(int(max_age * 1e9))
        return (await self._call(self.channels.CreateChannel, ch_pb.CreateChannelRequest(channel=spec))).channel

    async def get_channel(self, name: str) -> ch_pb.Channel:
        request = ch_pb.GetChannelRequest(name=channel_name(name))
        return (await self._call(self.channels.GetChannel, request, resend=True)).channel

    async def list_channels(self, *, page_size: int = 0, page_token: str = "") -> Page[ch_pb.Channel]:
        """Every channel by name: all, or one page when given a page_size or page_token."""
        def fetch(size: int, token: str) -> Any:
            request = ch_pb.ListChannelsRequest(page_size=size, page_token=token)
            return self._call(self.channels.ListChannels, request, resend=True)

        return await read_pages(fetch, lambda r: r.channels, page_size, page_token)

    async def delete_channel(self, name: str, *, purge: bool = False) -> int:
        """Delete a channel; one still holding posts only with `purge`. The posts deleted."""
        request = ch_pb.DeleteChannelRequest(name=channel_name(name), purge=purge)
        return (await self._call(self.channels.DeleteChannel, request)).purged

    async def join_channel(self, name: str, agent_id: str = "", *,
                           delivery: int = ch_pb.CHANNEL_DELIVERY_MAILBOX) -> ch_pb.JoinChannelResponse:
        """Make `agent_id` (the token's agent when empty) a member; `delivery` LOG: no copies in its mailbox."""
        request = ch_pb.JoinChannelRequest(channel=channel_name(name), agent_id=agent_id, delivery=delivery)
        return await self._call(self.channels.JoinChannel, request, resend=True)

    async def leave_channel(self, name: str, agent_id: str = "") -> bool:
        request = ch_pb.LeaveChannelRequest(channel=channel_name(name), agent_id=agent_id)
        return (await self._call(self.channels.LeaveChannel, request, resend=True)).left

    async def list_members(self, name: str, *, page_size: int = 0, page_token: str = "") -> Page[ch_pb.ChannelMember]:
        def fetch(size: int, token: str) -> Any:
            request = ch_pb.ListMembersRequest(channel=channel_name(name), page_size=size, page_token=token)
            return self._call(self.channels.ListMembers, request, resend=True)

        return await read_pages(fetch, lambda r: r.members, page_size, page_token)

    async def publish(self, channel: str, text: str = "", *, sender: str = "", id: str = "",
                      data: bytes = b"", headers: Mapping[str, str] | None = None,
                      thread_id: str = "") -> ch_pb.PublishResponse:
        """Post to a channel: appended to its log and copied to its members' mailboxes. With an `id`, a resend
        is answered with the stored post (`duplicate`)."""
        message = pb.Message(id=id, sender=pb.Address(agent_id=sender), text=text, data=data,
                             headers=dict(headers or {}), thread_id=thread_id)
        request = ch_pb.PublishRequest(channel=channel_name(channel), message=message)
        return await self._call(self.channels.Publish, request, resend=bool(id))

    async def read_channel(self, name: str, *, after_seq: int = 0, page_size: int = 0,
                           max_bytes: int = 0) -> ch_pb.ReadChannelResponse:
        """One page of the retained history after `after_seq`, oldest first."""
        request = ch_pb.ReadChannelRequest(channel=channel_name(name), after_seq=after_seq, page_size=page_size,
                                           max_bytes=max_bytes)
        return await self._call(self.channels.ReadChannel, request, resend=True)

    async def subscribe_channel(self, name: str, *, after_seq: int = 0) -> AsyncIterator[list[ch_pb.ChannelPost]]:
        """The retained posts after `after_seq`, then new ones as they commit (keepalives skipped); resume
        with the last seq seen."""
        target = self.target
        call = self.channels.SubscribeChannel(ch_pb.SubscribeChannelRequest(channel=channel_name(name),
                                                                           after_seq=after_seq))
        try:
            async for response in call:
                if not response.keepalive:
                    yield list(response.posts)
        except grpc.RpcError as exc:
            raise self._stream_error(exc, target) from None
        finally:
            call.cancel()

    async def search_messages(self, query: str, *, channel: str = "", sender: str = "", after_ns: int = 0,
                              before_ns: int = 0, page_size: int = 0,
                              page_token: str = "") -> ch_pb.SearchMessagesResponse:
        """Full-text search over the channels the caller reads: words, "phrases", -excluded, prefix*."""
        request = ch_pb.SearchMessagesRequest(query=query, channel=channel_name(channel), sender=sender,
                                              page_size=page_size, page_token=page_token)
        if after_ns:
            request.after_time.FromNanoseconds(after_ns)
        if before_ns:
            request.before_time.FromNanoseconds(before_ns)
        return await self._call(self.channels.SearchMessages, request, resend=True)
