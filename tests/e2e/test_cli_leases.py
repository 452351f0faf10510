"""`fabric lease` against the real daemon: take, ls, check (exit 1 on a conflict; the waiters in line), renew, rm."""

from __future__ import annotations

import json
import subprocess
import sys
import time

from fabricd.client import SyncClient
from tests.e2e.test_cli import fabric


def until_in_line(daemon, path: str) -> None:
    """Once another agent's waiting take is in line for `path` (polled: the line is the observable state)."""
    deadline = time.monotonic() + 30
    with SyncClient(daemon.target) as client:
        while not client.lease_waiters([path], agent_id="reviewer"):
            assert time.monotonic() < deadline, f"no waiter in line for {path} within 30s"
            time.sleep(0.02)


def test_take_check_ls_renew_rm(daemon) -> None:
    taken = fabric(daemon, "--json", "lease", "take", "src/api/**", "--as", "builder", "--ttl", "30m",
                   "--reason", "refactor")
    assert taken.returncode == 0, taken.stderr
    lease = json.loads(taken.stdout)
    assert lease["agent_id"] == "builder" and lease["resources"] == ["src/api/**"]

    refused = fabric(daemon, "lease", "take", "src/api/app.py", "--as", "reviewer")
    assert refused.returncode == 1
    assert "held by builder" in refused.stdout and "refactor" in refused.stdout and "LEASE_CONFLICT" in refused.stderr

    checked = fabric(daemon, "--json", "lease", "check", "src/api/app.py", "README.md", "--as", "reviewer")
    assert checked.returncode == 1
    [row] = [json.loads(line) for line in checked.stdout.splitlines()]
    assert (row["path"], row["agent_id"], row["resource"], row["mode"]) == (
        "src/api/app.py", "builder", "src/api/**", "exclusive")
    assert fabric(daemon, "lease", "check", "README.md", "--as", "reviewer").returncode == 0
    assert fabric(daemon, "lease", "check", "src/api/app.py", "--as", "builder").returncode == 0  # its own
    assert fabric(daemon, "lease", "check", "src/ap*", "--as", "reviewer").returncode == 1  # a pattern: api too
    assert fabric(daemon, "lease", "check", "src/ap*", "--literal", "--as", "reviewer").returncode == 0  # one file

    listed = fabric(daemon, "lease", "ls")
    assert "builder" in listed.stdout and "src/api/**" in listed.stdout and "refactor" in listed.stdout
    assert fabric(daemon, "lease", "renew", lease["lease_id"], "--ttl", "1h").returncode == 0
    removed = fabric(daemon, "lease", "rm", "--all", "--as", "builder")
    assert removed.returncode == 0 and "released 1 lease(s)" in removed.stdout
    assert fabric(daemon, "lease", "take", "src/api/app.py", "--as", "reviewer", "--ttl", "90s").returncode == 0


def test_bad_input_is_one_line_and_exit_1(daemon) -> None:
    bad = fabric(daemon, "lease", "take", "../etc/passwd", "--as", "a")
    assert bad.returncode == 1 and "[LEASE_PATTERN_INVALID]" in bad.stderr
    assert fabric(daemon, "lease", "take", "x").returncode == 2  # no agent: a usage error
    assert fabric(daemon, "lease", "take", "x", "--as", "a", "--ttl", "soon").returncode == 2


def test_check_prints_the_waiters_in_line_and_exits_on_conflicts_only(daemon) -> None:
    assert fabric(daemon, "lease", "take", "src/api/**", "--as", "builder", "--ttl", "30m").returncode == 0
    waiter = subprocess.Popen([sys.executable, "-m", "fabricd.cli.main", "--target", daemon.target, "lease", "take",
                               "src/api/app.py", "--as", "waiter", "--wait", "5m"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        until_in_line(daemon, "src/api/app.py")
        checked = fabric(daemon, "lease", "check", "src/api/app.py", "README.md", "--as", "reviewer")
        assert checked.returncode == 1, checked.stderr  # builder's lease: a conflict
        assert "held by builder" in checked.stdout
        assert "src/api/app.py: in line #1: waiter waits for exclusive src/api/app.py" in checked.stdout
        rows = [json.loads(line) for line in fabric(daemon, "--json", "lease", "check", "src/api/app.py",
                                                     "--as", "reviewer").stdout.splitlines()]
        assert [(r.get("waiting", False), r["agent_id"], r["path"], r["resource"]) for r in rows] == [
            (False, "builder", "src/api/app.py", "src/api/**"), (True, "waiter", "src/api/app.py", "src/api/app.py")]
        assert rows[1]["place"] == 1 and rows[1]["mode"] == "exclusive" and rows[1]["resources"] == ["src/api/app.py"]
        assert rows[1]["enqueue_time"].endswith("Z")
        # The waiter's own check shows no one in its way but builder; the line alone never exits 1.
        own = fabric(daemon, "lease", "check", "src/api/app.py", "--as", "waiter")
        assert own.returncode == 1 and "in line" not in own.stdout
        assert fabric(daemon, "lease", "rm", "--all", "--as", "builder").returncode == 0
        out, err = waiter.communicate(timeout=30)  # granted once builder's lease ended
        assert waiter.returncode == 0, err
        assert fabric(daemon, "lease", "check", "src/api/app.py", "--as", "waiter").returncode == 0
    finally:
        if waiter.poll() is None:
            waiter.kill()
            waiter.wait()


def test_a_line_without_a_holder_is_printed_and_exits_0(daemon) -> None:
    """Only waiters in the way (their holder is the checking agent itself): printed, exit 0."""
    assert fabric(daemon, "lease", "take", "x.py", "--as", "reviewer", "--ttl", "30m").returncode == 0
    waiter = subprocess.Popen([sys.executable, "-m", "fabricd.cli.main", "--target", daemon.target, "lease", "take",
                               "x.py", "--as", "waiter", "--wait", "5m"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        until_in_line(daemon, "x.py")
        checked = fabric(daemon, "lease", "check", "x.py", "--as", "reviewer")
        assert checked.returncode == 0, checked.stderr
        assert checked.stdout.strip().startswith("x.py: in line #1: waiter waits for exclusive x.py (since ")
    finally:
        waiter.kill()
        waiter.wait()
