"""`fabric mcp --agent NAME`: a Model Context Protocol server (stdio) that puts an AI agent on the fabric.

The bridge registers the agent, keeps its heartbeat while it runs, marks it
busy while a tool call that waits is in flight, and closes its request queue
when it exits (anyone waiting on it gets ABORTED rather than hanging).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import re
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

from fabricd.client import Client, DeadlineExceeded, FabricError
from fabricd.v1 import rendezvous_service_pb2 as rv_pb
from fabricd.v1 import types_pb2 as pb

T = TypeVar("T")
TOOL_WAIT_S = 50.0
"""How long a tool call waits for an answer by default: MCP clients commonly end a tool call after 60 s."""
MAX_TOOL_WAIT_S = 3600.0
"""The longest any tool call waits (ask_agent and wait_for_reply clamp to it, read_inbox refuses more)."""
PRESENCE = {pb.PRESENCE_LIVE: "live", pb.PRESENCE_BUSY: "busy", pb.PRESENCE_OFFLINE: "offline"}


class Bridge:
    """The fabric as seen by one agent: what the MCP tools call."""

    def __init__(self, client: Client, agent_id: str, heartbeat_s: float = 30.0) -> None:
        self.client = client
        self.agent_id = agent_id
        self.heartbeat_s = heartbeat_s
        self._waiting = 0

    async def call(self, fn: Callable[[], Awaitable[T]]) -> T:
        """Run one daemon call; a daemon error becomes a tool error carrying the daemon's message."""
        from mcp.server.mcpserver.exceptions import ToolError

        try:
            return await fn()
        except FabricError as exc:
            raise ToolError(f"{exc.message} [{exc.reason}]") from exc
        except (ValueError, OverflowError) as exc:
            raise out_of_range(exc) from exc

    @contextlib.asynccontextmanager
    async def busy(self) -> AsyncIterator[None]:
        """The agent shows as busy while at least one waiting tool call runs."""
        self._waiting += 1
        if self._waiting == 1:
            await self.client.touch(self.agent_id, busy=True)
        try:
            yield
        finally:
            self._waiting -= 1
            if self._waiting == 0:
                await self.client.touch(self.agent_id, busy=False)

    async def heartbeat(self) -> None:
        while True:
            await asyncio.sleep(self.heartbeat_s)
            with contextlib.suppress(FabricError):
                await self.client.touch(self.agent_id, busy=self._waiting > 0)


def out_of_range(exc: Exception) -> Exception:
    """The tool error for an argument the request cannot carry (a seq below 0 or past 2**64, a ttl past any
    duration): said to the model, not the SDK's bare 'Error executing tool' it gives any other exception."""
    from mcp.server.mcpserver.exceptions import ToolError

    return ToolError(f"an argument is out of range ({exc}); check the numbers passed [INVALID_ARGUMENT]")


def _message(m: pb.Message) -> dict[str, Any]:
    out: dict[str, Any] = {"id": m.id, "from": m.sender.agent_id or None, "text": m.text,
                           "sent": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(m.send_time.seconds))}
    if m.ticket_id:
        out["ticket_id"] = m.ticket_id
        out["note"] = "a request waiting for your answer: call reply_to_task when done"
    if m.thread_id:
        out["thread_id"] = m.thread_id
    if "fabricd-channel" in m.headers:  # a channel post's copy: answer in the channel with post_to_channel
        out["channel"] = "#" + m.headers["fabricd-channel"]
        out["channel_seq"] = int(m.headers.get("fabricd-channel-seq", "0") or 0)
    return out


def _post(p: Any) -> dict[str, Any]:
    m = p.message
    return {"seq": p.seq, "from": m.sender.agent_id or None, "text": m.text,
            "sent": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(m.send_time.seconds))}


OUTCOMES = {"completed": rv_pb.TICKET_OUTCOME_COMPLETED, "input_required": rv_pb.TICKET_OUTCOME_INPUT_REQUIRED,
            "rejected": rv_pb.TICKET_OUTCOME_REJECTED, "failed": rv_pb.TICKET_OUTCOME_FAILED}


def build_server(bridge: Bridge):  # noqa: ANN201 - an mcp MCPServer
    from mcp.server.mcpserver import MCPServer

    me = bridge.agent_id
    client = bridge.client
    server = MCPServer(
        name="fabricd",
        instructions=(f"You are agent {me!r} on a fabricd messaging fabric shared with other agents. At the start "
                      "of a task, and before you finish one, check your inbox with read_inbox: mail from peers and "
                      "requests they asked you wait there. A message with a ticket_id is a request whose asker "
                      "is blocked until you answer: do the work and answer it with reply_to_task (pass the "
                      "ticket_id); mark mail you have handled as read with read_inbox(consume=true). Use "
                      "list_peers to see who is there (busy means a peer is in the middle of a run and may answer "
                      "late; offline means its session ended), send_message to tell them things, ask_agent to "
                      "delegate a task and wait for the answer (an answer slower than the call's wait comes with "
                      "wait_for_reply), and show_queue to see waiting requests. A message with a `channel` is a post to "
                      "a team channel you are a member of: answer the team with post_to_channel, catch up with "
                      "read_channel, and find what was said earlier with search_messages. Before editing files "
                      "other agents may touch, reserve them with reserve_files (release_files when done; "
                      "list_reservations shows who holds what)."),
    )

    @server.tool()
    async def list_peers() -> str:
        """List the agents on the fabric with their presence (live, busy, offline), display name,
        capabilities and unread mail. Use it to find who can help before sending or asking."""
        entries = await bridge.call(client.list_mailboxes)
        peers = [{"agent_id": e.agent_id, "name": e.session_name or None, "presence": PRESENCE.get(e.presence, "?"),
                  "capabilities": [c.name + (f": {c.description}" if c.description else "") for c in e.capabilities],
                  "unread": e.unread_count, "you": e.agent_id == me or None} for e in entries]
        return json.dumps([{k: v for k, v in p.items() if v is not None} for p in peers], indent=1)

    @server.tool()
    async def send_message(to: str, text: str, thread_id: str = "", create_mailbox: bool = False) -> str:
        """Send a message to another agent (by agent id or display name) without waiting for an answer.
        Use it to inform or hand over; use ask_agent when you need a result back. Returns the message id.
        A name that matches no agent is refused with the closest names: check list_peers and retry.
        create_mailbox=true leaves mail for an agent that has not joined yet (it reads it when it does)."""
        try:
            sent = await client.send(to, text, sender=me, thread_id=thread_id, create_mailbox=create_mailbox)
        except FabricError as exc:
            from mcp.server.mcpserver.exceptions import ToolError

            if exc.reason != "UNKNOWN_RECIPIENT":
                raise ToolError(f"{exc.message} [{exc.reason}]") from exc
            close = [c for c in exc.metadata.get("suggestions", "").split(",") if c]
            hint = f"did you mean {' or '.join(repr(c) for c in close)}? " if close else ""
            raise ToolError(f"no agent is named {to!r}; {hint}call list_peers to see the agents on the fabric, "
                            "or send again with create_mailbox=true to leave mail for an agent that has not "
                            f"joined yet [{exc.reason}]") from exc
        return f"sent {sent.message.id} to {sent.message.recipient.agent_id}"

    @server.tool()
    async def read_inbox(consume: bool = False, limit: int = 20, wait_seconds: float = 0) -> str:
        """Read your unread mail, oldest first. consume=false only looks (the mail stays unread);
        consume=true takes it out of the inbox for good. With wait_seconds, waits that long for mail to
        arrive when the inbox is empty (at most 3600). Mail with a ticket_id is a request: answer it with
        reply_to_task."""
        limit = max(1, min(limit, 1000))
        if not wait_seconds <= MAX_TOOL_WAIT_S:  # NaN too: a model must not pin the call (and the bridge) for hours
            from mcp.server.mcpserver.exceptions import ToolError

            raise ToolError(f"wait_seconds {wait_seconds:g} is out of range: wait at most {MAX_TOOL_WAIT_S:g} s, "
                            "then call read_inbox again [INVALID_ARGUMENT]")
        if wait_seconds > 0 and not (await bridge.call(lambda: client.peek(me, 1))).messages:
            async with bridge.busy():
                with contextlib.suppress(TimeoutError):
                    async with client.subscribe(me, auto_ack=False) as inbox:
                        await asyncio.wait_for(anext(inbox), wait_seconds)
        read = client.drain if consume else client.peek
        response = await bridge.call(lambda: read(me, limit))
        left = response.remaining if consume else response.unread_count - len(response.messages)
        return json.dumps({"messages": [_message(m) for m in response.messages], "more_unread": max(0, left)},
                          indent=1)

    @server.tool()
    async def ask_agent(agent: str, task: str, timeout_seconds: float = TOOL_WAIT_S) -> str:
        """Delegate a task to another agent and wait for its answer (up to timeout_seconds, default 50, below
        the time an MCP client gives a tool call). The task joins that agent's queue of requests, served in
        order. Returns the agent's answer. If no answer came in that time, the request stays queued and you
        get its ticket_id and position: call wait_for_reply with that ticket_id to go on waiting."""
        async with bridge.busy():
            queued = await bridge.call(lambda: client.enqueue(agent, task, source_agent=me))
            return await _answer(queued.ticket_id, timeout_seconds)

    @server.tool()
    async def wait_for_reply(ticket_id: str, timeout_seconds: float = TOOL_WAIT_S) -> str:
        """Go on waiting for the answer to a request you asked with ask_agent (its ticket_id), up to
        timeout_seconds (default 50). Returns the answer, or again the ticket's position if it is still
        waiting: call it again, or do something else meanwhile (the request stays queued)."""
        async with bridge.busy():
            return await _answer(ticket_id, timeout_seconds)

    async def _answer(ticket_id: str, timeout_seconds: float) -> str:
        wait = max(0.5, min(timeout_seconds, MAX_TOOL_WAIT_S))
        try:
            return (await client.await_answer(ticket_id, timeout=wait)).result
        except DeadlineExceeded:
            pass
        except FabricError as exc:
            from mcp.server.mcpserver.exceptions import ToolError

            raise ToolError(f"{exc.message} [{exc.reason}]") from exc
        ticket = await bridge.call(lambda: client.get_ticket(ticket_id))
        if ticket.state != rv_pb.TICKET_STATE_QUEUED:  # answered (or withdrawn) just now
            return await bridge.call(lambda: client.await_reply(ticket_id, timeout=wait))
        return json.dumps({"status": "waiting", "ticket_id": ticket_id, "position": ticket.position,
                           "note": f"no answer within {wait:g} s; the request stays queued ({ticket.position} "
                                   f"ahead of it): call wait_for_reply with this ticket_id to go on waiting"},
                          indent=1)

    @server.tool()
    async def reply_to_task(result: str, ticket_id: str = "", outcome: str = "completed") -> str:
        """Answer a request someone asked you. Without ticket_id it answers the oldest waiting request
        (the head of your queue); pass the ticket_id from read_inbox to answer a specific one. The asker
        receives your result as the answer to their ask. outcome: "completed" (default: result is the
        answer), "input_required" (result is a question; the asker's answer arrives later as a new request
        with the same ticket_id), "rejected" (you decline; result says why) or "failed" (result says why)."""
        code = OUTCOMES.get(outcome.strip().lower().replace("-", "_"))
        if code is None:
            from mcp.server.mcpserver.exceptions import ToolError

            raise ToolError(f"outcome {outcome!r} is not one of {', '.join(OUTCOMES)} [INVALID_ARGUMENT]")
        answered = await bridge.call(lambda: client.reply(me, result, ticket_id=ticket_id, outcome=code))
        return f"answered {answered}" + ("" if outcome == "completed" else f" ({outcome})")

    @server.tool()
    async def show_queue(agent: str = "") -> str:
        """Show the requests waiting for an agent (default: you), oldest first, with who asked and how long
        ago. Use it to see your backlog, or how busy a peer is before asking it."""
        tickets = await bridge.call(lambda: client.get_queue(agent or me))
        now = time.time()
        return json.dumps([{"position": t.position, "ticket_id": t.ticket_id, "requester": t.requester,
                            "waiting_seconds": round(now - t.enqueue_time.seconds), "task": t.task}
                           for t in tickets], indent=1)

    @server.tool()
    async def post_to_channel(channel: str, text: str) -> str:
        """Post to a team channel (`#team` or `team`) you are a member of: every other member gets a copy in
        its inbox, and the post stays in the channel's history. Use it for what the whole team should know
        ("main is red, stop merging", "I took the API refactor"); use send_message for one agent."""
        sent = await bridge.call(lambda: client.publish(channel, text, sender=me))
        note = f"; {sent.skipped} members' inboxes were full (they read it in the channel)" if sent.skipped else ""
        return f"posted #{sent.post.channel} {sent.post.seq} to {sent.delivered} members{note}"

    @server.tool()
    async def read_channel(channel: str, after_seq: int = 0, limit: int = 50) -> str:
        """Read a channel's history, oldest first: the posts after after_seq (0: from the oldest kept), at most
        limit. Use it to catch up on a channel you joined late; pass the last seq you saw to read what is new."""
        read = await bridge.call(lambda: client.read_channel(channel, after_seq=after_seq,
                                                             page_size=max(1, min(limit, 1000))))
        return json.dumps({"posts": [_post(p) for p in read.posts], "last_seq": read.last_seq}, indent=1)

    @server.tool()
    async def search_messages(query: str, channel: str = "") -> str:
        """Search what was said in the channels you are a member of (or one channel): words (all must match),
        "a phrase", -word to leave out, prefix* for any word starting so. Returns the newest matches with the
        channel, seq, sender and a snippet marking each match [like this]; read_channel shows the context."""
        found = await bridge.call(lambda: client.search_messages(query, channel=channel))
        return json.dumps([{"channel": "#" + h.channel, "seq": h.seq, "from": h.sender, "snippet": h.snippet}
                           for h in found.hits], indent=1)

    from fabricd.cli import mcp_leases

    mcp_leases.add_tools(server, bridge)
    return server


_ESCAPE = re.compile(r"\\\\|\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
"""An escaped backslash, a surrogate pair's escapes, or a lone surrogate's escape (in that order, left to right)."""


def lone_surrogates_replaced(line: str) -> str:
    """A JSON-RPC line with each escape of a lone surrogate (a JavaScript string cut inside an emoji is written
    by JSON.stringify as "\\ud83d") made U+FFFD, as the transport does with bytes that are not UTF-8: the SDK's
    parser refuses such a line whole, and the request in it would never be answered."""
    if "\\u" not in line:
        return line
    return _ESCAPE.sub(lambda m: m[0] if len(m[0]) != 6 else "\\ufffd", line)


class _Lines:
    """Standard input as the MCP stdio transport reads it (UTF-8, bad bytes replaced), lone surrogates replaced."""

    def __init__(self) -> None:
        import anyio

        self._file = anyio.wrap_file(io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace"))

    async def __aiter__(self) -> AsyncIterator[str]:
        async for line in self._file:
            yield lone_surrogates_replaced(line)


async def run_stdio(server: Any) -> None:  # an mcp MCPServer
    """`server.run_stdio_async()`, reading standard input through `_Lines`."""
    from mcp.server.stdio import stdio_server

    lowlevel = server._lowlevel_server
    async with stdio_server(stdin=_Lines()) as (read_stream, write_stream):  # type: ignore[arg-type]
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())


async def serve(target: str | None, token: str | None, agent_id: str, session_name: str) -> None:
    async with Client(target, token=token) as client:
        bridge = Bridge(client, agent_id)
        await client.register(agent_id, session_name=session_name, capabilities=["mcp"])
        await client.touch(agent_id)
        heartbeat = asyncio.create_task(bridge.heartbeat())
        try:
            await run_stdio(build_server(bridge))
        finally:
            heartbeat.cancel()
            with contextlib.suppress(FabricError):
                await client.close_queue(agent_id, "the agent's MCP session ended")
                await client.touch(agent_id, offline=True)  # goodbye: not LIVE once the session is over
