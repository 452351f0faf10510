"""The calls of RendezvousService, OutboxService, AgentDirectoryService and AdminService.

A mixin of Client: it uses the stubs and `_call` that Client sets up.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import AsyncIterator, Callable, Coroutine, Sequence
from typing import Any

import grpc

from fabricd.client._errors import FabricError
from fabricd.client._paging import Page, read_pages
from fabricd.v1 import admin_service_pb2 as admin_pb
from fabricd.v1 import agent_directory_service_pb2 as ad_pb
from fabricd.v1 import outbox_service_pb2 as ob_pb
from fabricd.v1 import rendezvous_service_pb2 as rv_pb


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

    async def _call(self, rpc: Any, request: Any, timeout: float | None = None) -> Any:
        raise NotImplementedError

    def _consumed(self, message_id: str) -> None:
        raise NotImplementedError

    def _error(self, exc: grpc.RpcError) -> FabricError:
        raise NotImplementedError

    # -- RendezvousService

    @staticmethod
    def _source(source_agent: str | None) -> rv_pb.TicketSource:
        if source_agent:
            return rv_pb.TicketSource(kind=rv_pb.TICKET_SOURCE_KIND_AGENT, agent_id=source_agent)
        return rv_pb.TicketSource(kind=rv_pb.TICKET_SOURCE_KIND_HUMAN)

    async def ask(self, target: str, task: str, *, timeout: float | None = None, source_agent: str | None = None,
                  requester: str = "", conversation_id: str = "") -> str:
        """Ask `target` and wait for its reply; returns the result.

        `source_agent` names the asking agent (else the asker is a human). Raises
        DeadlineExceeded after `timeout` seconds (the ticket is retired) and
        Aborted if the ticket is cancelled or the target's queue closed.
        """
        request = rv_pb.AskRequest(target=target, task=task, requester=requester, source=self._source(source_agent),
                                   conversation_id=conversation_id)
        if timeout is not None:
            request.timeout.FromNanoseconds(int(timeout * 1e9))
        return (await self._call(self.rendezvous.Ask, request)).result

    async def enqueue(self, target: str, task: str, *, source_agent: str | None = None, requester: str = "",
                      conversation_id: str = "") -> rv_pb.EnqueueTicketResponse:
        """Queue a ticket without waiting: returns its id and position (0 = head)."""
        request = rv_pb.EnqueueTicketRequest(target=target, task=task, requester=requester,
                                             source=self._source(source_agent), conversation_id=conversation_id)
        return await self._call(self.rendezvous.EnqueueTicket, request)

    async def await_reply(self, ticket_id: str, *, timeout: float | None = None) -> str:
        """Wait for a ticket's result (at once if already answered); the ticket stays queued on timeout."""
        request = rv_pb.AwaitReplyRequest(ticket_id=ticket_id)
        if timeout is not None:
            request.timeout.FromNanoseconds(int(timeout * 1e9))
        return (await self._call(self.rendezvous.AwaitReply, request)).result

    async def reply(self, agent_id: str, result: str, *, ticket_id: str = "") -> str:
        """Answer the head of `agent_id`'s queue (or `ticket_id`); returns the answered ticket id."""
        request = rv_pb.ReplyRequest(agent_id=agent_id, result=result, ticket_id=ticket_id)
        answered = (await self._call(self.rendezvous.Reply, request)).ticket_id
        self._consumed(answered)  # the Reply read its task message (id = ticket id): no ack needed
        return answered

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
            return self._call(self.rendezvous.GetQueue, request)

        return await read_pages(fetch, lambda r: r.tickets, page_size, page_token)

    async def watch_queue(self, agent_id: str, *, max_tickets: int = 0) -> AsyncIterator[list[rv_pb.QueuedTicket]]:
        """The head of the queue now, then after every change (keepalives skipped).

        Each snapshot holds the first `max_tickets` tickets (0: 100; at most 1000); `get_queue` pages through
        a longer queue."""
        call = self.rendezvous.WatchQueue(rv_pb.WatchQueueRequest(agent_id=agent_id, max_tickets=max_tickets))
        try:
            async for response in call:
                if not response.keepalive:
                    yield list(response.tickets)
        except grpc.RpcError as exc:
            raise self._error(exc) from None
        finally:
            call.cancel()

    # -- OutboxService

    async def fan_out(self, job: ob_pb.SettledJob, content: str) -> ob_pb.FanOutResponse:
        """Queue one reply per reply-to address of the job's mail; a replay writes nothing new."""
        return await self._call(self.outbox.FanOut, ob_pb.FanOutRequest(job=job, content=content))

    async def drain_outbox(self) -> ob_pb.DrainOutboxResponse:
        return await self._call(self.outbox.DrainOutbox, ob_pb.DrainOutboxRequest())

    async def list_outbox(self, *, state: int = ob_pb.OUTBOX_ROW_STATE_UNSPECIFIED, limit: int = 0,
                          after_key: str = "", page_size: int = 0, page_token: str = "") -> ob_pb.ListOutboxResponse:
        """Every row of a state in one response (page after page), or one page when given a page_size,
        page_token, limit or after_key (its next_page_token, or next_after_key, goes on)."""
        def fetch(size: int, token: str) -> Any:
            request = ob_pb.ListOutboxRequest(state=state, limit=limit, after_key=after_key, page_size=size,
                                              page_token=token)
            return self._call(self.outbox.ListOutbox, request)

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
        return (await self._call(self.agent_directory.GetAgent, ad_pb.GetAgentRequest(agent_id=agent_id))).agent

    async def list_agents(self, *, page_size: int = 0, page_token: str = "") -> Page[ad_pb.Agent]:
        """Every agent (page after page), or one page when given a page_size or page_token."""
        def fetch(size: int, token: str) -> Any:
            return self._call(self.agent_directory.ListAgents, ad_pb.ListAgentsRequest(page_size=size, page_token=token))

        return await read_pages(fetch, lambda r: r.agents, page_size, page_token)

    async def create_thread(self, agent_id: str, *, title: str = "", kind: str = "",
                            contexts: Sequence[str] = (), request_key: str = "") -> ad_pb.Thread:
        """A new thread; a retry with the same `request_key` returns the thread the first call created."""
        request = ad_pb.CreateThreadRequest(agent_id=agent_id, title=title, kind=kind, contexts=list(contexts),
                                            request_key=request_key)
        return (await self._call(self.agent_directory.CreateThread, request)).thread

    async def list_threads(self, agent_id: str, *, page_size: int = 0, page_token: str = "") -> Page[ad_pb.Thread]:
        """The agent's threads in creation order (page after page), or one page when given a page_size or
        page_token."""
        def fetch(size: int, token: str) -> Any:
            request = ad_pb.ListThreadsRequest(agent_id=agent_id, page_size=size, page_token=token)
            return self._call(self.agent_directory.ListThreads, request)

        return await read_pages(fetch, lambda r: r.threads, page_size, page_token)

    async def admit(self, agent_id: str, submission: ad_pb.Submission, *, thread_id: str = "",
                    optional_work: bool = False, request_key: str = "") -> ad_pb.AdmitResponse:
        """Admit work; a refusal is an answer (accepted = False, reason), not an exception.

        Pass a `request_key` (a fresh uuid per submission) to retry a lost answer safely: the retry returns
        the first acceptance and admits nothing new."""
        request = ad_pb.AdmitRequest(agent_id=agent_id, thread_id=thread_id, submission=submission,
                                     optional_work=optional_work, request_key=request_key)
        return await self._call(self.agent_directory.Admit, request)

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
            return self._call(self.agent_directory.ListRequests, request)

        if page_size or page_token:
            return await fetch(page_size, page_token)
        return ad_pb.ListRequestsResponse(requests=await read_pages(fetch, lambda r: r.requests, 0, ""))

    async def advertise(self, profiles: str, availability: str) -> None:
        request = ad_pb.AdvertiseRequest(profiles=profiles, availability=availability)
        await self._call(self.agent_directory.Advertise, request)

    async def reconcile_repair(self, key: str, generation: int, text: str = "", **fields: Any) -> str:
        """Admit a repair idempotently by key and generation; returns its request id."""
        request = ad_pb.ReconcileRepairRequest(key=key, generation=generation, text=text, **fields)
        return (await self._call(self.agent_directory.ReconcileRepair, request)).request_id

    async def get_directory_data(self) -> ad_pb.DirectoryData:
        return (await self._call(self.agent_directory.GetDirectoryData, ad_pb.GetDirectoryDataRequest())).data

    async def watch_directory_data(self) -> AsyncIterator[ad_pb.WatchDirectoryDataResponse]:
        """The data now, then once per change in sequence order (keepalives skipped)."""
        call = self.agent_directory.WatchDirectoryData(ad_pb.WatchDirectoryDataRequest())
        try:
            async for response in call:
                if not response.keepalive:
                    yield response
        except grpc.RpcError as exc:
            raise self._error(exc) from None
        finally:
            call.cancel()

    # -- AdminService

    async def get_status(self) -> admin_pb.GetStatusResponse:
        return await self._call(self.admin.GetStatus, admin_pb.GetStatusRequest())

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
            return self._call(self.admin.ListTokens, admin_pb.ListTokensRequest(page_size=size, page_token=token))

        return await read_pages(fetch, lambda r: r.tokens, page_size, page_token)

    # -- Old names (deprecated): reads are get_*/list_*/watch_*, actions are verbs.

    queue = renamed(get_queue, "queue")
    notification_sent = renamed(mark_notification_sent, "notification_sent")
    directory_data = renamed(get_directory_data, "directory_data")
    status = renamed(get_status, "status")
