"""The `fabric` CLI shows what was stored, exactly, and consumes only what it showed (docs/cli-output.md).

Through a pipe a message's text (and a ticket's task and result) is written byte for byte; on a terminal control
characters other than newline and tab are shown as visible escapes; table cells are one-line previews; --json is
exact. Brackets, backslashes, emoji codes, right-to-left marks and very long lines are never touched.
"""

from __future__ import annotations

import itertools
import json
import os
import pty
import select
import subprocess
import sys
import time

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from fabricd.cli import show
from fabricd.client import SyncClient

BACKENDS = ("lmdb", "postgres")
FABRIC = [sys.executable, "-m", "fabricd.cli.main"]

TRICKY = ["[/note]", "[bold]hi[/bold]", 'pip install ".[daemon]"', "\\[x]", "[", "]", "\\", ":smile:", "\x1b[31m",
          "\x1b]0;title\x07", "\r", "\r\n", "\n", "\t", "\x00", "\x7f", "\x85", "\u200f", "\u202e", "\u2028", "é",
          "漢字", "👍", "x" * 5000, " "]
TEXT = st.one_of(st.lists(st.sampled_from(TRICKY), min_size=1, max_size=6).map("".join),
                 st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=40))
boxes = itertools.count()


def fabric(daemon, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([*FABRIC, "--target", daemon.target, *args], capture_output=True, input=stdin,
                          timeout=60)


def line(m) -> bytes:
    when = time.strftime("%H:%M:%S", time.localtime(m.send_time.seconds))
    return f"#{m.seq} {when} {m.sender.agent_id} → {m.recipient.agent_id}: {m.text}\n".encode()


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture],
          phases=(Phase.explicit, Phase.generate))  # a failing example is reported as found, not shrunk
@given(texts=st.lists(TEXT, min_size=1, max_size=4))
def test_every_view_of_a_message_prints_the_text_as_sent(daemon, texts: list[str]) -> None:
    box = f"box{next(boxes)}"
    # A process's standard input carries no NUL (a client sends the rest), and empty input is refused on purpose.
    first = texts[0].replace("\x00", "") or "[/note]"
    sent = fabric(daemon, "send", box, "--from", "me", "--create", "--file", "-", stdin=first.encode())
    assert sent.returncode == 0, sent.stderr
    with SyncClient(daemon.target) as client:
        for text in texts[1:]:
            client.send(box, text, sender="me")
        stored = list(client.peek(box).messages)
    assert [m.text for m in stored] == [first, *texts[1:]]
    expected = b"".join(line(m) for m in stored)

    assert [json.loads(x)["text"] for x in fabric(daemon, "--json", "peek", box).stdout.splitlines()] == \
        [m.text for m in stored]
    assert fabric(daemon, "peek", box).stdout == expected + f"{len(stored)} unread\n".encode()
    assert fabric(daemon, "tail", box, "-n", str(len(stored))).stdout == expected
    drained = fabric(daemon, "drain", box)
    assert drained.returncode == 0 and drained.stdout == expected + b"0 left unread\n"


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture],
          phases=(Phase.explicit, Phase.generate))  # a failing example is reported as found, not shrunk
@given(task=TEXT.map(lambda t: t.replace("\x00", "")).filter(bool), result=TEXT.map(lambda t: t.replace("\x00", "")))
def test_tickets_show_task_and_result_as_sent_and_tables_preview_them(daemon, task: str, result: str) -> None:
    box = f"tickets{next(boxes)}"
    with SyncClient(daemon.target) as client:
        client.register(box)
        ticket_id = client.enqueue(box, task, source_agent="me").ticket_id
        for command in (("queue", box), ("ticket", "ls", box)):
            assert show.preview(task) in fabric(daemon, *command).stdout.decode()
        client.reply(box, result, ticket_id=ticket_id)
    shown = fabric(daemon, "ticket", "show", ticket_id).stdout
    assert f"task: {task}\n".encode() in shown and shown.endswith(f"result: {result}\n".encode())


def test_markup_in_a_message_is_neither_an_error_nor_dropped_and_drain_keeps_it(daemon) -> None:
    text = 'see [/note] below; pip install ".[daemon]" then [bold]hi[/bold] :smile:'
    assert fabric(daemon, "send", "mt", text, "--from", "me", "--create").returncode == 0
    for command in ("peek", "drain"):
        out = fabric(daemon, command, "mt")
        assert out.returncode == 0 and f": {text}\n".encode() in out.stdout, out.stderr
    assert fabric(daemon, "peek", "mt").stdout == b"0 unread\n"


def test_a_closed_pipe_consumes_nothing_it_could_not_show(daemon) -> None:
    with SyncClient(daemon.target) as client:
        for n in range(3):  # each line is larger than a pipe holds, so the reader's exit breaks the write
            client.send("reader", f"m{n}" + "x" * 300_000, sender="me", create_mailbox=True)
    drain = subprocess.Popen([*FABRIC, "--target", daemon.target, "drain", "reader"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
    assert drain.stdout is not None and drain.stderr is not None
    first = drain.stdout.readline()
    drain.stdout.close()  # `| head -1`
    assert drain.wait(60) == 141 and first.startswith(b"#1 ")
    assert b"the output was closed before all was read: 3 messages stay unread" in drain.stderr.read()
    with SyncClient(daemon.target) as client:
        assert [m.text[:2] for m in client.peek("reader").messages] == ["m0", "m1", "m2"]


def test_on_a_terminal_control_characters_are_shown_as_escapes(daemon) -> None:
    text = "a\x1b[31mred\rb\x07 [b]x[/b]\u200f\tz"
    with SyncClient(daemon.target) as client:
        client.send("tty", text, sender="me", create_mailbox=True)
    leader, follower = pty.openpty()
    proc = subprocess.Popen([*FABRIC, "--target", daemon.target, "peek", "tty"], stdin=subprocess.DEVNULL,
                            stdout=follower, stderr=follower, env={**os.environ, "NO_COLOR": "1"})
    os.close(follower)
    out = b""
    while True:
        ready, _, _ = select.select([leader], [], [], 60)
        assert ready, "fabric peek wrote nothing"
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the pty closed: the process is done
            break
        if not chunk:
            break
        out += chunk
    assert proc.wait(60) == 0
    os.close(leader)
    shown = out.decode().replace("\r\n", "\n")
    assert ": a\\x1b[31mred\\rb\\x07 [b]x[/b]\u200f\tz" in shown, shown
