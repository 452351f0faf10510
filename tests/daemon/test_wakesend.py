"""The wake sender on its own: what a failed command or POST reports, that a timeout ends either, and the
networks a POST may reach."""

from __future__ import annotations

import asyncio
import sys
import threading
import time

import pytest

from fabricd.core.errors import FabricError
from fabricd.core.wakehosts import HostPolicy, networks
from fabricd.daemon.wakesend import WakeSender


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ", 1)[1].startswith("Z")  # a zombie waiting for its reaper is gone too
    except FileNotFoundError:
        return True


async def test_a_command_over_its_timeout_is_killed_with_its_children_and_reported(tmp_path) -> None:
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
        await sender.post("http://127.0.0.1:9/wake", b"{}", "s" * 64, "wake:a:1")  # port 9 (discard): nobody listens
    assert err.value.message.startswith("POST http://127.0.0.1:9/wake: ")


async def test_a_listener_that_accepts_and_never_answers_fails_within_the_timeout_holding_no_thread() -> None:
    held: list[asyncio.StreamWriter] = []

    async def accept(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)  # reads nothing, answers nothing

    server = await asyncio.start_server(accept, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    sender = WakeSender(timeout_s=0.3, allow_commands=False)
    threads = threading.active_count()
    try:
        with pytest.raises(FabricError) as err:
            await sender.post(f"http://127.0.0.1:{port}/w", b"{}", "s" * 64, "wake:a:1")
        assert err.value.message == f"POST http://127.0.0.1:{port}/w: no answer within 0.3s (wake.timeout)"
        assert held and threading.active_count() == threads  # asyncio's sockets: no worker thread was taken
    finally:
        server.close()


@pytest.mark.parametrize("url", ["http://169.254.169.254/latest/meta-data/", "http://[fe80::1]/w",
                                 "http://[::ffff:169.254.169.254]/w", "http://100.100.100.200/w"])
async def test_link_local_and_metadata_addresses_are_refused_before_any_connection(url: str) -> None:
    sender = WakeSender(timeout_s=2, allow_commands=False)
    with pytest.raises(FabricError) as err:
        await sender.post(url, b"{}", "s" * 64, "wake:a:1")
    assert err.value.reason == "WAKE_HOST_NOT_ALLOWED" and "wake.deny_networks refuses" in err.value.message


async def test_a_name_is_checked_on_what_it_resolves_to_at_send_time() -> None:
    # localhost resolves to the loopback: refused when the operator denies it, whatever it was when set
    sender = WakeSender(timeout_s=2, allow_commands=False, hosts=HostPolicy(deny=networks(["127.0.0.0/8", "::1"])))
    with pytest.raises(FabricError) as err:
        await sender.post("http://localhost:9/w", b"{}", "s" * 64, "wake:a:1")
    assert err.value.reason == "WAKE_HOST_NOT_ALLOWED" and "127.0.0.1 is in 127.0.0.0/8" in err.value.message
    only = WakeSender(timeout_s=2, allow_commands=False, hosts=HostPolicy(allow=networks(["10.0.0.0/8"])))
    with pytest.raises(FabricError) as err:
        await only.post("http://127.0.0.1:9/w", b"{}", "s" * 64, "wake:a:1")
    assert "127.0.0.1 is in none of wake.allow_networks (10.0.0.0/8)" in err.value.message
