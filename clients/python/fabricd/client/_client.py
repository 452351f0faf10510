"""The asyncio client: typed errors, coalesced sends and acks, resumable subscriptions."""

from __future__ import annotations

import asyncio
import logging
import os
import warnings
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import grpc

from fabricd.client import _acks, _nodes, _target
from fabricd.client._auth import ClientTls, _BearerBidi, _BearerStream, _BearerUnary
from fabricd.client._batch import Coalescer
from fabricd.client._channels import ChannelCalls
from fabricd.client._errors import FabricError, Unavailable, from_rpc_error, from_status
from fabricd.client._leases import LeaseCalls
from fabricd.client._paging import Page, read_pages
from fabricd.client._sender import NotOffered, SenderStream
from fabricd.client._subscription import Subscription
from fabricd.client._work import WorkCalls
from fabricd.v1 import admin_service_pb2_grpc as admin_grpc
from fabricd.v1 import agent_directory_service_pb2_grpc as ad_grpc
from fabricd.v1 import channel_service_pb2_grpc as ch_grpc
from fabricd.v1 import directory_service_pb2 as dir_pb
from fabricd.v1 import directory_service_pb2_grpc as dir_grpc
from fabricd.v1 import lease_service_pb2_grpc as ls_grpc
from fabricd.v1 import mailbox_service_pb2 as mbx_pb
from fabricd.v1 import mailbox_service_pb2_grpc as mbx_grpc
from fabricd.v1 import outbox_service_pb2_grpc as ob_grpc
from fabricd.v1 import rendezvous_service_pb2_grpc as rv_grpc
from fabricd.v1 import types_pb2 as pb

log = logging.getLogger("fabricd.client")


class AmbiguousNameWarning(UserWarning):
    """Registered under a session name that other live agents use too: sends to the name alone are refused."""

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


_REPLIED_KEPT = 4096


class Client(WorkCalls, ChannelCalls, LeaseCalls):
    """A connection to fabricd. Use `async with Client(target) as client:`.

    `target` is `unix:PATH`, a socket path or `HOST:PORT`; default $FABRICD_TARGET,
    else the first socket that answers of the user unit's, `fabricd serve`'s and
    the system unit's (see `_target`; `tried` says what was looked at). `token` (default $FABRICD_TOKEN) is sent with every
    call; `tls` (default from $FABRICD_TLS_CA/_CERT/_KEY) makes the channel TLS.

    Several nodes on one database: a list of targets, or one string with commas
    (`"a:7077,b:7077"`). Calls go to one node; on UNAVAILABLE the client moves to
    the next, and re-sends the call there when that cannot do it twice (see
    `_nodes`), for up to `retry_window` seconds (default 10 with several targets,
    0 with one: a lone daemon's UNAVAILABLE is raised at once). Behind a load
    balancer, give its one address and a `retry_window`.
    """

    def __init__(self, target: str | Sequence[str] | None = None, *, token: str | None = None,
                 tls: ClientTls | None = None, max_batch: int = 500, retry_window: float | None = None,
                 streams: bool = True) -> None:
        self._resolved = _target.resolve(target)
        self.streams = streams
        """Whether sends, acks and asks may use the daemon's SendStream (unary calls when False or absent)."""
        token = token if token is not None else os.environ.get("FABRICD_TOKEN", "")
        self._tls = tls if tls is not None else ClientTls.from_env()
        self._interceptors = [_BearerUnary(token), _BearerStream(token), _BearerBidi(token)] if token else None
        self._nodes = _nodes.Nodes(self._resolved.targets, self._open)
        self.retry_window = (retry_window if retry_window is not None else
                             _nodes.RETRY_WINDOW_S if len(self._resolved.targets) > 1 else 0.0)
        for name in ("directory", "mailbox", "rendezvous", "admin", "outbox", "agent_directory", "channels", "lease"):
            setattr(self, name, _nodes.Service(self._nodes, name))
        # Batches stay far below gRPC's 64 MiB frame however large the messages are.
        self._sends: Coalescer[pb.Message, SendResult] = Coalescer(
            self._send_batch, max_batch=max_batch, size_of=lambda m: m.ByteSize(), max_bytes=8 << 20)
        self._acks: Coalescer[str, bool] = Coalescer(self._ack_batch, max_batch=1000)
        # Task messages this client's replies consumed, so subscriptions do not ack them again
        # (an AckMessages on the next ask's critical path). Bounded: a miss only costs that ack.
        self._replied: dict[str, None] = {}
        self._sender = SenderStream(self)
        self._background: set[asyncio.Future[Any]] = set()

    def _in_background(self, work: Any) -> None:
        """Run `work` after its caller left; kept until done, so it is not collected half way."""
        task = asyncio.ensure_future(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _streamed(self, kind: str, build: Callable[[], Any], *, resend: bool) -> Any:
        """A send, batch, ack or ask as a frame of the sender stream; None when the client or daemon has none."""
        if not (self.streams and self._sender.offered):
            return None
        try:
            return await self._sender.request(kind, build, resend=resend)
        except NotOffered:
            return None

    @property
    def target(self) -> str:
        """The node calls go to now."""
        return self._nodes.current

    @property
    def targets(self) -> tuple[str, ...]:
        """Every node this client may use, in the order it tries them."""
        return tuple(self._nodes.targets)

    @property
    def discovered(self) -> bool:
        """True when the target was found by socket discovery (no target and no $FABRICD_TARGET given)."""
        return self._resolved.discovered

    @property
    def tried(self) -> str:
        """The sockets discovery looked at and what it found (or the given targets): for messages."""
        if self._resolved.discovered:
            return self._resolved.describe()
        return ", ".join(self._nodes.targets)

    def _open(self, target: str) -> tuple[grpc.aio.Channel, dict[str, Any]]:
        options = [
            ("grpc.max_receive_message_length", 64 << 20),
            ("grpc.max_send_message_length", 64 << 20),
            ("grpc.keepalive_time_ms", 30_000),
            # gRPC's reconnect back-off grows to 120 s; a daemon that comes back is seen within 5 s.
            ("grpc.max_reconnect_backoff_ms", 5_000),
        ]
        if self._tls is not None:
            credentials = grpc.ssl_channel_credentials(root_certificates=self._tls.ca, private_key=self._tls.key,
                                                       certificate_chain=self._tls.cert)
            channel = grpc.aio.secure_channel(target, credentials, options=options, interceptors=self._interceptors)
        else:
            channel = grpc.aio.insecure_channel(target, options=options, interceptors=self._interceptors)
        return channel, {
            "directory": dir_grpc.DirectoryServiceStub(channel),
            "mailbox": mbx_grpc.MailboxServiceStub(channel),
            "rendezvous": rv_grpc.RendezvousServiceStub(channel),
            "admin": admin_grpc.AdminServiceStub(channel),
            "outbox": ob_grpc.OutboxServiceStub(channel),
            "agent_directory": ad_grpc.AgentDirectoryServiceStub(channel),
            "channels": ch_grpc.ChannelServiceStub(channel),
            "lease": ls_grpc.LeaseServiceStub(channel),
        }

    def rediscover(self) -> bool:
        """Look for the daemon's socket again (only when none was given); True when it moved elsewhere.

        A client started before its daemon dials the state-folder socket; when the
        daemon then comes up on another candidate (the user unit's, say), calls go there.
        """
        if not self._resolved.discovered:
            return False
        found = _target.discover()
        if found.target == self.target or not any(c.state == "accepts connections" for c in found.tried):
            self._resolved = _target.Resolved(self.target, found.tried)
            return False
        log.info("fabricd found at %s (was %s)", found.target, self.target)
        self._resolved = found
        self._nodes.replace(found.target)
        return True

    @property
    def _channel(self) -> grpc.aio.Channel:
        """The current node's channel (for stubs of other services, such as A2A's)."""
        return self._nodes.channel

    def _failed(self, target: str) -> bool:
        """A call to `target` answered UNAVAILABLE: later calls go to the next node, if there is one (True)."""
        return self._nodes.failed(target)

    def _error(self, exc: grpc.RpcError) -> FabricError:
        """A failed call as a client exception; an unreachable daemon's names where it was looked for."""
        error = from_rpc_error(exc)
        if isinstance(error, Unavailable) and self._resolved.discovered:
            error.metadata.setdefault("tried", self.tried)
        if isinstance(error, Unavailable) and error.reason == "UNAVAILABLE":  # no answer, not the daemon's refusal
            # What `fabric` prints: gRPC's own words ("failed to connect to all addresses; ...") stay in metadata.
            error.metadata.setdefault("grpc_message", error.message)
            error.message = (f"cannot reach fabricd at {self.target}: is it running? tried {self.tried}; "
                             "start it with `fabricd serve` (or pass its target)")
            error.args = (error.message,)
        return error

    def _stream_error(self, exc: grpc.RpcError, target: str) -> FabricError:
        """A stream's failure as an exception; an UNAVAILABLE node is left, so watching again goes elsewhere."""
        error = self._error(exc)
        if isinstance(error, Unavailable):
            self._failed(target)
        return error

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self, timeout: float = 10.0) -> None:
        """Wait (up to `timeout`) for coalesced sends and acks still in flight, then close the channel."""
        try:
            await asyncio.wait_for(asyncio.gather(self._sends.drain(), self._acks.drain()), timeout)
        except TimeoutError:
            log.warning("closing with calls still in flight after %gs: they fail as cancelled", timeout)
        await self._sender.close()
        await self._nodes.close()

    async def wait_ready(self, timeout: float = 10.0) -> None:
        """Wait until the daemon (with several targets: any of them, which becomes the current one) accepts
        connections."""
        if not await self._nodes.ready(timeout):
            raise Unavailable(f"fabricd at {self.tried} did not answer within {timeout:g}s",
                              reason="NOT_READY") from None

    async def _call(self, rpc: Any, request: Any, timeout: float | None = None, *, resend: bool = False) -> Any:
        """One RPC; on UNAVAILABLE, the next node, where `resend` (sending it twice does it once) re-sends it.

        `request` may be a function that builds the request for each attempt (an Ask's remaining timeout).
        """
        deadline: float | None = None
        attempt = 0
        while True:
            target = self._nodes.current
            try:
                return await rpc(request() if callable(request) else request, timeout=timeout)
            except grpc.RpcError as exc:
                error = self._error(exc)
                if not isinstance(error, Unavailable):
                    raise error from None
                self._failed(target)
                if not resend or self.retry_window <= 0:
                    raise error from None
                loop = asyncio.get_running_loop()
                deadline = deadline if deadline is not None else loop.time() + self.retry_window
                attempt += 1
                if loop.time() >= deadline:
                    raise error from None
                await _nodes.pause(attempt, len(self._nodes.targets))

    # -- DirectoryService

    async def register(self, agent_id: str, *, session_name: str = "", capabilities: Iterable[pb.Capability | str] = (),
                       cwd: str = "", metadata: Mapping[str, str] | None = None) -> pb.MailboxEntry:
        caps = [c if isinstance(c, pb.Capability) else pb.Capability(name=c) for c in capabilities]
        request = dir_pb.RegisterRequest(agent_id=agent_id, session_name=session_name, capabilities=caps, cwd=cwd,
                                         metadata=dict(metadata or {}))
        response = await self._call(self.directory.Register, request, resend=True)
        if response.name_shared_with:
            warnings.warn(f"session name {response.entry.session_name!r} is now ambiguous: live agents "
                          f"{', '.join(response.name_shared_with)} use it too", AmbiguousNameWarning, stacklevel=2)
        return response.entry

    async def touch(self, agent_id: str, *, busy: bool = False, offline: bool = False) -> dir_pb.TouchResponse:
        """Heartbeat (`offline=True`: goodbye). The response says whether the entry was created."""
        request = dir_pb.TouchRequest(agent_id=agent_id, busy=busy, offline=offline)
        return await self._call(self.directory.Touch, request, resend=True)

    async def unregister(self, agent_id: str, *, purge: bool = False) -> dir_pb.UnregisterResponse:
        """Remove a mailbox; with `purge`, even with unread mail or queued tickets (deleted, aborted)."""
        return await self._call(self.directory.Unregister, dir_pb.UnregisterRequest(agent_id=agent_id, purge=purge))

    async def set_wake_hook(self, agent_id: str, *, url: str = "", command: Sequence[str] = (),
                            quiet_period: float | None = None, only_when_idle: bool = True,
                            ) -> dir_pb.SetWakeHookResponse:
        """Wake the agent when work arrives while it is idle: POST to `url`, or run `command` (admin only).

        `quiet_period` (seconds, default 30) is the least time between two wakes; `only_when_idle=False`
        fires even while the agent is subscribed or busy. The response's `secret` (URL hooks) keys the
        HMAC-SHA256 in each POST's Fabricd-Signature header. Neither url nor command removes the hook.
        """
        hook = dir_pb.WakeHook(url=url, command=list(command), only_when_idle=only_when_idle)
        if quiet_period is not None:
            hook.quiet_period.FromNanoseconds(round(quiet_period * 1e9))
        request = dir_pb.SetWakeHookRequest(agent_id=agent_id, hook=hook)
        return await self._call(self.directory.SetWakeHook, request)

    async def get_wake_hook(self, agent_id: str) -> dir_pb.GetWakeHookResponse:
        """The agent's wake hook (`HasField("hook")` is False when it has none) and how often it fired."""
        return await self._call(self.directory.GetWakeHook, dir_pb.GetWakeHookRequest(agent_id=agent_id))

    async def clear_wake_hook(self, agent_id: str) -> None:
        """Remove the agent's wake hook (nothing happens when it has none)."""
        await self._call(self.directory.SetWakeHook, dir_pb.SetWakeHookRequest(agent_id=agent_id))

    async def list_mailboxes(self, *, page_size: int = 0, page_token: str = "") -> Page[pb.MailboxEntry]:
        """Every mailbox (page after page), or one page when given a page_size or page_token."""
        def fetch(size: int, token: str) -> Any:
            request = dir_pb.ListMailboxesRequest(page_size=size, page_token=token)
            return self._call(self.directory.ListMailboxes, request, resend=True)

        return await read_pages(fetch, lambda r: r.mailboxes, page_size, page_token)

    async def resolve(self, name: str) -> pb.MailboxEntry:
        return (await self._call(self.directory.ResolveName, dir_pb.ResolveNameRequest(name=name), resend=True)).entry

    async def watch_mailboxes(self) -> AsyncIterator[dir_pb.WatchMailboxesResponse]:
        """The snapshot, then every change; empty responses (keepalives) are skipped."""
        target = self.target
        call = self.directory.WatchMailboxes(dir_pb.WatchMailboxesRequest())
        try:
            async for response in call:
                if response.events or response.snapshot_complete:
                    yield response
        except grpc.RpcError as exc:
            raise self._stream_error(exc, target) from None
        finally:
            call.cancel()

    # -- MailboxService

    async def send(self, to: AddressLike, text: str = "", *, sender: AddressLike | None = None, id: str = "",
                   data: bytes = b"", headers: Mapping[str, str] | None = None, thread_id: str = "",
                   reply_to: Iterable[AddressLike] = (), kind: int = pb.MESSAGE_KIND_AGENT,
                   hops: int = 0, create_mailbox: bool = False) -> SendResult:
        """Send one message. Concurrent sends from this client share one batched RPC.

        A recipient that is neither a registered agent nor an existing mailbox raises
        NotFound (reason UNKNOWN_RECIPIENT, with suggestions) unless `create_mailbox`.
        """
        message = pb.Message(id=id, recipient=address(to), sender=address(sender), text=text, data=data,
                             headers=dict(headers or {}), thread_id=thread_id,
                             reply_to=[address(a) for a in reply_to], kind=kind, hops=hops)
        return await self.send_message(message, create_mailbox=create_mailbox)

    async def send_message(self, message: pb.Message, *, create_mailbox: bool = False) -> SendResult:
        return await self._sends.submit(create_mailbox, message)

    async def _send_batch(self, create_mailbox: object, messages: Sequence[pb.Message]) -> list[SendResult | FabricError]:
        create = bool(create_mailbox)
        if len(messages) == 1:
            request = mbx_pb.SendMessageRequest(message=messages[0], create_mailbox=create)
            try:
                r = await self._streamed("send", lambda: request, resend=bool(messages[0].id))
            except FabricError as exc:
                return [exc]
            if r is not None:
                return [SendResult(r.message, r.duplicate)]
        else:
            batch = mbx_pb.SendMessagesRequest(messages=messages, create_mailbox=create)
            streamed = await self._streamed("send_many", lambda: batch, resend=all(m.id for m in messages))
            if streamed is not None:
                return [from_status(r.error) if r.HasField("error") else SendResult(r.message, r.duplicate)
                        for r in streamed.results]
        if len(messages) == 1:  # one caller: the plain RPC, errors and all
            try:
                r = await self._call(self.mailbox.SendMessage,
                                     mbx_pb.SendMessageRequest(message=messages[0], create_mailbox=create),
                                     resend=bool(messages[0].id))  # a client id makes a resend a duplicate
            except FabricError as exc:
                return [exc]
            return [SendResult(r.message, r.duplicate)]
        response = await self._call(self.mailbox.SendMessages,
                                    mbx_pb.SendMessagesRequest(messages=messages, create_mailbox=create),
                                    resend=all(m.id for m in messages))
        return [from_status(r.error) if r.HasField("error") else SendResult(r.message, r.duplicate)
                for r in response.results]

    async def send_many(self, messages: Sequence[pb.Message], *, atomic: bool = False,
                        create_mailbox: bool = False) -> list[SendResult | FabricError]:
        """One SendMessages call (a frame of the send stream); each message gets its result or its exception
        (not raised)."""
        request = mbx_pb.SendMessagesRequest(messages=messages, atomic=atomic, create_mailbox=create_mailbox)
        resend = all(m.id for m in messages)
        response = await self._streamed("send_many", lambda: request, resend=resend)
        if response is None:
            response = await self._call(self.mailbox.SendMessages, request, resend=resend)
        return [from_status(r.error) if r.HasField("error") else SendResult(r.message, r.duplicate)
                for r in response.results]

    async def peek(self, agent_id: str, limit: int = 0, *, max_bytes: int = 0) -> mbx_pb.PeekMessagesResponse:
        """Unread messages without consuming them; `max_bytes` of them at most (0: under 4 MiB, up to 16 MiB)."""
        return await self._call(self.mailbox.PeekMessages, mbx_pb.PeekMessagesRequest(
            agent_id=agent_id, limit=limit, max_bytes=max_bytes), resend=True)

    async def drain(self, agent_id: str, limit: int = 0, *, max_bytes: int = 0) -> mbx_pb.DrainMessagesResponse:
        """Consume the oldest unread messages; `max_bytes` of them at most (0: under 4 MiB, up to 16 MiB)."""
        return await self._call(self.mailbox.DrainMessages, mbx_pb.DrainMessagesRequest(
            agent_id=agent_id, limit=limit, max_bytes=max_bytes))

    async def ack(self, agent_id: str, message_ids: Sequence[str]) -> int:
        """Consume, for each id named, the oldest unread copy of it in `agent_id`'s mailbox; the count consumed.

        An ack whose answer is lost (a cut stream, a dropped connection) is sent again only when every id is one
        the daemon minted: a chosen id may be another sender's too, and the ack sent again would take its copy
        (fabricd.client._acks). Otherwise it raises Unavailable, and what it did not consume stays unread.
        """
        request = mbx_pb.AckMessagesRequest(agent_id=agent_id, message_ids=message_ids)
        resend = _acks.resend_safe(message_ids)
        response = await self._streamed("ack", lambda: request, resend=resend)
        if response is None:
            response = await self._call(self.mailbox.AckMessages, request, resend=resend)
        return response.acked

    async def ack_one(self, agent_id: str, message_id: str) -> bool:
        """Ack one message; concurrent acks for one mailbox share one RPC."""
        return await self._acks.submit(agent_id, message_id)

    async def _ack_batch(self, agent_id: str, ids: Sequence[str]) -> list[bool]:
        await self.ack(agent_id, ids)
        return [True] * len(ids)

    def _consumed(self, message_id: str) -> None:
        self._replied[message_id] = None
        if len(self._replied) > _REPLIED_KEPT:
            del self._replied[next(iter(self._replied))]

    def _needs_ack(self, message_id: str) -> bool:
        """False for a task message a reply from this client already consumed (asked once, then forgotten)."""
        if message_id in self._replied:
            del self._replied[message_id]
            return False
        return True

    def subscribe(self, agent_id: str, *, auto_ack: bool = True, wait: float = 30.0,
                  on_wait: Callable[[str], None] | None = None) -> Subscription:
        """Follow a mailbox: `async with client.subscribe(me) as inbox: async for msg in inbox: ...`.

        While the daemon cannot be reached the subscription says so (`on_wait`,
        default a log warning) and retries; after `wait` seconds without it, it
        raises Unavailable (NOT_READY). `wait=0` retries forever (services).
        """
        return Subscription(self, agent_id, auto_ack=auto_ack, wait=wait, on_wait=on_wait)
