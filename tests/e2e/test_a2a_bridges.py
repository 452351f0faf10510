"""A2A callers meet agents they reach another way: an agent driven through the MCP bridge, and mutual TLS."""

from __future__ import annotations

import asyncio
import json

import grpc
import pytest
from a2a.client import ClientConfig, ClientFactory
from a2a.client.client_factory import minimal_agent_card
from a2a.types import GetExtendedAgentCardRequest, GetTaskRequest, Message, Part, Role, SendMessageRequest, TaskState
from mcp import Client as McpClient

from fabricd.client import Client
from tests.e2e.a2a_helpers import AGENT, collect, factory, resolve, text_message
from tests.e2e.test_mcp import bridge, text
from tests.e2e.test_security import certs  # noqa: F401 - the fixture making a CA, server and client certificates

pytestmark = pytest.mark.timeout(60)


async def test_an_agent_driven_through_the_mcp_bridge_answers_an_a2a_caller(daemon) -> None:
    async with McpClient(bridge(daemon, "mcp-agent")) as agent:  # the bridge registers its agent
        client = factory(streaming=False).create(await resolve(daemon.target, "mcp-agent"))

        async def answer(reply: str, outcome: str) -> dict:
            inbox = json.loads(text(await agent.call_tool("read_inbox", {"wait_seconds": 30, "consume": True})))
            (request,) = inbox["messages"]
            text(await agent.call_tool("reply_to_task", {"result": reply, "ticket_id": request["ticket_id"],
                                                         "outcome": outcome}))
            return request

        answering = asyncio.ensure_future(answer("which city?", "input_required"))
        (event,) = await collect(client.send_message(SendMessageRequest(
            message=text_message("what is the weather?", context_id="chat"))))
        request = await answering
        assert "what is the weather?" in request["text"] and request["ticket_id"] == event.task.id
        assert event.task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED

        answering = asyncio.ensure_future(answer("sunny in Paris", "completed"))
        (event,) = await collect(client.send_message(SendMessageRequest(message=Message(
            message_id="follow-up", task_id=event.task.id, role=Role.ROLE_USER, parts=[Part(text="Paris")]))))
        request = await answering
        assert request["ticket_id"] == event.task.id and request["text"].endswith("Paris")
        assert event.task.status.state == TaskState.TASK_STATE_COMPLETED
        assert [p.text for p in event.task.artifacts[0].parts] == ["sunny in Paris"]
        await client.close()


async def test_an_a2a_caller_with_a_client_certificate_sends_as_the_certificates_agent(make_daemon, certs) -> None:  # noqa: F811
    daemon = make_daemon("--listen", "127.0.0.1:0", "--tls-cert", certs["server.crt"], "--tls-key",
                         certs["server.key"], "--tls-client-ca", certs["ca"], "--tls-require-client-cert").start()
    tcp = daemon.wait_for("127.0.0.1:").strip().rsplit(" ", 1)[-1]
    with open(certs["ca"], "rb") as ca, open(certs["alice.crt"], "rb") as crt, open(certs["alice.key"], "rb") as key:
        credentials = grpc.ssl_channel_credentials(ca.read(), key.read(), crt.read())

    def channel(url: str) -> grpc.aio.Channel:
        return grpc.aio.secure_channel(url, credentials)

    mtls = ClientFactory(ClientConfig(streaming=False, grpc_channel_factory=channel,
                                      supported_protocol_bindings=["GRPC"]))
    async with Client(daemon.target) as local:
        await local.register(AGENT)
        bootstrap = minimal_agent_card(tcp, ["GRPC"])
        bootstrap.supported_interfaces[0].tenant = AGENT
        card = await mtls.create(bootstrap).get_extended_agent_card(GetExtendedAgentCardRequest())
        assert "mtls" in card.security_schemes and tcp in [i.url for i in card.supported_interfaces]
        tls_only = [i for i in card.supported_interfaces if i.url == tcp]  # not the card's unix socket
        del card.supported_interfaces[:]
        card.supported_interfaces.extend(tls_only)
        client = mtls.create(card)
        sending = asyncio.ensure_future(collect(client.send_message(SendMessageRequest(
            message=text_message("over mutual TLS")))))
        async for tickets in local.watch_queue(AGENT):
            if tickets:
                break
        (ticket,) = tickets
        assert ticket.source.agent_id == "alice"  # the certificate's CN is the asking agent
        await local.reply(AGENT, "received", ticket_id=ticket.ticket_id)
        (event,) = await sending
        assert event.task.status.state == TaskState.TASK_STATE_COMPLETED
        assert (await client.get_task(GetTaskRequest(id=event.task.id))).id == ticket.ticket_id
        await client.close()
