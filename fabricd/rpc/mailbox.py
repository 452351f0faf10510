"""fabricd.v1.MailboxService: check the request, call the core, translate the answer."""

from __future__ import annotations

from collections.abc import AsyncIterator

from fabricd import wire
from fabricd.core.errors import FabricError, InvalidArgument
from fabricd.core.mailbox import Mailboxes
from fabricd.core.model import Sent, Ticket
from fabricd.core.pipeline import AckOp, AskOp, Op, Pipeline, Result, SendOp
from fabricd.core.rendezvous import Rendezvous
from fabricd.rpc import delivery
from fabricd.rpc.auth import agent_token
from fabricd.rpc.errors import mapped, status_of
from fabricd.rpc.rendezvous import ticket_request
from fabricd.rpc.streams import CallLoad, InFlight, Refused, next_seq
from fabricd.v1 import mailbox_service_pb2 as pb
from fabricd.v1 import mailbox_service_pb2_grpc as pb_grpc
from fabricd.v1 import rendezvous_service_pb2 as rv_pb

KEEPALIVE = pb.SubscribeResponse(keepalive=True).SerializeToString()


def _results(results: list[Sent | FabricError]) -> bytes:
    """A SendMessagesResponse's bytes: each stored encoding as it is, each refusal as its Status."""
    parts = []
    for result in results:
        if isinstance(result, FabricError):
            parts.append(wire.field(1, wire.field(3, status_of(result).SerializeToString())))
        else:
            parts.append(wire.field(1, wire.sent_result(result)))
    return b"".join(parts)


def _op(frame, limits) -> Op:  # noqa: ANN001 - a SendStreamRequest
    """A frame's request as the pipeline's op; a bad one as its error (that frame fails, the stream goes on)."""
    kind = frame.WhichOneof("request")
    try:
        if kind == "send":
            return SendOp((wire.message_in(frame.send.message),), frame.send.create_mailbox)
        if kind == "send_many":
            r = frame.send_many
            return SendOp([wire.message_in(m) for m in r.messages], r.create_mailbox, r.atomic, single=False)
        if kind == "ack":
            return AckOp(frame.ack.agent_id, list(frame.ack.message_ids))
        if kind == "ask":
            r = frame.ask
            return AskOp(ticket_request(r, limits), wire.duration_in(r.timeout) if r.HasField("timeout") else None)
    except FabricError as exc:
        return exc
    return InvalidArgument("the frame holds no request: set one of send, send_many, ack or ask",
                           reason="MISSING_FIELD", field="request")


def _response(seq: int, result: Result) -> bytes | pb.SendStreamResponse:
    """A frame's response; a send's as bytes around the stored encoding (never parsed)."""
    if isinstance(result, Sent):
        return wire.varint_field(1, seq) + wire.field(2, wire.sent_result(result))
    if isinstance(result, list):
        return wire.varint_field(1, seq) + wire.field(3, _results(result))
    if isinstance(result, FabricError):
        return pb.SendStreamResponse(seq=seq, error=status_of(result))
    if isinstance(result, Ticket):
        return pb.SendStreamResponse(seq=seq, ask=rv_pb.AskResponse(
            ticket_id=result.ticket_id, result=result.result, outcome=int(result.outcome),  # type: ignore[arg-type]  # the proto enum's numbers
            data=result.result_data,
            headers=result.result_headers))
    return pb.SendStreamResponse(seq=seq, ack=pb.AckMessagesResponse(acked=result))


class MailboxServicer(pb_grpc.MailboxServiceServicer):
    def __init__(self, mailboxes: Mailboxes, rendezvous: Rendezvous | None = None, load: CallLoad | None = None) -> None:
        self._mailboxes = mailboxes
        self._rv = rendezvous
        self._load = load
        """The daemon's count of calls in flight (fabricd.rpc.interceptor.Load): a stream's frames count too."""

    @mapped
    async def SendMessage(self, request, context):  # noqa: ANN001, ANN201 - as the generated servicer declares it
        # SendMessageResponse bytes around the stored encoding, written as they are (see Subscribe)
        sent = await self._mailboxes.send(wire.message_in(request.message), request.create_mailbox, agent_token())
        return wire.sent_result(sent)

    @mapped
    async def SendMessages(self, request, context):  # noqa: ANN001, ANN201 - as the generated servicer declares it
        results = await self._mailboxes.send_many([wire.message_in(m) for m in request.messages], request.atomic,
                                                  request.create_mailbox, agent_token())
        return _results(results)  # SendMessagesResponse bytes, written as they are

    @mapped
    async def PeekMessages(self, request, context):  # noqa: ANN001, ANN201 - as the generated servicer declares it
        messages, unread = await self._mailboxes.peek(request.agent_id, request.limit, request.max_bytes)
        response = wire.messages_response(pb.PeekMessagesResponse, messages)
        response.unread_count = unread
        return response

    @mapped
    async def DrainMessages(self, request, context):  # noqa: ANN001, ANN201 - as the generated servicer declares it
        drained = await self._mailboxes.take(request.agent_id, request.limit, context.time_remaining(),
                                             request.max_bytes)
        delivery.on_lost(lambda: self._mailboxes.put_back_later(drained))  # the answer never reached the caller
        response = wire.messages_response(pb.DrainMessagesResponse, drained.messages)
        response.remaining = drained.remaining
        return response

    @mapped
    async def Subscribe(self, request, context):  # noqa: ANN001, ANN201 - as the generated servicer declares it
        # SubscribeResponse bytes: the stored encodings go out as they are, never parsed and written again
        # (the interceptor writes bytes through; see fabricd.rpc.interceptor)
        async for batch in self._mailboxes.subscribe(request.agent_id):
            yield wire.messages_field(batch) if batch else KEEPALIVE

    @mapped
    async def AckMessages(self, request, context):  # noqa: ANN001, ANN201 - as the generated servicer declares it
        acked = await self._mailboxes.ack(request.agent_id, list(request.message_ids))
        return pb.AckMessagesResponse(acked=acked)

    @mapped
    async def SendStream(self, request_iterator, context):  # noqa: ANN001, ANN201 - as the generated servicer declares it
        assert self._rv is not None, "SendStream needs the rendezvous"
        limits = self._mailboxes.limits

        flying = InFlight(self._load)

        async def ops() -> AsyncIterator[tuple[int, Op, int]]:
            last = 0
            async for item in request_iterator:
                flying.read()
                frame: pb.SendStreamRequest = item.frame if isinstance(item, Refused) else item
                last = next_seq(frame.seq, last)
                yield last, item.error if isinstance(item, Refused) else _op(frame, limits), frame.ByteSize()

        pipeline = Pipeline(self._mailboxes, self._rv, agent_token=agent_token())
        try:
            async for seq, result in pipeline.run(ops()):
                flying.answered()
                yield _response(seq, result)
        finally:
            flying.close()
