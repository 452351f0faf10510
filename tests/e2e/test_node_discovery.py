"""The Node client finds the daemon's socket as the Python client does (clients/node/test/discovery.mjs)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from fabricd.client import SyncClient
from tests.e2e.test_discovery import UnitDaemon, exec_start, home  # noqa: F401 - the fixture
from tests.e2e.test_node import NODE_CLIENT


def node_discovery(env: dict[str, str], system_socket: str) -> dict[str, dict]:
    node = shutil.which("node")
    if node is None or not os.path.isdir(os.path.join(NODE_CLIENT, "node_modules", "@grpc")):
        pytest.fail("Node and clients/node/node_modules are needed: `python3 scripts/dev test` installs them")
    clean = {k: v for k, v in os.environ.items() if not k.startswith("FABRICD_")}
    done = subprocess.run([node, "test/discovery.mjs", system_socket], cwd=NODE_CLIENT, capture_output=True,
                          text=True, timeout=60, env={**clean, **env})
    assert done.returncode == 0, done.stderr
    return {s["step"]: s for s in map(json.loads, done.stdout.splitlines())}


def test_a_node_client_with_no_target_reaches_the_user_unit(home) -> None:  # noqa: F811
    env, folders, system_socket = home
    socket = os.path.join(folders["rt"], "fabricd.sock")
    daemon = UnitDaemon(exec_start("fabricd-user.service", {"%S": folders["state"], "%t": folders["rt"]}), env).start()
    try:
        with SyncClient(f"unix:{socket}") as client:
            client.register("node-found-me")
        steps = node_discovery(env, system_socket)
    finally:
        daemon.stop()
    assert steps["candidates"]["sockets"] == [socket, os.path.join(folders["state"], "fabricd", "fabricd.sock"),
                                              system_socket]
    assert steps["listed"] == {"step": "listed", "target": f"unix:{socket}", "agents": ["node-found-me"]}
    assert steps["bare path"]["target"] == "unix:/run/x.sock"
    assert "fabric.example.com:7077" in steps["no port"]["message"]


def test_a_node_client_with_no_target_reaches_the_system_unit_and_names_what_it_tried(home) -> None:  # noqa: F811
    env, folders, system_socket = home
    assert "tried unix:" in node_discovery(env, system_socket)["error"]["message"]  # no daemon yet
    runtime = os.path.dirname(system_socket)
    os.makedirs(runtime)
    unit_env = {**env, "RUNTIME_DIRECTORY": runtime, "STATE_DIRECTORY": os.path.join(folders["run"], "state")}
    daemon = UnitDaemon(exec_start("fabricd.service", {"${RUNTIME_DIRECTORY}": runtime}), unit_env).start()
    try:
        with SyncClient(f"unix:{system_socket}") as client:
            client.register("node-found-the-system")
        steps = node_discovery(env, system_socket)
    finally:
        daemon.stop()
    assert steps["listed"]["target"] == f"unix:{system_socket}"
    assert steps["listed"]["agents"] == ["node-found-the-system"]
