"""The wake sender on its own: what a failed command or POST reports, and that a timeout ends the command."""

from __future__ import annotations

import sys
import time

import pytest

from fabricd.core.errors import FabricError
from fabricd.daemon.wakesend import WakeSender


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ", 1)[1].startswith("Z")  # a zombie waiting for its reaper is gone too
    except FileNotFoundError:
        return True


async def test_a_command_over_its_timeout_is_killed_with_its_children_and_reported(tmp_path) -> None:  # noqa: ANN001
    sender = WakeSender(timeout_s=0.5, allow_commands=True)
    pid_file = tmp_path / "child.pid"
    script = ("import subprocess, sys; p = subprocess.Popen(['sleep', '30']); "
              "open(sys.argv[1], 'w').write(str(p.pid)); p.wait()")
    started = time.monotonic()
    with pytest.raises(FabricError) as err:
        await sender.run((sys.executable, "-c", script, str(pid_file)), b"{}")
    assert time.monotonic() - started < 10  # not held up by the child, which keeps the pipes open
    assert "took over 0.5s (wake.timeout); it was killed" in err.value.message
    assert err.value.reason == "WAKE_DELIVERY_FAILED"
    child = int(pid_file.read_text())
    deadline = started + 10  # the child sleeps 30 s: gone sooner only if it was killed
    while not _gone(child):  # the whole process group was killed, not only the command
        assert time.monotonic() < deadline, "the command's child outlived the timeout"
        time.sleep(0.02)


async def test_a_failing_command_reports_its_exit_status_and_last_error_line() -> None:
    sender = WakeSender(timeout_s=10, allow_commands=True)
    with pytest.raises(FabricError) as err:
        await sender.run((sys.executable, "-c", "import sys; print('first'); sys.exit('no agent to start')"), b"")
    assert err.value.message.endswith("exited with 1: no agent to start")
    with pytest.raises(FabricError) as missing:
        await sender.run(("/nonexistent/wake-program",), b"")
    assert "cannot run /nonexistent/wake-program" in missing.value.message


async def test_a_refused_post_is_a_failure_that_names_the_url() -> None:
    sender = WakeSender(timeout_s=2, allow_commands=False)
    with pytest.raises(FabricError) as err:
        sender.post("http://127.0.0.1:9/wake", b"{}", "s" * 64, "wake:a:1")  # port 9 (discard): nobody listens
    assert err.value.message.startswith("POST http://127.0.0.1:9/wake: ")
