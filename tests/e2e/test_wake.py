"""Wake hooks against the real daemon: signed POSTs to a server in this process, commands, retries, restarts."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import grpc
import pytest
from google.protobuf import duration_pb2
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from fabricd.client import Client, FailedPrecondition, InvalidArgument, NotFound
from fabricd.v1 import directory_service_pb2 as dir_pb
from fabricd.v1 import mailbox_service_pb2 as mb
from fabricd.v1 import outbox_service_pb2 as ob
from fabricd.v1 import types_pb2 as pb
from tests.conftest import Daemon

BACKENDS = ["lmdb", "postgres"]  # every daemon test here runs on both stores (tests/conftest.py)

PENDING, DELIVERED = ob.OUTBOX_ROW_STATE_PENDING, ob.OUTBOX_ROW_STATE_DELIVERED


@dataclass
class Hit:
    path: str
    headers: dict[str, str]
    body: bytes
    status: int
    at: float


class Receiver:
    """An HTTP server on 127.0.0.1 that records every POST and answers `status`."""

    def __init__(self) -> None:
        self.status = 200
        self.hits: queue.Queue[Hit] = queue.Queue()
        self.all: list[Hit] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                hit = Hit(self.path, {k.lower(): v for k, v in self.headers.items()}, body, receiver.status,
                          time.monotonic())
                receiver.all.append(hit)
                self.send_response(hit.status)
                self.send_header("Content-Length", "0")
                self.end_headers()
                receiver.hits.put(hit)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/wake"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    async def next(self, timeout: float = 30.0) -> Hit:
        return await asyncio.to_thread(self.hits.get, timeout=timeout)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.close()


def signed(hit: Hit, secret: str) -> bool:
    expected = hmac.new(secret.encode(), hit.body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(hit.headers.get("fabricd-signature", ""), expected)


async def until(predicate, timeout: float = 30.0):  # noqa: ANN201
    """Poll the daemon until `predicate()` holds (its wake and delivery loops run on their own clocks)."""
    deadline = time.monotonic() + timeout
    while not (found := await predicate()):
        assert time.monotonic() < deadline, "condition not reached in time"
        await asyncio.sleep(0.02)
    return found


async def wake_rows(client: Client) -> list[ob.OutboxRow]:
    return [r for r in (await client.list_outbox()).rows if r.key.startswith("wake:")]


async def test_a_burst_of_1000_messages_wakes_once_with_a_signed_post(daemon, receiver: Receiver) -> None:
    async with Client(daemon.target) as client:
        await client.register("alice", session_name="builder")
        hook = await client.set_wake_hook("alice", url=receiver.url, quiet_period=3600)
        assert len(hook.secret) == 64 and hook.hook.only_when_idle and hook.hook.quiet_period.seconds == 3600
        await client.send_many([pb.Message(recipient=pb.Address(agent_id="alice"), text=f"m{i}")
                                for i in range(1000)])
        hit = await receiver.next()
        assert signed(hit, hook.secret) and hit.headers["content-type"] == "application/json"
        body = json.loads(hit.body)
        first = (await client.peek("alice", limit=1)).messages[0]
        assert body == {"agent_id": "alice", "session_name": "builder", "reason": "mail", "unread": 1000,
                        "queued_tickets": 0, "first_message_id": first.id, "ticket_id": ""}
        (row,) = await until(lambda: wake_rows(client))
        assert hit.headers["fabricd-wake-id"] == row.key
        await client.send("alice", "one more")  # new work inside the quiet period: armed, not fired
        state = await client.get_wake_hook("alice")
        assert (state.fires, state.armed) == (1, True) and state.last_fire_time.seconds
        assert len(await wake_rows(client)) == 1 and receiver.hits.empty()


async def test_new_work_after_the_quiet_period_wakes_again(daemon, receiver: Receiver) -> None:
    async with Client(daemon.target) as client:
        await client.register("alice")
        await client.set_wake_hook("alice", url=receiver.url, quiet_period=1.0)
        await client.send("alice", "first")
        await receiver.next()
        await client.send("alice", "second")
        await receiver.next()
        first, second = sorted(await until(lambda: wake_rows(client)), key=lambda r: r.create_time.ToNanoseconds())
        assert second.create_time.ToNanoseconds() - first.create_time.ToNanoseconds() >= 1e9
        assert (await client.get_wake_hook("alice")).fires == 2


async def test_no_wake_while_subscribed_or_busy_and_one_once_the_stream_closes(daemon, receiver: Receiver) -> None:
    # unary calls: a client's SendStream would count among the open streams and calls
    async with Client(daemon.target, streams=False) as client:
        for agent in ("sub", "busy", "idle"):
            await client.register(agent)
        await client.send("sub", "before the hook")
        stream = client.mailbox.Subscribe(mb.SubscribeRequest(agent_id="sub"))
        assert [m.text for m in (await stream.read()).messages] == ["before the hook"]  # the stream is open
        await client.touch("busy", busy=True)
        for agent in ("sub", "busy", "idle"):
            await client.set_wake_hook(agent, url=receiver.url, quiet_period=1)
            await client.send(agent, "work")
        hit = await receiver.next()
        assert json.loads(hit.body)["agent_id"] == "idle"
        for agent in ("sub", "busy"):  # decided without firing: the subscriber has the mail, busy reads it later
            await until(lambda a=agent: _disarmed(client, a))
            assert (await client.get_wake_hook(agent)).fires == 0
        stream.cancel()
        await until(lambda: _no_streams(client))
        await client.send("sub", "after the stream")
        assert json.loads((await receiver.next()).body)["agent_id"] == "sub"
        assert receiver.hits.empty() and len(receiver.all) == 2


async def _disarmed(client: Client, agent: str) -> bool:
    return not (await client.get_wake_hook(agent)).armed


async def _no_streams(client: Client) -> bool:
    return (await client.get_status()).open_streams == 0


async def test_a_ticket_wakes_its_target_with_the_ticket_id(daemon, receiver: Receiver) -> None:
    async with Client(daemon.target) as client:
        await client.register("bob")
        await client.set_wake_hook("bob", url=receiver.url)
        ticket = await client.enqueue("bob", "review the patch")
        body = json.loads((await receiver.next()).body)
        assert (body["reason"], body["ticket_id"], body["queued_tickets"]) == ("ticket", ticket.ticket_id, 1)


async def test_a_failing_url_is_retried_with_back_off_and_shows_in_the_outbox(make_daemon, receiver: Receiver) -> None:
    daemon = make_daemon("--outbox-backoff", "0.5").start()
    receiver.status = 503
    async with Client(daemon.target) as client:
        await client.register("alice")
        await client.set_wake_hook("alice", url=receiver.url)
        await client.send("alice", "hello")
        first, second = await receiver.next(), await receiver.next()
        assert second.at - first.at >= 0.5 * 0.8  # the first retry waits outbox.backoff (less its 20% jitter)
        (row,) = await until(lambda: _failed_twice(client))
        assert row.state == PENDING and "HTTP 503" in row.last_error and row.recipient.agent_id == "alice"
        listed = subprocess.run([sys.executable, "-m", "fabricd.cli.main", "--target", daemon.target, "outbox",
                                 "ls"], capture_output=True, text=True, timeout=60, check=True)
        assert row.key in listed.stdout
        receiver.status = 200
        while (await receiver.next()).status != 200:
            pass
        (receipt,) = await until(lambda: _delivered(client))
        assert receipt.attempts >= 3 and {h.headers["fabricd-wake-id"] for h in receiver.all} == {row.key}


async def _failed_twice(client: Client) -> list[ob.OutboxRow]:
    return [r for r in await wake_rows(client) if r.attempts >= 2]


async def _delivered(client: Client) -> list[ob.OutboxRow]:
    return [r for r in await wake_rows(client) if r.state == DELIVERED]


async def test_a_hook_and_its_pending_wake_survive_a_kill_and_the_wake_is_delivered_once(
        make_daemon, receiver: Receiver) -> None:
    daemon = make_daemon("--outbox-backoff", "0.2", "--wake-timeout", "2").start()  # a wake held by the killed
    receiver.status = 503                                                             # daemon is free after 7 s
    async with Client(daemon.target) as client:
        await client.register("alice")
        secret = (await client.set_wake_hook("alice", url=receiver.url, quiet_period=120)).secret
        await client.send("alice", "before the crash")
        await receiver.next()  # the wake exists and failed once: it is in the outbox, not yet delivered
    daemon.kill()
    receiver.status = 200
    daemon.start()
    async with Client(daemon.target) as client:
        hook = await client.get_wake_hook("alice")
        assert hook.hook.url == receiver.url and hook.fires == 1
        (receipt,) = await until(lambda: _delivered(client))
        ok = [h for h in receiver.all if h.status == 200]
        assert len(ok) == 1 and signed(ok[0], secret)  # the secret survived too
        assert {h.headers["fabricd-wake-id"] for h in receiver.all} == {receipt.key}
        assert len(await wake_rows(client)) == 1


async def test_a_command_hook_gets_the_json_on_stdin_and_only_where_commands_are_allowed(
        make_daemon, tmp_path) -> None:
    out = tmp_path / "wake.json"
    command = [sys.executable, "-c", "import os, sys; open(sys.argv[1], 'wb').write(sys.stdin.buffer.read()); "
               "open(sys.argv[1] + '.target', 'w').write(os.environ.get('FABRICD_TARGET', ''))", str(out)]
    refusing = make_daemon("--wake-allow-commands", "off").start()
    async with Client(refusing.target) as client:
        await client.register("alice")
        with pytest.raises(FailedPrecondition) as disabled:
            await client.set_wake_hook("alice", command=command)
        assert disabled.value.reason == "WAKE_COMMANDS_DISABLED"
    refusing.stop()
    daemon = make_daemon().start()  # unix socket only: commands are allowed by default
    async with Client(daemon.target) as client:
        hook = await client.set_wake_hook("alice", command=command)
        assert list(hook.hook.command) == command and not hook.secret
        await client.send("alice", "wake up")
        await until(lambda: _delivered(client))
        body = json.loads(out.read_bytes())
        assert (body["agent_id"], body["reason"], body["unread"]) == ("alice", "mail", 1)
        assert (tmp_path / "wake.json.target").read_text() == daemon.target  # the command can call back


async def test_bad_hooks_are_refused_with_their_reason_and_an_empty_hook_clears(client: Client) -> None:
    await client.register("alice")
    for kwargs, reason in (({"url": "file:///etc/passwd"}, "WAKE_URL_INVALID"),
                           ({"url": "http://x/", "command": ["true"]}, "WAKE_HOOK_AMBIGUOUS"),
                           ({"command": [""]}, "WAKE_COMMAND_INVALID"),
                           ({"url": "http://x/", "quiet_period": 90000}, "WAKE_QUIET_PERIOD_OUT_OF_RANGE")):
        with pytest.raises(InvalidArgument) as err:
            await client.set_wake_hook("alice", **kwargs)
        assert err.value.reason == reason
    with pytest.raises(NotFound):
        await client.set_wake_hook("nobody", url="http://x/")
    assert not (await client.get_wake_hook("alice")).HasField("hook")
    await client.set_wake_hook("alice", url="http://x/", only_when_idle=False)
    assert (await client.get_wake_hook("alice")).hook.only_when_idle is False
    await client.clear_wake_hook("alice")
    assert not (await client.get_wake_hook("alice")).HasField("hook")


@pytest.mark.parametrize(("seconds", "nanos"), [(1, -5), (-1, 5), (0, 1_000_000_000)])
async def test_a_quiet_period_that_is_no_valid_duration_is_refused_and_sets_nothing(client: Client, seconds: int,
                                                                                     nanos: int) -> None:
    await client.register("alice")
    hook = dir_pb.WakeHook(url="http://x/", quiet_period=duration_pb2.Duration(seconds=seconds, nanos=nanos))
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await client.directory.SetWakeHook(dir_pb.SetWakeHookRequest(agent_id="alice", hook=hook))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    info = error_details_pb2.ErrorInfo()
    assert rpc_status.from_call(err.value).details[0].Unpack(info)
    assert (info.reason, info.metadata["field"]) == ("INVALID_FIELD", "hook.quiet_period")
    assert not (await client.get_wake_hook("alice")).HasField("hook")


def fabric(daemon, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fabricd.cli.main", "--target", daemon.target, *args],
                          capture_output=True, text=True, timeout=60)


async def test_the_cli_sets_shows_and_clears_a_hook_and_the_printed_secret_signs(daemon, receiver: Receiver) -> None:
    assert fabric(daemon, "register", "alice").returncode == 0
    both = fabric(daemon, "wake", "set", "alice", "--url", receiver.url, "--command", "--", "/bin/true")
    assert both.returncode == 2 and "exactly one of --url" in both.stderr
    set_ = fabric(daemon, "--json", "wake", "set", "alice", "--url", receiver.url, "--quiet-period", "5", "--always")
    hook = json.loads(set_.stdout)
    assert (hook["url"], hook["quiet_period_s"], hook["only_when_idle"]) == (receiver.url, 5.0, False)
    assert fabric(daemon, "send", "alice", "wake up", "--from", "bob").returncode == 0
    assert signed(await receiver.next(), hook["secret"])
    shown = fabric(daemon, "wake", "show", "alice")
    assert f"POST {receiver.url}" in shown.stdout and "fired 1 time" in shown.stdout
    assert hook["secret"] not in shown.stdout
    command = fabric(daemon, "wake", "set", "alice", "--command", "--", "/bin/echo", "--flag")
    assert command.returncode == 0 and "run /bin/echo --flag" in command.stdout
    assert fabric(daemon, "wake", "clear", "alice").returncode == 0
    gone = fabric(daemon, "wake", "show", "alice")
    assert gone.returncode == 1 and "no wake hook" in gone.stderr


async def test_three_nodes_on_one_database_fire_a_burst_once(pg_url: str, tmp_path, receiver: Receiver) -> None:
    folders = [tempfile.mkdtemp(prefix=f"fw{i}-", dir="/tmp") for i in range(3)]
    nodes = [Daemon(str(tmp_path / f"data{i}"), folder, "--store", pg_url) for i, folder in enumerate(folders)]
    try:
        for node in nodes:
            node.start()
        clients = [Client(node.target) for node in nodes]
        async with clients[0] as a, clients[1] as b, clients[2] as c:
            await a.register("alice")
            secret = (await a.set_wake_hook("alice", url=receiver.url, quiet_period=3600)).secret
            await asyncio.gather(*(client.send_many([pb.Message(recipient=pb.Address(agent_id="alice"),
                                                                text=f"{n}-{i}") for i in range(100)])
                                   for n, client in enumerate((a, b, c))))
            assert signed(await receiver.next(), secret)
            (row,) = await until(lambda: _delivered(b))
            assert (await c.get_wake_hook("alice")).fires == 1 and len(await wake_rows(a)) == 1
            assert len(receiver.all) == 1
    finally:
        for node in nodes:
            if node.proc is not None and node.proc.poll() is None:
                node.kill()
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)
