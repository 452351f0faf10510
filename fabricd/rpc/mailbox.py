"""fabricd.v1.MailboxService: check the request, call the core, translate the answer."""

from __future__ import annotations

from fabricd import wire
from fabricd.core.errors import FabricError
from fabricd.core.mailbox import Mailboxes
from fabricd.rpc import delivery
from fabricd.rpc.auth import agent_token
from fabricd.rpc.errors import mapped, status_of
from fabricd.v1 import mailbox_service_pb2 as pb
from fabricd.v1 import mailbox_service_pb2_grpc as pb_grpc

KEEPALIVE = pb.SubscribeResponse(keepalive=True).SerializeToString()


class MailboxServicer(pb_grpc.MailboxServiceServicer):
    def __init__(self, mailboxes: Mailboxes) -> None:
        self._mailboxes = mailboxes

    @mapped
    async def SendMessage(self, request, context):  # noqa: ANN001, ANN201, N802
        sent = await self._mailboxes.send(wire.message_in(request.message), request.create_mailbox, agent_token())
        return pb.SendMessageResponse.FromString(wire.sent_result(sent))

    @mapped
    async def SendMessages(self, request, context):  # noqa: ANN001, ANN201, N802
        results = await self._mailboxes.send_many([wire.message_in(m) for m in request.messages], request.atomic,
                                                  request.create_mailbox, agent_token())
        parts = []
        for result in results:
            if isinstance(result, FabricError):
                parts.append(wire.field(1, wire.field(3, status_of(result).SerializeToString())))
            else:
                parts.append(wire.field(1, wire.sent_result(result)))
        return pb.SendMessagesResponse.FromString(b"".join(parts))

    @mapped
    async def PeekMessages(self, request, context):  # noqa: ANN001, ANN201, N802
        messages, unread = await self._mailboxes.peek(request.agent_id, request.limit, request.max_bytes)
        response = wire.messages_response(pb.PeekMessagesResponse, messages)
        response.unread_count = unread
        return response

    @mapped
    async def DrainMessages(self, request, context):  # noqa: ANN001, ANN201, N802
        drained = await self._mailboxes.take(request.agent_id, request.limit, context.time_remaining(),
                                             request.max_bytes)
        delivery.on_lost(lambda: self._mailboxes.put_back_later(drained))  # the answer never reached the caller
        response = wire.messages_response(pb.DrainMessagesResponse, drained.messages)
        response.remaining = drained.remaining
        return response

    @mapped
    async def Subscribe(self, request, context):  # noqa: ANN001, ANN201, N802
        # SubscribeResponse bytes: the stored encodings go out as they are, never parsed and written again
        # (the interceptor writes bytes through; see fabricd.rpc.interceptor)
        async for batch in self._mailboxes.subscribe(request.agent_id):
            yield wire.messages_field(batch) if batch else KEEPALIVE

    @mapped
    async def AckMessages(self, request, context):  # noqa: ANN001, ANN201, N802
        acked = await self._mailboxes.ack(request.agent_id, list(request.message_ids))
        return pb.AckMessagesResponse(acked=acked)
