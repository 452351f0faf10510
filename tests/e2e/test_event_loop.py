"""The daemon's event loop (server.event_loop): the start line names it, and a missing uvloop is refused up front."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from fabricd.client import Client

BACKENDS = ("lmdb", "postgres")


def _serving(output: list[str]) -> dict:
    return next(r for r in map(json.loads, output) if " serving " in r["message"])


@pytest.mark.parametrize(("args", "env", "runs"), [
    ((), {}, "uvloop"),
    (("--event-loop", "asyncio"), {}, "asyncio"),
    ((), {"FABRICD_SERVER_EVENT_LOOP": "asyncio"}, "asyncio"),
    (("--event-loop", "uvloop"), {}, "uvloop"),
], ids=["default", "flag-asyncio", "env-asyncio", "flag-uvloop"])
async def test_the_start_line_names_the_loop_the_daemon_serves_on(make_daemon, args, env, runs) -> None:
    daemon = make_daemon("--log-format", "json", *args, env=env).start()
    async with Client(daemon.target) as client:
        await client.register("alice")
        await client.send("alice", "hi")
        assert [m.text for m in (await client.peek("alice")).messages] == ["hi"]
    assert daemon.stop() == 0
    start = _serving(daemon.output)
    assert start["event_loop"] == runs and f"({runs}) serving " in start["message"], start
    assert start["message"].endswith(f" on {daemon.target}")


HIDDEN_UVLOOP = textwrap.dedent("""
    import sys
    sys.modules["uvloop"] = None  # import uvloop raises ImportError, as where it is not installed
    from fabricd.daemon.main import main
    raise SystemExit(main(sys.argv[1:]))
""")


def _serve_without_uvloop(tmp_path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", HIDDEN_UVLOOP, "serve", "--data-dir", str(tmp_path / "data"),
                           "--log-format", "json", *args], capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, PYTHONUNBUFFERED="1"))


def test_uvloop_asked_for_but_missing_exits_2_in_one_line_naming_what_to_install(tmp_path, sock_dir) -> None:
    result = _serve_without_uvloop(tmp_path, "--listen", f"unix:{sock_dir}/s.sock", "--event-loop", "uvloop")
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr.startswith("fabricd: configuration: server.event_loop = uvloop (flag --event-loop): ")
    assert "pip install uvloop" in result.stderr
    assert not (tmp_path / "data").exists() and not os.path.exists(f"{sock_dir}/s.sock")  # nothing opened


def test_auto_without_uvloop_serves_on_asyncio(tmp_path, sock_dir) -> None:
    # the daemon serves until SIGTERM: run it as `fabricd serve` would, stopped once its start line is out
    proc = subprocess.Popen([sys.executable, "-c", HIDDEN_UVLOOP, "serve", "--data-dir", str(tmp_path / "data"),
                             "--listen", f"unix:{sock_dir}/s.sock", "--log-format", "json"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=dict(os.environ, PYTHONUNBUFFERED="1"))
    try:
        assert proc.stdout is not None
        lines = []
        for line in proc.stdout:
            lines.append(line)
            if " serving " in line:
                break
        proc.terminate()
        lines += proc.stdout.readlines()
        assert proc.wait(30) == 0, lines
    finally:
        if proc.poll() is None:
            proc.kill()
    assert _serving(lines)["event_loop"] == "asyncio", lines
