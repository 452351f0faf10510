"""Helpers of the A2A tests: the official a2a-sdk client pointed at a daemon, and waits that are not sleeps."""

from __future__ import annotations

import uuid

import grpc
from a2a.client import ClientConfig, ClientFactory
from a2a.client.client_factory import minimal_agent_card
from a2a.types import GetExtendedAgentCardRequest, Message, Part, Role

from fabricd.client import Client

AGENT = "researcher"


class Bearer(grpc.aio.UnaryUnaryClientInterceptor, grpc.aio.UnaryStreamClientInterceptor):
    """Adds `authorization: Bearer TOKEN` to every call, as an A2A client configured with a token does."""

    def __init__(self, token: str) -> None:
        self.token = token

    def _details(self, details):  # noqa: ANN202
        metadata = list(details.metadata or ()) + [("authorization", f"Bearer {self.token}")]
        return details._replace(metadata=metadata)

    async def intercept_unary_unary(self, continuation, details, request):  # noqa: ANN201
        return await continuation(self._details(details), request)

    async def intercept_unary_stream(self, continuation, details, request):  # noqa: ANN201
        return await continuation(self._details(details), request)


def factory(token: str = "", *, streaming: bool = True, polling: bool = False) -> ClientFactory:
    def channel(url: str) -> grpc.aio.Channel:
        return grpc.aio.insecure_channel(url, interceptors=[Bearer(token)] if token else None)

    return ClientFactory(ClientConfig(streaming=streaming, polling=polling, grpc_channel_factory=channel,
                                      supported_protocol_bindings=["GRPC"]))


async def resolve(target: str, tenant: str, token: str = ""):  # noqa: ANN201
    """The agent's card, through the SDK: a minimal card naming the endpoint, then GetExtendedAgentCard."""
    bootstrap = minimal_agent_card(target, ["GRPC"])
    bootstrap.supported_interfaces[0].tenant = tenant
    client = factory(token).create(bootstrap)
    try:
        return await client.get_extended_agent_card(GetExtendedAgentCardRequest())
    finally:
        await client.close()


def text_message(text: str, message_id: str = "", context_id: str = "") -> Message:
    return Message(message_id=message_id or str(uuid.uuid4()), context_id=context_id, role=Role.ROLE_USER,
                   parts=[Part(text=text)])


async def collect(events) -> list:
    return [event async for event in events]


async def queued(fabric: Client, agent: str, count: int) -> list:
    """Wait (on WatchQueue, not a sleep) until `agent` has `count` queued tickets."""
    async for tickets in fabric.watch_queue(agent):
        if len(tickets) >= count:
            return tickets
    raise AssertionError("the queue watch ended")
