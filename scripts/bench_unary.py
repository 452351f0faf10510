"""The unary path for every language (issue 25 item 6): `scripts/bench --only unary`.

A client generated from protos/ in another language calls SendMessage, one unary call per message, and never
uses the streams. Node's grpc-js (scripts/unary_driver.mjs) plays that client, against the durable daemon and
against a bare grpc.aio MailboxService that stores nothing (scripts/bench_unary_bare.py), one after the other in
one run, so the driver's own cost is on both sides:
    unary_64_daemon, unary_64_bare       64 callers over one connection: sends a second
    unary_64_vs_bare                     the daemon's rate over the bare server's (target >= 0.75)
    unary_1_p50_ms, unary_1_bare_p50_ms  one caller: p50 of a send
    unary_1_over_bare_ms                 the daemon's p50 minus the bare server's (target <= 0.45 ms: one commit)
The issue asks for a Go stub client; this machine kind has no Go toolchain, so Node drives it. Without node or
the Node client's packages (clients/node/node_modules: `npm ci` there) the workload prints nothing and says why.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile

from fabricd.client import Client

HERE = os.path.dirname(os.path.abspath(__file__))
SINK = "unary-sink"


def missing() -> str:
    """Why the workload cannot run here ('' when it can)."""
    if shutil.which("node") is None:
        return "node is not installed"
    if not os.path.isdir(os.path.join(HERE, "..", "clients", "node", "node_modules", "@grpc", "grpc-js")):
        return "the Node client's packages are not installed (npm ci in clients/node)"
    return ""


async def drive(target: str, callers: int, total: int) -> dict[str, float]:
    proc = await asyncio.create_subprocess_exec(
        "node", os.path.join(HERE, "unary_driver.mjs"), target, str(callers), str(total), SINK,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = await proc.communicate()
    if proc.returncode:
        raise RuntimeError(f"unary_driver.mjs failed: {err.decode()[-2000:]}")
    return json.loads(out)


async def bare_server() -> tuple[subprocess.Popen[str], str, str]:
    folder = tempfile.mkdtemp(prefix="fdb-bare-", dir="/tmp")
    target = f"unix:{folder}/s.sock"
    proc = subprocess.Popen([sys.executable, os.path.join(HERE, "bench_unary_bare.py"), target],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    if "serving" not in proc.stdout.readline():
        proc.kill()
        raise RuntimeError("the bare server did not start")
    return proc, target, folder


async def unary(client: Client, target: str, total: int) -> dict[str, float]:
    why = missing()
    if why:
        print(f"unary: skipped: {why}", file=sys.stderr)
        return {}
    await client.register(SINK)
    proc, bare, folder = await bare_server()
    try:
        daemon_64 = await drive(target, 64, total)
        bare_64 = await drive(bare, 64, total)
        daemon_1 = await drive(target, 1, total // 4)
        bare_1 = await drive(bare, 1, total // 4)
    finally:
        proc.kill()
        proc.wait()
        shutil.rmtree(folder, ignore_errors=True)
    while (await client.drain(SINK, limit=1000)).messages:
        pass
    return {"unary_64_daemon": daemon_64["rate"], "unary_64_bare": bare_64["rate"],
            "unary_64_vs_bare": daemon_64["rate"] / bare_64["rate"],
            "unary_64_p50_ms": daemon_64["p50_ms"], "unary_64_bare_p50_ms": bare_64["p50_ms"],
            "unary_1_p50_ms": daemon_1["p50_ms"], "unary_1_bare_p50_ms": bare_1["p50_ms"],
            "unary_1_over_bare_ms": daemon_1["p50_ms"] - bare_1["p50_ms"]}
