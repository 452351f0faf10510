"""`fabric hook claude --install`: write the fabricd hooks and MCP server into a Claude Code project.

Claude Code reads hooks from `.claude/settings.json`
(`{"hooks": {EVENT: [{"matcher": ..., "hooks": [{"type": "command", "command": ...}]}]}}`)
and project MCP servers from `.mcp.json` (`{"mcpServers": {NAME: {"command", "args", "env"}}}`).
Both files are merged, never clobbered: other keys, other hooks and other
servers stay as they are; a fabricd hook already there (found by its
`hook claude EVENT` command) is updated in place, so a second run changes nothing.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
from pathlib import Path
from typing import Any

import click

from fabricd.cli.app import Context
from fabricd.cli.hooks import EVENTS, MAX_BLOCKS

SERVER = "fabricd"
TIMEOUT_S = 30
"""Claude Code's per-hook timeout in the settings; the hook itself gives up sooner (hooks.HOOK_TIMEOUT_S)."""


def fabric_argv() -> list[str]:
    """How to run this very `fabric`, by absolute path (hooks run from any folder, with any PATH)."""
    if os.path.basename(sys.argv[0]) == "fabric" and os.path.isfile(sys.argv[0]):
        return [os.path.abspath(sys.argv[0])]
    beside = os.path.join(os.path.dirname(os.path.abspath(sys.executable)), "fabric")
    if os.path.isfile(beside) and os.access(beside, os.X_OK):
        return [beside]
    return [os.path.abspath(sys.executable), "-m", "fabricd.cli.main"]


def load(path: Path) -> dict[str, Any]:
    """A JSON object file, {} when absent; anything else there is refused, not overwritten."""
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except (OSError, ValueError) as exc:
        raise click.ClickException(f"cannot read {path}: {exc}; fix or move it, then run --install again") from None
    if not isinstance(data, dict):
        raise click.ClickException(f"{path} does not hold a JSON object; fix or move it, then run --install again")
    return data


def save(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(partial, path)


def is_ours(hook: Any, event: str) -> bool:
    return (isinstance(hook, dict) and isinstance(hook.get("command"), str)
            and re.search(rf"(^|\s)hook claude {event}(\s|$)", hook["command"]) is not None)


MATCHERS = {"PreToolUse": "Edit|Write|MultiEdit|NotebookEdit"}
"""The tools an event's hook is for (the others run on every occurrence)."""


def merge_hook(hooks: dict[str, Any], event: str, command: str) -> str:
    """Put our command hook for `event` into the settings' hooks: 'added', 'updated' or 'unchanged'."""
    groups = hooks.setdefault(event, [])
    if not isinstance(groups, list):
        raise click.ClickException(f"hooks.{event} in the settings is not a list; fix it, then run --install again")
    wanted = {"type": "command", "command": command, "timeout": TIMEOUT_S}
    for group in groups:
        for i, hook in enumerate(group.get("hooks", []) if isinstance(group, dict) else []):
            if is_ours(hook, event):
                if hook == wanted:
                    return "unchanged"
                group["hooks"][i] = {**hook, **wanted}
                return "updated"
    groups.append({**({"matcher": MATCHERS[event]} if event in MATCHERS else {}), "hooks": [wanted]})
    return "added"


def install(ctx: Context, project: str, agent: str | None, session_name: str, max_blocks: int) -> None:
    """Write the five hooks into PROJECT/.claude/settings.json and the MCP server into PROJECT/.mcp.json."""
    root = Path(project).resolve()
    if not root.is_dir():
        raise click.ClickException(f"no project folder at {root}")
    agent_id = agent or root.name
    fabric = fabric_argv()
    target = ["--target", ctx.target] if ctx.target else []  # only when given: else each run finds the socket
    flags = ["--agent", agent_id] + (["--name", session_name] if session_name else [])

    settings_path = root / ".claude" / "settings.json"
    settings = load(settings_path)
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise click.ClickException(f"'hooks' in {settings_path} is not an object; fix it, then run --install again")
    done: dict[str, str] = {}
    for event in EVENTS:
        extra = ["--max-blocks", str(max_blocks)] if event == "Stop" and max_blocks != MAX_BLOCKS else []
        command = shlex.join([*fabric, *target, "hook", "claude", event, *flags, *extra])
        done[event] = merge_hook(hooks, event, command)
    if any(v != "unchanged" for v in done.values()):
        save(settings_path, settings)

    mcp_path = root / ".mcp.json"
    mcp = load(mcp_path)
    servers = mcp.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise click.ClickException(f"'mcpServers' in {mcp_path} is not an object; fix it, then run --install again")
    server = {"command": fabric[0], "args": [*fabric[1:], *target, "mcp", *flags]}
    before = servers.get(SERVER)
    kept = before if isinstance(before, dict) else {}  # its own env (a token, say) stays
    server_state = "added" if before is None else "unchanged" if {**kept, **server} == before else "updated"
    if server_state != "unchanged":
        servers[SERVER] = {**kept, **server}
        save(mcp_path, mcp)

    if ctx.json:
        click.echo(json.dumps({"agent_id": agent_id, "settings": str(settings_path), "hooks": done,
                               "mcp": str(mcp_path), "server": server_state}))
        return
    ctx.out.print(f"hooks for agent {agent_id} in {settings_path}: "
                  + ", ".join(f"{event} {state}" for event, state in done.items()), highlight=False)
    ctx.out.print(f"MCP server {SERVER!r} in {mcp_path}: {server_state}", highlight=False)
    if server_state == "added":
        ctx.out.print("Claude Code asks once to approve the project's MCP server when it next starts here.",
                      highlight=False)
