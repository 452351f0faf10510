"""Lease guards for coding agents: Claude Code's pre-edit check and git's pre-commit hook.

- `fabric hook claude PreToolUse` (Edit, Write, MultiEdit, NotebookEdit): when another agent's lease covers
  the file (relative to the project folder), Claude Code asks the person first (`permissionDecision: ask`),
  or with --block-leased / $FABRIC_LEASE_BLOCK=1 refuses the edit (`deny`); the reason names each holder.
- `fabric hook git pre-commit`: refuses a commit whose staged paths (both sides of a rename) touch another
  agent's EXCLUSIVE lease, printing each holder; `fabric hook git --install` writes .git/hooks/pre-commit.

Neither breaks its host when fabricd is away: the edit or commit goes on, with a note on stderr.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import click

from fabricd.cli.app import Context
from fabricd.cli.hooks_echo import MESSAGE_CHARS, echoed
from fabricd.cli.lease import _holder_line
from fabricd.client import Client
from fabricd.v1 import lease_service_pb2 as ls

EDIT_TOOLS = ("Edit", "Write", "MultiEdit", "NotebookEdit")
TIMEOUT_S = 10.0
MARK = "# fabricd: refuse commits that touch another agent's exclusive lease (fabric hook git)"


def edited_path(payload: dict[str, Any]) -> str | None:
    """The file an edit tool is about to change, relative to the project folder; None when not an edit or
    outside the project."""
    if payload.get("tool_name") not in EDIT_TOOLS:
        return None
    given = payload.get("tool_input") or {}
    raw = given.get("file_path") or given.get("notebook_path") if isinstance(given, dict) else None
    if not isinstance(raw, str) or not raw:
        return None
    root = os.environ.get("CLAUDE_PROJECT_DIR") or str(payload.get("cwd") or os.getcwd())
    full = os.path.normpath(os.path.join(root, raw))
    relative = os.path.relpath(full, os.path.normpath(root))
    return None if relative == ".." or relative.startswith("../") or relative == "." else relative


async def holders_of_files(client: Client, paths: list[str], agent_id: str,
                           mode: str = "exclusive") -> list[ls.LeaseHolder]:
    """The other agents' leases covering the files `paths`, asked literally (a file named `a*.py` is that one
    file, not every `a...py`)."""
    return await client.check_leases(paths, agent_id=agent_id, mode=mode, literal=True)


async def pre_edit(client: Client, payload: dict[str, Any], agent_id: str, block: bool) -> dict[str, Any] | None:
    """PreToolUse: ask (or deny, with `block`) when another agent's lease covers the edited file."""
    path = edited_path(payload)
    if path is None:
        return None
    holders = await holders_of_files(client, [path], agent_id)
    if not holders:
        return None
    reason = (f"fabricd: {path} is leased by another agent: "
              + "; ".join(_holder_line(h) for h in holders[:5])
              + ". Ask the holder (send_message), wait for the lease to end, or work elsewhere.")
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny" if block else "ask",
                                   "permissionDecisionReason": reason}}


def staged_paths(repo: str) -> list[str]:
    out = subprocess.run(["git", "diff", "--cached", "--name-only", "--no-renames", "-z"], cwd=repo,
                         capture_output=True, check=True).stdout
    return [p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p]


def pre_commit(ctx: Context, agent: str) -> None:
    """Exit 1, naming each holder, when a staged path touches another agent's exclusive lease."""
    repo = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True,
                          check=True).stdout.strip()
    paths = staged_paths(repo)
    if not paths:
        return

    async def check() -> list[ls.LeaseHolder]:
        async with Client(ctx.target, token=ctx.token) as client:
            # the intent of a commit is SHARED: only exclusive leases of other agents refuse it
            return await holders_of_files(client, paths, agent, mode="shared")

    try:
        holders = asyncio.run(asyncio.wait_for(check(), TIMEOUT_S))
    except Exception as exc:  # fabricd away: the commit goes on, with a note
        why = getattr(exc, "message", None) or exc
        click.echo(f"fabric: the pre-commit lease check did nothing: {echoed(why, MESSAGE_CHARS)}", err=True)
        return
    if not holders:
        return
    click.echo(f"fabric: this commit touches {len({h.requested for h in holders})} path(s) another agent holds "
               "an exclusive lease on:", err=True)
    for h in holders:
        click.echo(f"  {_holder_line(h)}", err=True)
    click.echo("fabric: ask the holder to release it (fabric lease rm), or unstage those paths "
               "(git restore --staged PATH); git commit --no-verify skips this check", err=True)
    sys.exit(1)


def install_git(ctx: Context, repo: str, agent: str | None) -> None:
    """Write the pre-commit hook into the repository's hooks folder (refusing to replace someone else's)."""
    from fabricd.cli.hooks_install import fabric_argv

    hooks = subprocess.run(["git", "rev-parse", "--git-path", "hooks"], cwd=repo, capture_output=True, text=True,
                           check=True).stdout.strip()
    path = Path(repo, hooks) / "pre-commit"
    target = ["--target", ctx.target] if ctx.target else []
    command = shlex.join([*fabric_argv(), *target, "hook", "git", "pre-commit", *(["--agent", agent] if agent else [])])
    text = f"#!/bin/sh\n{MARK}\nexec {command}\n"
    if path.exists() and MARK not in path.read_text(errors="replace"):
        raise click.ClickException(f"{path} is another pre-commit hook; add this line to it instead: {command}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    click.echo(str(path))
