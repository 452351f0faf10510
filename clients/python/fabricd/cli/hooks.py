"""`fabric hook claude EVENT`: a hook program for Claude Code that keeps its agent on the fabric between turns.

Claude Code runs it on four hook events with a JSON document on standard input
(session_id, transcript_path, cwd, hook_event_name, and per event source,
prompt, stop_hook_active or reason) and reads its answer from standard output
when it exits 0:

- SessionStart registers the agent and adds its unread mail and queued requests
  to the context (`hookSpecificOutput.additionalContext`); nothing is consumed.
- UserPromptSubmit adds the mail that arrived since the last hook (a cursor,
  the last seen seq, kept in a state file per session).
- Stop blocks the stop (`{"decision": "block", "reason": ...}`) while requests
  are queued or mail is unread, at most --max-blocks times in a row.
- PreToolUse (Edit, Write): asks first, or refuses, when another agent leases the file (hooks_leases.py).
- SessionEnd closes the agent's request queue and marks it offline (not when
  the reason is "clear": /clear goes on in a fresh context, SessionStart follows).

A hook must never break the session it serves: whatever goes wrong (daemon
down, bad input), the program writes nothing on standard output, says why on
standard error and exits 0. `fabric hook claude --install` (hooks_install.py)
writes the hooks and the MCP server into a project.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from fabricd.cli import hooks_leases
from fabricd.cli.app import Context, cli
from fabricd.cli.hooks_echo import MESSAGE_CHARS, echoed
from fabricd.client import Client
from fabricd.v1 import types_pb2 as pb

EVENTS = ("SessionStart", "UserPromptSubmit", "Stop", "SessionEnd", "PreToolUse")
MAX_BLOCKS = 3
HOOK_TIMEOUT_S = 15.0
"""A hung daemon must not hold the session: the hook gives up (and exits 0) after this long."""
SHOWN = 20
"""At most this many messages or requests are spelled out in the context; the rest are counted."""
TEXT_CHARS = 1500
TOOLS_HINT = ("read them with the fabricd MCP tool read_inbox (consume=true once handled), answer each request with "
              "reply_to_task(result, ticket_id), and reply to mail with send_message")


def event_name(value: str) -> str | None:
    """A hook event as Claude Code names it, from that name or a spelling like session-start or session_start."""
    key = value.replace("-", "").replace("_", "").lower()
    return next((e for e in EVENTS if e.lower() == key), None)


def agent_for(agent: str | None, payload: dict[str, Any]) -> str:
    """The agent id: --agent, else $FABRIC_AGENT (click reads it), else the project folder's name."""
    if agent:
        return agent
    folder = os.environ.get("CLAUDE_PROJECT_DIR") or payload.get("cwd") or os.getcwd()
    return os.path.basename(os.path.normpath(str(folder))) or "claude-code"


# -- the state of one Claude Code session: the mail cursor and the Stop loop guard --------------------------------

def state_dir() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "fabricd" / "hooks"


def state_path(session_id: str) -> Path:
    # The session id comes from outside: keep it a plain file name (no '/', no '..').
    name = re.sub(r"[^A-Za-z0-9._-]", "_", session_id)[:100].lstrip(".") or "session"
    if name != session_id:
        name += "-" + hashlib.sha256(session_id.encode()).hexdigest()[:12]
    return state_dir() / f"{name}.json"


@dataclass
class State:
    agent_id: str = ""
    last_seq: int = 0
    """The highest mailbox seq already put in the context."""
    blocks: int = 0
    """Stops blocked in a row (the loop guard)."""

    @classmethod
    def load(cls, path: Path) -> State:
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            return cls(str(raw.get("agent_id", "")), int(raw.get("last_seq", 0)), int(raw.get("blocks", 0)))
        except (OSError, ValueError, TypeError, AttributeError):
            return cls()  # none yet, or unreadable: start afresh rather than fail the hook

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        partial = path.with_suffix(f".{os.getpid()}.partial")
        partial.write_text(json.dumps({"agent_id": self.agent_id, "last_seq": self.last_seq, "blocks": self.blocks}),
                           encoding="utf-8")
        os.replace(partial, path)  # a crash mid-write leaves the old state, never half a file


# -- what is waiting, as text for the model --------------------------------------------------------------------

@dataclass
class Waiting:
    messages: list[pb.Message]
    unread: int
    tickets: list[Any]  # rendezvous QueuedTicket, head first

    @property
    def queued(self) -> set[str]:
        return {t.ticket_id for t in self.tickets}

    def mail(self, after_seq: int = 0) -> list[pb.Message]:
        """Unread messages after `after_seq`, without the task messages of requests listed as tickets."""
        return [m for m in self.messages if m.seq > after_seq and m.ticket_id not in self.queued]

    @property
    def mail_count(self) -> int:
        return max(0, self.unread - sum(1 for m in self.messages if m.ticket_id and m.ticket_id in self.queued))


async def waiting(client: Client, agent_id: str) -> Waiting:
    peeked = await client.peek(agent_id, limit=1000)
    return Waiting(list(peeked.messages), int(peeked.unread_count), await client.get_queue(agent_id))


def clip(text: str, limit: int = TEXT_CHARS) -> str:
    return text if len(text) <= limit else text[:limit] + f"... [{len(text) - limit} more characters]"


def ago(seconds: float) -> str:
    seconds = max(0, int(seconds))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def describe_message(m: pb.Message) -> str:
    sent = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(m.send_time.seconds))
    extra = f" (request, ticket {m.ticket_id}: answer with reply_to_task)" if m.ticket_id else ""
    thread = f" [thread {m.thread_id}]" if m.thread_id else ""
    return f"- #{m.seq} from {m.sender.agent_id or 'unknown'} at {sent}{thread}{extra}: {clip(m.text)}"


def describe_ticket(t: Any, now: float) -> str:
    return (f"- ticket {t.ticket_id} from {t.requester or 'unknown'} (waiting {ago(now - t.enqueue_time.seconds)}): "
            f"{clip(t.task)}")


def listing(lines: list[str], total: int) -> list[str]:
    return lines[:SHOWN] + ([f"- ... and {total - SHOWN} more"] if total > SHOWN else [])


def session_context(agent_id: str, work: Waiting) -> str:
    """The SessionStart context: who the model is on the fabric, and everything waiting for it."""
    now = time.time()
    out = [f"fabricd: you are agent {agent_id!r} on a fabricd messaging fabric shared with other agents; the "
           "fabricd MCP tools (read_inbox, reply_to_task, send_message, ask_agent, list_peers, show_queue) act as "
           "this agent."]
    if work.tickets:
        out.append(f"Requests queued for you ({len(work.tickets)}, oldest first; answer each with "
                   "reply_to_task(result, ticket_id)):")
        out += listing([describe_ticket(t, now) for t in work.tickets], len(work.tickets))
    mail = work.mail()
    if mail:
        out.append(f"Unread mail ({work.mail_count}; it stays unread until read_inbox with consume=true):")
        out += listing([describe_message(m) for m in mail], work.mail_count)
    if not work.tickets and not mail:
        out.append("No mail or requests are waiting for you.")
    return "\n".join(out)


def new_mail_context(agent_id: str, mail: list[pb.Message]) -> str:
    head = f"fabricd: {len(mail)} new message(s) for agent {agent_id!r} arrived since your last turn ({TOOLS_HINT}):"
    return "\n".join([head, *listing([describe_message(m) for m in mail], len(mail))])


def stop_reason(agent_id: str, work: Waiting, block: int, max_blocks: int) -> str:
    parts = []
    if work.tickets:
        head = work.tickets[0]
        parts.append(f"{len(work.tickets)} request(s) queued for you (the oldest: ticket {head.ticket_id} from "
                     f"{head.requester or 'unknown'}: {clip(head.task, 300)})")
    if work.mail_count:
        senders = sorted({m.sender.agent_id or "unknown" for m in work.mail()})
        parts.append(f"{work.mail_count} unread message(s)" + (f" from {', '.join(senders)}" if senders else ""))
    return (f"fabricd: before you stop, work is waiting for agent {agent_id!r}: {' and '.join(parts)}. "
            f"Handle it now: {TOOLS_HINT}. (Stop blocked {block} of at most {max_blocks} times in a row.)")


# -- the events ----------------------------------------------------------------------------------------------------

def context_answer(event: str, text: str) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}


async def handle(client: Client, event: str, payload: dict[str, Any], agent_id: str, session_name: str,
                 max_blocks: int, block_leased: bool = False) -> dict[str, Any] | None:
    """The answer to one hook event (None: nothing to say), updating the session's state file."""
    if event == "PreToolUse":  # the lease guard (hooks_leases.py); no session state
        return await hooks_leases.pre_edit(client, payload, agent_id, block_leased)
    path = state_path(str(payload.get("session_id") or "no-session"))
    state = State.load(path)
    if state.agent_id != agent_id:
        state = State(agent_id=agent_id)  # a cursor belongs to one agent's mailbox
    if event == "SessionStart":
        await register(client, agent_id, session_name, str(payload.get("cwd") or ""))
        work = await waiting(client, agent_id)
        state.last_seq = max([state.last_seq, *(m.seq for m in work.messages)])
        state.blocks = 0
        state.save(path)
        return context_answer(event, session_context(agent_id, work))
    if event == "UserPromptSubmit":
        await client.touch(agent_id)
        work = await waiting(client, agent_id)
        fresh = [m for m in work.messages if m.seq > state.last_seq]
        state.last_seq = max([state.last_seq, *(m.seq for m in work.messages)])
        state.blocks = 0  # a person spoke: the Stop hook's run of blocks is over
        state.save(path)
        return context_answer(event, new_mail_context(agent_id, fresh)) if fresh else None
    if event == "Stop":
        work = await waiting(client, agent_id)
        if not payload.get("stop_hook_active"):
            state.blocks = 0  # this stop ends a turn that no Stop hook continued: a new run of blocks starts
        state.last_seq = max([state.last_seq, *(m.seq for m in work.messages)])
        if not work.tickets and not work.mail_count:
            state.blocks = 0
            state.save(path)
            return None
        if state.blocks >= max_blocks:
            state.save(path)
            click.echo(f"fabric: {echoed(agent_id)} still has work waiting after {max_blocks} blocked stops in a row; "
                       "letting Claude stop", err=True)
            return None
        state.blocks += 1
        state.save(path)
        return {"decision": "block", "reason": stop_reason(agent_id, work, state.blocks, max_blocks)}
    if event == "SessionEnd":
        if payload.get("reason") == "clear":
            return None  # /clear starts a fresh context in the same session (SessionStart follows): work stays queued
        await client.close_queue(agent_id, "the agent's Claude Code session ended")
        await client.touch(agent_id, offline=True)
        with contextlib.suppress(OSError):
            path.unlink()
        return None
    return None


async def register(client: Client, agent_id: str, session_name: str, cwd: str) -> None:
    """Register the agent, keeping the capabilities it has (the MCP bridge registers too, in any order)."""
    capabilities: list[pb.Capability] = []
    for entry in await client.list_mailboxes():
        if entry.agent_id == agent_id:
            capabilities = list(entry.capabilities)
    if not any(c.name == "claude-code" for c in capabilities):
        capabilities.append(pb.Capability(name="claude-code", description="a Claude Code session"))
    await client.register(agent_id, session_name=session_name, capabilities=capabilities, cwd=cwd)
    await client.touch(agent_id)


def read_payload() -> dict[str, Any]:
    if sys.stdin is None or sys.stdin.isatty():
        return {}
    raw = sys.stdin.read()
    if not raw.strip():
        return {}
    payload = json.loads(raw)
    if not isinstance(payload, dict):
        raise ValueError("the hook input is not a JSON object")
    return payload


def run_hook(ctx: Context, event: str | None, agent: str | None, session_name: str, max_blocks: int,
             block_leased: bool = False) -> None:
    """Run one hook event; any failure is a note on stderr and exit 0, never a broken session."""
    try:
        payload = read_payload()
    except (ValueError, RecursionError) as exc:  # json.JSONDecodeError and UnicodeDecodeError are ValueErrors;
        # JSON nested deeper than Python's recursion limit is a RecursionError
        why = "nested too deeply" if isinstance(exc, RecursionError) else exc
        click.echo(f"fabric: hook input is not the JSON Claude Code sends ({echoed(why, MESSAGE_CHARS)}); doing nothing", err=True)
        return
    given = event or str(payload.get("hook_event_name") or "")
    name = event_name(given)
    if name is None:
        click.echo(f"fabric: no hook for event {echoed(repr(given or '(none)'))} (known: {', '.join(EVENTS)}); "
                   "doing nothing", err=True)
        return
    agent_id = agent_for(agent, payload)

    async def go() -> dict[str, Any] | None:
        async with Client(ctx.target, token=ctx.token) as client:
            return await handle(client, name, payload, agent_id, session_name, max_blocks, block_leased)

    try:
        answer = asyncio.run(asyncio.wait_for(go(), HOOK_TIMEOUT_S))
    except Exception as exc:  # the hook's one promise: whatever fails, the session goes on
        why = getattr(exc, "message", None) or str(exc) or type(exc).__name__
        if isinstance(exc, TimeoutError):
            why = f"fabricd did not answer within {HOOK_TIMEOUT_S:g}s"
        elif getattr(exc, "reason", "") == "UNAVAILABLE":
            why = f"cannot reach fabricd ({why}); is it running? start it with `fabricd serve` or pass --target"
        click.echo(f"fabric: the {name} hook for {echoed(agent_id)} did nothing: {echoed(why, MESSAGE_CHARS)} "
                   f"[{echoed(getattr(exc, 'reason', type(exc).__name__))}]", err=True)
        return
    if answer is not None:
        click.echo(json.dumps(answer, ensure_ascii=False))


@cli.group()
def hook() -> None:
    """Hook programs that put coding agents on the fabric."""


@hook.command("claude")
@click.argument("event", required=False)
@click.option("--agent", "agent", envvar="FABRIC_AGENT", default=None,
              help="the agent id (default: $FABRIC_AGENT, else the project folder's name)")
@click.option("--name", "session_name", default="", help="a display name peers can address")
@click.option("--max-blocks", type=click.IntRange(min=0), default=MAX_BLOCKS, show_default=True,
              help="Stop: block at most this many stops in a row while work waits")
@click.option("--block-leased", is_flag=True, envvar="FABRIC_LEASE_BLOCK",
              help="PreToolUse: refuse an edit of a file another agent leases (default: ask first)")
@click.option("--install", is_flag=True, help="write the hooks and the MCP server into the project instead")
@click.option("--project", type=click.Path(file_okay=False), default=None,
              help="with --install: the project folder (default: the current one)")
@click.pass_obj
def claude(ctx: Context, event: str | None, agent: str | None, session_name: str, max_blocks: int, block_leased: bool,
           install: bool, project: str | None) -> None:
    """Claude Code hook for EVENT (SessionStart, UserPromptSubmit, Stop, SessionEnd, PreToolUse), reading its
    JSON on stdin. PreToolUse checks an edit against other agents' leases.

    With --install, write the four hooks and the fabricd MCP server into the
    project's .claude/settings.json and .mcp.json (merging with what is there).
    """
    if install:
        if event:
            raise click.UsageError("give EVENT or --install, not both")
        from fabricd.cli import hooks_install

        hooks_install.install(ctx, project or os.getcwd(), agent, session_name, max_blocks)
        return
    if project:
        raise click.UsageError("--project goes with --install")
    if event is None and (sys.stdin is None or sys.stdin.isatty()):
        raise click.UsageError(f"give the hook EVENT ({', '.join(EVENTS)}) or --install")
    run_hook(ctx, event, agent, session_name, max_blocks, block_leased)


@hook.command("git")
@click.argument("stage", required=False, type=click.Choice(["pre-commit"]))
@click.option("--agent", "agent", envvar="FABRIC_AGENT", default="",
              help="the committing agent: its own leases never refuse it ($FABRIC_AGENT)")
@click.option("--install", is_flag=True, help="write .git/hooks/pre-commit for the repository here")
@click.pass_obj
def git(ctx: Context, stage: str | None, agent: str, install: bool) -> None:
    """pre-commit: refuse a commit that touches another agent's exclusive lease (exit 1, naming the holders)."""
    if install == bool(stage):
        raise click.UsageError("give the hook STAGE (pre-commit) or --install")
    if install:
        hooks_leases.install_git(ctx, os.getcwd(), agent or None)
    else:
        hooks_leases.pre_commit(ctx, agent)
