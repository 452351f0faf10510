"""lf.a2a.v1.A2AService: the Agent2Agent protocol's gRPC binding over the rendezvous FIFOs.

Every request's `tenant` names the agent (an agent id or an unambiguous session name); a
message to it becomes a ticket in its durable FIFO, and the ticket is the task (see a2a_convert).
The caller is who the guard identified: an agent token sends as that agent, anyone else as a
human. An agent identity sees and cancels only the tasks it sent or that are queued for it.
Errors follow the binding: google.rpc.ErrorInfo with domain a2a-protocol.org and the spec's
reason where the spec has one. A request whose `a2a-version` is not 1.0 is VERSION_NOT_SUPPORTED.

Unlike Ask, a blocking SendMessage whose deadline passes does not retire its ticket: just before
the deadline it returns the task as it stands (SUBMITTED or WORKING), to be fetched or resumed later.

Tasks carry A2A 1.1's `generation` (fabricd.rpc.a2a_events): GetTask long-polls on `current_generation`,
a follow-up's `if_generation_match` is checked, and a SubscribeToTask with the `fabricd-after-generation`
header replays the events after that generation instead of starting with the task (docs/a2a.md says why
a header).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

import grpc

from fabricd import __version__, wire
from fabricd.a2a import a2a_pb2 as a2a
from fabricd.a2a import a2a_pb2_grpc as a2a_grpc
from fabricd.core import errors, validate
from fabricd.core.directory import Directory
from fabricd.core.model import Ticket, TicketSourceKind, TicketState
from fabricd.core.rendezvous import Rendezvous, TicketQuery, TicketRequest, TicketView
from fabricd.rpc import a2a_convert as convert
from fabricd.rpc import a2a_events as events
from fabricd.rpc.auth import LOCAL, Identity, caller
from fabricd.rpc.errors import internal_error

_DEADLINE_MARGIN_S = 0.05
AFTER_GENERATION = "fabricd-after-generation"
"""SubscribeToTask's resume header: the last generation the caller saw (A2A has no field for it yet)."""
_PAGE_SIZE = 50
_STATES = {  # an A2A state filter as ticket states (the view then tells them apart)
    a2a.TASK_STATE_SUBMITTED: (TicketState.QUEUED,), a2a.TASK_STATE_WORKING: (TicketState.QUEUED,),
    a2a.TASK_STATE_COMPLETED: (TicketState.ANSWERED,), a2a.TASK_STATE_CANCELED: (TicketState.ABORTED,),
    a2a.TASK_STATE_FAILED: (TicketState.ABORTED, TicketState.ANSWERED),
    a2a.TASK_STATE_INPUT_REQUIRED: (TicketState.ANSWERED,), a2a.TASK_STATE_REJECTED: (TicketState.ANSWERED,),
}


@dataclass(slots=True)
class Endpoint:
    """What the agent cards say about the daemon: its listeners (filled once bound) and mutual TLS."""

    listeners: list[str] = field(default_factory=list)
    mutual_tls: bool = False


def a2a_mapped(method: Callable) -> Callable:
    """Check the protocol version, and send errors the way the A2A binding does."""
    name = method.__name__

    async def fail(context: grpc.aio.ServicerContext, request: object, exc: BaseException) -> None:
        err = exc if isinstance(exc, errors.FabricError) else internal_error(name, context, request)
        code, status = convert.status_of(err)
        await context.abort(code, err.message,
                            trailing_metadata=(("grpc-status-details-bin", status.SerializeToString()),))

    if inspect.isasyncgenfunction(method):
        @functools.wraps(method)
        async def stream(self, request, context):  # noqa: ANN001, ANN202 - wraps any servicer method
            try:
                _check_version(context)
                async for item in method(self, request, context):
                    yield item
                return
            except grpc.aio.AbortError:
                raise
            except Exception as exc:  # FabricErrors translated, the rest INTERNAL (logged)
                problem = exc
            await fail(context, request, problem)
        return stream

    @functools.wraps(method)
    async def unary(self, request, context):  # noqa: ANN001, ANN202 - wraps any servicer method
        try:
            _check_version(context)
            return await method(self, request, context)
        except grpc.aio.AbortError:
            raise
        except Exception as exc:
            problem = exc
        await fail(context, request, problem)
    return unary


def _check_version(context: grpc.aio.ServicerContext) -> None:
    for key, value in context.invocation_metadata() or ():
        if (key == "a2a-version" and isinstance(value, str)  # bytes only under a key ending -bin
                and value.strip() not in ("1.0", "1.0.0") and not value.strip().startswith("1.0.")):
            raise convert.A2AProblem(grpc.StatusCode.FAILED_PRECONDITION, "VERSION_NOT_SUPPORTED",
                                     f"A2A version {value!r} is not supported; this server speaks 1.0",
                                     supported="1.0")


def _push_unsupported() -> convert.A2AProblem:
    return convert.A2AProblem(grpc.StatusCode.FAILED_PRECONDITION, "PUSH_NOTIFICATION_NOT_SUPPORTED",
                              "push notifications are not supported: use SubscribeToTask or GetTask")


def _history_length(request) -> int | None:  # noqa: ANN001 - any A2A message with a history_length
    """How many history messages to return (None: all); negative is INVALID_PARAMS."""
    if not request.HasField("history_length"):
        return None
    if request.history_length < 0:
        raise convert.invalid_params("history_length may not be negative", field="history_length")
    return request.history_length


def _after_generation(context: grpc.aio.ServicerContext) -> int | None:
    """The generation a resumed SubscribeToTask starts after (None: a plain subscribe)."""
    for key, value in context.invocation_metadata() or ():
        if key == AFTER_GENERATION:
            text = value.strip() if isinstance(value, str) else ""
            if not text.isdigit() or len(text) > 18:
                raise convert.invalid_params(f"{AFTER_GENERATION} must be the generation of the last event you "
                                             f"saw, a whole number from 0; got {value!r}", field=AFTER_GENERATION)
            return int(text)
    return None


def _until(context: grpc.aio.ServicerContext) -> float | None:
    """How long a call may wait for a change: up to just before the caller's deadline (None: no deadline)."""
    remaining = context.time_remaining()
    return None if remaining is None else max(0.0, remaining - _DEADLINE_MARGIN_S)


def _may_see(identity: Identity, ticket: Ticket) -> bool:
    return identity.trusted or identity.agent_id in (ticket.source_agent, ticket.target)


class A2AServicer(a2a_grpc.A2AServiceServicer):
    """The A2A tasks of every agent on the fabric, routed by tenant."""

    def __init__(self, rendezvous: Rendezvous, directory: Directory, endpoint: Endpoint) -> None:
        self._rv = rendezvous
        self._dir = directory
        self._endpoint = endpoint

    # -- helpers

    async def _tenant(self, tenant: str) -> str:
        if not tenant:
            raise convert.invalid_params("tenant is required: the agent id or session name of the agent to call "
                                         "(the tenant of the agent card's interface)", field="tenant")
        return (await self._dir.resolve(tenant)).agent_id

    async def _tasks_tenant(self, tenant: str) -> tuple[str, errors.NotFound | None]:
        """The agent whose tasks are read: an unregistered agent's finished tasks are kept as long as any
        finished ticket, so a tenant naming no agent is taken as the id of one that left (and the refusal
        kept, for when it has no task either)."""
        try:
            return await self._tenant(tenant), None
        except errors.NotFound as exc:
            return tenant, exc

    async def _task(self, tenant: str, task_id: str) -> TicketView:
        """The view of a task of this tenant the caller may see; TASK_NOT_FOUND otherwise."""
        agent_id, _ = await self._tasks_tenant(tenant)
        if not task_id:
            raise convert.invalid_params("id is required: the task id", field="id")
        try:
            view = await self._rv.view(task_id)
        except errors.NotFound:
            raise convert.task_not_found(task_id) from None
        if view.ticket.target != agent_id or not _may_see(caller(), view.ticket):
            raise convert.task_not_found(task_id)
        return view

    async def _enqueue(self, request: a2a.SendMessageRequest) -> TicketView:
        agent_id = await self._tenant(request.tenant)
        message = request.message
        if not message.message_id:
            raise convert.invalid_params("message.message_id is required", field="message.message_id")
        validate.text_field(message.message_id, "message.message_id", self._rv.limits, required=True)
        if request.configuration.HasField("task_push_notification_config"):
            raise _push_unsupported()
        context_id = message.context_id
        expected_turn = 0
        identity = caller()
        key = f"a2a {identity.kind}:{identity.agent_id} {message.message_id}"
        if message.task_id:  # a follow-up: it continues an INPUT_REQUIRED task (TICKET_NOT_CONTINUABLE otherwise)
            view = await self._task(request.tenant, message.task_id)
            resent = any(turn.followup_key == key for turn in view.ticket.earlier)  # answered as it stands
            if request.configuration.HasField("if_generation_match") and not resent:
                expected = request.configuration.if_generation_match
                if convert.generation(view) != expected:
                    raise convert.generation_mismatch(view.ticket.ticket_id, expected, convert.generation(view))
                expected_turn = len(view.ticket.earlier) + 1  # checked again in the write: no change in between
            if context_id and context_id != view.ticket.conversation_id:
                raise convert.invalid_params(f"task {message.task_id} belongs to context "
                                             f"{view.ticket.conversation_id!r}, not {context_id!r}",
                                             field="message.context_id")
            context_id = view.ticket.conversation_id
        is_agent = bool(identity.agent_id) and not identity.trusted
        text, data, headers = convert.message_content(message)
        ticket, _ = await self._rv.enqueue(TicketRequest(
            target=agent_id,
            task=text,
            requester=identity.agent_id if is_agent else f"a2a:{identity}",
            source_kind=TicketSourceKind.AGENT if is_agent else TicketSourceKind.HUMAN,
            source_agent=identity.agent_id if is_agent else "",
            conversation_id=context_id or str(uuid.uuid4()),
            idempotency_key=key,
            agent_token=identity.kind == "agent",
            data=data,
            headers=headers,
            continues=message.task_id,
            continues_turn=expected_turn,
        ))
        return await self._rv.view(ticket.ticket_id)

    # -- the service

    @a2a_mapped
    async def SendMessage(self, request, context):  # noqa: ANN001, ANN201 - as the generated servicer declares it
        history = _history_length(request.configuration)
        view = await self._enqueue(request)
        if request.configuration.return_immediately or view.ticket.state != TicketState.QUEUED:
            return a2a.SendMessageResponse(task=convert.task(view, history))
        try:
            async with asyncio.timeout(_until(context)):
                async for seen in self._rv.watch(view.ticket.ticket_id):
                    if seen is not None:
                        view = seen
        except TimeoutError:
            pass  # the ticket stays queued: the caller GetTasks or resubscribes later
        return a2a.SendMessageResponse(task=convert.task(view, history))

    @a2a_mapped
    async def SendStreamingMessage(self, request, context):  # noqa: ANN001, ANN201 - as the generated servicer declares it
        history = _history_length(request.configuration)
        view = await self._enqueue(request)
        async for event in self._events(view, history):
            yield event

    @a2a_mapped
    async def SubscribeToTask(self, request, context):  # noqa: ANN001, ANN201 - as the generated servicer declares it
        after = _after_generation(context)
        view = await self._task(request.tenant, request.id)
        async for event in self._events(view, after=after):
            yield event

    async def _events(self, first: TicketView, history: int | None = None, after: int | None = None):  # noqa: ANN202 - yields what SubscribeToTask does
        """The task (or, resumed `after` a generation, the events since), then one event per generation.

        Each change is read from storage and sent as the events of the generations it moved through
        (fabricd.rpc.a2a_events), so a reader that was slow or away misses none. A watch that ends with the
        task still queued was cut by a shutdown: UNAVAILABLE, as an Ask's wait, so the caller subscribes
        again (with the header, from where it was) instead of taking the stream's end for the task's.
        """
        sent = convert.generation(first)
        if after is None:
            yield a2a.StreamResponse(task=convert.task(first, history))
        elif after > sent:
            raise convert.invalid_params(f"{AFTER_GENERATION} {after} is ahead of task {first.ticket.ticket_id}'s "
                                         f"generation {sent}, which never decreases: the cursor is another task's, "
                                         "or the store was restored from an older copy; GetTask and resume from "
                                         "its generation", field=AFTER_GENERATION, generation=sent)
        else:
            for event in events.after(first, after):
                yield event
        if first.ticket.state != TicketState.QUEUED:
            return
        queued = True
        async for view in self._rv.watch(first.ticket.ticket_id):
            if view is None:
                continue
            for event in events.after(view, sent):
                yield event
            sent = max(sent, convert.generation(view))
            queued = view.ticket.state == TicketState.QUEUED
        if queued:
            raise errors.Unavailable(f"the daemon is shutting down; task {first.ticket.ticket_id} is kept: "
                                     "SubscribeToTask after the restart", reason="SHUTTING_DOWN",
                                     task_id=first.ticket.ticket_id)

    @a2a_mapped
    async def GetTask(self, request, context):  # noqa: ANN001, ANN201 - as the generated servicer declares it
        history = _history_length(request)
        view = await self._task(request.tenant, request.id)
        if request.HasField("current_generation") and convert.generation(view) <= request.current_generation:
            # A long poll: held while the task is queued, until its generation passes the caller's or just
            # before the caller's deadline; a finished task (INPUT_REQUIRED too) is returned as it is.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(_until(context)), \
                        contextlib.aclosing(self._rv.watch(view.ticket.ticket_id)) as watch:
                    async for seen in watch:
                        if seen is not None:
                            view = seen
                            if convert.generation(view) > request.current_generation:
                                break
        return convert.task(view, history)

    @a2a_mapped
    async def ListTasks(self, request, context):  # noqa: ANN001, ANN201 - as the generated servicer declares it
        agent_id, unknown = await self._tasks_tenant(request.tenant)
        size = request.page_size if request.HasField("page_size") else _PAGE_SIZE
        if not 1 <= size <= 100:
            raise convert.invalid_params("page_size must be 1 to 100", field="page_size")
        identity = caller()
        # An agent listing another agent's tasks sees those it sent: read through the index of its own tickets.
        asked_by = identity.agent_id if not identity.trusted and identity.agent_id != agent_id else ""
        wanted = request.status
        if wanted not in a2a.TaskState.values():
            raise convert.invalid_params(f"status {wanted} is no TaskState", field="status")
        after_ns = (wire.timestamp_in(request.status_timestamp_after, "status_timestamp_after")
                    if request.HasField("status_timestamp_after") else None)
        query = TicketQuery(request.context_id, _STATES.get(wanted, ()), source_agent=asked_by)
        history = _history_length(request)

        def matches(view: TicketView) -> bool:
            return ((not wanted or convert.task_state(view) == wanted)
                    and (after_ns is None or convert.status_ns(view.ticket) > after_ns))

        tasks: list[a2a.Task] = []
        next_token = request.page_token
        while len(tasks) < size:  # pages of tickets (positions read once a page), filtered by the A2A state
            listed = await self._rv.tickets(agent_id, query, size - len(tasks), next_token)
            if unknown is not None and not listed.items and next_token == request.page_token == "":
                raise unknown  # no agent and no task of one that left: a mistyped tenant, say so
            tasks += [convert.task(view, history, artifacts=request.include_artifacts) for view in listed.items
                      if matches(view)]
            next_token = listed.next_page_token
            if not next_token:
                break
        total, token = 0, ""
        while True:  # total_size: every task the filter matches, before paging (the spec requires it)
            listed = await self._rv.tickets(agent_id, query, 999, token)  # (one more is read to see the end)
            total += sum(1 for view in listed.items if matches(view))
            token = listed.next_page_token
            if not token:
                break
        return a2a.ListTasksResponse(tasks=tasks, next_page_token=next_token, page_size=size, total_size=total)

    @a2a_mapped
    async def CancelTask(self, request, context):  # noqa: ANN001, ANN201 - as the generated servicer declares it
        view = await self._task(request.tenant, request.id)
        ticket, withdrawn = await self._rv.cancel_ticket(view.ticket.ticket_id)
        cancelled = TicketView(ticket, -1)
        if not withdrawn:  # terminal already, a CANCELED one included: the spec's TaskNotCancelableError
            raise convert.A2AProblem(grpc.StatusCode.FAILED_PRECONDITION, "TASK_NOT_CANCELABLE",
                                     f"task {ticket.ticket_id} already finished "
                                     f"({a2a.TaskState.Name(convert.task_state(cancelled))})",
                                     task_id=ticket.ticket_id)
        return convert.task(cancelled)

    @a2a_mapped
    async def GetExtendedAgentCard(self, request, context):  # noqa: ANN001, ANN201 - as the generated servicer declares it
        entry = await self._dir.resolve(request.tenant) if request.tenant else None
        if entry is None:
            raise convert.invalid_params("tenant is required: the agent id or session name of the agent",
                                         field="tenant")
        return convert.card(entry, self._endpoint.listeners, self._endpoint.mutual_tls, __version__)

    @a2a_mapped
    async def CreateTaskPushNotificationConfig(self, request, context):  # noqa: ANN001, ANN201 - as the generated servicer declares it
        raise _push_unsupported()

    @a2a_mapped
    async def GetTaskPushNotificationConfig(self, request, context):  # noqa: ANN001, ANN201 - as the generated servicer declares it
        raise _push_unsupported()

    @a2a_mapped
    async def ListTaskPushNotificationConfigs(self, request, context):  # noqa: ANN001, ANN201 - as the generated servicer declares it
        raise _push_unsupported()

    @a2a_mapped
    async def DeleteTaskPushNotificationConfig(self, request, context):  # noqa: ANN001, ANN201 - as the generated servicer declares it
        raise _push_unsupported()


__all__ = ["LOCAL", "A2AServicer", "Endpoint"]
