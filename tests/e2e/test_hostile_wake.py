"""A hostile agent or local user against wake hooks and the data folder, each refused or contained.

A hook whose listener accepts and never answers holds up nothing but itself, a
failing hook backs off and is disabled with its owner told, a hook fires at
most once per wake.min_quiet_period and keeps at most one wake waiting, and no
hook reaches link-local or cloud metadata addresses.
"""

from __future__ import annotations

import asyncio
import json
import os
import pathlib
import pwd
import socket
import subprocess
import sys
import threading
import time

import pytest

from fabricd.client import Client, InvalidArgument
from fabricd.v1 import directory_service_pb2 as dir_pb
from fabricd.v1 import outbox_service_pb2 as ob
from tests.e2e.test_outbox import job
from tests.e2e.test_wake import Receiver, fabric, receiver, until, wake_rows  # noqa: F401 - a fixture

BACKENDS = ("lmdb", "postgres")  # the daemon tests run on both stores; the start-up refusals once (no backend)

FABRICD = [sys.executable, "-m", "fabricd.daemon.main"]
ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
ACTIVE, BACKING_OFF, DISABLED = (dir_pb.WAKE_HOOK_STATE_ACTIVE, dir_pb.WAKE_HOOK_STATE_BACKING_OFF,
                                 dir_pb.WAKE_HOOK_STATE_DISABLED)


class Silent:
    """A listener that accepts every connection, reads what comes, and never answers."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/wake"
        self.accepted = threading.Event()
        self.connections: list[socket.socket] = []
        self.closed = 0
        """Connections the daemon gave up on (its wake.timeout ended them)."""
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections.append(conn)
            self.accepted.set()
            threading.Thread(target=self._hold, args=(conn,), daemon=True).start()

    def _hold(self, conn: socket.socket) -> None:
        try:
            while conn.recv(65536):
                pass
        except OSError:
            return
        self.closed += 1

    def close(self) -> None:
        self.sock.close()
        for conn in self.connections:
            conn.close()


@pytest.fixture
def silent():  # noqa: ANN201
    s = Silent()
    yield s
    s.close()


# -- a hook that never answers holds up nobody else


async def test_a_hook_that_never_answers_delays_no_reply_and_no_other_hook(make_daemon, silent: Silent,
                                                                           receiver: Receiver) -> None:  # noqa: F811
    daemon = make_daemon("--wake-timeout", "60").start()  # the silent POST stays open for the whole test
    async with Client(daemon.target) as client:
        for agent in ("mallory", "bob", "parent"):
            await client.register(agent)
        await client.set_wake_hook("mallory", url=silent.url, quiet_period=1)
        await client.set_wake_hook("bob", url=receiver.url, quiet_period=1)
        await client.send("mallory", "work")
        assert await asyncio.to_thread(silent.accepted.wait, 30)  # mallory's wake is being sent: it hangs
        await client.fan_out(job(key="req-1", reply_to=[("parent", "parent-session")]), "the answer")
        await client.send("bob", "work")
        hit = await receiver.next()
        assert json.loads(hit.body)["agent_id"] == "bob"
        await until(lambda: _has_mail(client, "parent"))
        assert "the answer" in (await client.peek("parent")).messages[0].text
        assert silent.closed == 0 and len(silent.connections) == 1  # mallory's POST was still open all along
        (row,) = [r for r in await wake_rows(client) if r.recipient.agent_id == "mallory"]
        assert row.state == ob.OUTBOX_ROW_STATE_PENDING  # still being sent, not given up


async def _has_mail(client: Client, agent: str) -> bool:
    return (await client.peek(agent)).unread_count > 0


# -- a failing hook backs off, then is disabled and its owner told


async def test_a_failing_hook_backs_off_keeps_one_wake_waiting_and_shows_it(make_daemon,
                                                                            receiver: Receiver) -> None:  # noqa: F811
    daemon = make_daemon("--outbox-backoff", "3600", "--outbox-backoff-cap", "3600", "--wake-min-quiet-period",
                         "0").start()
    receiver.status = 503
    async with Client(daemon.target) as client:
        await client.register("alice")
        await client.set_wake_hook("alice", url=receiver.url, quiet_period=0)
        await client.send("alice", "first")
        await receiver.next()
        failing = await until(lambda: _failures(client, "alice", 1))
        assert failing.state == BACKING_OFF and "HTTP 503" in failing.last_error
        assert failing.next_attempt_time.ToNanoseconds() > time.time_ns() + int(0.7 * 3600e9)  # jitter is 20 %
        for i in range(20):  # quiet period 0: each arrival may fire, and each rewrites the one waiting wake
            await client.send("alice", f"more {i}")
            await until(lambda: _disarmed(client, "alice"))
        (waiting,) = [r for r in await wake_rows(client) if r.state == ob.OUTBOX_ROW_STATE_PENDING]
        assert json.loads(waiting.content)["unread"] == 21  # the latest counts, in the one row
        assert receiver.hits.empty() and len(receiver.all) == 1  # nothing sent while the hook backs off


async def _failures(client: Client, agent: str, n: int) -> dir_pb.GetWakeHookResponse | None:
    got = await client.get_wake_hook(agent)
    return got if got.consecutive_failures >= n else None


async def _disarmed(client: Client, agent: str) -> bool:
    return not (await client.get_wake_hook(agent)).armed


async def test_a_hook_that_keeps_failing_is_disabled_and_its_owner_told(make_daemon,
                                                                        receiver: Receiver) -> None:  # noqa: F811
    daemon = make_daemon("--outbox-backoff", "0.01", "--outbox-backoff-cap", "0.01", "--wake-disable-after",
                         "3").start()
    receiver.status = 503
    async with Client(daemon.target) as client:
        await client.register("alice")
        await client.set_wake_hook("alice", url=receiver.url, quiet_period=1)
        await client.send("alice", "work")
        disabled = await until(lambda: _state(client, "alice", DISABLED))
        assert disabled.consecutive_failures == 3 and "HTTP 503" in disabled.last_error
        assert disabled.disable_time.ToNanoseconds() > 0 and len(receiver.all) == 3
        work, notice = (await client.peek("alice")).messages
        assert notice.sender.agent_id == "fabricd" and notice.headers["fabricd-wake"] == "disabled"
        assert f"POST {receiver.url}" in notice.text and "failed 3 times in a row" in notice.text
        (row,) = await wake_rows(client)
        assert row.state == ob.OUTBOX_ROW_STATE_DELIVERED and "the hook was disabled after 3" in row.last_error
        shown = fabric(daemon, "wake", "show", "alice")
        assert "disabled after 3 failed sends in a row (WAKE_DELIVERY_FAILED: POST" in shown.stdout, shown.stdout
        for _ in range(3):
            await receiver.next()  # the three failed POSTs
        receiver.status = 200
        await client.set_wake_hook("alice", url=receiver.url, quiet_period=1)  # set again: enabled, afresh
        again = await client.get_wake_hook("alice")
        assert (again.state, again.consecutive_failures, again.last_error) == (ACTIVE, 0, "")
        await client.send("alice", "more work")
        assert json.loads((await receiver.next()).body)["unread"] == 3


async def _state(client: Client, agent: str, state: int) -> dir_pb.GetWakeHookResponse | None:
    got = await client.get_wake_hook(agent)
    return got if got.state == state else None


# -- the quiet period's floor


@pytest.mark.parametrize("seconds", [0, 0.5])
async def test_a_quiet_period_below_the_floor_is_refused(client: Client, seconds: float) -> None:
    await client.register("alice")
    with pytest.raises(InvalidArgument) as err:
        await client.set_wake_hook("alice", url="http://127.0.0.1:9/w", quiet_period=seconds)
    assert err.value.reason == "WAKE_QUIET_PERIOD_OUT_OF_RANGE" and "wake.min_quiet_period" in str(err.value)
    assert not (await client.get_wake_hook("alice")).HasField("hook")
    assert (await client.set_wake_hook("alice", url="http://127.0.0.1:9/w", quiet_period=1)).hook.url


# -- where a hook may POST


@pytest.mark.parametrize("url", ["http://169.254.169.254/latest/meta-data/iam/", "http://[fe80::1%25eth0]:80/",
                                 "http://[::ffff:169.254.169.254]/", "http://100.100.100.200/latest/"])
async def test_a_hook_to_link_local_or_metadata_addresses_is_refused(client: Client, url: str) -> None:
    await client.register("alice")
    with pytest.raises(InvalidArgument) as err:
        await client.set_wake_hook("alice", url=url)
    assert err.value.reason == "WAKE_HOST_NOT_ALLOWED" and "wake.deny_networks" in str(err.value)
    assert not (await client.get_wake_hook("alice")).HasField("hook")


async def test_a_name_is_checked_when_set_and_again_before_each_post(make_daemon,
                                                                     receiver: Receiver) -> None:  # noqa: F811
    port = receiver.url.split(":")[2].split("/")[0]
    by_name = f"http://localhost:{port}/wake"
    denying = make_daemon("--wake-deny-networks", "127.0.0.0/8", "--wake-deny-networks", "::1/128").start()
    async with Client(denying.target) as client:
        await client.register("alice")
        with pytest.raises(InvalidArgument) as err:
            await client.set_wake_hook("alice", url=by_name)  # localhost resolves to a denied address
        assert err.value.reason == "WAKE_HOST_NOT_ALLOWED"
    denying.stop()
    allowing = make_daemon().start()
    async with Client(allowing.target) as client:
        await client.set_wake_hook("alice", url=by_name, quiet_period=3600)
    allowing.stop()
    denying.start()  # the name now stands for addresses hooks may not reach: checked again before the POST
    async with Client(denying.target) as client:
        await client.send("alice", "work")
        failed = await until(lambda: _failures(client, "alice", 1))
        assert "WAKE_HOST_NOT_ALLOWED" in failed.last_error and receiver.all == []


def serve(*args: str) -> subprocess.CompletedProcess[str]:
    """`fabricd serve` with none of the caller's FABRICD_ variables (a refusal exits; a start would hang)."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("FABRICD_")}
    return subprocess.run([*FABRICD, "serve", *args], capture_output=True, text=True, timeout=60, env=clean)


# -- command hooks on an unauthenticated TCP listener


def test_command_hooks_on_a_tcp_listener_without_tokens_stop_the_daemon_naming_the_keys(tmp_path, sock_dir) -> None:
    result = serve("--data-dir", str(tmp_path / "d"), "--listen", f"unix:{sock_dir}/fd.sock", "--listen",
                   "127.0.0.1:0", "--auth", "off", "--wake-allow-commands", "on")
    assert result.returncode == 2, result.stderr
    for key in ("wake.allow_commands = on (flag --wake-allow-commands)", "auth.tokens = off (flag --auth)",
                "listen = "):
        assert key in result.stderr, result.stderr
    assert not (tmp_path / "d").exists()  # refused before the store was touched


@pytest.mark.parametrize("args", [
    ("--auth", "on", "--wake-allow-commands", "on", "--listen", "127.0.0.1:0"),  # tokens guard the listener
    ("--auth", "off", "--wake-allow-commands", "on"),  # a unix socket only: its file mode guards it
    ("--auth", "off", "--wake-allow-commands", "off", "--listen", "127.0.0.1:0"),
])
def test_command_hooks_with_tokens_or_only_a_unix_socket_still_configure(args) -> None:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("FABRICD_")}
    result = subprocess.run([*FABRICD, "config", "--listen", "unix:/tmp/x.sock", *args], capture_output=True,
                            text=True, timeout=60, env=clean)
    assert result.returncode == 0, result.stderr


# -- a data folder another user owns


@pytest.fixture
def other_user() -> pwd.struct_passwd:
    if os.geteuid() != 0:
        pytest.fail("these tests chown folders to another user: they run as root (as the test command does)")
    return pwd.getpwnam("nobody")


def test_a_root_daemon_refuses_a_folder_another_user_owns_and_follows_none_of_its_symlinks(
        tmp_path, sock_dir, other_user) -> None:
    victim = tmp_path / "victim"
    victim.write_text("root's own file")
    theirs = tmp_path / "theirs"
    theirs.mkdir(mode=0o700)
    (theirs / "lock.mdb").symlink_to(victim)
    (theirs / "fabricd.lock").symlink_to(victim)
    os.lchown(theirs / "lock.mdb", other_user.pw_uid, other_user.pw_gid)
    os.chown(theirs, other_user.pw_uid, other_user.pw_gid)
    result = serve("--data-dir", str(theirs), "--listen", f"unix:{sock_dir}/fd.sock")
    assert result.returncode == 2, result.stderr
    assert f"{theirs} is owned by nobody (uid {other_user.pw_uid}), not by the user running fabricd" in result.stderr
    assert "Traceback" not in result.stderr
    assert victim.read_text() == "root's own file"
    assert sorted(os.listdir(theirs)) == ["fabricd.lock", "lock.mdb"]  # nothing created either


@pytest.mark.parametrize("name", ["lock.mdb", "data.mdb", "fabricd.lock"])
def test_a_store_file_that_is_a_symlink_is_refused_even_in_an_own_folder(tmp_path, sock_dir, name) -> None:
    victim = tmp_path / "victim"
    victim.write_text("root's own file")
    mine = tmp_path / "mine"
    mine.mkdir(mode=0o700)
    (mine / name).symlink_to(victim)
    result = serve("--data-dir", str(mine), "--listen", f"unix:{sock_dir}/fd.sock")
    assert result.returncode == 2 and f"{mine / name} is a symlink" in result.stderr, result.stderr
    assert victim.read_text() == "root's own file"


def test_a_store_file_another_user_owns_or_a_folder_anyone_may_write_is_refused(tmp_path, sock_dir,
                                                                                 other_user) -> None:
    mine = tmp_path / "mine"
    mine.mkdir(mode=0o700)
    (mine / "data.mdb").write_bytes(b"")
    os.chown(mine / "data.mdb", other_user.pw_uid, other_user.pw_gid)
    result = serve("--data-dir", str(mine), "--listen", f"unix:{sock_dir}/fd.sock")
    assert result.returncode == 2 and f"{mine / 'data.mdb'} is owned by nobody" in result.stderr, result.stderr
    open_to_all = tmp_path / "open"
    open_to_all.mkdir()
    os.chmod(open_to_all, 0o777)
    result = serve("--data-dir", str(open_to_all), "--listen", f"unix:{sock_dir}/fd.sock")
    assert result.returncode == 2 and "may be written by every local user (mode 777)" in result.stderr, result.stderr
    assert os.listdir(open_to_all) == []


def test_the_docs_network_example_is_a_configuration_fabricd_reads(tmp_path) -> None:
    text = (ROOT / "docs" / "wake-hooks.md").read_text()
    block = text.split("```toml\n", 1)[1].split("```", 1)[0]
    (tmp_path / "fabricd.toml").write_text(block)
    clean = {k: v for k, v in os.environ.items() if not k.startswith("FABRICD_")}
    result = subprocess.run([*FABRICD, "config", "--config", str(tmp_path / "fabricd.toml")], capture_output=True,
                            text=True, timeout=60, env=clean)
    assert result.returncode == 0, result.stderr
    assert 'allow_networks = ["127.0.0.0/8", "::1/128"]' in result.stdout


def test_a_network_that_is_no_cidr_stops_the_daemon_naming_the_key() -> None:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("FABRICD_")}
    result = subprocess.run([*FABRICD, "config", "--wake-allow-networks", "10.0.0.0/33"], capture_output=True,
                            text=True, timeout=60, env=clean)
    assert result.returncode == 2, result.stderr
    assert "wake.allow_networks = ['10.0.0.0/33'] (flag --wake-allow-networks): '10.0.0.0/33' is not a network" \
        in result.stderr, result.stderr


@pytest.mark.parametrize("command", [("check",), ("backup", "--to", "{out}"), ("compact",)])
def test_offline_tools_refuse_a_store_another_user_owns(tmp_path, sock_dir, other_user, command) -> None:
    theirs = tmp_path / "theirs"
    started = subprocess.Popen([*FABRICD, "serve", "--data-dir", str(theirs), "--listen", f"unix:{sock_dir}/fd.sock"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert started.stdout is not None
    assert any("serving" in line for line in started.stdout)  # a real store, made as root
    started.terminate()
    started.wait(30)
    for root, _dirs, files in os.walk(theirs):
        for name in [root, *(os.path.join(root, f) for f in files)]:
            os.lchown(name, other_user.pw_uid, other_user.pw_gid)
    args = [a.format(out=tmp_path / "b.mdb") for a in command]
    clean = {k: v for k, v in os.environ.items() if not k.startswith("FABRICD_")}
    result = subprocess.run([*FABRICD, args[0], "--data-dir", str(theirs), *args[1:]], capture_output=True, text=True,
                            timeout=60, env=clean)
    assert result.returncode == 2 and f"{theirs} is owned by nobody" in result.stderr, result.stderr
