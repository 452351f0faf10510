"""Operating fabricd: systemd units, sd_notify, SIGHUP reload, metrics, logs, socket mode (see test_configuration)."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import time
import urllib.request

import pytest

from fabricd.client import Client, FabricError, ResourceExhausted

FABRICD = [sys.executable, "-m", "fabricd.daemon.main"]


def fabricd(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*FABRICD, *args], capture_output=True, text=True, timeout=60,
                          env={**os.environ, **(env or {})})


@pytest.mark.parametrize("user", [False, True], ids=["system", "user"])
def test_systemd_analyze_verify_passes_on_the_units(tmp_path, user) -> None:
    if shutil.which("systemd-analyze") is None:
        pytest.fail("systemd-analyze is missing: install Debian's systemd package")
    unit = tmp_path / "fabricd.service"
    unit.write_text(fabricd("systemd-unit", *(["--user"] if user else [])).stdout)
    text = unit.read_text()
    assert "Type=notify" in text and "WatchdogSec=" in text and sys.executable.rsplit("/", 1)[0] in text
    runtime = tmp_path / "runtime"  # the user manager needs a runtime folder, as a login session gives it
    runtime.mkdir(mode=0o700)
    result = subprocess.run(["systemd-analyze", *(["--user"] if user else []), "verify", str(unit)],
                            capture_output=True, text=True, timeout=60,
                            env={**os.environ, "XDG_RUNTIME_DIR": str(runtime)})
    assert result.returncode == 0, result.stderr


def test_the_system_unit_is_hardened(tmp_path) -> None:
    text = fabricd("systemd-unit").stdout
    for line in ("StateDirectory=fabricd", "RuntimeDirectory=fabricd", "DynamicUser=yes", "ProtectSystem=strict",
                 "ProtectHome=yes", "PrivateTmp=yes", "NoNewPrivileges=yes", "SystemCallFilter=@system-service",
                 "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6", "TimeoutStopSec=30"):
        assert line in text
    unit = tmp_path / "fabricd.service"
    unit.write_text(text)
    result = subprocess.run(["systemd-analyze", "security", "--offline=true", str(unit)], capture_output=True,
                            text=True, timeout=60)
    score = float(result.stdout.rsplit("exposure level for fabricd.service:", 1)[1].split()[0])
    assert score < 2.0, result.stdout[-400:]


class NotifySocket:
    def __init__(self, path: str) -> None:
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(path)
        self.sock.settimeout(30)

    def next(self, wanted: str) -> list[str]:
        """Datagrams until one holding `wanted`; returns that datagram's lines."""
        while True:
            lines = self.sock.recv(4096).decode().splitlines()
            if wanted in lines or any(line.startswith(wanted) for line in lines):
                return lines

    def close(self) -> None:
        self.sock.close()


async def test_notify_ready_status_watchdog_reload_and_stopping(make_daemon, sock_dir) -> None:
    notify = NotifySocket(os.path.join(sock_dir, "notify"))
    daemon = make_daemon(env={"NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "200000"})
    try:
        daemon.start()
        ready = notify.next("READY=1")
        assert any(line.startswith("STATUS=serving") for line in ready)
        async with Client(daemon.target) as client:
            await client.touch("probe")  # READY meant the socket accepts calls
        assert notify.next("WATCHDOG=1") == ["WATCHDOG=1"]
        daemon.proc.send_signal(signal.SIGHUP)
        assert "RELOADING=1" in notify.next("RELOADING=1")
        assert any(line.startswith("STATUS=reloaded") for line in notify.next("READY=1"))
        assert daemon.stop() == 0
        assert "STOPPING=1" in notify.next("STOPPING=1")
    finally:
        notify.close()


async def test_sighup_applies_new_limits_and_names_what_needs_a_restart(make_daemon, tmp_path, sock_dir) -> None:
    config = tmp_path / "fabricd.toml"
    config.write_text("[limits]\nmax_unread = 1\n")
    notify = NotifySocket(os.path.join(sock_dir, "notify"))
    daemon = make_daemon("--config", str(config), env={"NOTIFY_SOCKET": notify.path})
    try:
        daemon.start()
        notify.next("READY=1")
        async with Client(daemon.target) as client:
            await client.register("alice")
            await client.send("alice", "one")
            with pytest.raises(ResourceExhausted):
                await client.send("alice", "two")
            config.write_text('map_size = "1G"\n[limits]\nmax_unread = 2\n')
            daemon.proc.send_signal(signal.SIGHUP)
            status = next(line for line in notify.next("READY=1") if line.startswith("STATUS="))
            assert "applied limits.max_unread" in status and "needs a restart to change map_size" in status
            await client.send("alice", "two")
    finally:
        notify.close()


async def test_metrics_scrape_has_the_series_after_traffic(make_daemon) -> None:
    daemon = make_daemon("--metrics-listen", "127.0.0.1:0").start()
    address = "http://" + daemon.wait_for("metrics on").split("http://", 1)[1].strip()
    # unary calls: a client's SendStream would count among the open streams and calls
    async with Client(daemon.target, streams=False) as client:
        await client.register("alice")
        await client.send("alice", "hi")
        await client.peek("alice")
        async with client.subscribe("bob", auto_ack=False):
            pass
    body = urllib.request.urlopen(address, timeout=30).read().decode()
    for series in ('fabricd_rpc_total{code="OK",method="SendMessage"} 1.0',
                   'fabricd_rpc_duration_seconds_bucket{le="0.005",method="PeekMessages"}',
                   "fabricd_messages_stored_total 1.0", 'fabricd_unread_messages{mailbox="alice"} 1.0',
                   "fabricd_open_streams", "fabricd_write_batch_size_bucket", "fabricd_commit_seconds_bucket",
                   "fabricd_outbox_pending 0.0", "fabricd_outbox_dead_letters 0.0", "fabricd_map_used_bytes",
                   "fabricd_queued_tickets 0.0"):
        assert series in body, series


async def test_logs_are_json_lines_with_one_line_per_call_at_debug(make_daemon) -> None:
    import json

    daemon = make_daemon("--log-level", "debug", "--log-format", "json").start()
    # unary calls: a SendStream's frames are logged as its one call
    async with Client(daemon.target, token="", streams=False) as client:
        await client.register("alice")
        await client.send("alice", "hi")
    daemon.stop()
    # one format: every line the daemon wrote (stdout and stderr, announcements included) is a JSON object
    records = [json.loads(line) for line in daemon.output]
    calls = [r for r in records if r.get("message") == "call"]
    assert any(r["method"] == "SendMessage" and r["code"] == "OK" and "ms" in r for r in calls)
    assert all("time" in r and "level" in r for r in records)
    serving = [r for r in records if " serving " in r["message"]]
    assert [r["address"] for r in serving] == [daemon.target] and records[-1]["message"] == "fabricd stopped"


def test_text_logs_announce_in_plain_lines_even_at_warning(make_daemon) -> None:
    daemon = make_daemon("--log-level", "warning", "--log-format", "text", "--listen", "127.0.0.1:0").start()
    daemon.stop()
    assert not any(line.startswith("{") for line in daemon.output), daemon.output
    serving = [line.rstrip().rsplit(" on ", 1)[1] for line in daemon.output if " serving " in line]
    assert serving[0] == daemon.target and serving[1].startswith("127.0.0.1:"), daemon.output
    assert daemon.output[-1] == "fabricd stopped\n"


def test_the_unix_socket_is_0660_never_world_writable(daemon) -> None:
    mode = stat.S_IMODE(os.stat(daemon.socket).st_mode)
    assert mode == 0o660


async def test_the_socket_gets_the_configured_octal_mode(make_daemon) -> None:
    daemon = make_daemon("--socket-mode", "0640").start()
    assert stat.S_IMODE(os.stat(daemon.socket).st_mode) == 0o640
    async with Client(daemon.target) as client:  # the owner can still connect
        await client.touch("probe")


async def test_the_watchdog_goes_quiet_while_the_writer_is_stuck(make_daemon, sock_dir) -> None:
    import asyncio

    notify = NotifySocket(os.path.join(sock_dir, "notify"))
    daemon = make_daemon(env={"FABRICD_TEST_FAILPOINT": "stall", "NOTIFY_SOCKET": notify.path,
                               "WATCHDOG_USEC": "200000"})
    try:
        daemon.start()
        notify.next("READY=1")
        assert notify.next("WATCHDOG=1") == ["WATCHDOG=1"]  # pinging while the writer is healthy
        async with Client(daemon.target) as client:
            await client.register("alice")
            stuck = asyncio.create_task(client.send("alice", "the disk hangs on this one"))
            notify.sock.settimeout(0.05)
            quiet_since = None
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:  # the pings must stop once the batch is stuck past the interval
                try:
                    if "WATCHDOG=1" in notify.sock.recv(4096).decode().splitlines():
                        quiet_since = None
                except TimeoutError:
                    quiet_since = quiet_since or time.monotonic()
                    if time.monotonic() - quiet_since > 1.0:  # five intervals without a ping
                        break
                await asyncio.sleep(0)
            assert quiet_since is not None and time.monotonic() - quiet_since > 1.0, "the watchdog kept pinging"
            daemon.kill()  # systemd would restart it now; the stuck send fails instead of hanging
            with pytest.raises(FabricError):
                await stuck
    finally:
        daemon.kill()
        notify.close()


def scrape(address: str) -> dict[str, float]:
    """The metrics page as {series: value} (lines without labels only)."""
    body = urllib.request.urlopen(address, timeout=30).read().decode()
    return {name: float(value) for name, _, value in (line.partition(" ") for line in body.splitlines())
            if name and not name.startswith("#") and "{" not in name}


async def test_metrics_show_open_streams_bytes_in_flight_and_stalled_streams_ended(make_daemon) -> None:
    from fabricd.v1 import mailbox_service_pb2 as mb

    daemon = make_daemon("--metrics-listen", "127.0.0.1:0", "--stream-stall-timeout", "2").start()
    address = "http://" + daemon.wait_for("metrics on").split("http://", 1)[1].strip()
    assert scrape(address)["fabricd_streams_stalled_total"] == 0
    # unary calls: a client's SendStream would count among the open streams and calls
    async with Client(daemon.target, streams=False) as client:
        await client.register("slow")
        for i in range(12):
            await client.send("slow", f"{i:02d}" + "s" * 900_000)
        stuck = client.mailbox.Subscribe(mb.SubscribeRequest(agent_id="slow"))  # opened, never read
        await stuck.wait_for_connection()
        metrics = scrape(address)
        while metrics["fabricd_stream_bytes_in_flight"] < 900_000:  # the batch the client does not take
            await asyncio.sleep(0.02)
            metrics = scrape(address)
        assert metrics["fabricd_flow_streams"] == 1
        while metrics["fabricd_streams_stalled_total"] < 1:  # ended by the daemon after the stall timeout
            await asyncio.sleep(0.05)
            metrics = scrape(address)
        assert metrics["fabricd_stream_bytes_in_flight"] == 0
        # An ended stream still counts (toward its token's limit too) until its client reads or leaves:
        # its last response stays in gRPC's buffer until then.
        stuck.cancel()
        while metrics["fabricd_flow_streams"]:
            await asyncio.sleep(0.05)
            metrics = scrape(address)


def test_the_system_unit_of_a_fabricd_under_a_home_folder_says_it_cannot_start(tmp_path, monkeypatch,
                                                                                  capsys) -> None:
    from fabricd.daemon import main as daemon_main
    from fabricd.daemon import units

    assert units.hidden(["/home/ann/src/fabricd/.venv/bin/fabricd", "/usr/local/bin/fabricd", "/homestead/x",
                         "/root/.pyenv/versions/3.11.7", "/run/user/1000/x"]) == [
        "/home/ann/src/fabricd/.venv/bin/fabricd", "/root/.pyenv/versions/3.11.7", "/run/user/1000/x"]
    link = tmp_path / "fabricd"
    link.symlink_to("/home/ann/.venv/bin/fabricd")  # a link elsewhere into a home folder is hidden all the same
    assert units.hidden([str(link)]) == ["/home/ann/.venv/bin/fabricd"]
    assert units.hidden(["/opt/fabricd/bin/fabricd", "/usr/lib/python3.11"]) == []

    monkeypatch.setattr(daemon_main.shutil, "which", lambda name: "/home/ann/src/fabricd/.venv/bin/fabricd")
    assert daemon_main.main(["systemd-unit"]) == 0
    out, err = capsys.readouterr()
    assert "ExecStart=/home/ann/src/fabricd/.venv/bin/fabricd serve" in out
    assert "warning: this fabricd lives under a home folder (/home/ann/src/fabricd/.venv/bin/fabricd" in err
    assert "ProtectHome=yes" in err and "/opt/fabricd" in err and "--user --install" in err
    assert daemon_main.main(["systemd-unit", "--user"]) == 0
    assert "warning" not in capsys.readouterr().err  # the user unit runs as the user: its home is there
