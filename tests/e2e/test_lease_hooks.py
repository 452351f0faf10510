"""The lease guards as their hosts run them: Claude Code's PreToolUse hook and git's pre-commit hook (a real
repository, a real `git commit`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from fabricd.client import SyncClient

BACKENDS = ("lmdb", "postgres")


def pre_tool_use(daemon, project: Path, file_path: str, agent: str, **env: str) -> subprocess.CompletedProcess[str]:
    payload = {"session_id": "s1", "hook_event_name": "PreToolUse", "tool_name": "Edit", "cwd": str(project),
               "tool_input": {"file_path": file_path, "old_string": "a", "new_string": "b"}}
    return subprocess.run([sys.executable, "-m", "fabricd.cli.main", "--target", daemon.target, "hook", "claude",
                           "PreToolUse", "--agent", agent], input=json.dumps(payload), capture_output=True,
                          text=True, env={**os.environ, "CLAUDE_PROJECT_DIR": str(project), **env}, timeout=60)


def test_claude_asks_before_editing_a_file_another_agent_leases_and_refuses_when_told(daemon, tmp_path) -> None:
    project = tmp_path / "shop"
    with SyncClient(daemon.target) as client:
        client.acquire_lease("builder", ["src/api/**"], reason="refactor")
    asked = pre_tool_use(daemon, project, str(project / "src/api/app.py"), "reviewer")
    assert asked.returncode == 0, asked.stderr
    out = json.loads(asked.stdout)["hookSpecificOutput"]
    assert out["permissionDecision"] == "ask" and "builder" in out["permissionDecisionReason"]
    assert "refactor" in out["permissionDecisionReason"] and "src/api/app.py" in out["permissionDecisionReason"]
    refused = pre_tool_use(daemon, project, "src/api/app.py", "reviewer", FABRIC_LEASE_BLOCK="1")
    assert json.loads(refused.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    for free in (pre_tool_use(daemon, project, str(project / "src/api/app.py"), "builder"),  # its own lease
                 pre_tool_use(daemon, project, str(project / "README.md"), "reviewer"),
                 pre_tool_use(daemon, project, "/etc/hosts", "reviewer")):  # outside the project
        assert free.returncode == 0 and free.stdout == "", free.stderr


def test_a_file_named_with_glob_characters_is_checked_as_that_file_not_as_a_pattern(daemon, tmp_path) -> None:
    # An edited file's path is a literal: `src/a*.py` must not be asked as every `src/a...py`, `?` as any one
    # character, nor `[ab].py` as a character class (the lease language reads `[` as itself).
    project = tmp_path / "shop"
    with SyncClient(daemon.target) as client:
        client.acquire_lease("builder", ["src/ab.py", "src/[ab].py", "lib/*.py"], reason="refactor")
        for free in ("src/a*.py", "src/a?.py", "src/*", "src/a.py", "src/[a].py"):
            done = pre_tool_use(daemon, project, free, "reviewer")
            assert done.returncode == 0 and done.stdout == "", (free, done.stdout, done.stderr)
        for held in ("src/ab.py", "src/[ab].py", "lib/x.py", "lib/*.py", "lib/[x].py"):
            done = pre_tool_use(daemon, project, held, "reviewer")
            assert done.returncode == 0 and json.loads(done.stdout)["hookSpecificOutput"][
                "permissionDecision"] == "ask", (held, done.stdout, done.stderr)


def git(repo: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.test",
                               "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.test", **env})


def test_the_pre_commit_hook_refuses_a_commit_touching_another_agents_exclusive_lease(daemon, tmp_path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    assert git(repo, "init", "-q").returncode == 0
    installed = subprocess.run([sys.executable, "-m", "fabricd.cli.main", "--target", daemon.target, "hook", "git",
                                "--install"], cwd=repo, capture_output=True, text=True, timeout=60)
    assert installed.returncode == 0, installed.stderr
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text("print(1)\n")
    (repo / "README.md").write_text("hi\n")
    with SyncClient(daemon.target) as client:
        held = client.acquire_lease("builder", ["src/**"], reason="refactor")
        client.acquire_lease("docs-bot", ["README.md"], mode="shared")
        git(repo, "add", "README.md")
        assert git(repo, "commit", "-qm", "readme", FABRIC_AGENT="reviewer").returncode == 0  # a shared lease
        git(repo, "add", "src/app.py")
        refused = git(repo, "commit", "-qm", "app", FABRIC_AGENT="reviewer")
        assert refused.returncode == 1
        assert "src/app.py" in refused.stderr and "builder" in refused.stderr and "refactor" in refused.stderr
        assert git(repo, "log", "--oneline").stdout.count("\n") == 1  # nothing committed
        assert git(repo, "commit", "-qm", "app", FABRIC_AGENT="builder").returncode == 0  # the holder may
        (repo / "src" / "app.py").write_text("print(2)\n")
        git(repo, "add", "src/app.py")
        assert git(repo, "commit", "-qm", "again", FABRIC_AGENT="reviewer").returncode == 1
        client.release_lease(held.lease_id)
        assert git(repo, "commit", "-qm", "again", FABRIC_AGENT="reviewer").returncode == 0


def test_the_pre_commit_hooks_note_when_it_did_nothing_is_clipped_with_its_length(tmp_path) -> None:
    # The reason quotes what it was given (here a 100,000-character --target): stderr gets its start and length,
    # as the Claude Code hook's notes do, and the commit goes on.
    repo = tmp_path / "repo"
    repo.mkdir()
    assert git(repo, "init", "-q").returncode == 0
    (repo / "a.py").write_text("print(1)\n")
    git(repo, "add", "a.py")
    done = subprocess.run([sys.executable, "-m", "fabricd.cli.main", "--target", "x" * 100_000, "hook", "git",
                           "pre-commit", "--agent", "reviewer"], cwd=repo, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "did nothing" in done.stderr, done.stderr[:500]
    assert "characters)" in done.stderr and len(done.stderr) < 3000, len(done.stderr)
