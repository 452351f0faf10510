"""`fabric watch`: mailboxes, queues and recent activity, live; bounded modes for scripts; Ctrl-C ends it cleanly."""

from __future__ import annotations

import json
import signal

from fabricd.client import SyncClient
from tests.e2e.test_cli import fabric
from tests.e2e.test_cli_surprises import Running


def test_watch_once_shows_mailboxes_presence_unread_and_queue_positions(daemon) -> None:
    with SyncClient(daemon.target) as client:
        client.register("worker", session_name="builder")
        client.register("alice")
        client.send("alice", "hello", sender="worker")
        first = client.enqueue("worker", "count the files", source_agent="planner").ticket_id
        second = client.enqueue("worker", "lint the repo", source_agent="alice").ticket_id
    shown = fabric(daemon, "watch", "--once")
    assert shown.returncode == 0, shown.stderr
    boxes, queues = shown.stdout.split("\nqueues\n")
    rows = {line.split()[0]: line.split() for line in boxes.splitlines() if line.strip()}
    assert rows["alice"][1:5] == ["-", "live", "1", "0"]  # name, presence, unread, queued
    assert rows["worker"][1:5] == ["builder", "live", "2", "2"]
    queue = [line.split() for line in queues.split("recent activity")[0].splitlines()[1:] if line.strip()]
    assert [(q[1], q[2], q[3]) for q in queue] == [("0", first, "planner"), ("1", second, "alice")]
    recent = [line.split(" ", 1)[1] for line in shown.stdout.split("recent activity\n")[1].splitlines() if " " in line]
    assert f"ticket {first} queued for worker by planner" in recent and "alice active (1 unread)" in recent
    assert recent.index(f"ticket {first} queued for worker by planner") < recent.index(
        f"ticket {second} queued for worker by alice")
    snapshot = json.loads(fabric(daemon, "watch", "--once", "--json").stdout)
    assert [t["position"] for t in snapshot["queues"]["worker"]] == [0, 1]
    assert {m["agent_id"]: m["unread_count"] for m in snapshot["mailboxes"]} == {"alice": 1, "worker": 2}
    assert f"ticket {second} queued for worker by alice" in [r["event"] for r in snapshot["recent"]]


def test_watch_lists_deliveries_tickets_and_registrations_as_they_happen(daemon) -> None:
    with SyncClient(daemon.target) as client:
        client.register("worker")
        client.register("alice")
        watching = Running("--target", daemon.target, "watch", "--events", "4")
        assert watching.next_line() == "fabric: watching 2 mailboxes and their queues (Ctrl-C to stop)"
        client.send("alice", "hello", sender="worker")
        ticket = client.enqueue("worker", "count the files", source_agent="planner").ticket_id
        client.register("carol")
        code, out = watching.finish()
    assert code == 0
    recent = out.split("recent activity\n", 1)[1].splitlines()
    assert sorted(line.split(" ", 1)[1] for line in recent) == sorted([
        "1 new message for alice", "1 new message for worker", "carol registered",
        f"ticket {ticket} queued for worker by planner"])


def test_ctrl_c_ends_watch_cleanly_with_the_last_view(daemon) -> None:
    with SyncClient(daemon.target) as client:
        client.register("alice")
    watching = Running("--target", daemon.target, "watch")
    assert watching.next_line().startswith("fabric: watching 1 mailboxes")
    watching.proc.send_signal(signal.SIGINT)
    code, out = watching.finish()
    rest = list(iter(watching.lines.get, None))
    assert code == 0 and rest == []  # no traceback, no "Aborted!"
    assert "alice" in out and "recent activity" in out


def test_watch_shows_channels_and_new_posts(daemon) -> None:
    with SyncClient(daemon.target) as client:
        client.register("alice")
        client.create_channel("team", description="the team")
        client.publish("team", "one", sender="alice")
        snapshot = json.loads(fabric(daemon, "watch", "--once", "--json").stdout)
        assert [(c["name"], c["last_seq"]) for c in snapshot["channels"]] == [("team", 1)]
        assert "#team" in fabric(daemon, "watch", "--once").stdout
        watching = Running("--target", daemon.target, "watch", "--events", "2")
        assert watching.next_line().startswith("fabric: watching 1 mailboxes")
        client.publish("team", "two", sender="alice")
        client.create_channel("ops")
        code, out = watching.finish()
    assert code == 0
    recent = [line.split(" ", 1)[1] for line in out.split("recent activity\n", 1)[1].splitlines()]
    assert sorted(recent) == ["1 new post in #team", "channel #ops created"]
def test_watch_shows_leases_their_grants_and_their_ends_with_the_cause(daemon) -> None:
    with SyncClient(daemon.target) as client:
        client.register("builder")
        held = client.acquire_lease("builder", ["src/api/**"], reason="refactor")
        snapshot = json.loads(fabric(daemon, "watch", "--once", "--json").stdout)
        assert [(x["agent_id"], x["resources"], x["reason"]) for x in snapshot["leases"]] == [
            ("builder", ["src/api/**"], "refactor")]
        shown = fabric(daemon, "watch", "--once")
        assert "leases" in shown.stdout and "src/api/**" in shown.stdout and "exclusive" in shown.stdout
        watching = Running("--target", daemon.target, "watch", "--events", "2")
        assert watching.next_line().startswith("fabric: watching 1 mailboxes")
        client.release_lease(held.lease_id)
        second = client.acquire_lease("reviewer", ["docs/**"], mode="shared")
        code, out = watching.finish()
    assert code == 0
    recent = [line.split(" ", 1)[1] for line in out.split("recent activity\n", 1)[1].splitlines()]
    assert recent == ["builder's exclusive lease on src/api/** ended (released)",
                      f"reviewer's shared lease on docs/** granted (token {second.fencing_token})"]
