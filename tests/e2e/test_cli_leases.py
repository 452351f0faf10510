"""`fabric lease` against the real daemon: take, ls, check (exit 1 on a conflict), renew, rm."""

from __future__ import annotations

import json

from tests.e2e.test_cli import fabric


def test_take_check_ls_renew_rm(daemon) -> None:  # noqa: ANN001
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

    listed = fabric(daemon, "lease", "ls")
    assert "builder" in listed.stdout and "src/api/**" in listed.stdout and "refactor" in listed.stdout
    assert fabric(daemon, "lease", "renew", lease["lease_id"], "--ttl", "1h").returncode == 0
    removed = fabric(daemon, "lease", "rm", "--all", "--as", "builder")
    assert removed.returncode == 0 and "released 1 lease(s)" in removed.stdout
    assert fabric(daemon, "lease", "take", "src/api/app.py", "--as", "reviewer", "--ttl", "90s").returncode == 0


def test_bad_input_is_one_line_and_exit_1(daemon) -> None:  # noqa: ANN001
    bad = fabric(daemon, "lease", "take", "../etc/passwd", "--as", "a")
    assert bad.returncode == 1 and "[LEASE_PATTERN_INVALID]" in bad.stderr
    assert fabric(daemon, "lease", "take", "x").returncode == 2  # no agent: a usage error
    assert fabric(daemon, "lease", "take", "x", "--as", "a", "--ttl", "soon").returncode == 2
