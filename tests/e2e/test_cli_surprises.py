"""The `fabric` CLI never leaves a newcomer guessing: it says what it waits for, and errors say what to do."""

from __future__ import annotations

import json
import os
import pty
import queue
import signal
import subprocess
import sys
import threading

import pytest

from fabricd.client import SyncClient, Unavailable
from tests.e2e.test_cli import fabric

FABRIC = [sys.executable, "-m", "fabricd.cli.main"]


# Run `fabric` with SIGINT at its default. Not with preexec_fn: that forks this gRPC-loaded process in Python, and
# gRPC's fork handlers then printed event-engine errors ("epoll_wait error: Bad file descriptor") on the child's
# stderr, before the command's own first line.
DEFAULT_SIGINT = [sys.executable, "-c", "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
                  "os.execv(sys.argv[1], sys.argv[1:])"]


class Running:
    """A `fabric` process whose stderr is read line by line as it comes."""

    def __init__(self, *args: str) -> None:
        # Ctrl-C is what a person sends: SIGINT as a terminal delivers it, even when the suite itself was started in
        # the background (a non-interactive shell starts background jobs with SIGINT ignored, which children inherit).
        self.proc = subprocess.Popen([*DEFAULT_SIGINT, *FABRIC, *args], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def next_line(self, timeout: float = 30) -> str:
        line = self.lines.get(timeout=timeout)
        assert line is not None, "fabric exited"
        return line

    def finish(self, timeout: float = 60) -> tuple[int, str]:
        assert self.proc.stdout is not None
        out = self.proc.stdout.read()
        return self.proc.wait(timeout), out


def test_tail_without_a_daemon_says_it_waits_at_once_and_gives_up_after_wait(sock_dir) -> None:
    target = f"unix:{sock_dir}/none.sock"
    tail = Running("--target", target, "tail", "alice", "--wait", "1")
    assert tail.next_line() == f"fabric: waiting for fabricd at {target} (giving up after 1s)"
    code, _ = tail.finish()
    rest = list(iter(tail.lines.get, None))
    assert code == 1
    assert rest == [f"fabric: fabricd did not answer within 1s at {target}: is it running? (start it with "
                    "`fabricd serve`) [NOT_READY]"]


def test_tail_started_before_the_daemon_follows_it_once_it_is_up(make_daemon) -> None:
    daemon = make_daemon().start()
    with SyncClient(daemon.target) as client:
        client.register("alice")  # tailing a mailbox no one has is NOT_FOUND, so alice exists before the tail
    daemon.stop()
    tail = Running("--target", daemon.target, "tail", "alice", "-n", "1", "--wait", "0")
    assert tail.next_line() == f"fabric: waiting for fabricd at {daemon.target}"  # --wait 0: no giving up
    daemon.start()
    assert tail.next_line() == f"fabric: connected to fabricd at {daemon.target}"
    with SyncClient(daemon.target) as client:
        client.send("alice", "you were waited for", sender="bob")
    code, out = tail.finish()
    assert code == 0 and "you were waited for" in out


def test_sync_subscribe_without_a_daemon_says_so_and_raises_after_wait(sock_dir) -> None:
    heard: list[str] = []
    with SyncClient(f"unix:{sock_dir}/none.sock") as client:
        with pytest.raises(Unavailable) as caught:
            next(client.subscribe("alice", wait=0.5, on_wait=heard.append))
    assert heard == [f"waiting for fabricd at unix:{sock_dir}/none.sock (giving up after 0.5s)"]
    assert caught.value.reason == "NOT_READY" and "is it running?" in caught.value.message


def test_send_with_no_text_on_a_terminal_refuses_with_usage(daemon) -> None:
    leader, follower = pty.openpty()
    try:
        result = subprocess.run([*FABRIC, "--target", daemon.target, "send", "bob"], stdin=follower,
                                capture_output=True, text=True, timeout=60)
    finally:
        os.close(leader)
        os.close(follower)
    assert result.returncode == 2
    assert "no TEXT: give it as an argument, with --file PATH, or pipe it in" in result.stderr


def test_empty_standard_input_sends_nothing_unless_an_empty_text_is_given(daemon) -> None:
    with SyncClient(daemon.target) as client:
        client.register("keeper")
    for command in (("send", "keeper", "--from", "me"), ("ask", "keeper", "--timeout", "5"),
                    ("reply", "keeper")):
        result = fabric(daemon, *command, stdin="")
        assert result.returncode == 2, result.stderr
        assert "standard input was empty" in result.stderr and "nothing was sent" in result.stderr
    with SyncClient(daemon.target) as client:
        assert client.peek("keeper").unread_count == 0 and not client.get_queue("keeper")
    sent = fabric(daemon, "send", "keeper", "", "--from", "me")
    assert sent.returncode == 0 and "to keeper #1" in sent.stdout


def test_send_file_sends_the_file_and_refuses_file_with_text(daemon, tmp_path) -> None:
    assert fabric(daemon, "register", "bob").returncode == 0
    note = tmp_path / "note.md"
    note.write_text("line one\nline two\n")
    assert fabric(daemon, "send", "bob", "--file", str(note), "--from", "alice").returncode == 0
    peeked = json.loads(fabric(daemon, "peek", "bob", "--json").stdout.splitlines()[0])
    assert peeked["text"] == "line one\nline two\n"
    both = fabric(daemon, "send", "bob", "text", "--file", str(note))
    assert both.returncode == 2 and "give TEXT or --file, not both" in both.stderr


def test_version_and_json_after_the_command(daemon) -> None:
    from fabricd import __version__

    version = subprocess.run([*FABRIC, "--version"], capture_output=True, text=True, timeout=60)
    assert version.returncode == 0 and version.stdout.startswith(f"fabric {__version__}")
    assert fabric(daemon, "register", "alice").returncode == 0
    after = [json.loads(line) for line in fabric(daemon, "ls", "--json").stdout.splitlines()]
    before = [json.loads(line) for line in fabric(daemon, "--json", "ls").stdout.splitlines()]
    assert [e["agent_id"] for e in after] == [e["agent_id"] for e in before] == ["alice"]


def test_json_output_has_numbers_as_numbers_and_zero_values(daemon) -> None:
    assert fabric(daemon, "register", "alice").returncode == 0
    entry = json.loads(fabric(daemon, "ls", "--json").stdout)
    assert entry["unread_count"] == 0  # present, and a number
    status = json.loads(fabric(daemon, "status", "--json").stdout)
    assert status["mailboxes"] == 1 and isinstance(status["map_size_bytes"], int)


def test_json_errors_are_one_object_on_stderr(daemon) -> None:
    result = fabric(daemon, "resolve", "nobody", "--json")
    assert result.returncode == 1 and result.stdout == ""
    error = json.loads(result.stderr)
    assert error["code"] == "NOT_FOUND" and error["reason"] == "NAME_NOT_FOUND"
    assert "nobody" in error["message"] and isinstance(error["metadata"], dict)
    usage = subprocess.run([*FABRIC, "--json", "send"], capture_output=True, text=True, timeout=60)
    assert usage.returncode == 2 and json.loads(usage.stderr)["code"] == "USAGE"


def test_a_bare_socket_path_is_a_target(daemon) -> None:
    result = subprocess.run([*FABRIC, "--target", daemon.socket, "ls"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


def test_a_host_without_a_port_names_the_port_instead_of_dialling_443() -> None:
    result = subprocess.run([*FABRIC, "--target", "fabric.example.com", "ls"], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 1
    assert "fabric.example.com:7077" in result.stderr and "[BAD_TARGET]" in result.stderr


def test_a_missing_token_tells_the_cli_user_about_token_and_fabricd_token(make_daemon) -> None:
    daemon = make_daemon("--listen", "127.0.0.1:0").start()
    port = daemon.wait_for("127.0.0.1:").strip().rsplit(":", 1)[1]
    env = {k: v for k, v in os.environ.items() if k != "FABRICD_TOKEN"}
    result = subprocess.run([*FABRIC, "--target", f"127.0.0.1:{port}", "ls"], capture_output=True, text=True,
                            timeout=60, env=env)
    assert result.returncode == 1
    assert "[MISSING_TOKEN]" in result.stderr
    assert "pass --token TOKEN or set FABRICD_TOKEN" in result.stderr
    bad = subprocess.run([*FABRIC, "--target", f"127.0.0.1:{port}", "ls"], capture_output=True, text=True,
                         timeout=60, env={**env, "FABRICD_TOKEN": "fdt_nonsense"})
    assert "[BAD_TOKEN]" in bad.stderr and "--token or $FABRICD_TOKEN" in bad.stderr


def test_ask_shows_its_ticket_and_position_and_ctrl_c_withdraws_it(daemon) -> None:
    with SyncClient(daemon.target) as client:
        client.register("worker")
        client.enqueue("worker", "the first task", source_agent="early")
        asking = Running("--target", daemon.target, "ask", "worker", "the second task", "--from", "planner")
        first = asking.next_line()
        assert first.startswith("fabric: asked worker: ticket ") and first.endswith(
            "is at position 1 in worker's queue (1 ahead)")
        ticket_id = first.split()[4]
        assert [t.ticket_id for t in client.get_queue("worker")][1] == ticket_id
        client.reply("worker", "done")  # the head is answered: ours moves up
        assert asking.next_line() == (f"fabric: ticket {ticket_id} is at the head of worker's queue: "
                                      "waiting for the answer")
        asking.proc.send_signal(signal.SIGINT)
        assert asking.next_line() == f"fabric: withdrew ticket {ticket_id} from worker's queue"
        code, out = asking.finish()
        assert code == 130 and out == ""
        assert client.get_queue("worker") == []
        assert ticket_id not in [m.ticket_id for m in client.peek("worker").messages]  # withdrawn from the inbox too


def test_ask_prints_the_answer_on_stdout_and_its_progress_on_stderr(daemon) -> None:
    with SyncClient(daemon.target) as client:
        client.register("worker")
        asking = Running("--target", daemon.target, "ask", "worker", "count", "--from", "planner")
        line = asking.next_line()
        assert line.endswith("is at the head of worker's queue: waiting for the answer")
        client.reply("worker", "42")
        code, out = asking.finish()
        assert code == 0 and out == "42\n"


def test_mcp_on_a_terminal_says_it_waits_for_an_mcp_client(daemon) -> None:
    leader, follower = pty.openpty()
    proc = subprocess.Popen([*FABRIC, "--target", daemon.target, "mcp", "--agent", "tty-agent"], stdin=follower,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        assert line.startswith("fabric: this command speaks the Model Context Protocol on standard input and output")
    finally:
        proc.kill()
        proc.wait(30)
        os.close(leader)
        os.close(follower)


def test_the_mcp_bridge_without_the_sdk_says_how_to_install_it_from_the_checkout(daemon) -> None:
    hide = "import sys; sys.modules['mcp'] = None; from fabricd.cli.main import main; main(sys.argv[1:])"
    result = subprocess.run([sys.executable, "-c", hide, "--target", daemon.target, "mcp", "--agent", "a"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert "pip install -e '" in result.stderr and "[mcp]'" in result.stderr


def test_the_shell_completion_lines_in_readme_produce_completion_scripts() -> None:
    import re

    from tests.conftest import ROOT

    with open(os.path.join(ROOT, "docs", "cli.md"), encoding="utf-8") as f:
        documented = re.findall(r"_FABRIC_COMPLETE=(\w+_source) fabric", f.read())
    assert sorted(documented) == ["bash_source", "fish_source", "zsh_source"]
    for mode in documented:
        script = subprocess.run(FABRIC, capture_output=True, text=True, timeout=60,
                                env={**os.environ, "_FABRIC_COMPLETE": mode})
        assert script.returncode == 0 and "_fabric_completion" in script.stdout, (mode, script.stderr)
    completed = subprocess.run(FABRIC, capture_output=True, text=True, timeout=60,
                               env={**os.environ, "_FABRIC_COMPLETE": "bash_complete", "COMP_WORDS": "fabric do",
                                    "COMP_CWORD": "1"})
    assert completed.stdout.split() == ["plain,doctor"]


def test_every_error_line_starts_with_fabric_colon(daemon) -> None:
    with SyncClient(daemon.target) as client:
        client.register("keeper")
    usage = fabric(daemon, "send", "keeper", "text", "--file", "x")
    assert usage.returncode == 2
    assert usage.stderr.splitlines()[-1] == "fabric: give TEXT or --file, not both (see 'fabric send --help')"
    missing = fabric(daemon, "peek")
    assert missing.stderr.splitlines()[-1] == "fabric: Missing argument 'AGENT_ID' (see 'fabric peek --help')"
    failed = fabric(daemon, "reply", "keeper", "done", "--wait", "0.2")  # a command's own refusal
    assert failed.returncode == 1 and failed.stderr == "fabric: no request for keeper arrived within 0.2s\n"
    for result in (usage, missing, failed):
        assert "Error:" not in result.stderr and "fabric: fabric" not in result.stderr


def test_an_ask_that_times_out_says_its_wait_rounded(daemon) -> None:
    with SyncClient(daemon.target) as client:
        client.register("slow")
    asked = fabric(daemon, "ask", "slow", "anything?", "--timeout", "1.5")
    assert asked.returncode == 1
    assert asked.stderr.splitlines()[-1].endswith(" within 1.5 s [REPLY_TIMEOUT]"), asked.stderr


def test_help_groups_every_command_by_task_starting_with_start_here() -> None:
    from fabricd.cli.app import SECTIONS
    from fabricd.cli.main import cli

    shown = subprocess.run([*FABRIC, "--help"], capture_output=True, text=True, timeout=60).stdout
    titles = [line[:-1] for line in shown.splitlines() if line.endswith(":") and not line.startswith(" ")]
    assert titles == ["Options", *[title for title, _ in SECTIONS]]  # no "Other": every command has its task
    listed = [name for _, names in SECTIONS for name in names]
    assert sorted(listed) == sorted(cli.commands) and len(set(listed)) == len(listed)  # each once, none left out
    assert shown.index("Start here:") < shown.index("  send ") < shown.index("Operators:")
