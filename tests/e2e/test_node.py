"""A Node agent (clients/node, @grpc/grpc-js) and a Python agent talk through the real daemon."""

from __future__ import annotations

import asyncio
import json
import os
import shutil

import pytest

from fabricd.client import Client

NODE_CLIENT = os.path.join(os.path.dirname(__file__), "..", "..", "clients", "node")


async def test_a_node_agent_and_a_python_agent_send_subscribe_ask_and_reply(daemon) -> None:
    node = shutil.which("node")
    if node is None or not os.path.isdir(os.path.join(NODE_CLIENT, "node_modules", "@grpc")):
        pytest.fail("Node and clients/node/node_modules are needed: `python3 scripts/dev test` installs them")
    async with Client(daemon.target) as client:
        await client.register("py-agent", session_name="python")
        heard: list[str] = []

        async def serve() -> None:  # the Python agent: answers asks, remembers mail
            async with client.subscribe("py-agent") as inbox:
                async for message in inbox:
                    if message.ticket_id:
                        await client.reply("py-agent", "42", ticket_id=message.ticket_id)
                    else:
                        heard.append(message.text)

        serving = asyncio.create_task(serve())
        proc = await asyncio.create_subprocess_exec(node, "test/interop.mjs", daemon.target, cwd=NODE_CLIENT,
                                                    stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        await client.send("node-agent", "hello from python", sender="py-agent", create_mailbox=True)  # may not have registered yet
        pong = await client.ask("node-agent", "ping", source_agent="py-agent", timeout=60)
        out, err = await asyncio.wait_for(proc.communicate(), 60)
        serving.cancel()
        assert proc.returncode == 0, err.decode()
        steps = {s["step"]: s for s in map(json.loads, out.decode().splitlines())}
        assert pong == "pong: ping"
        assert steps["received"] == {"step": "received", "text": "hello from python", "from": "py-agent"}
        assert steps["asked"] == {"step": "asked", "result": "42", "outcome": "TICKET_OUTCOME_COMPLETED"}
        tickets = steps["tickets"]
        assert (tickets["state"], tickets["task"], tickets["listed"], tickets["cancelled"]) == (
            "TICKET_STATE_ANSWERED", "what is 6*7?", [tickets["asked"]], True)
        assert steps["paged"] == {"step": "paged", "first": 1, "more": True, "all": 2, "same": True}  # pages, then all
        assert steps["unread"]["count"] == 0  # the Node subscription acked what it handled
        assert steps["error"] == {"step": "error", "code": "FAILED_PRECONDITION", "reason": "NO_PENDING_REQUEST",
                                  "agent": "node-agent"}  # typed errors with the stable reason, in Node too
        assert steps["typo"] == {"step": "typo", "code": "NOT_FOUND", "reason": "UNKNOWN_RECIPIENT",
                                 "suggestions": "py-agent"}
        assert steps["unregistered"] == {"step": "unregistered", "purged": 1}
        assert steps["wake"] == {"step": "wake", "secret": 64, "quiet": 2, "idle": True, "cleared": True}
        assert heard == ["hello from node"]
        entries = {e.agent_id: e for e in await client.list_mailboxes()}
        assert entries["node-agent"].session_name == "node" and entries["node-agent"].capabilities[0].name == "javascript"


async def test_a_node_agent_and_a_python_agent_share_a_channel(daemon) -> None:
    node = shutil.which("node")
    if node is None or not os.path.isdir(os.path.join(NODE_CLIENT, "node_modules", "@grpc")):
        pytest.fail("Node and clients/node/node_modules are needed: `python3 scripts/dev test` installs them")
    async with Client(daemon.target) as client:
        await client.register("py-member")
        proc = await asyncio.create_subprocess_exec(node, "test/channels.mjs", daemon.target, cwd=NODE_CLIENT,
                                                    stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        async with client.subscribe("py-member") as inbox:  # the Node agent's post, copied to this mailbox
            message = await asyncio.wait_for(anext(aiter(inbox)), 60)
        assert (message.text, message.headers["fabricd-channel"]) == ("hello team from node", "node-team")
        await client.publish("#node-team", "hello node from python", sender="py-member")
        out, err = await asyncio.wait_for(proc.communicate(), 60)
        assert proc.returncode == 0, err.decode()
        steps = {s["step"]: s for s in map(json.loads, out.decode().splitlines())}
        assert steps["created"] == {"step": "created", "name": "node-team", "members": ["node-member", "py-member"]}
        assert steps["published"] == {"step": "published", "seq": 1, "delivered": 1, "duplicate": True}
        assert steps["heard"] == {"step": "heard", "texts": ["hello node from python"], "from": "py-member"}
        assert steps["read"]["seqs"] == [1, 2] and steps["read"]["hits"] == 2 and "[hello]" in steps["read"]["snippet"]
        assert steps["typo"] == {"step": "typo", "code": "NOT_FOUND", "reason": "CHANNEL_NOT_FOUND",
                                 "suggestions": "node-team"}
        assert steps["deleted"] == {"step": "deleted", "purged": 2}
async def test_a_node_agent_takes_checks_and_releases_leases(daemon) -> None:
    node = shutil.which("node")
    if node is None or not os.path.isdir(os.path.join(NODE_CLIENT, "node_modules", "@grpc")):
        pytest.fail("Node and clients/node/node_modules are needed: `python3 scripts/dev test` installs them")
    proc = await asyncio.create_subprocess_exec(node, "test/leases.mjs", daemon.target, cwd=NODE_CLIENT,
                                                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0, err.decode()
    steps = {s["step"]: s for s in map(json.loads, out.decode().splitlines())}
    assert steps["taken"] == {"step": "taken", "resources": ["src/api/**"], "token": True}
    assert steps["conflict"] == {
        "step": "conflict", "code": "FAILED_PRECONDITION", "reason": "LEASE_CONFLICT", "holder": "node-builder",
        "resource": "src/api/**", "expireNs": True,  # the catalogue's keys (error_reason.proto, LEASE_CONFLICT)
        "keys": ["holder_0_agent_id", "holder_0_expire_ns", "holder_0_mode", "holder_0_reason", "holder_0_requested",
                 "holder_0_resource", "holder_0_session_name", "holders"],
        "detail": ["node-builder", "src/api/**", "src/api/app.py", "refactor", True]}
    assert steps["line"] == {"step": "line", "own": 0, "waiters": [
        ["node-waiter", "src/api/app.py", "src/api/app.py", "LEASE_MODE_EXCLUSIVE", ["src/api/app.py"]]]}
    assert steps["checked"] == {"step": "checked", "holders": ["node-builder"], "listed": [True]}
    assert steps["literal"] == {"step": "literal", "literal": ["src/api/a*.py"], "pattern": ["src/ap*/x.py"]}
    assert steps["released"] == {"step": "released", "count": 1}
    assert steps["granted"] == {"step": "granted", "agent": "node-waiter", "later": True, "line": 0}
    assert steps["left"] == {"step": "left", "code": "ABORTED", "reason": "LEASE_WAIT_ABORTED", "cause": "UNREGISTERED",
                             "line": 0}
