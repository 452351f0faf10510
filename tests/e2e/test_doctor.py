"""`fabric doctor`: what it checks, and that each problem exits non-zero with its fix."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time

from fabricd.cli.app import Context
from fabricd.cli.doctor import diagnose
from fabricd.v1 import admin_service_pb2 as adm

FABRIC = [sys.executable, "-m", "fabricd.cli.main"]


def doctor(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*FABRIC, *args, "doctor"], capture_output=True, text=True, timeout=60)


def test_a_healthy_daemon_passes_every_check_and_shows_what_it_found(make_daemon) -> None:
    from fabricd import __version__

    daemon = make_daemon().start()
    result = doctor("--target", daemon.target)
    assert result.returncode == 0, result.stdout
    assert result.stdout.splitlines()[-1] == "no problems found"
    checks = {c["name"]: c for c in map(json.loads, doctor("--target", daemon.target, "--json").stdout.splitlines())}
    assert list(checks) == ["target", "versions", "auth", "store", "clock", "listeners"]
    assert all(c["ok"] for c in checks.values())
    assert checks["target"]["detail"].startswith(daemon.target)
    assert checks["versions"]["detail"] == f"client {__version__}, daemon {__version__}"
    assert checks["auth"]["detail"].startswith("tokens auto")
    assert daemon.data_dir in checks["store"]["detail"] and "GiB map" in checks["store"]["detail"]
    assert "the daemon's clock is" in checks["clock"]["detail"]
    assert checks["listeners"]["detail"] == daemon.target


def test_no_daemon_fails_with_how_to_start_one(sock_dir) -> None:
    result = doctor("--target", f"unix:{sock_dir}/none.sock")
    assert result.returncode == 1
    assert "FAIL target" in result.stdout and "fix: start the daemon: `fabricd serve`" in result.stdout


def test_a_missing_token_fails_with_how_to_pass_one(make_daemon) -> None:
    daemon = make_daemon("--listen", "127.0.0.1:0").start()
    port = daemon.wait_for("127.0.0.1:").strip().rsplit(":", 1)[1]
    result = doctor("--target", f"127.0.0.1:{port}")
    assert result.returncode == 1
    assert "FAIL token" in result.stdout and "[MISSING_TOKEN]" in result.stdout
    assert "pass --token TOKEN or set FABRICD_TOKEN" in result.stdout


class _Reports:
    """A daemon that answers GetStatus with what the test says (a skewed clock, a nearly full store)."""

    target = "unix:/x.sock"
    discovered = False
    tried = target

    def __init__(self, status: adm.GetStatusResponse) -> None:
        self._status = status

    async def status(self) -> adm.GetStatusResponse:
        return self._status


def _status(skew_s: float = 0.0, used: float = 0.01) -> adm.GetStatusResponse:
    status = adm.GetStatusResponse(version="0.1.0", data_dir="/d", map_size_bytes=1 << 30,
                                   map_used_bytes=int(used * (1 << 30)), auth_tokens="auto")
    status.current_time.FromNanoseconds(int((time.time() + skew_s) * 1e9))
    return status


def test_clock_skew_and_a_nearly_full_store_are_problems_with_their_fixes() -> None:
    ctx = Context("unix:/x.sock", as_json=False)
    fine = {c.name: c for c in asyncio.run(diagnose(ctx, _Reports(_status())))}
    assert fine["clock"].ok and fine["store"].ok
    bad = {c.name: c for c in asyncio.run(diagnose(ctx, _Reports(_status(skew_s=-30, used=0.95))))}
    assert not bad["clock"].ok and "behind" in bad["clock"].detail and "timedatectl set-ntp true" in bad["clock"].fix
    assert not bad["store"].ok and "(95.0%)" in bad["store"].detail and "--map-size" in bad["store"].fix
