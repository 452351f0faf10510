"""fabricd.v1.ChannelService: check the request, call the core, translate the answer.

The caller's agent (None for a trusted caller: an admin token or a local caller) goes to the core, whose
rules (fabricd.core.channels) decide membership; the guard's POLICIES row of each call only binds a
post's sender to the token's agent.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import grpc
from google.protobuf.timestamp_pb2 import Timestamp

from fabricd import wire
from fabricd.core.channel_service import Channels
from fabricd.core.model_channels import Channel, Hit, Member, Post, Retention
from fabricd.rpc.auth import agent_token, caller
from fabricd.rpc.errors import mapped
from fabricd.v1 import channel_service_pb2 as pb
from fabricd.v1 import channel_service_pb2_grpc as pb_grpc

_NS = 1_000_000_000


def _agent() -> str | None:
    """The calling agent's id; None for a trusted caller."""
    identity = caller()
    return None if identity.trusted else identity.agent_id


def _time(ns: int, out: Timestamp) -> None:
    if ns:
        out.seconds, out.nanos = divmod(ns, _NS)


def channel_in(p: pb.Channel) -> Channel:
    r = p.retention
    age = int(wire.duration_in(r.max_age, "channel.retention.max_age") * _NS) if r.HasField("max_age") else 0
    return Channel(p.name, description=p.description, open=p.open,
                   retention=Retention(r.max_messages, r.max_bytes, age))


def channel_out(c: Channel) -> pb.Channel:
    r = c.retention
    out = pb.Channel(name=c.name, description=c.description, open=c.open, creator=c.creator, last_seq=c.last_seq,
                     first_seq=c.first_seq, message_count=c.count, retained_bytes=c.size, member_count=c.members,
                     retention=pb.ChannelRetention(max_messages=r.max_messages, max_bytes=r.max_bytes))
    out.retention.max_age.FromNanoseconds(r.age_ns)
    _time(c.create_ns, out.create_time)
    return out


def member_out(m: Member) -> pb.ChannelMember:
    out = pb.ChannelMember(channel=m.channel, agent_id=m.agent_id, delivery=int(m.delivery),  # type: ignore[arg-type]  # the proto enum's numbers
                           joined_after_seq=m.joined_after_seq)
    _time(m.join_ns, out.join_time)
    return out


def post_out(p: Post) -> pb.ChannelPost:
    return pb.ChannelPost(channel=p.channel, seq=p.seq, message=wire.message_out(p.message))


def hit_out(h: Hit) -> pb.SearchHit:
    out = pb.SearchHit(channel=h.channel, seq=h.seq, sender=h.sender, snippet=h.snippet, message_id=h.message_id)
    _time(h.send_ns, out.send_time)
    return out


class ChannelServicer(pb_grpc.ChannelServiceServicer):
    def __init__(self, channels: Channels) -> None:
        self._channels = channels

    @mapped
    async def CreateChannel(self, request: pb.CreateChannelRequest,
                            context: grpc.aio.ServicerContext) -> pb.CreateChannelResponse:
        made = await self._channels.create(channel_in(request.channel), _agent(), agent_token())
        return pb.CreateChannelResponse(channel=channel_out(made))

    @mapped
    async def GetChannel(self, request: pb.GetChannelRequest,
                         context: grpc.aio.ServicerContext) -> pb.GetChannelResponse:
        return pb.GetChannelResponse(channel=channel_out(await self._channels.get(request.name)))

    @mapped
    async def ListChannels(self, request: pb.ListChannelsRequest,
                           context: grpc.aio.ServicerContext) -> pb.ListChannelsResponse:
        listed = await self._channels.listed(request.page_size, request.page_token)
        return pb.ListChannelsResponse(channels=[channel_out(c) for c in listed.items],
                                       next_page_token=listed.next_page_token)

    @mapped
    async def DeleteChannel(self, request: pb.DeleteChannelRequest,
                            context: grpc.aio.ServicerContext) -> pb.DeleteChannelResponse:
        return pb.DeleteChannelResponse(purged=await self._channels.delete(request.name, request.purge, _agent()))

    @mapped
    async def JoinChannel(self, request: pb.JoinChannelRequest,
                          context: grpc.aio.ServicerContext) -> pb.JoinChannelResponse:
        member, joined = await self._channels.join(request.channel, request.agent_id, request.delivery, _agent())
        return pb.JoinChannelResponse(member=member_out(member), joined=joined)

    @mapped
    async def LeaveChannel(self, request: pb.LeaveChannelRequest,
                           context: grpc.aio.ServicerContext) -> pb.LeaveChannelResponse:
        return pb.LeaveChannelResponse(left=await self._channels.leave(request.channel, request.agent_id, _agent()))

    @mapped
    async def ListMembers(self, request: pb.ListMembersRequest,
                          context: grpc.aio.ServicerContext) -> pb.ListMembersResponse:
        listed = await self._channels.members(request.channel, _agent(), request.page_size, request.page_token)
        return pb.ListMembersResponse(members=[member_out(m) for m in listed.items],
                                      next_page_token=listed.next_page_token)

    @mapped
    async def Publish(self, request: pb.PublishRequest, context: grpc.aio.ServicerContext) -> pb.PublishResponse:
        done = await self._channels.publish(request.channel, wire.message_in(request.message), _agent(),
                                            agent_token())
        return pb.PublishResponse(post=post_out(done.post), duplicate=done.duplicate, delivered=done.delivered,
                                  skipped=len(done.skipped),
                                  skipped_copies=[pb.SkippedCopy(agent_id=a, reason=r) for a, r in done.skipped])

    @mapped
    async def ReadChannel(self, request: pb.ReadChannelRequest,
                          context: grpc.aio.ServicerContext) -> pb.ReadChannelResponse:
        posts, channel = await self._channels.read(request.channel, _agent(), request.after_seq, request.page_size,
                                                   request.max_bytes)
        return pb.ReadChannelResponse(posts=[post_out(p) for p in posts], first_seq=channel.first_seq,
                                      last_seq=channel.last_seq)

    @mapped
    async def SubscribeChannel(self, request: pb.SubscribeChannelRequest,
                               context: grpc.aio.ServicerContext) -> AsyncIterator[pb.SubscribeChannelResponse]:
        async for batch in self._channels.subscribe(request.channel, _agent(), request.after_seq):
            yield pb.SubscribeChannelResponse(posts=[post_out(p) for p in batch], keepalive=not batch)

    @mapped
    async def SearchMessages(self, request: pb.SearchMessagesRequest,
                             context: grpc.aio.ServicerContext) -> pb.SearchMessagesResponse:
        after = wire.timestamp_in(request.after_time, "after_time") if request.HasField("after_time") else 0
        before = wire.timestamp_in(request.before_time, "before_time") if request.HasField("before_time") else 0
        hits, token = await self._channels.search(request.query, request.channel, request.sender, after, before,
                                                  request.page_size, request.page_token, _agent())
        return pb.SearchMessagesResponse(hits=[hit_out(h) for h in hits], next_page_token=token)
