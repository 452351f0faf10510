"""gRPC's EventEngine experiments are off in the daemon and in client programs, unless the user says otherwise.

grpc has no API that lists its active experiments, so the tests watch what it
does: with GRPC_TRACE=event_engine_endpoint, EventEngine endpoints and
listeners log each read, write and accept; the older iomgr path logs nothing
under that tracer. Each check runs against a control that turns the
experiments back on, so it could fail.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib

import grpc
import pytest

from fabricd import grpc_env
from fabricd.client import Client

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EVENT_ENGINE_IO = re.compile(r"posix_endpoint\.cc|posix_engine_listener\.cc|EventEngine::Endpoint")
TRACE = {"GRPC_TRACE": "event_engine_endpoint", "GRPC_VERBOSITY": "debug"}
ALL_ON = ",".join(grpc_env.EXPERIMENTS_OFF)


def test_ours_are_appended_to_a_users_setting_which_wins_for_what_it_names() -> None:
    assert grpc_env.merged(None) == ",".join(f"-{n}" for n in grpc_env.EXPERIMENTS_OFF)
    assert grpc_env.merged("") == grpc_env.merged(None)
    mixed = grpc_env.merged(" event_engine_listener , -something_else,")
    assert mixed.split(",") == ["event_engine_listener", "-something_else", "-event_engine_client",
                                "-event_engine_for_all_other_endpoints", "-event_engine_callback_cq"]
    assert grpc_env.merged(ALL_ON) == ALL_ON
    assert grpc_env.merged(grpc_env.merged(None)) == grpc_env.merged(None)  # idempotent


def test_nothing_is_set_once_grpc_is_imported_because_it_would_not_take_effect() -> None:
    assert "grpc" in sys.modules
    environ: dict[str, str] = {}
    assert grpc_env.apply(environ) is False and environ == {}


def test_importing_fabricd_alone_sets_the_experiments_and_loads_no_grpc() -> None:
    """Every entry point (daemon, CLI, client, stubs) imports the fabricd package first."""
    env = {k: v for k, v in os.environ.items() if k != "GRPC_EXPERIMENTS"}
    program = "import fabricd, os, sys; print('grpc' in sys.modules, os.environ.get('GRPC_EXPERIMENTS'))"
    result = subprocess.run([sys.executable, "-c", program], env=env, capture_output=True, text=True, timeout=60)
    assert result.stdout.split() == ["False", grpc_env.merged(None)], result.stderr


def test_the_installed_grpcio_is_a_measured_version_and_the_pin_allows_only_those() -> None:
    assert grpc_env.grpcio_version() == tuple(int(x) for x in grpc.__version__.split(".")[:2])
    assert grpc_env.grpcio_version() in grpc_env.MEASURED
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        dependencies = tomllib.load(f)["project"]["dependencies"]
    pins = [d for d in dependencies if re.fullmatch(r"grpcio[<>=!~]", d[:7])]
    assert pins == [f"grpcio>={min(grpc_env.MEASURED)[0]}.{min(grpc_env.MEASURED)[1]},"
                    f"<{max(grpc_env.MEASURED)[0]}.{max(grpc_env.MEASURED)[1] + 1}"]


async def _one_call_and_output(make_daemon, grpc_experiments: str) -> str:
    daemon = make_daemon(env={**TRACE, "GRPC_EXPERIMENTS": grpc_experiments}).start()
    async with Client(daemon.target) as client:
        await client.list_mailboxes()
    daemon.stop()
    return "".join(daemon.output)


async def test_the_daemon_turns_the_event_engine_off_by_itself(make_daemon) -> None:
    output = await _one_call_and_output(make_daemon, "")  # empty: as if the user set nothing
    assert not EVENT_ENGINE_IO.search(output), output
    assert "Unknown experiment" not in output, output  # every name exists in this grpcio


async def test_the_daemon_keeps_a_users_own_grpc_experiments(make_daemon) -> None:
    output = await _one_call_and_output(make_daemon, ALL_ON)
    assert EVENT_ENGINE_IO.search(output), output


CLIENT_PROGRAM = """
import asyncio, sys
from fabricd.client import Client

async def main():
    async with Client(sys.argv[1]) as client:
        await client.list_mailboxes()

asyncio.run(main())
"""


def _client_program_output(target: str, grpc_experiments: str | None) -> str:
    env = {k: v for k, v in os.environ.items() if k != "GRPC_EXPERIMENTS"}
    env.update(TRACE)
    if grpc_experiments is not None:
        env["GRPC_EXPERIMENTS"] = grpc_experiments
    result = subprocess.run([sys.executable, "-c", CLIENT_PROGRAM, target], env=env, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return result.stderr


@pytest.mark.parametrize("user_setting", [None, ALL_ON], ids=["unset", "user-turns-them-on"])
def test_a_program_importing_the_client_turns_the_event_engine_off_unless_the_user_says(
        daemon, user_setting) -> None:
    output = _client_program_output(daemon.target, user_setting)
    assert bool(EVENT_ENGINE_IO.search(output)) is (user_setting is not None), output
    assert "Unknown experiment" not in output, output
