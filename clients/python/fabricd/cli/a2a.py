"""`fabric a2a`: an agent as Agent2Agent (A2A) clients see it."""

from __future__ import annotations

import click
import grpc
from google.protobuf import json_format

from fabricd.a2a import a2a_pb2, a2a_pb2_grpc
from fabricd.cli.app import Context, cli
from fabricd.client import Client
from fabricd.client._errors import from_rpc_error


@cli.group()
def a2a() -> None:
    """The A2A (Agent2Agent protocol 1.0, gRPC binding) view of the fabric's agents."""


@a2a.command()
@click.argument("agent")
@click.pass_obj
def card(ctx: Context, agent: str) -> None:
    """Print AGENT's A2A agent card as JSON (AGENT: an agent id or session name).

    Point an A2A client at one of its supportedInterfaces: the url is the daemon's address and
    the tenant the agent id, which every request must carry.
    """

    async def fetch(client: Client) -> a2a_pb2.AgentCard:
        stub = a2a_pb2_grpc.A2AServiceStub(client._channel)  # the client's channel carries its token
        try:
            return await stub.GetExtendedAgentCard(a2a_pb2.GetExtendedAgentCardRequest(tenant=agent),
                                                   metadata=(("a2a-version", "1.0"),))
        except grpc.aio.AioRpcError as exc:
            raise from_rpc_error(exc) from None

    found = ctx.run(fetch)
    click.echo(json_format.MessageToJson(found, indent=2))
