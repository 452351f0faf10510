"""A synchronous twin of Client, for scripts and the CLI.

It runs the asyncio client on a private event loop in a background thread;
each method blocks until the daemon answers, and each `watch_*` stream is a
plain iterator. Every public method of Client has a twin here with the same
parameters (a test checks it); the docstrings are Client's.
"""

from __future__ import annotations

import asyncio
import functools
import threading
import warnings
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

from fabricd.client._client import AddressLike, Client, SendResult, Subscription
from fabricd.client._errors import FabricError
from fabricd.client._paging import Page
from fabricd.client._sync_channels import SyncChannelCalls
from fabricd.v1 import admin_service_pb2 as admin_pb
from fabricd.v1 import agent_directory_service_pb2 as ad_pb
from fabricd.v1 import directory_service_pb2 as dir_pb
from fabricd.v1 import lease_service_pb2 as ls_pb
from fabricd.v1 import mailbox_service_pb2 as mbx_pb
from fabricd.v1 import outbox_service_pb2 as ob_pb
from fabricd.v1 import rendezvous_service_pb2 as rv_pb
from fabricd.v1 import types_pb2 as pb

T = TypeVar("T")


def _renamed(method: Callable[..., T], old: str) -> Callable[..., T]:
    """`method` under its old name, warning (in the caller's thread) with the new one."""

    @functools.wraps(method)
    def alias(self: SyncClient, *args: Any, **kwargs: Any) -> T:
        warnings.warn(f"{old}() is deprecated: call {method.__name__}()", DeprecationWarning, stacklevel=2)
        return method(self, *args, **kwargs)

    alias.__name__ = alias.__qualname__ = old
    alias.__doc__ = f"Deprecated: the old name of `{method.__name__}`."
    return alias


class SyncClient(SyncChannelCalls):
    """`with SyncClient(target) as client: client.send("bob", "hi")`; options as for Client."""

    def __init__(self, target: str | Sequence[str] | None = None, **options: Any) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="fabricd-client", daemon=True)
        self._thread.start()
        self._client: Client = self._run(self._make(target, options))

    @property
    def target(self) -> str:
        """The node calls go to now (with several targets, it moves on when one is unavailable)."""
        return self._client.target

    @staticmethod
    async def _make(target: str | Sequence[str] | None, options: dict[str, Any]) -> Client:
        return Client(target, **options)  # inside the loop: grpc.aio binds the channel to it

    def _run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    def _iterate(self, stream: AsyncIterator[T]) -> Iterator[T]:
        """An async iterator of the loop's, stepped from this thread; leaving the loop ends the stream."""
        try:
            while True:
                try:
                    yield self._run(_next(stream))
                except StopAsyncIteration:
                    return
        finally:
            if not self._loop.is_closed():  # else close() already closed the channel, and the stream with it
                self._run(_close(stream))

    @property
    def client(self) -> Client:
        """The asyncio Client underneath (its stubs: .mailbox, .directory, ...), bound to this twin's loop."""
        return self._client

    def __enter__(self) -> SyncClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self, timeout: float = 10.0) -> None:
        if self._loop.is_closed():
            return
        self._run(self._client.close(timeout))
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()

    def wait_ready(self, timeout: float = 10.0) -> None:
        self._run(self._client.wait_ready(timeout))

    # -- DirectoryService

    def register(self, agent_id: str, *, session_name: str = "", capabilities: Iterable[pb.Capability | str] = (),
                 cwd: str = "", metadata: Mapping[str, str] | None = None) -> pb.MailboxEntry:
        return self._run(self._client.register(agent_id, session_name=session_name, capabilities=capabilities,
                                               cwd=cwd, metadata=metadata))

    def touch(self, agent_id: str, *, busy: bool = False, offline: bool = False) -> dir_pb.TouchResponse:
        return self._run(self._client.touch(agent_id, busy=busy, offline=offline))

    def unregister(self, agent_id: str, *, purge: bool = False) -> dir_pb.UnregisterResponse:
        return self._run(self._client.unregister(agent_id, purge=purge))

    def set_wake_hook(self, agent_id: str, *, url: str = "", command: Sequence[str] = (),
                      quiet_period: float | None = None, only_when_idle: bool = True) -> dir_pb.SetWakeHookResponse:
        return self._run(self._client.set_wake_hook(agent_id, url=url, command=command, quiet_period=quiet_period,
                                                    only_when_idle=only_when_idle))

    def get_wake_hook(self, agent_id: str) -> dir_pb.GetWakeHookResponse:
        return self._run(self._client.get_wake_hook(agent_id))

    def clear_wake_hook(self, agent_id: str) -> None:
        return self._run(self._client.clear_wake_hook(agent_id))

    def list_mailboxes(self, *, page_size: int = 0, page_token: str = "") -> Page[pb.MailboxEntry]:
        return self._run(self._client.list_mailboxes(page_size=page_size, page_token=page_token))

    def resolve(self, name: str) -> pb.MailboxEntry:
        return self._run(self._client.resolve(name))

    def watch_mailboxes(self) -> Iterator[dir_pb.WatchMailboxesResponse]:
        return self._iterate(self._client.watch_mailboxes())

    # -- MailboxService

    def send(self, to: AddressLike, text: str = "", *, sender: AddressLike | None = None, id: str = "",
             data: bytes = b"", headers: Mapping[str, str] | None = None, thread_id: str = "",
             reply_to: Iterable[AddressLike] = (), kind: int = pb.MESSAGE_KIND_AGENT, hops: int = 0,
             create_mailbox: bool = False) -> SendResult:
        return self._run(self._client.send(to, text, sender=sender, id=id, data=data, headers=headers,
                                           thread_id=thread_id, reply_to=reply_to, kind=kind, hops=hops,
                                           create_mailbox=create_mailbox))

    def send_message(self, message: pb.Message, *, create_mailbox: bool = False) -> SendResult:
        return self._run(self._client.send_message(message, create_mailbox=create_mailbox))

    def send_many(self, messages: Sequence[pb.Message], *, atomic: bool = False,
                  create_mailbox: bool = False) -> list[SendResult | FabricError]:
        return self._run(self._client.send_many(messages, atomic=atomic, create_mailbox=create_mailbox))

    def peek(self, agent_id: str, limit: int = 0, *, max_bytes: int = 0) -> mbx_pb.PeekMessagesResponse:
        return self._run(self._client.peek(agent_id, limit, max_bytes=max_bytes))

    def drain(self, agent_id: str, limit: int = 0, *, max_bytes: int = 0) -> mbx_pb.DrainMessagesResponse:
        return self._run(self._client.drain(agent_id, limit, max_bytes=max_bytes))

    def ack(self, agent_id: str, message_ids: Sequence[str]) -> int:
        return self._run(self._client.ack(agent_id, message_ids))

    def ack_one(self, agent_id: str, message_id: str) -> bool:
        return self._run(self._client.ack_one(agent_id, message_id))

    def subscribe(self, agent_id: str, *, auto_ack: bool = True, wait: float = 30.0,
                  on_wait: Callable[[str], None] | None = None) -> SyncSubscription:
        """Yield messages as they arrive; acks what was handled when the loop moves on or stops.

        `with client.subscribe(me) as inbox: for msg in inbox: ...` leaves the message
        being handled unacked when the block is left by an exception (it comes
        again), as `async with` does; a plain loop cannot tell an exception from a
        `break`, and counts it as handled either way.

        Without a daemon it says "waiting for fabricd at ..." (`on_wait`, default a
        log warning) and raises Unavailable after `wait` seconds (0: wait forever).
        """
        return SyncSubscription(self, self._run(self._subscription(agent_id, auto_ack, wait, on_wait)))

    async def _subscription(self, agent_id: str, auto_ack: bool, wait: float,
                            on_wait: Callable[[str], None] | None) -> Subscription:
        return self._client.subscribe(agent_id, auto_ack=auto_ack, wait=wait, on_wait=on_wait)  # made on the loop

    # -- RendezvousService

    def ask(self, target: str, task: str, *, timeout: float | None = None, source_agent: str | None = None,
            requester: str = "", conversation_id: str = "", request_key: str = "") -> str:
        return self._run(self._client.ask(target, task, timeout=timeout, source_agent=source_agent,
                                          requester=requester, conversation_id=conversation_id,
                                          request_key=request_key))

    def ask_answer(self, target: str, task: str, *, timeout: float | None = None,
                   source_agent: str | None = None, requester: str = "", conversation_id: str = "",
                   data: bytes = b"", headers: Mapping[str, str] | None = None,
                   continue_ticket_id: str = "", request_key: str = "") -> rv_pb.AskResponse:
        return self._run(self._client.ask_answer(target, task, timeout=timeout, source_agent=source_agent,
                                                 requester=requester, conversation_id=conversation_id, data=data,
                                                 headers=headers, continue_ticket_id=continue_ticket_id,
                                                 request_key=request_key))

    def enqueue(self, target: str, task: str, *, source_agent: str | None = None, requester: str = "",
                conversation_id: str = "", data: bytes = b"", headers: Mapping[str, str] | None = None,
                continue_ticket_id: str = "", request_key: str = "") -> rv_pb.EnqueueTicketResponse:
        return self._run(self._client.enqueue(target, task, source_agent=source_agent, requester=requester,
                                              conversation_id=conversation_id, data=data, headers=headers,
                                              continue_ticket_id=continue_ticket_id, request_key=request_key))

    def await_reply(self, ticket_id: str, *, timeout: float | None = None) -> str:
        return self._run(self._client.await_reply(ticket_id, timeout=timeout))

    def await_answer(self, ticket_id: str, *, timeout: float | None = None) -> rv_pb.AwaitReplyResponse:
        return self._run(self._client.await_answer(ticket_id, timeout=timeout))

    def reply(self, agent_id: str, result: str, *, ticket_id: str = "",
              outcome: int = rv_pb.TICKET_OUTCOME_COMPLETED, data: bytes = b"",
              headers: Mapping[str, str] | None = None) -> str:
        return self._run(self._client.reply(agent_id, result, ticket_id=ticket_id, outcome=outcome, data=data,
                                            headers=headers))

    def get_ticket(self, ticket_id: str) -> rv_pb.Ticket:
        return self._run(self._client.get_ticket(ticket_id))

    def cancel_ticket(self, ticket_id: str) -> rv_pb.CancelTicketResponse:
        return self._run(self._client.cancel_ticket(ticket_id))

    def list_tickets(self, agent_id: str, *, conversation_id: str = "", states: Sequence[int] = (),
                     source_agent_id: str = "", page_size: int = 0, page_token: str = "") -> Page[rv_pb.Ticket]:
        return self._run(self._client.list_tickets(agent_id, conversation_id=conversation_id, states=states,
                                                   source_agent_id=source_agent_id, page_size=page_size,
                                                   page_token=page_token))

    def cancel_head(self, agent_id: str, ticket_id: str) -> bool:
        return self._run(self._client.cancel_head(agent_id, ticket_id))

    def close_queue(self, agent_id: str, reason: str = "") -> int:
        return self._run(self._client.close_queue(agent_id, reason))

    def get_queue(self, agent_id: str, *, page_size: int = 0, page_token: str = "") -> Page[rv_pb.QueuedTicket]:
        return self._run(self._client.get_queue(agent_id, page_size=page_size, page_token=page_token))

    def serve(self, agent_id: str, handler: Callable[[rv_pb.Ticket], Any], *, window: int = 16,
              limit: int = 0) -> None:
        """As Client.serve; `handler` is a plain function, run in a worker thread."""

        async def in_thread(ticket: rv_pb.Ticket) -> Any:
            return await asyncio.to_thread(handler, ticket)

        return self._run(self._client.serve(agent_id, in_thread, window=window, limit=limit))

    def watch_queue(self, agent_id: str, *, max_tickets: int = 0) -> Iterator[list[rv_pb.QueuedTicket]]:
        return self._iterate(self._client.watch_queue(agent_id, max_tickets=max_tickets))

    # -- OutboxService

    def fan_out(self, job: ob_pb.SettledJob, content: str) -> ob_pb.FanOutResponse:
        return self._run(self._client.fan_out(job, content))

    def drain_outbox(self) -> ob_pb.DrainOutboxResponse:
        return self._run(self._client.drain_outbox())

    def list_outbox(self, *, state: int = ob_pb.OUTBOX_ROW_STATE_UNSPECIFIED, limit: int = 0,
                    after_key: str = "", page_size: int = 0, page_token: str = "") -> ob_pb.ListOutboxResponse:
        return self._run(self._client.list_outbox(state=state, limit=limit, after_key=after_key, page_size=page_size,
                                                  page_token=page_token))

    def retry_dead_letters(self, keys: Sequence[str] = ()) -> int:
        return self._run(self._client.retry_dead_letters(keys))

    def prune_receipts(self, before_ns: int) -> int:
        return self._run(self._client.prune_receipts(before_ns))

    # -- AgentDirectoryService

    def initialize(self, instructions: str, settings: str = "") -> ad_pb.InitializeResponse:
        return self._run(self._client.initialize(instructions, settings))

    def create_agent(self, name: str, *, description: str = "", instructions: str = "",
                     settings: str = "") -> ad_pb.Agent:
        return self._run(self._client.create_agent(name, description=description, instructions=instructions,
                                                   settings=settings))

    def get_agent(self, agent_id: str) -> ad_pb.Agent:
        return self._run(self._client.get_agent(agent_id))

    def list_agents(self, *, page_size: int = 0, page_token: str = "") -> Page[ad_pb.Agent]:
        return self._run(self._client.list_agents(page_size=page_size, page_token=page_token))

    def create_thread(self, agent_id: str, *, title: str = "", kind: str = "",
                      contexts: Sequence[str] = (), request_key: str = "") -> ad_pb.Thread:
        return self._run(self._client.create_thread(agent_id, title=title, kind=kind, contexts=contexts,
                                                    request_key=request_key))

    def list_threads(self, agent_id: str, *, page_size: int = 0, page_token: str = "") -> Page[ad_pb.Thread]:
        return self._run(self._client.list_threads(agent_id, page_size=page_size, page_token=page_token))

    def admit(self, agent_id: str, submission: ad_pb.Submission, *, thread_id: str = "",
              optional_work: bool = False, request_key: str = "") -> ad_pb.AdmitResponse:
        return self._run(self._client.admit(agent_id, submission, thread_id=thread_id, optional_work=optional_work,
                                            request_key=request_key))

    def settle(self, request_id: str, *, thread_id: str = "", interactive: bool = False,
               notify: bool = False) -> ad_pb.Request:
        return self._run(self._client.settle(request_id, thread_id=thread_id, interactive=interactive, notify=notify))

    def mark_notification_sent(self, request_id: str) -> None:
        self._run(self._client.mark_notification_sent(request_id))

    def list_requests(self, which: int = ad_pb.REQUEST_FILTER_ALL, *, page_size: int = 0,
                      page_token: str = "") -> ad_pb.ListRequestsResponse:
        return self._run(self._client.list_requests(which, page_size=page_size, page_token=page_token))

    def advertise(self, profiles: str, availability: str) -> None:
        self._run(self._client.advertise(profiles, availability))

    def reconcile_repair(self, key: str, generation: int, text: str = "", **fields: Any) -> str:
        return self._run(self._client.reconcile_repair(key, generation, text, **fields))

    def get_directory_data(self) -> ad_pb.DirectoryData:
        return self._run(self._client.get_directory_data())

    def watch_directory_data(self) -> Iterator[ad_pb.WatchDirectoryDataResponse]:
        return self._iterate(self._client.watch_directory_data())

    # -- LeaseService

    def acquire_lease(self, agent_id: str, resources: Sequence[str], *, mode: str = "exclusive",
                      ttl: float | None = None, reason: str = "", wait: bool = False,
                      wait_timeout: float | None = None, renew_with_presence: bool = False) -> ls_pb.Lease:
        return self._run(self._client.acquire_lease(agent_id, resources, mode=mode, ttl=ttl, reason=reason,
                                                    wait=wait, wait_timeout=wait_timeout,
                                                    renew_with_presence=renew_with_presence))

    def renew_lease(self, lease_id: str, *, ttl: float | None = None) -> ls_pb.Lease:
        return self._run(self._client.renew_lease(lease_id, ttl=ttl))

    def release_lease(self, lease_id: str = "", *, agent_id: str = "") -> int:
        return self._run(self._client.release_lease(lease_id, agent_id=agent_id))

    def list_leases(self, *, agent_id: str = "", resource: str = "", page_size: int = 0,
                    page_token: str = "") -> Page[ls_pb.Lease]:
        return self._run(self._client.list_leases(agent_id=agent_id, resource=resource, page_size=page_size,
                                                  page_token=page_token))

    def check_leases(self, paths: Sequence[str], *, agent_id: str = "", mode: str = "exclusive",
                     literal: bool = False) -> list[ls_pb.LeaseHolder]:
        return self._run(self._client.check_leases(paths, agent_id=agent_id, mode=mode, literal=literal))

    def lease_waiters(self, paths: Sequence[str], *, agent_id: str = "", mode: str = "exclusive",
                      literal: bool = False) -> list[ls_pb.LeaseWaiter]:
        return self._run(self._client.lease_waiters(paths, agent_id=agent_id, mode=mode, literal=literal))

    def watch_leases(self) -> Iterator[ls_pb.WatchLeasesResponse]:
        return self._iterate(self._client.watch_leases())

    def rediscover(self) -> bool:
        return self._run(self._rediscover())

    async def _rediscover(self) -> bool:
        return self._client.rediscover()  # on the loop: a new channel belongs to it

    # -- AdminService

    def get_status(self) -> admin_pb.GetStatusResponse:
        return self._run(self._client.get_status())

    def issue_token(self, *, agent_id: str = "", admin: bool = False, label: str = "",
                    session_names: Sequence[str] = ()) -> admin_pb.IssueTokenResponse:
        return self._run(self._client.issue_token(agent_id=agent_id, admin=admin, label=label,
                                                  session_names=session_names))

    def revoke_token(self, token_id: str) -> bool:
        return self._run(self._client.revoke_token(token_id))

    def list_tokens(self, *, page_size: int = 0, page_token: str = "") -> Page[admin_pb.TokenInfo]:
        return self._run(self._client.list_tokens(page_size=page_size, page_token=page_token))

    # -- Old names (deprecated), as on Client: they warn and call the new name.

    queue = _renamed(get_queue, "queue")
    notification_sent = _renamed(mark_notification_sent, "notification_sent")
    directory_data = _renamed(get_directory_data, "directory_data")
    status = _renamed(get_status, "status")


class SyncSubscription(Iterator[pb.Message]):
    """A Subscription stepped from the caller's thread: an iterator of messages, and a context manager."""

    def __init__(self, client: SyncClient, subscription: Subscription) -> None:
        self._client = client
        self._subscription = subscription
        self._messages = client._iterate(subscription)  # closed when this is dropped: a plain loop acks on leaving

    def __iter__(self) -> SyncSubscription:
        return self

    def __next__(self) -> pb.Message:
        return next(self._messages)

    def __enter__(self) -> SyncSubscription:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *exc: object) -> None:
        self.close(handled=exc_type is None)  # left by an exception: the message being handled was not handled

    def close(self, *, handled: bool = True) -> None:
        """Ack what was handled (the last message handed out too, unless `handled=False`), then end the stream."""
        if not self._client._loop.is_closed():
            self._client._run(self._subscription.close(handled=handled))
        self._messages.close()


async def _next(stream: AsyncIterator[T]) -> T:
    return await stream.__anext__()  # a coroutine, as run_coroutine_threadsafe needs; __anext__ may not be one


async def _close(stream: AsyncIterator[Any]) -> None:
    close = getattr(stream, "aclose", None) or stream.close  # an async generator, or a Subscription
    await close()


def _copy_docstrings() -> None:
    """Each twin without its own docstring gets Client's, so help() and IDEs say the same on both."""
    for name, method in vars(SyncClient).items():
        if callable(method) and not name.startswith("_") and not method.__doc__:
            source = getattr(Client, name, None)
            if source is not None and source.__doc__:
                method.__doc__ = source.__doc__


_copy_docstrings()
