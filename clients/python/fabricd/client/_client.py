"""The asyncio client: typed errors, coalesced sends and acks, resumable subscriptions."""

from __future__ import annotations

import asyncio
import collections
import logging
import os
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import grpc

from fabricd import paths
from fabricd.client._batch import Coalescer
from fabricd.client._errors import FabricError, Unavailable, from_rpc_error, from_status
from fabricd.v1 import directory_service_pb2 as dir_pb
from fabricd.v1 import directory_service_pb2_grpc as dir_grpc
from fabricd.v1 import mailbox_service_pb2 as mbx_pb
from fabricd.v1 import mailbox_service_pb2_grpc as mbx_grpc
from fabricd.v1 import admin_service_pb2 as admin_pb
from fabricd.v1 import admin_service_pb2_grpc as admin_grpc
from fabricd.v1 import agent_directory_service_pb2 as ad_pb
from fabricd.v1 import agent_directory_service_pb2_grpc as ad_grpc
from fabricd.v1 import outbox_service_pb2 as ob_pb
from fabricd.v1 import outbox_service_pb2_grpc as ob_grpc
from fabricd.v1 import rendezvous_service_pb2 as rv_pb
from fabricd.v1 import rendezvous_service_pb2_grpc as rv_grpc
from fabricd.v1 import types_pb2 as pb

log = logging.getLogger("fabricd.client")

AddressLike = pb.Address | tuple[str, str] | str


def address(value: AddressLike | None) -> pb.Address | None:
    """An Address from an Address, an (agent_id, session_id) pair or an agent id."""
    if value is None or isinstance(value, pb.Address):
        return value
    if isinstance(value, tuple):
        return pb.Address(agent_id=value[0], session_id=value[1])
    return pb.Address(agent_id=value)


@dataclass(frozen=True, slots=True)
class SendResult:
    message: pb.Message
    """The stored message, with id, seq, send_time and the resolved recipient."""
    duplicate: bool
    """True when this id was already stored with this body: nothing new was stored."""


_RETRYABLE = (grpc.StatusCode.UNAVAILABLE,)


@dataclass(frozen=True, slots=True)
class ClientTls:
    """TLS to the daemon: the CA that signed its certificate, and for mutual TLS our own."""

    ca: bytes | None = None
    cert: bytes | None = None
    key: bytes | None = None

    @classmethod
    def from_files(cls, ca: str = "", cert: str = "", key: str = "") -> ClientTls:
        def read(path: str) -> bytes | None:
            if not path:
                return None
            with open(path, "rb") as f:
                return f.read()

        return cls(read(ca), read(cert), read(key))

    @classmethod
    def from_env(cls) -> ClientTls | None:
        """$FABRICD_TLS_CA, $FABRICD_TLS_CERT, $FABRICD_TLS_KEY; None when none is set."""
        names = ("FABRICD_TLS_CA", "FABRICD_TLS_CERT", "FABRICD_TLS_KEY")
        if not any(os.environ.get(n) for n in names):
            return None
        return cls.from_files(*(os.environ.get(n, "") for n in names))


class _Bearer:
    """Adds `authorization: Bearer <token>` to every call."""

    def __init__(self, token: str) -> None:
        self._metadata = ("authorization", f"Bearer {token}")

    def _details(self, details: grpc.aio.ClientCallDetails) -> grpc.aio.ClientCallDetails:
        metadata = grpc.aio.Metadata(*(details.metadata or ()))
        metadata.add(*self._metadata)
        return grpc.aio.ClientCallDetails(details.method, details.timeout, metadata, details.credentials,
                                          details.wait_for_ready)


# grpc.aio files an interceptor under its first matching kind only: one class per kind.
class _BearerUnary(_Bearer, grpc.aio.UnaryUnaryClientInterceptor):
    async def intercept_unary_unary(self, continuation, details, request):  # noqa: ANN001, ANN201
        return await continuation(self._details(details), request)


class _BearerStream(_Bearer, grpc.aio.UnaryStreamClientInterceptor):
    async def intercept_unary_stream(self, continuation, details, request):  # noqa: ANN001, ANN201
        return await continuation(self._details(details), request)


class Client:
    """A connection to one fabricd. Use `async with Client(target) as client:`.

    `target` is `unix:PATH` or `HOST:PORT`; default $FABRICD_TARGET, else the
    daemon's default socket. `token` (default $FABRICD_TOKEN) is sent with every
    call; `tls` (default from $FABRICD_TLS_CA/_CERT/_KEY) makes the channel TLS.
    """

    def __init__(self, target: str | None = None, *, token: str | None = None, tls: ClientTls | None = None,
                 max_batch: int = 500) -> None:
        self.target = target or paths.default_target()
        token = token if token is not None else os.environ.get("FABRICD_TOKEN", "")
        tls = tls if tls is not None else ClientTls.from_env()
        options = [
            ("grpc.max_receive_message_length", 64 << 20),
            ("grpc.max_send_message_length", 64 << 20),
            ("grpc.keepalive_time_ms", 30_000),
        ]
        interceptors = [_BearerUnary(token), _BearerStream(token)] if token else None
        if tls is not None:
            credentials = grpc.ssl_channel_credentials(root_certificates=tls.ca, private_key=tls.key,
                                                       certificate_chain=tls.cert)
            self._channel = grpc.aio.secure_channel(self.target, credentials, options=options,
                                                    interceptors=interceptors)
        else:
            self._channel = grpc.aio.insecure_channel(self.target, options=options, interceptors=interceptors)
        self.directory = dir_grpc.DirectoryServiceStub(self._channel)
        self.mailbox = mbx_grpc.MailboxServiceStub(self._channel)
        self.rendezvous = rv_grpc.RendezvousServiceStub(self._channel)
        self.admin = admin_grpc.AdminServiceStub(self._channel)
        self.outbox = ob_grpc.OutboxServiceStub(self._channel)
        self.agent_directory = ad_grpc.AgentDirectoryServiceStub(self._channel)
        self._sends: Coalescer[pb.Message, SendResult] = Coalescer(self._send_batch, max_batch=max_batch)
        self._acks: Coalescer[str, bool] = Coalescer(self._ack_batch, max_batch=1000)

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        await self._sends.drain()
        await self._acks.drain()
        await self._channel.close()

    async def wait_ready(self, timeout: float = 10.0) -> None:
        """Wait until the daemon accepts connections."""
        try:
            await asyncio.wait_for(self._channel.channel_ready(), timeout)
        except TimeoutError:
            raise Unavailable(f"fabricd at {self.target} did not answer within {timeout:g}s",
                              reason="NOT_READY") from None

    async def _call(self, rpc: Any, request: Any, timeout: float | None = None) -> Any:
        try:
            return await rpc(request, timeout=timeout)
        except grpc.RpcError as exc:
            raise from_rpc_error(exc) from None

    # -- DirectoryService

    async def register(self, agent_id: str, *, session_name: str = "", capabilities: Iterable[pb.Capability | str] = (),
                       cwd: str = "", metadata: Mapping[str, str] | None = None) -> pb.MailboxEntry:
        caps = [c if isinstance(c, pb.Capability) else pb.Capability(name=c) for c in capabilities]
        request = dir_pb.RegisterRequest(agent_id=agent_id, session_name=session_name, capabilities=caps, cwd=cwd,
                                         metadata=dict(metadata or {}))
        return (await self._call(self.directory.Register, request)).entry

    async def touch(self, agent_id: str, *, busy: bool = False) -> None:
        await self._call(self.directory.Touch, dir_pb.TouchRequest(agent_id=agent_id, busy=busy))

    async def list_mailboxes(self) -> list[pb.MailboxEntry]:
        return list((await self._call(self.directory.ListMailboxes, dir_pb.ListMailboxesRequest())).mailboxes)

    async def resolve(self, name: str) -> pb.MailboxEntry:
        return (await self._call(self.directory.ResolveName, dir_pb.ResolveNameRequest(name=name))).entry

    async def watch_mailboxes(self) -> AsyncIterator[dir_pb.WatchMailboxesResponse]:
        """The snapshot, then every change; empty responses (keepalives) are skipped."""
        call = self.directory.WatchMailboxes(dir_pb.WatchMailboxesRequest())
        try:
            async for response in call:
                if response.events or response.snapshot_complete:
                    yield response
        except grpc.RpcError as exc:
            raise from_rpc_error(exc) from None
        finally:
            call.cancel()

    # -- MailboxService

    async def send(self, to: AddressLike, text: str = "", *, sender: AddressLike | None = None, id: str = "",
                   data: bytes = b"", headers: Mapping[str, str] | None = None, thread_id: str = "",
                   reply_to: Iterable[AddressLike] = (), kind: int = pb.MESSAGE_KIND_AGENT,
                   hops: int = 0) -> SendResult:
        """Send one message. Concurrent sends from this client share one batched RPC."""
        message = pb.Message(id=id, recipient=address(to), sender=address(sender), text=text, data=data,
                             headers=dict(headers or {}), thread_id=thread_id,
                             reply_to=[address(a) for a in reply_to], kind=kind, hops=hops)
        return await self.send_message(message)

    async def send_message(self, message: pb.Message) -> SendResult:
        return await self._sends.submit(None, message)

    async def _send_batch(self, _key: object, messages: Sequence[pb.Message]) -> list[SendResult | FabricError]:
        if len(messages) == 1:  # one caller: the plain RPC, errors and all
            try:
                r = await self._call(self.mailbox.SendMessage, mbx_pb.SendMessageRequest(message=messages[0]))
            except FabricError as exc:
                return [exc]
            return [SendResult(r.message, r.duplicate)]
        response = await self._call(self.mailbox.SendMessages, mbx_pb.SendMessagesRequest(messages=messages))
        return [from_status(r.error) if r.HasField("error") else SendResult(r.message, r.duplicate)
                for r in response.results]

    async def send_many(self, messages: Sequence[pb.Message], *, atomic: bool = False) -> list[SendResult | FabricError]:
        """One SendMessages RPC; each message gets its result or its exception (not raised)."""
        response = await self._call(self.mailbox.SendMessages,
                                    mbx_pb.SendMessagesRequest(messages=messages, atomic=atomic))
        return [from_status(r.error) if r.HasField("error") else SendResult(r.message, r.duplicate)
                for r in response.results]

    async def peek(self, agent_id: str, limit: int = 0) -> mbx_pb.PeekMessagesResponse:
        return await self._call(self.mailbox.PeekMessages, mbx_pb.PeekMessagesRequest(agent_id=agent_id, limit=limit))

    async def drain(self, agent_id: str, limit: int = 0) -> mbx_pb.DrainMessagesResponse:
        return await self._call(self.mailbox.DrainMessages, mbx_pb.DrainMessagesRequest(agent_id=agent_id, limit=limit))

    async def ack(self, agent_id: str, message_ids: Sequence[str]) -> int:
        response = await self._call(self.mailbox.AckMessages,
                                    mbx_pb.AckMessagesRequest(agent_id=agent_id, message_ids=message_ids))
        return response.acked

    async def ack_one(self, agent_id: str, message_id: str) -> bool:
        """Ack one message; concurrent acks for one mailbox share one RPC."""
        return await self._acks.submit(agent_id, message_id)

    async def _ack_batch(self, agent_id: str, ids: Sequence[str]) -> list[bool]:
        await self.ack(agent_id, ids)
        return [True] * len(ids)

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
        return (await self._call(self.rendezvous.Reply, request)).ticket_id

    async def cancel_head(self, agent_id: str, ticket_id: str) -> bool:
        request = rv_pb.CancelHeadRequest(agent_id=agent_id, ticket_id=ticket_id)
        return (await self._call(self.rendezvous.CancelHead, request)).cancelled

    async def close_queue(self, agent_id: str, reason: str = "") -> int:
        request = rv_pb.CloseQueueRequest(agent_id=agent_id, reason=reason)
        return (await self._call(self.rendezvous.CloseQueue, request)).aborted

    async def queue(self, agent_id: str) -> list[rv_pb.QueuedTicket]:
        return list((await self._call(self.rendezvous.GetQueue, rv_pb.GetQueueRequest(agent_id=agent_id))).tickets)

    async def watch_queue(self, agent_id: str) -> AsyncIterator[list[rv_pb.QueuedTicket]]:
        """The queue now, then after every change (keepalives skipped)."""
        call = self.rendezvous.WatchQueue(rv_pb.WatchQueueRequest(agent_id=agent_id))
        try:
            async for response in call:
                if not response.keepalive:
                    yield list(response.tickets)
        except grpc.RpcError as exc:
            raise from_rpc_error(exc) from None
        finally:
            call.cancel()

    # -- OutboxService

    async def fan_out(self, job: ob_pb.SettledJob, content: str) -> ob_pb.FanOutResponse:
        """Queue one reply per reply-to address of the job's mail; a replay writes nothing new."""
        return await self._call(self.outbox.FanOut, ob_pb.FanOutRequest(job=job, content=content))

    async def drain_outbox(self) -> ob_pb.DrainOutboxResponse:
        return await self._call(self.outbox.DrainOutbox, ob_pb.DrainOutboxRequest())

    async def list_outbox(self, *, state: int = ob_pb.OUTBOX_ROW_STATE_UNSPECIFIED, limit: int = 0,
                          after_key: str = "") -> ob_pb.ListOutboxResponse:
        request = ob_pb.ListOutboxRequest(state=state, limit=limit, after_key=after_key)
        return await self._call(self.outbox.ListOutbox, request)

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

    async def list_agents(self) -> list[ad_pb.Agent]:
        return list((await self._call(self.agent_directory.ListAgents, ad_pb.ListAgentsRequest())).agents)

    async def create_thread(self, agent_id: str, *, title: str = "", kind: str = "",
                            contexts: Sequence[str] = ()) -> ad_pb.Thread:
        request = ad_pb.CreateThreadRequest(agent_id=agent_id, title=title, kind=kind, contexts=list(contexts))
        return (await self._call(self.agent_directory.CreateThread, request)).thread

    async def list_threads(self, agent_id: str) -> list[ad_pb.Thread]:
        request = ad_pb.ListThreadsRequest(agent_id=agent_id)
        return list((await self._call(self.agent_directory.ListThreads, request)).threads)

    async def admit(self, agent_id: str, submission: ad_pb.Submission, *, thread_id: str = "",
                    optional_work: bool = False) -> ad_pb.AdmitResponse:
        """Admit work; a refusal is an answer (accepted = False, reason), not an exception."""
        request = ad_pb.AdmitRequest(agent_id=agent_id, thread_id=thread_id, submission=submission,
                                     optional_work=optional_work)
        return await self._call(self.agent_directory.Admit, request)

    async def settle(self, request_id: str, *, thread_id: str = "", interactive: bool = False,
                     notify: bool = False) -> ad_pb.Request:
        request = ad_pb.SettleRequest(request_id=request_id, thread_id=thread_id, interactive=interactive,
                                      notify=notify)
        return (await self._call(self.agent_directory.Settle, request)).request

    async def notification_sent(self, request_id: str) -> None:
        await self._call(self.agent_directory.NotificationSent, ad_pb.NotificationSentRequest(request_id=request_id))

    async def list_requests(self, which: int = ad_pb.REQUEST_FILTER_ALL, *, page_size: int = 0,
                            page_token: str = "") -> ad_pb.ListRequestsResponse:
        request = ad_pb.ListRequestsRequest(filter=which, page_size=page_size, page_token=page_token)
        return await self._call(self.agent_directory.ListRequests, request)

    async def advertise(self, profiles: str, availability: str) -> None:
        request = ad_pb.AdvertiseRequest(profiles=profiles, availability=availability)
        await self._call(self.agent_directory.Advertise, request)

    async def reconcile_repair(self, key: str, generation: int, text: str = "", **fields: Any) -> str:
        """Admit a repair idempotently by key and generation; returns its request id."""
        request = ad_pb.ReconcileRepairRequest(key=key, generation=generation, text=text, **fields)
        return (await self._call(self.agent_directory.ReconcileRepair, request)).request_id

    async def directory_data(self) -> ad_pb.DirectoryData:
        return (await self._call(self.agent_directory.GetDirectoryData, ad_pb.GetDirectoryDataRequest())).data

    async def watch_directory_data(self) -> AsyncIterator[ad_pb.WatchDirectoryDataResponse]:
        """The data now, then once per change in sequence order (keepalives skipped)."""
        call = self.agent_directory.WatchDirectoryData(ad_pb.WatchDirectoryDataRequest())
        try:
            async for response in call:
                if not response.keepalive:
                    yield response
        except grpc.RpcError as exc:
            raise from_rpc_error(exc) from None
        finally:
            call.cancel()

    # -- AdminService

    async def status(self) -> admin_pb.GetStatusResponse:
        return await self._call(self.admin.GetStatus, admin_pb.GetStatusRequest())

    async def issue_token(self, *, agent_id: str = "", admin: bool = False,
                          label: str = "") -> admin_pb.IssueTokenResponse:
        """An admin token (admin=True) or one that acts as `agent_id` only; the token is shown once."""
        scope = admin_pb.TOKEN_SCOPE_ADMIN if admin else admin_pb.TOKEN_SCOPE_AGENT
        request = admin_pb.IssueTokenRequest(scope=scope, agent_id=agent_id, label=label)
        return await self._call(self.admin.IssueToken, request)

    async def revoke_token(self, token_id: str) -> bool:
        return (await self._call(self.admin.RevokeToken, admin_pb.RevokeTokenRequest(token_id=token_id))).revoked

    async def list_tokens(self) -> list[admin_pb.TokenInfo]:
        return list((await self._call(self.admin.ListTokens, admin_pb.ListTokensRequest())).tokens)

    def subscribe(self, agent_id: str, *, auto_ack: bool = True) -> Subscription:
        """Follow a mailbox: `async with client.subscribe(me) as inbox: async for msg in inbox: ...`."""
        return Subscription(self, agent_id, auto_ack=auto_ack)


class Subscription:
    """Unread mail, then new mail as it arrives, surviving dropped connections.

    With `auto_ack` (the default) a message counts as handled when the caller
    asks for the next one, or when the subscription closes; handled messages are
    acknowledged in batches. A message handed out but not handled before a
    crash is delivered again by the next Subscribe. Across reconnects within
    one Subscription, nothing is handed out twice and nothing is skipped.
    """

    def __init__(self, client: Client, agent_id: str, *, auto_ack: bool = True, ack_batch: int = 256,
                 max_backoff: float = 2.0) -> None:
        self._client = client
        self.agent_id = agent_id
        self._auto_ack = auto_ack
        self._ack_batch = ack_batch
        self._max_backoff = max_backoff
        self._buffer: collections.deque[pb.Message] = collections.deque()
        self._call: Any = None
        self._last_seq = 0
        self._handed: pb.Message | None = None
        self._to_ack: list[str] = []
        self._ack_tasks: set[asyncio.Task[None]] = set()
        self._closed = False
        self.reconnects = 0

    async def __aenter__(self) -> Subscription:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def __aiter__(self) -> Subscription:
        return self

    async def __anext__(self) -> pb.Message:
        if self._handed is not None and self._auto_ack:
            self._to_ack.append(self._handed.id)
            self._handed = None
        while not self._buffer:
            if self._closed:
                raise StopAsyncIteration
            if self._to_ack:
                self._flush_acks()
            await self._fill()
        if len(self._to_ack) >= self._ack_batch:
            self._flush_acks()
        message = self._buffer.popleft()
        self._handed = message
        return message

    async def ack(self, *messages: pb.Message | str) -> None:
        """Acknowledge handled messages by hand (with auto_ack=False)."""
        self._to_ack.extend(m if isinstance(m, str) else m.id for m in messages)
        self._flush_acks()

    def _flush_acks(self) -> None:
        ids, self._to_ack = self._to_ack, []
        task = asyncio.get_running_loop().create_task(self._send_acks(ids))
        self._ack_tasks.add(task)
        task.add_done_callback(self._ack_tasks.discard)

    async def _send_acks(self, ids: list[str]) -> None:
        for start in range(0, len(ids), 1000):
            chunk = ids[start : start + 1000]
            try:
                await self._client.ack(self.agent_id, chunk)
            except FabricError as exc:  # kept: retried with the next flush
                log.debug("ack of %d messages failed, will retry: %s", len(chunk), exc)
                self._to_ack.extend(chunk)

    async def _fill(self) -> None:
        backoff = 0.05
        while True:
            if self._call is None:
                self._call = self._client.mailbox.Subscribe(mbx_pb.SubscribeRequest(agent_id=self.agent_id))
            try:
                response = await self._call.read()
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if task is not None and task.cancelling():
                    raise  # we are being cancelled (a timeout around __anext__, say): the call goes with us
                self._call = None  # the call was cancelled by an earlier interrupted read: subscribe again
                continue
            except grpc.RpcError as exc:
                self._call = None
                if exc.code() not in _RETRYABLE or self._closed:
                    raise from_rpc_error(exc) from None
            else:
                if response is grpc.aio.EOF:  # the daemon ended the stream (shutdown): resubscribe
                    self._call = None
                else:
                    fresh = [m for m in response.messages if m.seq > self._last_seq]
                    if fresh:
                        self._last_seq = fresh[-1].seq
                        self._buffer.extend(fresh)
                    return
            if self._closed:
                return
            self.reconnects += 1
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, self._max_backoff)

    async def close(self) -> None:
        """Ack what was handled, then end the stream."""
        if self._closed:
            return
        self._closed = True
        if self._handed is not None and self._auto_ack:
            self._to_ack.append(self._handed.id)
            self._handed = None
        if self._call is not None:
            self._call.cancel()
            self._call = None
        for _ in range(3):
            if self._to_ack:
                self._flush_acks()
            if self._ack_tasks:
                await asyncio.gather(*list(self._ack_tasks), return_exceptions=True)
            if not self._to_ack:
                break
