"""fabricd.v1.RendezvousService: check the request, call the core, translate the answer."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable

from fabricd import wire
from fabricd.core import validate
from fabricd.core.errors import InvalidArgument
from fabricd.core.limits import Limits
from fabricd.core.model import TicketOutcome, TicketState
from fabricd.core.rendezvous import Answer, Rendezvous, TicketQuery, TicketRequest
from fabricd.core.serve import CancelHeadOp, ReplyOp, ServeOp, Shown, serve
from fabricd.rpc.auth import agent_token
from fabricd.rpc.errors import mapped, status_of
from fabricd.rpc.streams import CallLoad, InFlight, Refused, next_seq
from fabricd.v1 import rendezvous_service_pb2 as pb
from fabricd.v1 import rendezvous_service_pb2_grpc as pb_grpc

# Answer a call's deadline ourselves a little before gRPC would cancel it, so the
# caller gets DEADLINE_EXCEEDED from the core (ticket retired) rather than a cancellation.
_DEADLINE_MARGIN_S = 0.02


def ticket_request(r, limits: Limits) -> TicketRequest:  # noqa: ANN001 - an AskRequest or an EnqueueTicketRequest (same fields)
    # The asker is part of the key (as A2A's keys name their caller), so two askers' keys never meet;
    # the caller's part is checked under its own name, the whole key being longer than any id.
    validate.text_field(r.request_key, "request_key", limits, required=False)
    key = f"ask {r.source.kind}:{r.source.agent_id} {r.request_key}" if r.request_key else ""
    return TicketRequest(
        target=r.target,
        task=r.task,
        requester=r.requester,
        source_kind=r.source.kind,
        source_agent=r.source.agent_id,
        conversation_id=r.conversation_id,
        agent_token=agent_token(),
        data=r.data,
        headers=dict(r.headers),
        continues=r.continue_ticket_id,
        idempotency_key=key,
    )


def answer_in(r) -> Answer:  # noqa: ANN001 - a ReplyRequest
    return Answer(r.result, r.outcome or TicketOutcome.COMPLETED, r.data, dict(r.headers))


KEEPALIVE = pb.ServeResponse(keepalive=True)


def open_first(kind: str | None) -> InvalidArgument:
    return InvalidArgument(f"a Serve stream starts with an open frame, not {kind or 'an empty one'}: send "
                           "ServeRequest{open: {agent_id, window}} first", reason="SERVE_OPEN_FIRST", field="open")


async def _serve_ops(frames: AsyncIterator[pb.ServeRequest | Refused[pb.ServeRequest]], flying: InFlight) -> AsyncIterator[tuple[int, ServeOp]]:
    """The answer frames after the open one, in order, as the core's ops (a refused or empty one as its error)."""
    last = 0
    async for item in frames:
        flying.read()
        frame = item.frame if isinstance(item, Refused) else item
        last = next_seq(frame.seq, last)
        if isinstance(item, Refused):
            yield last, item.error
            continue
        kind = frame.WhichOneof("frame")
        if kind == "reply":
            reply = frame.reply
            yield last, ReplyOp(answer_in(reply), reply.ticket_id, reply.agent_id)
        elif kind == "cancel_head":
            cancel = frame.cancel_head
            yield last, CancelHeadOp(cancel.ticket_id, cancel.agent_id)
        else:
            yield last, InvalidArgument(f"a frame after the open one is a reply or a cancel_head, not "
                                        f"{kind or 'empty'}", reason="MISSING_FIELD", field="frame")


def _states(values: Iterable[int]) -> tuple[TicketState, ...]:
    unknown = [v for v in values if v not in {s.value for s in TicketState}]
    if unknown:
        known = ", ".join(f"{s.name} {s.value}" for s in TicketState if s)
        raise InvalidArgument(f"states: {unknown[0]} is no ticket state ({known})", reason="INVALID_FIELD",
                              field="states")
    return tuple(TicketState(v) for v in values if v)


def _timeout(request, context) -> float | None:  # noqa: ANN001 - an AskRequest or AwaitReplyRequest, and its context
    timeout = wire.duration_in(request.timeout) if request.HasField("timeout") else None
    remaining = context.time_remaining()
    if remaining is not None:
        remaining = max(0.0, remaining - _DEADLINE_MARGIN_S)
        timeout = remaining if timeout is None else min(timeout, remaining)
    return timeout


class RendezvousServicer(pb_grpc.RendezvousServiceServicer):
    def __init__(self, rendezvous: Rendezvous, load: CallLoad | None = None) -> None:
        self._rv = rendezvous
        self._load = load
        """The daemon's count of calls in flight (fabricd.rpc.interceptor.Load): a stream's frames count too."""

    @mapped
    async def Ask(self, request, context):  # noqa: ANN001, ANN201 - as the generated servicer declares it
        answered = await self._rv.ask_answer(ticket_request(request, self._rv.limits), _timeout(request, context))
        return pb.AskResponse(ticket_id=answered.ticket_id, result=answered.result,
                              outcome=int(answered.outcome),  # type: ignore[arg-type]  # the proto enum's numbers
                              data=answered.result_data, headers=answered.result_headers)

    @mapped
    async def EnqueueTicket(self, request, context):  # noqa: ANN001, ANN201 - as the generated servicer declares it
        ticket, position = await self._rv.enqueue(ticket_request(request, self._rv.limits))
        return pb.EnqueueTicketResponse(ticket_id=ticket.ticket_id, position=max(position, 0))  # a finished one: 0

    @mapped
    async def AwaitReply(self, request, context):  # noqa: ANN001, ANN201 - as the generated servicer declares it
        answered = await self._rv.await_answer(request.ticket_id, _timeout(request, context))
        return pb.AwaitReplyResponse(result=answered.result,
                                     outcome=int(answered.outcome),  # type: ignore[arg-type]  # the proto enum's numbers
                                     data=answered.result_data, headers=answered.result_headers)

    @mapped
    async def Reply(self, request, context):  # noqa: ANN001, ANN201 - as the generated servicer declares it
        ticket_id = await self._rv.reply(request.agent_id, answer_in(request), request.ticket_id)
        return pb.ReplyResponse(ticket_id=ticket_id)

    @mapped
    async def GetTicket(self, request, context):  # noqa: ANN001, ANN201 - as the generated servicer declares it
        view = await self._rv.view(request.ticket_id)
        return pb.GetTicketResponse(ticket=wire.ticket_out(view.ticket, view.position))

    @mapped
    async def CancelTicket(self, request, context):  # noqa: ANN001, ANN201 - as the generated servicer declares it
        ticket, cancelled = await self._rv.cancel_ticket(request.ticket_id)
        return pb.CancelTicketResponse(ticket=wire.ticket_out(ticket), cancelled=cancelled)

    @mapped
    async def ListTickets(self, request, context):  # noqa: ANN001, ANN201 - as the generated servicer declares it
        query = TicketQuery(request.conversation_id, _states(request.states), source_agent=request.source_agent_id)
        listed = await self._rv.tickets(request.agent_id, query, request.page_size, request.page_token)
        return pb.ListTicketsResponse(tickets=[wire.ticket_out(v.ticket, v.position) for v in listed.items],
                                      next_page_token=listed.next_page_token)

    @mapped
    async def CancelHead(self, request, context):  # noqa: ANN001, ANN201 - as the generated servicer declares it
        return pb.CancelHeadResponse(cancelled=await self._rv.cancel_head(request.agent_id, request.ticket_id))

    @mapped
    async def CloseQueue(self, request, context):  # noqa: ANN001, ANN201 - as the generated servicer declares it
        return pb.CloseQueueResponse(aborted=await self._rv.close_queue(request.agent_id, request.reason))

    @mapped
    async def GetQueue(self, request, context):  # noqa: ANN001, ANN201 - as the generated servicer declares it
        listed = await self._rv.queue(request.agent_id, request.page_size, request.page_token)
        return pb.GetQueueResponse(tickets=wire.queue_out(listed.items, first=listed.offset),
                                   next_page_token=listed.next_page_token)

    @mapped
    async def WatchQueue(self, request, context):  # noqa: ANN001, ANN201 - as the generated servicer declares it
        async for head in self._rv.watch_queue(request.agent_id, request.max_tickets):
            if head is None:
                yield pb.WatchQueueResponse(keepalive=True)
            else:
                yield pb.WatchQueueResponse(tickets=wire.queue_out(head.tickets), total=head.total,
                                            truncated=head.truncated)

    @mapped
    async def Serve(self, request_iterator, context):  # noqa: ANN001, ANN201 - as the generated servicer declares it
        frames = request_iterator.__aiter__()
        first = await anext(frames, None)
        if first is None:
            return
        if isinstance(first, Refused):
            raise first.error
        if first.WhichOneof("frame") != "open":
            raise open_first(first.WhichOneof("frame"))
        flying = InFlight(self._load)
        try:
            async for event in serve(self._rv, first.open.agent_id, first.open.window, _serve_ops(frames, flying)):
                if event is None:
                    yield KEEPALIVE
                elif isinstance(event, Shown):
                    yield pb.ServeResponse(tickets=pb.ServeTickets(
                        tickets=[wire.ticket_out(t, i) for t, i in event.tickets], total=event.total))
                else:
                    flying.answered()
                    answer = pb.ServeAnswer(seq=event.seq, ticket_id=event.ticket_id, cancelled=event.cancelled)
                    if event.error is not None:
                        answer.error.CopyFrom(status_of(event.error))
                    yield pb.ServeResponse(answer=answer)
        finally:
            flying.close()
