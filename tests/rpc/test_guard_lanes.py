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


async def test_a_tokens_calls_write_in_its_own_lane_and_local_callers_share_one() -> None:
    guard = _guard()
    assert await _lane_of(guard, Identity("agent", "alice", "tok-alice")) == "tok-alice"
    assert await _lane_of(guard, Identity("agent", "bob", "tok-bob")) == "tok-bob"
    assert await _lane_of(guard, Identity("agent", "carol", "cert:carol")) == "cert:carol"
    assert await _lane_of(guard, Identity("local")) == ""
