"""The MCP bridge's lease tools: reserve_files, release_files, list_reservations (see fabric mcp).

A reservation is a lease of the bridge's agent kept while the agent is live (renew_with_presence), so it
ends soon after its session does; a conflict is an answer naming each holder, not a tool error, so the model
can ask the holder or work elsewhere; so is a place taken by earlier waiters (LEASE_QUEUED: "queued", naming
each agent waiting ahead).
"""

from __future__ import annotations

import json
from typing import Any

from fabricd.cli.mcp_bridge import out_of_range
from fabricd.client import FabricError, conflict_holders
from fabricd.v1 import lease_service_pb2 as ls

_MODES = {ls.LEASE_MODE_EXCLUSIVE: "exclusive", ls.LEASE_MODE_SHARED: "shared"}


def _lease(lease: ls.Lease) -> dict[str, Any]:
    return {"lease_id": lease.lease_id, "agent_id": lease.agent_id, "paths": list(lease.resources),
            "mode": _MODES.get(lease.mode, ""), "reason": lease.reason, "fencing_token": lease.fencing_token,
            "expires": lease.expire_time.ToJsonString()}


def add_tools(server: Any, bridge: Any) -> None:  # an mcp MCPServer and the bridge
    me, client = bridge.agent_id, bridge.client

    @server.tool()
    async def reserve_files(paths: list[str], reason: str = "", ttl_minutes: float = 60,
                            shared: bool = False) -> str:
        """Reserve files before you edit them, so other agents keep off: paths relative to the repository,
        `dir/**` for a folder and everything in it, `*.py` globs within a folder. All or nothing: if another
        agent holds an overlapping reservation you get status "conflict" with each holder (ask them with
        send_message, or work elsewhere); if other agents are already waiting in line for them, status
        "queued" with each waiter ahead (first come, first served: try again later, or work elsewhere). The reservation lasts while your session is live (ttl_minutes past
        your last activity); release it with release_files when done. shared=true lets others share it."""
        try:
            lease = await client.acquire_lease(me, paths, mode="shared" if shared else "exclusive",
                                               ttl=ttl_minutes * 60, reason=reason, renew_with_presence=True)
        except FabricError as exc:
            if exc.reason == "LEASE_QUEUED":
                m = exc.metadata
                ahead = [{"path": m[f"waiter_{i}_requested"], "waiting_for": m[f"waiter_{i}_resource"],
                          "agent_id": m[f"waiter_{i}_agent_id"], "mode": m[f"waiter_{i}_mode"].lower()}
                         for i in range(10) if f"waiter_{i}_agent_id" in m]
                return json.dumps({"status": "queued", "waiters": int(m.get("waiters", len(ahead))),
                                   "ahead": ahead}, indent=1)
            holders = conflict_holders(exc)
            if not holders:
                from mcp.server.mcpserver.exceptions import ToolError

                raise ToolError(f"{exc.message} [{exc.reason}]") from exc
            return json.dumps({"status": "conflict", "holders": [
                {"path": h.requested, "reserved": h.resource, "agent_id": h.agent_id, "reason": h.reason,
                 "mode": _MODES.get(h.mode, ""), "expires": h.expire_time.ToJsonString()} for h in holders]},
                indent=1)
        except (ValueError, OverflowError) as exc:  # a ttl no duration can hold
            raise out_of_range(exc) from exc
        return json.dumps({"status": "reserved", **_lease(lease)}, indent=1)

    @server.tool()
    async def release_files(lease_id: str = "") -> str:
        """Release a reservation (its lease_id from reserve_files), or all of yours when no lease_id is given."""
        released = await bridge.call(lambda: client.release_lease(lease_id, agent_id="" if lease_id else me))
        return f"released {released} reservation(s)"

    @server.tool()
    async def list_reservations(path: str = "", agent: str = "") -> str:
        """List the live file reservations of every agent (or those overlapping `path`, or of one `agent`),
        oldest first: check before you start on files someone else may be editing."""
        leases = await bridge.call(lambda: client.list_leases(agent_id=agent, resource=path))
        return json.dumps([{**_lease(lease), "you": lease.agent_id == me or None} for lease in leases], indent=1)

