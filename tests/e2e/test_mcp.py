"""The MCP bridge, driven by the mcp SDK's own client over stdio, against the real daemon."""

from __future__ import annotations

import asyncio
import json
import sys

import pytest
from mcp import Client as McpClient
from mcp.client.stdio import StdioServerParameters

from fabricd.client import Client, FailedPrecondition
from fabricd.v1 import types_pb2 as pb


def bridge(daemon, agent: str) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable,
                                 args=["-m", "fabricd.cli.main", "--target", daemon.target, "mcp", "--agent", agent])


def text(result) -> str:
    assert not result.is_error, result.content
    return "".join(c.text for c in result.content if getattr(c, "text", None))


async def test_the_bridge_lists_its_tools_with_descriptions_for_a_model(daemon) -> None:
    async with McpClient(bridge(daemon, "alpha")) as mcp:
        tools = {t.name: t for t in (await mcp.list_tools()).tools}
        assert set(tools) == {"list_peers", "send_message", "read_inbox", "ask_agent", "wait_for_reply",
                              "reply_to_task", "show_queue", "post_to_channel", "read_channel", "search_messages",
                              "reserve_files", "release_files", "list_reservations"}
        assert tools["ask_agent"].input_schema["properties"]["timeout_seconds"]["default"] <= 55
        assert all(len(t.description or "") > 60 for t in tools.values())
        peers = json.loads(text(await mcp.call_tool("list_peers", {})))
        assert [(p["agent_id"], p.get("you")) for p in peers] == [("alpha", True)]
        assert "mcp" in peers[0]["capabilities"]
        failed = await mcp.call_tool("reply_to_task", {"result": "nothing asked"})
        assert failed.is_error and "no pending request to reply to for agent alpha" in failed.content[0].text


async def test_two_bridged_agents_ask_and_answer_each_other(daemon) -> None:
    async with McpClient(bridge(daemon, "alpha")) as alpha, McpClient(bridge(daemon, "beta")) as beta:
        async def beta_answers() -> str:
            inbox = json.loads(text(await beta.call_tool("read_inbox", {"wait_seconds": 30})))
            (request,) = inbox["messages"]
            assert request["from"] == "alpha" and "capital of France" in request["text"]
            return text(await beta.call_tool("reply_to_task", {"result": "Paris", "ticket_id": request["ticket_id"]}))

        answering = asyncio.create_task(beta_answers())
        asked = await alpha.call_tool("ask_agent", {"agent": "beta", "task": "What is the capital of France?",
                                                    "timeout_seconds": 30})
        assert text(asked) == "Paris"
        assert (await answering).startswith("answered ")
        sent = text(await beta.call_tool("send_message", {"to": "alpha", "text": "anything else?"}))
        assert sent.startswith("sent ")
        mail = json.loads(text(await alpha.call_tool("read_inbox", {"consume": True})))
        assert [m["text"] for m in mail["messages"]] == ["anything else?"]
        assert json.loads(text(await alpha.call_tool("show_queue", {"agent": "beta"}))) == []


async def test_the_bridge_marks_its_agent_busy_while_it_waits(daemon) -> None:
    async with Client(daemon.target) as client, McpClient(bridge(daemon, "alpha")) as alpha:
        await client.register("slow")
        waiting = asyncio.create_task(alpha.call_tool("ask_agent", {"agent": "slow", "task": "t",
                                                                     "timeout_seconds": 30}))
        async for response in client.watch_mailboxes():
            if any(e.entry.agent_id == "alpha" and e.entry.presence == pb.PRESENCE_BUSY for e in response.events):
                break
        async for tickets in client.watch_queue("slow"):  # busy comes first; then the ask lands in the queue
            if tickets:
                break
        await client.reply("slow", "done")
        assert text(await waiting) == "done"
        (alpha_entry,) = [e for e in await client.list_mailboxes() if e.agent_id == "alpha"]
        assert alpha_entry.presence == pb.PRESENCE_LIVE


async def test_a_typo_in_send_message_is_a_tool_error_naming_the_closest_peer_and_the_bridge_says_goodbye(
        daemon) -> None:
    async with Client(daemon.target) as client:
        await client.register("agent-7f3a", session_name="reviewer")
        async with McpClient(bridge(daemon, "alpha")) as alpha:
            failed = await alpha.call_tool("send_message", {"to": "revewer", "text": "please review"})
            assert failed.is_error and "did you mean 'reviewer'?" in failed.content[0].text
            (entry,) = [e for e in await client.list_mailboxes() if e.agent_id == "alpha"]
            assert entry.presence == pb.PRESENCE_LIVE
        assert {e.agent_id for e in await client.list_mailboxes()} == {"agent-7f3a", "alpha"}  # no typo mailbox
        (entry,) = [e for e in await client.list_mailboxes() if e.agent_id == "alpha"]
        assert entry.presence == pb.PRESENCE_OFFLINE  # the bridge said goodbye when its session ended


async def test_an_ask_slower_than_the_tool_call_returns_its_ticket_and_wait_for_reply_gets_the_answer(
        daemon) -> None:
    async with Client(daemon.target) as client, McpClient(bridge(daemon, "alpha")) as alpha:
        await client.register("slow")
        await client.enqueue("slow", "an earlier request")
        waiting = json.loads(text(await alpha.call_tool("ask_agent", {"agent": "slow", "task": "t",
                                                                       "timeout_seconds": 1})))
        assert waiting["status"] == "waiting" and waiting["position"] == 1 and "wait_for_reply" in waiting["note"]
        ticket_id = waiting["ticket_id"]
        assert [t.ticket_id for t in await client.get_queue("slow")][1] == ticket_id  # it stays queued
        still = json.loads(text(await alpha.call_tool("wait_for_reply", {"ticket_id": ticket_id,
                                                                          "timeout_seconds": 1})))
        assert still == {**waiting, "note": still["note"]}
        await client.reply("slow", "first")
        await client.reply("slow", "the answer", ticket_id=ticket_id)
        assert text(await alpha.call_tool("wait_for_reply", {"ticket_id": ticket_id})) == "the answer"


async def test_send_message_to_an_unknown_agent_names_only_what_the_tool_offers(daemon) -> None:
    async with Client(daemon.target) as client, McpClient(bridge(daemon, "alpha")) as alpha:
        await client.register("reviewer")
        failed = await alpha.call_tool("send_message", {"to": "revewer", "text": "hi"})
        message = failed.content[0].text
        assert failed.is_error and "did you mean 'reviewer'?" in message and "create_mailbox=true" in message
        assert "fabric send" not in message and "--create" not in message
        sent = text(await alpha.call_tool("send_message", {"to": "newcomer", "text": "hi", "create_mailbox": True}))
        assert sent.startswith("sent ") and (await client.peek("newcomer")).messages[0].text == "hi"


async def test_bridged_agents_talk_through_a_channel_read_its_history_and_search_it(daemon) -> None:
    async with McpClient(bridge(daemon, "alpha")) as alpha, McpClient(bridge(daemon, "beta")) as beta:
        async with Client(daemon.target) as local:
            await local.create_channel("crew")
            for agent in ("alpha", "beta"):
                await local.join_channel("crew", agent)
        posted = text(await alpha.call_tool("post_to_channel", {"channel": "#crew", "text": "main is red"}))
        assert posted == "posted #crew 1 to 1 members"
        (copy,) = json.loads(text(await beta.call_tool("read_inbox", {"consume": True})))["messages"]
        assert (copy["from"], copy["text"], copy["channel"], copy["channel_seq"]) == ("alpha", "main is red",
                                                                                      "#crew", 1)
        history = json.loads(text(await beta.call_tool("read_channel", {"channel": "crew"})))
        assert [(p["seq"], p["from"], p["text"]) for p in history["posts"]] == [(1, "alpha", "main is red")]
        hits = json.loads(text(await beta.call_tool("search_messages", {"query": "red"})))
        assert [(h["channel"], h["seq"]) for h in hits] == [("#crew", 1)] and "[red]" in hits[0]["snippet"]
        refused = await beta.call_tool("post_to_channel", {"channel": "#nowhere", "text": "hello?"})
        assert refused.is_error and "[CHANNEL_NOT_FOUND]" in refused.content[0].text
async def test_two_bridged_agents_reserve_files_and_see_each_others_reservations(daemon) -> None:
    async with McpClient(bridge(daemon, "alpha")) as alpha, McpClient(bridge(daemon, "beta")) as beta:
        mine = json.loads(text(await alpha.call_tool("reserve_files", {"paths": ["src/api/**"],
                                                                      "reason": "refactor"})))
        assert mine["status"] == "reserved" and mine["paths"] == ["src/api/**"] and mine["fencing_token"] > 0
        refused = json.loads(text(await beta.call_tool("reserve_files", {"paths": ["src/api/app.py"]})))
        assert refused["status"] == "conflict"
        assert [(h["agent_id"], h["path"], h["reason"]) for h in refused["holders"]] == [
            ("alpha", "src/api/app.py", "refactor")]
        listed = json.loads(text(await beta.call_tool("list_reservations", {"path": "src/api/x.py"})))
        assert [(r["agent_id"], r["paths"]) for r in listed] == [("alpha", ["src/api/**"])]
        bad = await beta.call_tool("reserve_files", {"paths": ["../etc"]})
        assert bad.is_error and "LEASE_PATTERN_INVALID" in bad.content[0].text
        async with Client(daemon.target) as local:  # gamma waits in line for src/api (and build, delta's)
            held = await local.acquire_lease("delta", ["build/**"])
            waiting = asyncio.ensure_future(local.acquire_lease("gamma", ["src/api/**", "build/**"], wait=True,
                                                                wait_timeout=30))
            async with asyncio.timeout(20):  # until gamma's place is in the line (the conflict counts it)
                while True:
                    with pytest.raises(FailedPrecondition) as probe:
                        await local.acquire_lease("probe", ["build/x"])
                    if probe.value.metadata.get("waiters_ahead") == "1":
                        break
            assert text(await alpha.call_tool("release_files", {})) == "released 1 reservation(s)"
            queued = json.loads(text(await beta.call_tool("reserve_files", {"paths": ["src/api/app.py"]})))
            assert queued == {"status": "queued", "waiters": 1, "ahead": [
                {"path": "src/api/app.py", "waiting_for": "src/api/**", "agent_id": "gamma", "mode": "exclusive"}]}
            await local.release_lease(held.lease_id)
            await local.release_lease((await asyncio.wait_for(waiting, 10)).lease_id)
        assert json.loads(text(await beta.call_tool("reserve_files", {"paths": ["src/api/app.py"]})))[
            "status"] == "reserved"


async def test_arguments_out_of_range_are_tool_errors_that_say_so_and_the_bridge_goes_on(daemon) -> None:
    # The SDK answers any exception but its ToolError with a bare "Error executing tool NAME": a number the
    # request cannot carry, or an outcome the tool does not know, must reach the model as a reason.
    async with Client(daemon.target) as client, McpClient(bridge(daemon, "alpha")) as mcp:
        await client.create_channel("team")
        for tool, arguments, says in (
                ("reply_to_task", {"result": "r", "outcome": "weird"}, "outcome 'weird' is not one of completed"),
                ("read_channel", {"channel": "team", "after_seq": -1}, "out of range"),
                ("read_channel", {"channel": "team", "after_seq": 2**70}, "out of range"),
                ("reserve_files", {"paths": ["a.py"], "ttl_minutes": 1e300}, "out of range"),
                ("read_inbox", {"wait_seconds": 1e9}, "wait_seconds 1e+09 is out of range: wait at most 3600 s"),
                ("read_inbox", {"wait_seconds": 3600.5}, "out of range")):
            failed = await mcp.call_tool(tool, arguments)
            assert failed.is_error and says in failed.content[0].text, (tool, arguments, failed.content)
        assert list(await client.list_leases()) == []
        assert json.loads(text(await mcp.call_tool("read_channel", {"channel": "team"}))) == {"posts": [],
                                                                                              "last_seq": 0}


async def test_a_tool_call_with_a_lone_surrogate_escape_is_answered(daemon) -> None:
    # JSON.stringify writes a JavaScript string cut inside an emoji as "\ud83d" (no pair); the SDK's JSON parser
    # refuses such a line whole, so without the bridge's help the call would never be answered and the MCP client
    # would wait for it until its own timeout. The bridge reads it as U+FFFD, as it reads bytes that are not UTF-8.
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "fabricd.cli.main", "--target", daemon.target, "mcp", "--agent", "alpha",
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None

    async def call(line: str) -> dict:
        proc.stdin.write(line.encode() + b"\n")
        await proc.stdin.drain()
        return json.loads(await asyncio.wait_for(proc.stdout.readline(), 30))

    try:
        init = await call(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}}}))
        assert init["id"] == 1 and "result" in init
        proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        sent = await call('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"send_message",'
                          '"arguments":{"to":"alpha","text":"cut \\ud83d here, kept \\ud83d\\ude00, \\\\ud800"}}}')
        assert sent["id"] == 2 and not sent["result"]["isError"], sent
        async with Client(daemon.target) as client:
            (mail,) = (await client.peek("alpha")).messages
            assert mail.text == "cut \ufffd here, kept \U0001f600, \\ud800"
    finally:
        proc.stdin.close()
        await asyncio.wait_for(proc.wait(), 30)
