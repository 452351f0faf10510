"""`fabric hook claude EVENT` driven as Claude Code drives it: its documented JSON in, the documented answers out.

The input documents are the examples of Claude Code's hooks reference
(code.claude.com/docs/en/hooks, "Hook input" of each event), with only
session_id and cwd changed per test. The answers checked are the documented
ones: `hookSpecificOutput.additionalContext` for SessionStart and
UserPromptSubmit, `{"decision": "block", "reason"}` for Stop, exit 0 always.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import grpc
import pytest

from fabricd.client import Client, FabricError
from fabricd.v1 import types_pb2 as pb

TRANSCRIPT = "/Users/.../.claude/projects/.../00893aaf-19fa-41d2-8238-13269b9b3ca0.jsonl"
SESSION_START = {"session_id": "abc123", "transcript_path": TRANSCRIPT, "cwd": "/Users/...",
                 "permission_mode": "default", "hook_event_name": "SessionStart", "source": "startup",
                 "model": "claude-sonnet-4-6"}
USER_PROMPT_SUBMIT = {"session_id": "abc123", "transcript_path": TRANSCRIPT, "cwd": "/Users/...",
                      "permission_mode": "default", "hook_event_name": "UserPromptSubmit",
                      "prompt": "Write a function to calculate the factorial of a number"}
STOP = {"session_id": "abc123", "transcript_path": "~/.claude/projects/.../00893aaf-19fa-41d2-8238-13269b9b3ca0.jsonl",
        "cwd": "/Users/...", "permission_mode": "default", "hook_event_name": "Stop", "stop_hook_active": True,
        "last_assistant_message": "I've completed the refactoring. Here's a summary..."}
SESSION_END = {"session_id": "abc123", "transcript_path": TRANSCRIPT, "cwd": "/Users/...",
               "permission_mode": "default", "hook_event_name": "SessionEnd", "reason": "other"}


class Session:
    """One Claude Code session in a project folder, running the hook program as Claude Code would."""

    def __init__(self, target: str, tmp_path: Path, project: str = "reviewer") -> None:
        self.target = target
        self.project = tmp_path / project
        self.project.mkdir(exist_ok=True)
        self.env = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_PROJECT_DIR", "FABRIC_AGENT")}
        self.env["XDG_STATE_HOME"] = str(tmp_path / "state")
        self.session_id = f"session-{project}"

    async def run(self, document: dict[str, Any], *flags: str, **fields: Any) -> subprocess.CompletedProcess[str]:
        payload = {**document, "session_id": self.session_id, "cwd": str(self.project), **fields}
        argv = [sys.executable, "-m", "fabricd.cli.main", "--target", self.target, "hook", "claude",
                document["hook_event_name"], *flags]
        done = await asyncio.to_thread(subprocess.run, argv, input=json.dumps(payload), capture_output=True,
                                       text=True, env=self.env, timeout=60)
        assert done.returncode == 0, done.stderr
        return done

    async def answer(self, document: dict[str, Any], *flags: str, **fields: Any) -> dict[str, Any] | None:
        out = (await self.run(document, *flags, **fields)).stdout
        return json.loads(out) if out.strip() else None

    async def context(self, document: dict[str, Any], *flags: str, **fields: Any) -> str | None:
        answer = await self.answer(document, *flags, **fields)
        if answer is None:
            return None
        assert set(answer) == {"hookSpecificOutput"}
        assert answer["hookSpecificOutput"]["hookEventName"] == document["hook_event_name"]
        return answer["hookSpecificOutput"]["additionalContext"]


@pytest.fixture
def session(daemon, tmp_path) -> Session:
    return Session(daemon.target, tmp_path)


async def presence(client: Client, agent_id: str) -> pb.MailboxEntry:
    return next(e for e in await client.list_mailboxes() if e.agent_id == agent_id)


async def test_session_start_registers_the_folder_agent_and_shows_its_mail_and_requests_unconsumed(
        client: Client, session: Session) -> None:
    await client.register("reviewer", capabilities=["review"])
    await client.touch("reviewer", offline=True)
    await client.send("reviewer", "please look at PR 7", sender="bob")
    ticket = (await client.enqueue("reviewer", "count the TODOs in src/", source_agent="planner")).ticket_id

    context = await session.context(SESSION_START)

    assert "'reviewer'" in context and "read_inbox" in context and "reply_to_task" in context
    assert "please look at PR 7" in context and "from bob" in context
    assert f"ticket {ticket}" in context and "count the TODOs in src/" in context
    assert context.count("count the TODOs") == 1  # the request's task message is not listed again as mail
    entry = await presence(client, "reviewer")
    assert entry.registered and entry.presence == pb.PRESENCE_LIVE and entry.cwd == str(session.project)
    assert {c.name for c in entry.capabilities} == {"review", "claude-code"}  # earlier capabilities kept
    assert (await client.peek("reviewer")).unread_count == 2  # peeked, never consumed
    assert len(await client.get_queue("reviewer")) == 1


async def test_session_start_with_nothing_waiting_says_so_and_honours_agent_flag(client: Client,
                                                                                   session: Session) -> None:
    context = await session.context(SESSION_START, "--agent", "claude-7", "--name", "seven")
    assert "'claude-7'" in context and "No mail or requests are waiting" in context
    entry = await client.resolve("seven")
    assert entry.agent_id == "claude-7" and entry.registered


async def test_user_prompt_submit_adds_only_mail_that_arrived_since_the_last_hook(client: Client,
                                                                                  session: Session) -> None:
    await client.register("reviewer")
    await client.send("reviewer", "old news", sender="bob")
    assert "old news" in await session.context(SESSION_START)
    assert await session.context(USER_PROMPT_SUBMIT) is None  # nothing new: no answer at all

    await client.send("reviewer", "fresh news", sender="carol")
    context = await session.context(USER_PROMPT_SUBMIT)
    assert "fresh news" in context and "from carol" in context and "old news" not in context
    assert await session.context(USER_PROMPT_SUBMIT) is None
    assert (await client.peek("reviewer")).unread_count == 2

    ticket = (await client.enqueue("reviewer", "summarise the diff", source_agent="planner")).ticket_id
    context = await session.context(USER_PROMPT_SUBMIT)
    assert "summarise the diff" in context and ticket in context and "reply_to_task" in context


async def test_stop_blocks_while_a_request_waits_at_most_max_blocks_in_a_row(client: Client,
                                                                             session: Session) -> None:
    await session.context(SESSION_START)
    ticket = (await client.enqueue("reviewer", "count the TODOs", source_agent="planner")).ticket_id

    first = await session.answer(STOP, "--max-blocks", "2", stop_hook_active=False)
    assert first["decision"] == "block" and set(first) == {"decision", "reason"}
    assert ticket in first["reason"] and "reply_to_task" in first["reason"] and "planner" in first["reason"]
    second = await session.answer(STOP, "--max-blocks", "2", stop_hook_active=True)
    assert second["decision"] == "block" and "2 of at most 2" in second["reason"]
    third = await session.run(STOP, "--max-blocks", "2", stop_hook_active=True)
    assert third.stdout == "" and "letting Claude stop" in third.stderr  # the loop guard lets it stop

    # A stop that no Stop hook caused (a turn the user started) begins a new run of blocks.
    again = await session.answer(STOP, "--max-blocks", "2", stop_hook_active=False)
    assert again["decision"] == "block" and "1 of at most 2" in again["reason"]


async def test_stop_is_allowed_when_nothing_waits_and_the_guard_resets(client: Client, session: Session) -> None:
    await session.context(SESSION_START)
    assert await session.answer(STOP, stop_hook_active=False) is None

    ticket = (await client.enqueue("reviewer", "count the TODOs", source_agent="planner")).ticket_id
    for _ in range(3):
        assert (await session.answer(STOP))["decision"] == "block"
    assert await session.answer(STOP) is None  # the default --max-blocks is 3
    await client.reply("reviewer", "12 TODOs", ticket_id=ticket)
    assert await session.answer(STOP) is None  # nothing waits: allowed, and the run of blocks is over

    await client.send("reviewer", "one more thing", sender="bob")
    blocked = await session.answer(STOP)
    assert blocked["decision"] == "block" and "1 unread message(s) from bob" in blocked["reason"]
    assert "1 of at most 3" in blocked["reason"]


async def test_session_end_leaves_the_agent_offline_with_its_queue_closed(client: Client, session: Session) -> None:
    await session.context(SESSION_START)
    ticket = (await client.enqueue("reviewer", "a long job", source_agent="planner")).ticket_id
    waiter = asyncio.create_task(client.await_reply(ticket, timeout=30))
    await asyncio.sleep(0)  # let the waiter's call start; the test does not depend on it having started

    assert await session.answer(SESSION_END) is None

    entry = await presence(client, "reviewer")
    assert entry.presence == pb.PRESENCE_OFFLINE
    assert await client.get_queue("reviewer") == []
    with pytest.raises(FabricError) as aborted:
        await waiter
    assert aborted.value.code == grpc.StatusCode.ABORTED
    assert not list((Path(session.env["XDG_STATE_HOME"]) / "fabricd" / "hooks").glob("*.json"))


async def test_session_end_by_clear_keeps_the_queue_for_the_context_that_follows(client: Client,
                                                                                   session: Session) -> None:
    await session.context(SESSION_START)
    ticket = (await client.enqueue("reviewer", "a long job", source_agent="planner")).ticket_id
    assert await session.answer(SESSION_END, reason="clear") is None
    assert [t.ticket_id for t in await client.get_queue("reviewer")] == [ticket]
    assert (await presence(client, "reviewer")).presence == pb.PRESENCE_LIVE
    assert ticket in await session.context(SESSION_START, source="clear")


@pytest.mark.parametrize("document", [SESSION_START, USER_PROMPT_SUBMIT, STOP, SESSION_END],
                         ids=lambda d: d["hook_event_name"])
async def test_an_unreachable_daemon_never_breaks_the_session(tmp_path: Path, document: dict[str, Any]) -> None:
    session = Session(f"unix:{tmp_path}/nobody.sock", tmp_path)
    done = await session.run(document)
    assert done.stdout == "" and "did nothing" in done.stderr and "cannot reach fabricd" in done.stderr


async def test_input_that_is_not_claude_codes_json_is_ignored(daemon, tmp_path: Path) -> None:
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path)}
    deep = "[" * 100_000 + "]" * 100_000  # deeper than Python's recursion limit: a RecursionError, not a ValueError
    for stdin, event in (("not json", "Stop"), ("[1, 2]", "Stop"), (json.dumps(STOP), "PostToolUse"), (deep, "Stop"),
                         ('{"a":' * 100_000 + "1" + "}" * 100_000, "SessionStart")):
        done = subprocess.run([sys.executable, "-m", "fabricd.cli.main", "--target", daemon.target, "hook",
                               "claude", event], input=stdin, capture_output=True, text=True, env=env, timeout=60)
        assert done.returncode == 0 and done.stdout == "" and "doing nothing" in done.stderr


async def test_a_huge_cwd_or_event_name_is_echoed_on_stderr_clipped_with_its_length(daemon, tmp_path: Path) -> None:
    # The hook's input is a coding agent's: a 100,000-character folder name (the agent id when --agent is not
    # given) or event name comes back on stderr as its start and its length, as the daemon's errors echo values.
    session = Session(daemon.target, tmp_path)
    huge = "x" * 100_000
    done = await session.run(SESSION_START, cwd=f"/tmp/{huge}")
    assert done.stdout == "" and "did nothing" in done.stderr and "(100000 characters)" in done.stderr
    assert len(done.stderr) < 3000, len(done.stderr)
    env = {**session.env, "FABRIC_AGENT": ""}
    stray = subprocess.run([sys.executable, "-m", "fabricd.cli.main", "--target", daemon.target, "hook", "claude"],
                           input=json.dumps({**STOP, "hook_event_name": huge}), capture_output=True, text=True,
                           env=env, timeout=60)
    assert stray.returncode == 0 and stray.stdout == "" and "doing nothing" in stray.stderr
    assert "(100002 characters)" in stray.stderr and len(stray.stderr) < 3000, len(stray.stderr)


def install(target: str, project: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fabricd.cli.main", "--target", target, "--json", "hook", "claude",
                           "--install", "--project", str(project), *flags], capture_output=True, text=True, timeout=60)


def test_install_merges_into_existing_settings_and_is_idempotent(daemon, tmp_path: Path) -> None:
    project = tmp_path / "my app"
    (project / ".claude").mkdir(parents=True)
    theirs = {"permissions": {"allow": ["Bash(npm test)"]},
              "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
                        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "audit.sh"}]}]}}
    (project / ".claude" / "settings.json").write_text(json.dumps(theirs))
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"github": {"command": "gh-mcp"}}}))

    first = install(daemon.target, project, "--agent", "app-dev")
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["hooks"] == dict.fromkeys(("SessionStart", "UserPromptSubmit", "Stop",
                                                               "SessionEnd", "PreToolUse"), "added")
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    assert settings["permissions"] == theirs["permissions"]
    assert settings["hooks"]["PreToolUse"][0] == theirs["hooks"]["PreToolUse"][0]
    assert settings["hooks"]["PreToolUse"][1]["matcher"] == "Edit|Write|MultiEdit|NotebookEdit"
    stop_commands = [h["command"] for g in settings["hooks"]["Stop"] for h in g["hooks"]]
    assert stop_commands[0] == "notify-send done" and len(stop_commands) == 2
    for event in ("SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"):
        (ours,) = [h for g in settings["hooks"][event] for h in g["hooks"] if "hook claude" in h["command"]]
        assert ours["type"] == "command" and f"hook claude {event} --agent app-dev" in ours["command"]
        assert os.path.isabs(ours["command"].split()[0].strip("'"))
    mcp = json.loads((project / ".mcp.json").read_text())
    assert mcp["mcpServers"]["github"] == {"command": "gh-mcp"}
    server = mcp["mcpServers"]["fabricd"]
    assert os.path.isabs(server["command"]) and server["args"][-3:] == ["mcp", "--agent", "app-dev"]

    files = [(project / ".claude" / "settings.json").read_bytes(), (project / ".mcp.json").read_bytes()]
    second = install(daemon.target, project, "--agent", "app-dev")
    assert second.returncode == 0 and json.loads(second.stdout)["server"] == "unchanged"
    assert set(json.loads(second.stdout)["hooks"].values()) == {"unchanged"}
    assert [(project / ".claude" / "settings.json").read_bytes(), (project / ".mcp.json").read_bytes()] == files

    renamed = install(daemon.target, project, "--agent", "app-2")  # a new name updates ours in place
    assert set(json.loads(renamed.stdout)["hooks"].values()) == {"updated"}
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    assert sum("hook claude Stop" in h["command"] for g in settings["hooks"]["Stop"] for h in g["hooks"]) == 1


def test_the_installed_hook_command_runs_as_claude_code_would_run_it(daemon, tmp_path: Path) -> None:
    project = tmp_path / "webshop"
    project.mkdir()
    assert install(daemon.target, project).returncode == 0
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    (command,) = [h["command"] for g in settings["hooks"]["SessionStart"] for h in g["hooks"]]
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state"), "CLAUDE_PROJECT_DIR": str(project)}
    done = subprocess.run(["bash", "-c", command], input=json.dumps({**SESSION_START, "cwd": str(project)}),
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "'webshop'" in json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]


def test_install_refuses_a_settings_file_it_cannot_read_and_leaves_it_alone(daemon, tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text("{ not json")
    done = install(daemon.target, tmp_path)
    assert done.returncode == 1 and "cannot read" in done.stderr
    assert (tmp_path / ".claude" / "settings.json").read_text() == "{ not json"
    assert not (tmp_path / ".mcp.json").exists()


async def test_the_mcp_servers_instructions_say_to_check_the_inbox_and_answer_with_reply_to_task(daemon) -> None:
    from mcp import Client as McpClient
    from mcp.client.stdio import StdioServerParameters

    bridge = StdioServerParameters(command=sys.executable, args=["-m", "fabricd.cli.main", "--target", daemon.target,
                                                                 "mcp", "--agent", "reviewer"])
    async with McpClient(bridge) as mcp:
        instructions = mcp.instructions or ""
    assert "'reviewer'" in instructions and "start of a task" in instructions
    assert "read_inbox" in instructions and "reply_to_task" in instructions and "ticket_id" in instructions
