"""The calls of RendezvousService, OutboxService, AgentDirectoryService and AdminService.

A mixin of Client: it uses the stubs and `_call` that Client sets up.
"""

from __future__ import annotations

import asyncio
import functools
import time
import uuid
import warnings
from collections.abc import AsyncIterator, Callable, Coroutine, Mapping, Sequence
from typing import Any

import grpc

from fabricd.client._errors import FabricError
from fabricd.client._paging import Page, read_pages
from fabricd.client._replier import Replier, answer_each
from fabricd.v1 import admin_service_pb2 as admin_pb
from fabricd.v1 import agent_directory_service_pb2 as ad_pb
from fabricd.v1 import outbox_service_pb2 as ob_pb
from fabricd.v1 import rendezvous_service_pb2 as rv_pb


def _waiting(request: Any, timeout: float | None) -> Any:
    """`request`, or for a wait with a timeout a function giving it with the time left (for each attempt)."""
    if timeout is None:
        return request
    if timeout <= 0:  # nothing to count down (a negative one is refused by the daemon, as given)
        request.timeout.FromNanoseconds(int(timeout * 1e9))
        return request
    deadline = time.monotonic() + timeout

    def build() -> Any:
        request.timeout.FromNanoseconds(int(max(0.0, deadline - time.monotonic()) * 1e9))
        return request

    return build


def renamed(method: Callable[..., Coroutine[Any, Any, Any]], old: str) -> Callable[..., Coroutine[Any, Any, Any]]:
    """`method` under its old name: it still works, with a DeprecationWarning naming the new one."""

    @functools.wraps(method)  # keeps the signature (via __wrapped__) for IDEs and the sync twin
    async def alias(self: Any, *args: Any, **kwargs: Any) -> Any:
        warnings.warn(f"{old}() is deprecated: call {method.__name__}()", DeprecationWarning, stacklevel=2)
        return await method(self, *args, **kwargs)

    alias.__name__ = alias.__qualname__ = old
    alias.__doc__ = f"Deprecated: the old name of `{method.__name__}`."
    alias.deprecated_for = method.__name__  # type: ignore[attr-defined]
    return alias


class WorkCalls:
    rendezvous: Any
    outbox: Any
    agent_directory: Any
    admin: Any

    async def _call(self, rpc: Any, request: Any, timeout: float | None = None, *, resend: bool = False) -> Any:
        raise NotImplementedError

    async def _streamed(self, kind: str, build: Callable[[], Any], *, resend: bool) -> Any:
        raise NotImplementedError

    def _in_background(self, work: Coroutine[Any, Any, Any]) -> None:
        raise NotImplementedError

    def _consumed(self, message_id: str) -> None:
        raise NotImplementedError

    def _error(self, exc: grpc.RpcError) -> FabricError:
        raise NotImplementedError

    def _stream_error(self, exc: grpc.RpcError, target: str) -> FabricError:
        raise NotImplementedError

    target: str

    # -- RendezvousService

    @staticmethod
    def _source(source_agent: str | None) -> rv_pb.TicketSource:
        if source_agent:
            return rv_pb.TicketSource(kind=rv_pb.TICKET_SOURCE_KIND_AGENT, agent_id=source_agent)
        return rv_pb.TicketSource(kind=rv_pb.TICKET_SOURCE_KIND_HUMAN)

    async def ask(self, target: str, task: str, *, timeout: float | None = None, source_agent: str | None = None,
                  requester: str = "", conversation_id: str = "", request_key: str = "") -> str:
        """Ask `target` and wait for its reply; returns the result.

        `source_agent` names the asking agent (else the asker is a human). Raises
        DeadlineExceeded after `timeout` seconds (the ticket is retired) and
        Aborted if the ticket is cancelled or the target's queue closed. The
        result of an INPUT_REQUIRED, REJECTED or FAILED answer is its question or
        reason: `ask_answer` also says the outcome. Every Ask carries a request key
        (a fresh uuid unless given): re-sent to another node after UNAVAILABLE, it
        waits on the ticket already queued, so it is asked once.
        """
        return (await self.ask_answer(target, task, timeout=timeout, source_agent=source_agent, requester=requester,
                                      conversation_id=conversation_id, request_key=request_key)).result

    async def ask_answer(self, target: str, task: str, *, timeout: float | None = None,
                         source_agent: str | None = None, requester: str = "", conversation_id: str = "",
                         data: bytes = b"", headers: Mapping[str, str] | None = None,
                         continue_ticket_id: str = "", request_key: str = "") -> rv_pb.AskResponse:
        """As `ask`, returning the whole answer: ticket id, result, outcome, data and headers.

        `data` and `headers` go with the task message; `continue_ticket_id` answers a
        ticket whose outcome was TICKET_OUTCOME_INPUT_REQUIRED (its next turn).
        """
        request = rv_pb.AskRequest(target=target, task=task, requester=requester, source=self._source(source_agent),
                                   conversation_id=conversation_id, data=data, headers=headers or {},
                                   continue_ticket_id=continue_ticket_id, request_key=request_key or str(uuid.uuid4()))
        waiting = _waiting(request, timeout)
        try:
            answer = await self._streamed("ask", waiting if callable(waiting) else lambda: waiting, resend=True)
        except asyncio.CancelledError:
            # The unary Ask's ticket is retired when its caller leaves; a frame's is not (the stream stays):
            # retire it here, found by its request key (queued then, if the frame had not arrived yet).
            self._in_background(self._withdraw(request))
            raise
        if answer is not None:
            return answer
        return await self._call(self.rendezvous.Ask, waiting, resend=True)

    async def _withdraw(self, request: rv_pb.AskRequest) -> None:
        """Retire the ticket an abandoned ask frame queued (or would queue: the key makes them one)."""
        try:
            queued = await self._call(self.rendezvous.EnqueueTicket, rv_pb.EnqueueTicketRequest(
                target=request.target, task=request.task, requester=request.requester, source=request.source,
                conversation_id=request.conversation_id, data=request.data, headers=request.headers,
                continue_ticket_id=request.continue_ticket_id, request_key=request.request_key))
            await self._call(self.rendezvous.CancelTicket, rv_pb.CancelTicketRequest(ticket_id=queued.ticket_id))
        except FabricError:
            pass  # refused or gone: nothing queued to retire

    async def enqueue(self, target: str, task: str, *, source_agent: str | None = None, requester: str = "",
                      conversation_id: str = "", data: bytes = b"", headers: Mapping[str, str] | None = None,
                      continue_ticket_id: str = "", request_key: str = "") -> rv_pb.EnqueueTicketResponse:
        """Queue a ticket without waiting: returns its id and position (0 = head); see `ask_answer` for the rest.

        The same `request_key` (default: a fresh uuid, kept across this call's retries) returns the
        ticket the first call queued: pass your own to retry a lost answer safely."""
        request = rv_pb.EnqueueTicketRequest(target=target, task=task, requester=requester,
                                             source=self._source(source_agent), conversation_id=conversation_id,
                                             data=data, headers=headers or {}, continue_ticket_id=continue_ticket_id,
                                             request_key=request_key or str(uuid.uuid4()))
        return await self._call(self.rendezvous.EnqueueTicket, request, resend=True)

    async def await_reply(self, ticket_id: str, *, timeout: float | None = None) -> str:
        """Wait for a ticket's result (at once if already answered); the ticket stays queued on timeout."""
        return (await self.await_answer(ticket_id, timeout=timeout)).result

    async def await_answer(self, ticket_id: str, *, timeout: float | None = None) -> rv_pb.AwaitReplyResponse:
        """As `await_reply`, returning the whole answer: result, outcome, data and headers."""
        request = rv_pb.AwaitReplyRequest(ticket_id=ticket_id)
        return await self._call(self.rendezvous.AwaitReply, _waiting(request, timeout), resend=True)

    async def reply(self, agent_id: str, result: str, *, ticket_id: str = "",
                    outcome: int = rv_pb.TICKET_OUTCOME_COMPLETED, data: bytes = b"",
                    headers: Mapping[str, str] | None = None) -> str:
        """Answer the head of `agent_id`'s queue (or `ticket_id`); returns the answered ticket id.

        `outcome` (a TicketOutcome): COMPLETED, or INPUT_REQUIRED (the result is a question the
        asker may answer by continuing the ticket), REJECTED or FAILED (the result says why).
        """
        request = rv_pb.ReplyRequest(agent_id=agent_id, result=result, ticket_id=ticket_id, outcome=outcome,
                                     data=data, headers=headers or {})
        answered = (await self._call(self.rendezvous.Reply, request)).ticket_id
        self._consumed(answered)  # the Reply read its task message (id = ticket id): no ack needed
        return answered

    async def serve(self, agent_id: str, handler: Callable[[rv_pb.Ticket], Any], *, window: int = 16,
                    limit: int = 0) -> None:
        """Answer `agent_id`'s tickets one at a time, in the order they come, until cancelled (or, given a
        `limit`, until that many are answered).

        `handler(ticket)` (or a coroutine function) returns the result text, or a rv_pb.ReplyRequest for
        an outcome, data or headers; one that raises answers FAILED with the error. Tickets come on the
        replier stream (RendezvousService.Serve), at most `window` ahead, and each answer goes back on
        it: no unary call per ask. The stream is opened again after a cut or a daemon restart.
        """
        await answer_each(Replier(self, agent_id, window=window), handler, limit)

    async def cancel_head(self, agent_id: str, ticket_id: str) -> bool:
        request = rv_pb.CancelHeadRequest(agent_id=agent_id, ticket_id=ticket_id)
        return (await self._call(self.rendezvous.CancelHead, request)).cancelled

    async def close_queue(self, agent_id: str, reason: str = "") -> int:
        request = rv_pb.CloseQueueRequest(agent_id=agent_id, reason=reason)
        return (await self._call(self.rendezvous.CloseQueue, request)).aborted

    async def get_queue(self, agent_id: str, *, page_size: int = 0, page_token: str = "") -> Page[rv_pb.QueuedTicket]:
        """The tickets waiting for `agent_id`, head (position 0) first: all, or one page when given a page_size
        or page_token."""
        def fetch(size: int, token: str) -> Any:
            request = rv_pb.GetQueueRequest(agent_id=agent_id, page_size=size, page_token=token)
            return self._call(self.rendezvous.GetQueue, request, resend=True)

        return await read_pages(fetch, lambda r: r.tickets, page_size, page_token)

    async def get_ticket(self, ticket_id: str) -> rv_pb.Ticket:
        """One ticket in any state: position while queued, result and outcome once answered."""
        return (await self._call(self.rendezvous.GetTicket, rv_pb.GetTicketRequest(ticket_id=ticket_id))).ticket

    async def cancel_ticket(self, ticket_id: str) -> rv_pb.CancelTicketResponse:
        """Withdraw a queued ticket wherever it stands; `cancelled` is False when it had already finished."""
        return await self._call(self.rendezvous.CancelTicket, rv_pb.CancelTicketRequest(ticket_id=ticket_id))

    async def list_tickets(self, agent_id: str, *, conversation_id: str = "", states: Sequence[int] = (),
                           source_agent_id: str = "", page_size: int = 0, page_token: str = "") -> Page[rv_pb.Ticket]:
        """`agent_id`'s tickets in any state, newest first: all, or one page when given a page_size or page_token."""
        def fetch(size: int, token: str) -> Any:
            request = rv_pb.ListTicketsRequest(agent_id=agent_id, conversation_id=conversation_id, states=states,
                                               source_agent_id=source_agent_id, page_size=size, page_token=token)
            return self._call(self.rendezvous.ListTickets, request)

        return await read_pages(fetch, lambda r: r.tickets, page_size, page_token)

    async def watch_queue(self, agent_id: str, *, max_tickets: int = 0) -> AsyncIterator[list[rv_pb.QueuedTicket]]:
        """The head of the queue now, then after every change (keepalives skipped).

        Each snapshot holds the first `max_tickets` tickets (0: 100; at most 1000); `get_queue` pages through
        a longer queue."""
        target = self.target
        call = self.rendezvous.WatchQueue(rv_pb.WatchQueueRequest(agent_id=agent_id, max_tickets=max_tickets))
        try:
            async for response in call:
                if not response.keepalive:
                    yield list(response.tickets)
        except grpc.RpcError as exc:
            raise self._stream_error(exc, target) from None
        finally:
            call.cancel()

    # -- OutboxService

    async def fan_out(self, job: ob_pb.SettledJob, content: str) -> ob_pb.FanOutResponse:
        """Queue one reply per reply-to address of the job's mail; a replay writes nothing new."""
        return await self._call(self.outbox.FanOut, ob_pb.FanOutRequest(job=job, content=content), resend=True)

    async def drain_outbox(self) -> ob_pb.DrainOutboxResponse:
        return await self._call(self.outbox.DrainOutbox, ob_pb.DrainOutboxRequest())

    async def list_outbox(self, *, state: int = ob_pb.OUTBOX_ROW_STATE_UNSPECIFIED, limit: int = 0,
                          after_key: str = "", page_size: int = 0, page_token: str = "") -> ob_pb.ListOutboxResponse:
        """Every row of a state in one response (page after page), or one page when given a page_size,
        page_token, limit or after_key (its next_page_token, or next_after_key, goes on)."""
        def fetch(size: int, token: str) -> Any:
            request = ob_pb.ListOutboxRequest(state=state, limit=limit, after_key=after_key, page_size=size,
                                              page_token=token)
            return self._call(self.outbox.ListOutbox, request, resend=True)

        if limit or after_key or page_size or page_token:
            return await fetch(page_size, page_token)
        return ob_pb.ListOutboxResponse(rows=await read_pages(fetch, lambda r: r.rows, 0, ""))

    async def retry_dead_letters(self, keys: Sequence[str] = ()) -> int:
        request = ob_pb.RetryDeadLettersRequest(keys=list(keys))
        return (await self._call(self.outbox.RetryDeadLetters, request)).retried

    async def prune_receipts(self, before_ns: int) -> int:
        request = ob_pb.PruneReceiptsRequest()
        request.before_time.FromNanoseconds(before_ns)
        return (await self._call(self.outbox.PruneReceipts, request)).pruned

    # -- AgentDirectoryService

    async def initialize(self, instructions: str, settings: str = "") -> ad_pb.InitializeResponse:
        """Create (or update) the default agent and its initial thread."""
        request = ad_pb.InitializeRequest(instructions=instructions, settings=settings)
        return await self._call(self.agent_directory.Initialize, request)

    async def create_agent(self, name: str, *, description: str = "", instructions: str = "",
                           settings: str = "") -> ad_pb.Agent:
        request = ad_pb.CreateAgentRequest(name=name, description=description, instructions=instructions,
                                           settings=settings)
        return (await self._call(self.agent_directory.CreateAgent, request)).agent

    async def get_agent(self, agent_id: str) -> ad_pb.Agent:
        request = ad_pb.GetAgentRequest(agent_id=agent_id)
        return (await self._call(self.agent_directory.GetAgent, request, resend=True)).agent

    async def list_agents(self, *, page_size: int = 0, page_token: str = "") -> Page[ad_pb.Agent]:
        """Every agent (page after page), or one page when given a page_size or page_token."""
        def fetch(size: int, token: str) -> Any:
            request = ad_pb.ListAgentsRequest(page_size=size, page_token=token)
            return self._call(self.agent_directory.ListAgents, request, resend=True)

        return await read_pages(fetch, lambda r: r.agents, page_size, page_token)

    async def create_thread(self, agent_id: str, *, title: str = "", kind: str = "",
                            contexts: Sequence[str] = (), request_key: str = "") -> ad_pb.Thread:
        """A new thread; a retry with the same `request_key` returns the thread the first call created."""
        request = ad_pb.CreateThreadRequest(agent_id=agent_id, title=title, kind=kind, contexts=list(contexts),
                                            request_key=request_key)
        return (await self._call(self.agent_directory.CreateThread, request, resend=bool(request_key))).thread

    async def list_threads(self, agent_id: str, *, page_size: int = 0, page_token: str = "") -> Page[ad_pb.Thread]:
        """The agent's threads in creation order (page after page), or one page when given a page_size or
        page_token."""
        def fetch(size: int, token: str) -> Any:
            request = ad_pb.ListThreadsRequest(agent_id=agent_id, page_size=size, page_token=token)
            return self._call(self.agent_directory.ListThreads, request, resend=True)

        return await read_pages(fetch, lambda r: r.threads, page_size, page_token)

    async def admit(self, agent_id: str, submission: ad_pb.Submission, *, thread_id: str = "",
                    optional_work: bool = False, request_key: str = "") -> ad_pb.AdmitResponse:
        """Admit work; a refusal is an answer (accepted = False, reason), not an exception.

        Pass a `request_key` (a fresh uuid per submission) to retry a lost answer safely: the retry returns
        the first acceptance and admits nothing new."""
        request = ad_pb.AdmitRequest(agent_id=agent_id, thread_id=thread_id, submission=submission,
                                     optional_work=optional_work, request_key=request_key)
        return await self._call(self.agent_directory.Admit, request, resend=bool(request_key))

    async def settle(self, request_id: str, *, thread_id: str = "", interactive: bool = False,
                     notify: bool = False) -> ad_pb.Request:
        request = ad_pb.SettleRequest(request_id=request_id, thread_id=thread_id, interactive=interactive,
                                      notify=notify)
        return (await self._call(self.agent_directory.Settle, request)).request

    async def mark_notification_sent(self, request_id: str) -> None:
        """Record that the notification owed for a settled request went out."""
        await self._call(self.agent_directory.NotificationSent, ad_pb.NotificationSentRequest(request_id=request_id))

    async def list_requests(self, which: int = ad_pb.REQUEST_FILTER_ALL, *, page_size: int = 0,
                            page_token: str = "") -> ad_pb.ListRequestsResponse:
        """Every request of a filter in one response (page after page), or one page when given a page_size
        or page_token (its next_page_token goes on)."""
        def fetch(size: int, token: str) -> Any:
            request = ad_pb.ListRequestsRequest(filter=which, page_size=size, page_token=token)
            return self._call(self.agent_directory.ListRequests, request, resend=True)

        if page_size or page_token:
            return await fetch(page_size, page_token)
        return ad_pb.ListRequestsResponse(requests=await read_pages(fetch, lambda r: r.requests, 0, ""))

    async def advertise(self, profiles: str, availability: str) -> None:
        request = ad_pb.AdvertiseRequest(profiles=profiles, availability=availability)
        await self._call(self.agent_directory.Advertise, request)

    async def reconcile_repair(self, key: str, generation: int, text: str = "", **fields: Any) -> str:
        """Admit a repair idempotently by key and generation; returns its request id."""
        request = ad_pb.ReconcileRepairRequest(key=key, generation=generation, text=text, **fields)
        return (await self._call(self.agent_directory.ReconcileRepair, request, resend=True)).request_id

    async def get_directory_data(self) -> ad_pb.DirectoryData:
        request = ad_pb.GetDirectoryDataRequest()
        return (await self._call(self.agent_directory.GetDirectoryData, request, resend=True)).data

    async def watch_directory_data(self) -> AsyncIterator[ad_pb.WatchDirectoryDataResponse]:
        """The data now, then once per change in sequence order (keepalives skipped)."""
        target = self.target
        call = self.agent_directory.WatchDirectoryData(ad_pb.WatchDirectoryDataRequest())
        try:
            async for response in call:
                if not response.keepalive:
                    yield response
        except grpc.RpcError as exc:
            raise self._stream_error(exc, target) from None
        finally:
            call.cancel()

    # -- AdminService

    async def get_status(self) -> admin_pb.GetStatusResponse:
        return await self._call(self.admin.GetStatus, admin_pb.GetStatusRequest(), resend=True)

    async def issue_token(self, *, agent_id: str = "", admin: bool = False, label: str = "",
                          session_names: Sequence[str] = ()) -> admin_pb.IssueTokenResponse:
        """An admin token (admin=True) or one that acts as `agent_id` only; the token is shown once."""
        scope = admin_pb.TOKEN_SCOPE_ADMIN if admin else admin_pb.TOKEN_SCOPE_AGENT
        request = admin_pb.IssueTokenRequest(scope=scope, agent_id=agent_id, label=label,
                                             session_names=list(session_names))
        return await self._call(self.admin.IssueToken, request)

    async def revoke_token(self, token_id: str) -> bool:
        return (await self._call(self.admin.RevokeToken, admin_pb.RevokeTokenRequest(token_id=token_id))).revoked

    async def list_tokens(self, *, page_size: int = 0, page_token: str = "") -> Page[admin_pb.TokenInfo]:
        """Every token (page after page), or one page when given a page_size or page_token."""
        def fetch(size: int, token: str) -> Any:
            request = admin_pb.ListTokensRequest(page_size=size, page_token=token)
            return self._call(self.admin.ListTokens, request, resend=True)

        return await read_pages(fetch, lambda r: r.tokens, page_size, page_token)

    # -- Old names (deprecated): reads are get_*/list_*/watch_*, actions are verbs.

    queue = renamed(get_queue, "queue")
    notification_sent = renamed(mark_notification_sent, "notification_sent")
    directory_data = renamed(get_directory_data, "directory_data")
    status = renamed(get_status, "status")
