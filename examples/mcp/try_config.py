"""Start the MCP server a coding agent would start from mcp.json, and use its tools as the model would.

    python examples/mcp/try_config.py        (a daemon must run; `fabric` on PATH, or .venv/bin beside python)

mcp.json is what goes into a coding agent's MCP configuration (Claude Code:
`.mcp.json` at the project root or `claude mcp add-json fabricd '<the fabricd entry>'`;
Cursor, Codex and others take the same `command`/`args`). The bridge reaches the
daemon the way `fabric` does ($FABRICD_TARGET, else the default sockets). This
script is the coding agent: it lists the tools, asks a second agent (a plain
Python agent here) through `ask_agent`, and reads the inbox. It ends by itself.
"""

from __future__ import annotations

import asyncio
import json
import os
import pathlib
import shutil
import sys

from mcp import Client as McpClient
from mcp.client.stdio import StdioServerParameters

from fabricd.client import Client

CONFIG = pathlib.Path(__file__).with_name("mcp.json")


def server_parameters() -> StdioServerParameters:
    entry = json.loads(CONFIG.read_text())["mcpServers"]["fabricd"]
    command = shutil.which(entry["command"]) or str(pathlib.Path(sys.executable).with_name(entry["command"]))
    return StdioServerParameters(command=command, args=entry["args"], env=dict(os.environ, **entry.get("env", {})))


def text(result) -> str:  # noqa: ANN001
    return "".join(getattr(c, "text", "") for c in result.content)


async def helper_agent(client: Client) -> None:
    """Another agent on the fabric: answers one request."""
    async with client.subscribe("example-helper") as inbox:
        async for message in inbox:
            if message.ticket_id:
                await client.reply("example-helper", "use a context manager", ticket_id=message.ticket_id)
                return


async def main() -> None:
    async with Client() as client:
        await client.register("example-helper", capabilities=["python-advice"])
        answering = asyncio.create_task(helper_agent(client))
        async with McpClient(server_parameters()) as coder:
            tools = sorted(t.name for t in (await coder.list_tools()).tools)
            print("tools:", ", ".join(tools))
            peers = json.loads(text(await coder.call_tool("list_peers", {})))
            print("peers:", ", ".join(p["agent_id"] for p in peers))
            answer = await coder.call_tool("ask_agent", {"agent": "example-helper",
                                                         "task": "how do I close files safely?",
                                                         "timeout_seconds": 60})
            print("ask_agent:", text(answer))
            print("read_inbox:", text(await coder.call_tool("read_inbox", {})))
        await answering
        await client.unregister("example-helper")
        await client.unregister("example-coder", purge=True)


if __name__ == "__main__":
    asyncio.run(main())
