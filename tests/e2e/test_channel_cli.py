"""`fabric channel ...`, `fabric send '#team'` and `fabric search` against the real daemon."""

from __future__ import annotations

import json

from tests.e2e.test_cli import fabric


def test_a_team_talks_through_a_channel_from_the_shell(daemon) -> None:
    for agent in ("ann", "bob"):
        assert fabric(daemon, "register", agent).returncode == 0
    made = fabric(daemon, "channel", "create", "#team", "-d", "the team")
    assert made.returncode == 0 and "created #team (open)" in made.stdout
    assert "bob joined #team" in fabric(daemon, "channel", "join", "#team", "bob").stdout
    assert fabric(daemon, "channel", "join", "team", "ann").returncode == 0
    sent = fabric(daemon, "send", "#team", "main is red, stop merging", "--from", "ann")
    assert sent.returncode == 0 and "to #team #1: 1 delivered" in sent.stdout, sent.stdout + sent.stderr
    assert "main is red" in fabric(daemon, "peek", "bob").stdout  # the copy in bob's mailbox
    read = fabric(daemon, "channel", "read", "#team")
    assert "#team 1" in read.stdout and "ann" in read.stdout and "main is red, stop merging" in read.stdout
    tailed = fabric(daemon, "--json", "channel", "tail", "#team", "-c", "1")
    assert json.loads(tailed.stdout)["message"]["text"] == "main is red, stop merging"
    listed = fabric(daemon, "channel", "ls")
    assert "#team" in listed.stdout and "the team" in listed.stdout
    assert "ann" in fabric(daemon, "channel", "members", "#team").stdout
    found = fabric(daemon, "search", "main red")
    assert "#team 1" in found.stdout and "[main]" in found.stdout, found.stdout + found.stderr
    refused = fabric(daemon, "channel", "rm", "#team")
    assert refused.returncode == 1 and "[CHANNEL_NOT_EMPTY]" in refused.stderr
    assert "deleted #team (1 posts)" in fabric(daemon, "channel", "rm", "#team", "--purge").stdout
    missing = fabric(daemon, "send", "#team", "anyone?", "--from", "ann")
    assert missing.returncode == 1 and "[CHANNEL_NOT_FOUND]" in missing.stderr
