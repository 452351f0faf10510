"""fabricd.v1.MailboxService: check the request, call the core, translate the answer."""

from __future__ import annotations

from fabricd import wire
from fabricd.core.errors import FabricError
from fabricd.core.mailbox import Mailboxes
from fabricd.rpc.errors import mapped, status_of
from fabricd.v1 import mailbox_service_pb2 as pb
from fabricd.v1 import mailbox_service_pb2_grpc as pb_grpc


class MailboxServicer(pb_grpc.MailboxServiceServicer):
    def __init__(self, mailboxes: Mailboxes) -> None:
        self._mailboxes = mailboxes

    @mapped
    async def SendMessage(self, request, context):  # noqa: ANN001, ANN201, N802
        sent = await self._mailboxes.send(wire.message_in(request.message))
        return pb.SendMessageResponse(message=wire.message_out(sent.message), duplicate=sent.duplicate)

    @mapped
    async def SendMessages(self, request, context):  # noqa: ANN001, ANN201, N802
        results = await self._mailboxes.send_many([wire.message_in(m) for m in request.messages], request.atomic)
        response = pb.SendMessagesResponse()
        for result in results:
            out = response.results.add()
            if isinstance(result, FabricError):
                out.error.CopyFrom(status_of(result))
            else:
                wire.message_out(result.message, out.message)
                out.duplicate = result.duplicate
        return response

    @mapped
    async def PeekMessages(self, request, context):  # noqa: ANN001, ANN201, N802
        messages, unread = self._mailboxes.peek(request.agent_id, request.limit)
        response = pb.PeekMessagesResponse(unread_count=unread)
        for m in messages:
            wire.message_out(m, response.messages.add())
        return response

    @mapped
    async def DrainMessages(self, request, context):  # noqa: ANN001, ANN201, N802
        messages, remaining = await self._mailboxes.drain(request.agent_id, request.limit)
        response = pb.DrainMessagesResponse(remaining=remaining)
        for m in messages:
            wire.message_out(m, response.messages.add())
        return response

    @mapped
    async def Subscribe(self, request, context):  # noqa: ANN001, ANN201, N802
        async for batch in self._mailboxes.subscribe(request.agent_id):
            response = pb.SubscribeResponse()
            for m in batch:
                wire.message_out(m, response.messages.add())
            yield response

    @mapped
    async def AckMessages(self, request, context):  # noqa: ANN001, ANN201, N802
        acked = await self._mailboxes.ack(request.agent_id, list(request.message_ids))
        return pb.AckMessagesResponse(acked=acked)
