"""The guard puts each call in its token's lane (fabricd.core.lanes), where the store's writers share out."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from fabricd.core import lanes
from fabricd.rpc.auth import Guard, Identity
from fabricd.v1 import mailbox_service_pb2 as mb


def _guard() -> Guard:
    return Guard(tokens=SimpleNamespace(on_revoke=[]))  # type: ignore[arg-type] - identities are given below


async def _lane_of(guard: Guard, identity: Identity) -> str:
    """The lane a call admitted as `identity` writes in (each call runs in its own task, as gRPC's do)."""

    async def call() -> str:
        await guard.admit("PeekMessages", mb.PeekMessagesRequest(agent_id=identity.agent_id), None, identity)  # type: ignore[arg-type]
        return lanes.current()

    return await asyncio.create_task(call())


async def _stream_lane_of(guard: Guard, identity: Identity, method: str) -> str:
    """The lane the frames of a stream opened as `identity` write in (the stream's handler runs in its task)."""

    async def stream() -> str:
        guard.open_stream(method, None)  # type: ignore[arg-type] - identify is replaced below
        return lanes.current()

    guard.identify = lambda context: identity  # type: ignore[method-assign]
    return await asyncio.create_task(stream())


async def test_a_tokens_calls_write_in_its_own_lane_and_local_callers_share_one() -> None:
    guard = _guard()
    assert await _lane_of(guard, Identity("agent", "alice", "tok-alice")) == "tok-alice"
    assert await _lane_of(guard, Identity("agent", "bob", "tok-bob")) == "tok-bob"
    assert await _lane_of(guard, Identity("agent", "carol", "cert:carol")) == "cert:carol"
    assert await _lane_of(guard, Identity("local")) == ""


async def test_a_tokens_streams_write_in_its_own_lane_too() -> None:
    """The default client sends on SendStream: a token's flood through it must not share the local lane."""
    guard = _guard()
    assert await _stream_lane_of(guard, Identity("agent", "alice", "tok-alice"), "SendStream") == "tok-alice"
    assert await _stream_lane_of(guard, Identity("agent", "bob", "tok-bob"), "Serve") == "tok-bob"
    assert await _stream_lane_of(guard, Identity("local"), "SendStream") == ""
