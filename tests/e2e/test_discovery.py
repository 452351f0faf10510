"""A bare `fabric ls` finds the daemon wherever the systemd units put its socket."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys

import pytest

from fabricd.client import SyncClient
from tests.conftest import ROOT, Daemon

UNITS = os.path.join(ROOT, "fabricd", "daemon", "units")


def exec_start(unit: str, substitutions: dict[str, str]) -> list[str]:
    """The unit's ExecStart, with systemd's specifiers and variables filled in as systemd would."""
    with open(os.path.join(UNITS, unit), encoding="utf-8") as f:
        line = next(line for line in f if line.startswith("ExecStart="))
    command = line.removeprefix("ExecStart=").strip()
    for name, value in substitutions.items():
        command = command.replace(name, value)
    assert not re.search(r"%\w|\$\{", command), f"unsubstituted specifier in {command!r}"
    argv = shlex.split(command)
    assert argv[0] == "@FABRICD@"
    return [sys.executable, "-m", "fabricd.daemon.main", *argv[1:]]


class UnitDaemon(Daemon):
    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        super().__init__("", "/nonexistent", env=env)
        self.argv = argv

    def command(self) -> list[str]:
        return self.argv


def bare_fabric(env: dict[str, str], system_socket: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`fabric ARGS` with no --target and no $FABRICD_TARGET; only /run is redirected (to `system_socket`)."""
    program = ("import sys; from fabricd.client import _target; _target.SYSTEM_SOCKET = sys.argv[1]; "
               "from fabricd.cli.main import main; main(sys.argv[2:])")
    clean = {k: v for k, v in os.environ.items() if not k.startswith("FABRICD_")}
    return subprocess.run([sys.executable, "-c", program, system_socket, *args], capture_output=True, text=True,
                          timeout=60, env={**clean, **env}, cwd=ROOT)


@pytest.fixture
def home(sock_dir):  # noqa: ANN201
    """A fake home: $XDG_RUNTIME_DIR, $XDG_STATE_HOME and a stand-in for /run, all empty."""
    folders = {name: os.path.join(sock_dir, name) for name in ("rt", "state", "run")}
    for folder in folders.values():
        os.makedirs(folder)
    env = {"XDG_RUNTIME_DIR": folders["rt"], "XDG_STATE_HOME": folders["state"], "HOME": sock_dir}
    return env, folders, os.path.join(folders["run"], "fabricd", "fabricd.sock")


def _reach(env: dict[str, str], system_socket: str, socket: str, agent: str) -> None:
    with SyncClient(f"unix:{socket}") as client:
        client.register(agent)
    listed = bare_fabric(env, system_socket, "ls")
    assert listed.returncode == 0, listed.stderr
    assert agent in listed.stdout


def test_a_bare_fabric_ls_reaches_the_user_unit(home) -> None:
    env, folders, system_socket = home
    argv = exec_start("fabricd-user.service", {"%S": folders["state"], "%t": folders["rt"]})
    daemon = UnitDaemon(argv, env).start()
    try:
        _reach(env, system_socket, os.path.join(folders["rt"], "fabricd.sock"), "user-unit-agent")
    finally:
        daemon.stop()


def test_a_bare_fabric_ls_reaches_the_system_unit(home) -> None:
    env, folders, system_socket = home
    runtime = os.path.dirname(system_socket)
    os.makedirs(runtime)
    # systemd sets these for RuntimeDirectory= and StateDirectory=; the client side sees none of them.
    unit_env = {**env, "RUNTIME_DIRECTORY": runtime, "STATE_DIRECTORY": os.path.join(folders["run"], "state")}
    daemon = UnitDaemon(exec_start("fabricd.service", {"${RUNTIME_DIRECTORY}": runtime}), unit_env).start()
    try:
        _reach(env, system_socket, system_socket, "system-unit-agent")
    finally:
        daemon.stop()


def test_a_bare_fabric_ls_reaches_fabricd_serve_with_its_defaults(home) -> None:
    env, folders, system_socket = home
    daemon = UnitDaemon([sys.executable, "-m", "fabricd.daemon.main", "serve"], env).start()
    try:
        _reach(env, system_socket, os.path.join(folders["state"], "fabricd", "fabricd.sock"), "by-hand-agent")
    finally:
        daemon.stop()


def test_with_no_daemon_the_hint_names_every_socket_tried(home) -> None:
    env, folders, system_socket = home
    result = bare_fabric(env, system_socket, "ls")
    assert result.returncode == 1
    hint = result.stderr.splitlines()[-1]
    assert hint.startswith("fabric: is fabricd running? tried ")
    for socket in (os.path.join(folders["rt"], "fabricd.sock"),
                   os.path.join(folders["state"], "fabricd", "fabricd.sock"), system_socket):
        assert f"unix:{socket} (no such file)" in hint


def test_a_subscription_started_before_the_daemon_finds_it_on_another_socket(home, monkeypatch) -> None:
    from fabricd.client import _target

    env, folders, system_socket = home
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("FABRICD_TARGET", raising=False)
    monkeypatch.setattr(_target, "SYSTEM_SOCKET", system_socket)
    heard: list[str] = []
    socket = os.path.join(folders["rt"], "fabricd.sock")
    argv = exec_start("fabricd-user.service", {"%S": folders["state"], "%t": folders["rt"]})
    with SyncClient() as client:  # nothing runs yet: it dials `fabricd serve`'s default socket
        assert client.target == f"unix:{os.path.join(folders['state'], 'fabricd', 'fabricd.sock')}"
        daemon = UnitDaemon(argv, env)

        def start_on_first_wait(text: str) -> None:  # the daemon comes up once the client says it waits
            heard.append(text)
            if daemon.proc is None:
                daemon.start()
                with SyncClient(f"unix:{socket}") as other:
                    other.register("alice")
                    other.send("alice", "found you", sender="bob")

        inbox = client.subscribe("alice", wait=60, on_wait=start_on_first_wait)
        try:
            assert next(inbox).text == "found you"
        finally:
            inbox.close()
            daemon.stop()
    assert heard[0].startswith("waiting for fabricd at unix:")
    assert f"found fabricd at unix:{socket}" in heard
