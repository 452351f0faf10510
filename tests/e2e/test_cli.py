"""The `fabric` CLI against the real daemon."""

from __future__ import annotations

import json
import subprocess
import sys
import time

from fabricd.client import SyncClient


def fabric(daemon, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fabricd.cli.main", "--target", daemon.target, *args],
                          capture_output=True, text=True, input=stdin, timeout=60)


def test_register_send_ls_peek_drain_round_trip(daemon) -> None:
    assert fabric(daemon, "register", "alice", "--name", "reviewer", "-c", "review=reads diffs").returncode == 0
    sent = fabric(daemon, "send", "reviewer", "please review", "--from", "bob")
    assert sent.returncode == 0 and "to alice #1" in sent.stdout
    assert fabric(daemon, "send", "alice", "--from", "bob", stdin="from stdin").returncode == 0

    table = fabric(daemon, "ls")
    assert "alice" in table.stdout and "reviewer" in table.stdout and "review" in table.stdout
    rows = [json.loads(line) for line in fabric(daemon, "--json", "ls").stdout.splitlines()]
    assert rows[0]["agent_id"] == "alice" and rows[0]["unread_count"] == 2

    peeked = [json.loads(line) for line in fabric(daemon, "--json", "peek", "alice").stdout.splitlines()]
    assert [m["text"] for m in peeked] == ["please review", "from stdin"]
    drained = fabric(daemon, "drain", "alice", "-n", "1")
    assert "please review" in drained.stdout and "1 left unread" in drained.stdout

    tailed = fabric(daemon, "--json", "tail", "alice", "--ack", "-n", "1")
    assert json.loads(tailed.stdout)["text"] == "from stdin"
    assert "0 unread" in fabric(daemon, "peek", "alice").stdout


def test_errors_are_one_clear_line_and_exit_1(daemon) -> None:
    result = fabric(daemon, "resolve", "nobody")
    assert result.returncode == 1
    assert result.stderr.strip() == "fabric: no mailbox or session is named 'nobody' [NAME_NOT_FOUND]"


def test_an_unreachable_daemon_says_how_to_start_one(tmp_path) -> None:
    result = subprocess.run([sys.executable, "-m", "fabricd.cli.main", "--target", f"unix:{tmp_path}/none.sock",
                             "ls"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 1 and "fabricd serve" in result.stderr


def test_ask_reply_queue_and_status(daemon) -> None:
    import threading

    assert fabric(daemon, "register", "worker").returncode == 0
    asked: dict[str, subprocess.CompletedProcess[str]] = {}
    asker = threading.Thread(target=lambda: asked.update(r=fabric(daemon, "ask", "worker", "count the files",
                                                                  "--from", "planner", "--timeout", "60")))
    asker.start()
    tailed = fabric(daemon, "--json", "tail", "worker", "-n", "1")  # returns once the task is in the inbox
    assert "count the files" in json.loads(tailed.stdout)["text"]
    queue = fabric(daemon, "queue", "worker")
    assert "planner" in queue.stdout and "count the files" in queue.stdout
    assert fabric(daemon, "reply", "worker", "42 files").returncode == 0
    asker.join(60)
    assert asked["r"].returncode == 0 and asked["r"].stdout.strip() == "42 files"
    assert "no requests waiting" in fabric(daemon, "queue", "worker").stdout
    status = fabric(daemon, "status")
    assert status.returncode == 0 and daemon.data_dir in status.stdout and "mailboxes" in status.stdout
    assert json.loads(fabric(daemon, "--json", "status").stdout)["mailboxes"] == 1


def test_outbox_commands(make_daemon) -> None:
    from fabricd.client import SyncClient
    from fabricd.v1 import outbox_service_pb2 as ob
    from fabricd.v1 import types_pb2 as pb

    daemon = make_daemon("--no-outbox-loop").start()
    with SyncClient(daemon.target) as client:
        settled = ob.SettledJob(job_id="j", outcome=ob.JOB_OUTCOME_COMPLETED,
                                agent=pb.Address(agent_id="child", session_id="s"),
                                mail=pb.Mail(key="m1", reply_to=[pb.Address(agent_id="parent", session_id="s")]))
        client.fan_out(settled, "done")
    listed = fabric(daemon, "outbox", "ls", "--state", "pending")
    assert "outbox:m1:reply:0" in listed.stdout and "pending" in listed.stdout
    assert fabric(daemon, "outbox", "drain").stdout.strip() == "posted 1, failed 0"
    assert json.loads(fabric(daemon, "--json", "outbox", "ls").stdout)["state"] == "OUTBOX_ROW_STATE_DELIVERED"
    assert fabric(daemon, "outbox", "retry").stdout.strip() == "retried 0 rows"


def test_outbox_ls_hint_goes_on_with_the_next_agents_row_of_one_key(make_daemon) -> None:
    import shlex

    from fabricd.client import SyncClient
    from fabricd.v1 import outbox_service_pb2 as ob
    from fabricd.v1 import types_pb2 as pb

    daemon = make_daemon("--no-outbox-loop").start()
    with SyncClient(daemon.target) as client:
        for agent, to in (("child", "parent"), ("other", "elder")):  # two agents settle one mail key
            client.fan_out(ob.SettledJob(job_id=f"{agent}-job", outcome=ob.JOB_OUTCOME_COMPLETED,
                                         agent=pb.Address(agent_id=agent, session_id="s"),
                                         mail=pb.Mail(key="m1", reply_to=[pb.Address(agent_id=to, session_id="s")])),
                           "done")
    first = fabric(daemon, "outbox", "ls", "-n", "1").stdout
    hint = first[first.index("more: ") + len("more: "):].strip()
    assert hint.startswith("--after outbox:m1:reply:0 --after-agent ")
    second = fabric(daemon, "outbox", "ls", "-n", "1", *shlex.split(hint)).stdout
    shown = {to for to in ("parent", "elder") if to in first} | {to for to in ("parent", "elder") if to in second}
    assert shown == {"parent", "elder"} and "more:" not in second


def test_agent_directory_commands(daemon) -> None:
    agent_id = fabric(daemon, "agents", "create", "reviewer", "--description", "reads diffs").stdout.strip()
    assert agent_id.startswith("agent-")
    assert "reviewer" in fabric(daemon, "agents", "ls").stdout
    thread_id = fabric(daemon, "threads", agent_id, "--create", "PR 12").stdout.strip()
    assert "PR 12" in fabric(daemon, "threads", agent_id).stdout
    admitted = fabric(daemon, "admit", agent_id, "review PR 12", "--thread", thread_id)
    assert admitted.returncode == 0 and admitted.stdout.startswith("admitted req-")
    request_id = admitted.stdout.split()[1]
    listed = fabric(daemon, "requests")
    assert request_id in listed.stdout and "1 pending (1 ordinary" in listed.stdout
    refused = fabric(daemon, "admit", agent_id, "deep", "--depth", "9")
    assert refused.returncode == 1 and "causal depth 9" in refused.stderr
    assert fabric(daemon, "settle", request_id, "--notify").stdout.strip() == f"settled {request_id}"
    assert request_id in fabric(daemon, "requests", "--filter", "notifications").stdout


def test_a_typo_in_a_recipient_is_refused_with_the_closest_name_and_creates_nothing(daemon) -> None:
    assert fabric(daemon, "register", "agent-7f3a", "--name", "reviewer").returncode == 0
    typo = fabric(daemon, "send", "revewer", "please review", "--from", "planner")
    assert typo.returncode == 1 and "did you mean 'reviewer'?" in typo.stderr and "[UNKNOWN_RECIPIENT]" in typo.stderr
    assert [json.loads(line)["agent_id"] for line in fabric(daemon, "--json", "ls").stdout.splitlines()] == [
        "agent-7f3a"]
    created = fabric(daemon, "send", "newcomer", "welcome", "--create")
    assert created.returncode == 0 and "to newcomer #1" in created.stdout
    touched = fabric(daemon, "touch", "reviwer")
    assert touched.returncode == 0 and "created a new mailbox (did you mean reviewer?)" in touched.stderr


def test_register_warns_when_a_live_agent_already_uses_the_name(daemon) -> None:
    assert fabric(daemon, "register", "a-1", "--name", "builder").stderr == ""
    second = fabric(daemon, "register", "a-2", "--name", "builder")
    assert second.returncode == 0 and "'builder' is now ambiguous" in second.stderr and "a-1" in second.stderr


def test_unregister_refuses_a_mailbox_with_mail_unless_purged(daemon) -> None:
    assert fabric(daemon, "register", "temp").returncode == 0
    assert fabric(daemon, "send", "temp", "hi").returncode == 0
    refused = fabric(daemon, "unregister", "temp")
    assert refused.returncode == 1 and "[MAILBOX_NOT_EMPTY]" in refused.stderr and "--purge" in refused.stderr
    purged = fabric(daemon, "unregister", "temp", "--purge")
    assert purged.returncode == 0 and "deleted 1 unread messages" in purged.stdout
    assert fabric(daemon, "--json", "ls").stdout == ""


def test_reply_wait_answers_a_request_that_arrives_later(daemon) -> None:
    assert fabric(daemon, "register", "alice", "--name", "reviewer").returncode == 0
    nothing = fabric(daemon, "reply", "reviewer", "too early", "--wait", "0.2")
    assert nothing.returncode == 1 and "no request for reviewer arrived within 0.2s" in nothing.stderr
    replier = subprocess.Popen([sys.executable, "-m", "fabricd.cli.main", "--target", daemon.target, "reply",
                                "reviewer", "yes, merge it", "--wait", "30"], stdout=subprocess.PIPE, text=True)
    asked = fabric(daemon, "ask", "reviewer", "is PR 12 safe?", "--from", "bob", "--timeout", "30")
    assert replier.wait(30) == 0
    assert asked.returncode == 0 and asked.stdout.strip() == "yes, merge it"


def test_wait_returns_when_mail_or_a_request_arrives_and_times_out_otherwise(daemon) -> None:
    assert fabric(daemon, "register", "idle-agent").returncode == 0
    nothing = fabric(daemon, "wait", "idle-agent", "--timeout", "0.3")
    assert nothing.returncode == 124 and "nothing arrived for idle-agent within 0.3s" in nothing.stderr
    waiting = subprocess.Popen([sys.executable, "-m", "fabricd.cli.main", "--target", daemon.target, "--json", "wait",
                                "idle-agent", "--timeout", "30"], stdout=subprocess.PIPE, text=True)
    assert fabric(daemon, "send", "idle-agent", "wake up").returncode == 0
    out, _ = waiting.communicate(timeout=30)
    assert waiting.returncode == 0 and json.loads(out) == {"agent_id": "idle-agent", "unread": 1, "queued_tickets": []}
    assert fabric(daemon, "drain", "idle-agent").returncode == 0
    waiting = subprocess.Popen([sys.executable, "-m", "fabricd.cli.main", "--target", daemon.target, "wait",
                                "idle-agent", "--timeout", "30"], stdout=subprocess.PIPE, text=True)
    asking = subprocess.Popen([sys.executable, "-m", "fabricd.cli.main", "--target", daemon.target, "ask",
                               "idle-agent", "a task", "--timeout", "30"], stdout=subprocess.PIPE, text=True)
    out, _ = waiting.communicate(timeout=30)
    assert waiting.returncode == 0 and "1 queued request(s) (next ticket " in out
    assert fabric(daemon, "reply", "idle-agent", "done").returncode == 0
    assert asking.wait(30) == 0



def test_wait_goes_on_waiting_through_a_daemon_restart(daemon) -> None:
    assert fabric(daemon, "register", "idle-agent").returncode == 0
    waiting = subprocess.Popen([sys.executable, "-m", "fabricd.cli.main", "--target", daemon.target, "--json", "wait",
                                "idle-agent", "--timeout", "120"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)

    def watching() -> None:  # its Subscribe and its WatchQueue are open on the daemon
        with SyncClient(daemon.target) as client:
            deadline = time.monotonic() + 30
            while client.get_status().open_streams < 2:
                assert waiting.poll() is None, f"fabric wait ended without work: {waiting.communicate()}"
                assert time.monotonic() < deadline, "fabric wait did not open its streams"
                time.sleep(0.02)

    try:
        watching()
        daemon.restart()  # SIGTERM ends both streams cleanly; nothing has arrived
        watching()
        assert fabric(daemon, "send", "idle-agent", "wake up").returncode == 0
        out, err = waiting.communicate(timeout=30)
    finally:
        waiting.kill()
    assert waiting.returncode == 0, err
    assert json.loads(out) == {"agent_id": "idle-agent", "unread": 1, "queued_tickets": []}


def test_json_rows_keep_one_key_order_whichever_fields_are_set(daemon) -> None:
    assert fabric(daemon, "register", "alice", "--name", "reviewer", "-c", "review").returncode == 0
    assert fabric(daemon, "register", "bob").returncode == 0
    fabric(daemon, "send", "alice", "plain", "--from", "bob")
    fabric(daemon, "send", "alice", "threaded", "--from", "bob", "--thread", "t1", "-H", "k=v", "--reply-to", "bob")
    rows = [json.loads(line) for line in fabric(daemon, "--json", "ls").stdout.splitlines()]
    assert len({tuple(r) for r in rows}) == 1, [list(r) for r in rows]
    messages = [json.loads(line) for line in fabric(daemon, "--json", "peek", "alice").stdout.splitlines()]
    assert list(messages[0]) == list(messages[1])


def test_send_data_from_a_file_carries_its_bytes(daemon, tmp_path) -> None:
    blob = bytes(range(256)) * 3
    (tmp_path / "blob.bin").write_bytes(blob)
    sent = fabric(daemon, "send", "keeper", "--create", "--from", "me", "--data", f"@{tmp_path}/blob.bin",
                  "-H", "content-type=application/octet-stream")
    assert sent.returncode == 0, sent.stderr
    assert fabric(daemon, "send", "keeper", "see data", "--from", "me", "--data", "inline é").returncode == 0
    missing = fabric(daemon, "send", "keeper", "--from", "me", "--data", f"@{tmp_path}/none")
    assert missing.returncode == 2 and "cannot read" in missing.stderr
    with SyncClient(daemon.target) as client:
        first, second = client.peek("keeper").messages
    assert first.data == blob and first.text == "" and first.headers["content-type"] == "application/octet-stream"
    assert second.data == "inline é".encode() and second.text == "see data"
    assert "(768 bytes of data)" in fabric(daemon, "peek", "keeper").stdout
