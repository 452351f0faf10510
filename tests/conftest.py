"""Fixtures: a real fabricd process on a real LMDB folder (or PostgreSQL database), reached over a real unix socket.

A test module that sets `BACKENDS = ("lmdb", "postgres")` runs each of its
daemon tests twice: on LMDB, and with `--store` naming a fresh database of a
throwaway PostgreSQL cluster (tests/pg.py; the fixtures are in tests/pgfixtures.py).
Tests named in the module's `LMDB_ONLY` run on LMDB only.
"""

from __future__ import annotations

import faulthandler
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import AsyncIterator, Iterator

import pytest

from fabricd.client import Client
from fabricd.daemon import settings
from fabricd.daemon.app import App
from fabricd.daemon.config import Config

pytest_plugins = ["tests.pgfixtures"]

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Daemon:
    """One `fabricd serve` subprocess. start() returns once it printed that it serves."""

    def __init__(self, data_dir: str, sock_dir: str, *args: str, env: dict[str, str] | None = None) -> None:
        self.data_dir = data_dir
        self.socket = os.path.join(sock_dir, "fabricd.sock")
        self.target = f"unix:{self.socket}"
        self.args = list(args)
        self.env = env
        self.proc: subprocess.Popen[str] | None = None
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.output: list[str] = []

    def command(self) -> list[str]:
        return [sys.executable, "-m", "fabricd.daemon.main", "serve", "--data-dir", self.data_dir,
                "--listen", self.target, *self.args]

    def start(self, timeout: float = 30.0) -> Daemon:
        env = dict(os.environ, PYTHONUNBUFFERED="1", **(self.env or {}))
        self.proc = subprocess.Popen(self.command(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                     env=env, cwd=ROOT)
        self.lines = queue.Queue()
        threading.Thread(target=self._pump, args=(self.proc, self.lines), daemon=True).start()
        self.wait_for("serving", timeout)
        return self

    def _pump(self, proc: subprocess.Popen[str], lines: queue.Queue[str | None]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            self.output.append(line)
            lines.put(line)
        lines.put(None)

    def wait_for(self, text: str, timeout: float = 30.0) -> str:
        """The next line that says `text`: a plain line as printed, a JSON log line (the daemon's stdout and stderr
        are not a terminal here, so it logs JSON) as its message."""
        while True:
            try:
                line = self.lines.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(f"fabricd did not print {text!r} in {timeout}s:\n{''.join(self.output)}") from None
            if line is None:
                raise AssertionError(f"fabricd exited before printing {text!r}:\n{''.join(self.output)}")
            if line.startswith("{"):
                try:
                    line = str(json.loads(line).get("message", line)) + "\n"
                except ValueError:
                    pass
            if text in line:
                return line

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 30.0) -> int:
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        code = self.proc.wait(timeout)
        return code

    def kill(self) -> int:
        return self.stop(signal.SIGKILL)

    def restart(self) -> Daemon:
        self.stop()
        return self.start()


@pytest.fixture
def sock_dir() -> Iterator[str]:
    # Unix socket paths are limited to 107 bytes: keep them short, away from pytest's deep tmp_path.
    path = tempfile.mkdtemp(prefix="fd-", dir="/tmp")
    yield path
    shutil.rmtree(path, ignore_errors=True)


def pytest_generate_tests(metafunc) -> None:
    backends = getattr(metafunc.module, "BACKENDS", None)
    if backends and "backend" in metafunc.fixturenames:
        if metafunc.function.__name__ in getattr(metafunc.module, "LMDB_ONLY", ()):
            backends = ["lmdb"]  # about LMDB itself (its file on a full disk, say)
        metafunc.parametrize("backend", backends, indirect=True)


@pytest.fixture
def backend(request) -> str:
    """The daemon's store for this test: "" (LMDB under its data folder) or a fresh PostgreSQL database's URL."""
    if getattr(request, "param", "lmdb") == "postgres":
        return request.getfixturevalue("pg_url")
    return ""


@pytest.fixture
def make_daemon(tmp_path, sock_dir, backend):  # noqa: ANN201
    """Build (not start) a daemon on this test's data folder (or database); extra CLI args allowed."""
    made: list[Daemon] = []

    def make(*args: str, env: dict[str, str] | None = None, data_dir: str | None = None) -> Daemon:
        store = ("--store", backend) if backend and "--store" not in args else ()
        d = Daemon(data_dir or str(tmp_path / "data"), sock_dir, *store, *args, env=env)
        made.append(d)
        return d

    yield make
    for d in made:
        if d.proc is not None and d.proc.poll() is None:
            d.kill()


@pytest.fixture
def daemon(make_daemon) -> Daemon:
    return make_daemon().start()


@pytest.fixture
async def client(daemon: Daemon) -> AsyncIterator[Client]:
    async with Client(daemon.target) as c:
        yield c


def pytest_addoption(parser) -> None:
    parser.addoption("--soak", action="store_true", help="run the reliability suites long (minutes, many kills)")


@pytest.fixture
async def wired_app(tmp_path) -> AsyncIterator[App]:
    """The daemon's App wired in process on an LMDB folder of this test, its store started, no listener."""
    config = settings.build(dict(settings.values_of(Config()), data_dir=str(tmp_path / "data")))
    app = App(config)
    app._wire()
    await app.store.start()
    await app.tokens.refresh()
    try:
        yield app
    finally:
        await app.store.close()


@pytest.fixture
def soak(request) -> bool:
    return bool(request.config.getoption("--soak"))


SOAK_TIMEOUT_S = 2 * 3600.0
"""The timeout of a test marked `soak` under --soak (its long mode runs for an hour)."""


def pytest_collection_modifyitems(config, items) -> None:
    if config.getoption("--soak"):
        for item in items:
            if item.get_closest_marker("soak") is not None:
                item.add_marker(pytest.mark.timeout(SOAK_TIMEOUT_S))


HANG_GRACE_S = float(os.environ.get("FABRICD_TEST_HANG_GRACE_S", "60"))  # tests/test_hang_backstop.py sets it


@pytest.fixture(autouse=True)
def _end_a_hung_test(request) -> Iterator[None]:
    """A backstop behind pytest-timeout. Its alarm fails a test by raising in whatever code runs when it fires;
    in an asyncio test that is often another task, which keeps the exception to itself, and the test then runs
    for ever (one did, with a load loop that grew its daemon to 23 GB until CI gave up). A test still running
    HANG_GRACE_S after its timeout gets every thread's stack printed, its daemons killed, and its worker ended:
    pytest-xdist reports the worker crashed in that test and goes on with a new one."""
    marker = request.node.get_closest_marker("timeout")
    limit = float(marker.args[0]) if marker is not None and marker.args else float(request.config.getini("timeout") or 0)
    if limit <= 0:
        yield
        return

    def end() -> None:
        sys.stderr.write(f"\n{request.node.nodeid} still runs {HANG_GRACE_S:.0f} s after its {limit:.0f} s "
                         "timeout: ending this worker\n")
        faulthandler.dump_traceback(file=sys.stderr)
        sys.stderr.flush()
        for child in children(os.getpid()):
            try:
                os.kill(child, signal.SIGKILL)
            except ProcessLookupError:
                pass
        os._exit(3)

    timer = threading.Timer(limit + HANG_GRACE_S, end)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


def children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (read from /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    stat = f.read()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry))
    return found
