"""The daemon as a process: durability across restarts and kills, locking, a full map,
sd_notify, graceful shutdown, health and reflection."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from fabricd.client import Client, ResourceExhausted, Unavailable


async def test_mail_survives_a_restart(daemon) -> None:
    async with Client(daemon.target) as client:
        await client.register("alice", session_name="al")
        for i in range(10):
            await client.send("al", f"m{i}", id=f"id-{i}")
        await client.drain("alice", limit=3)
    daemon.restart()
    async with Client(daemon.target) as client:
        peek = await client.peek("alice")
        assert [m.text for m in peek.messages] == [f"m{i}" for i in range(3, 10)]
        assert (await client.resolve("al")).agent_id == "alice"
        assert (await client.send("alice", "m0", id="id-0")).duplicate
        assert (await client.send("alice", "m10")).message.seq == 11


async def test_every_acknowledged_send_survives_sigkill(daemon) -> None:
    async with Client(daemon.target) as client:
        await client.register("alice")
        results = await asyncio.gather(*(client.send("alice", f"m{i}") for i in range(300)))
    assert daemon.kill() == -signal.SIGKILL
    daemon.start()
    async with Client(daemon.target) as client:
        stored = (await client.peek("alice", limit=1000)).messages
        assert {m.id for m in stored} == {r.message.id for r in results}


def test_second_daemon_on_the_same_data_dir_refuses_to_start(daemon, make_daemon, sock_dir) -> None:
    other = make_daemon(data_dir=daemon.data_dir)
    cmd = other.command()
    cmd[cmd.index("--listen") + 1] = f"unix:{sock_dir}/other.sock"
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    assert result.returncode == 2
    assert "already serving" in result.stderr and daemon.data_dir in result.stderr


async def test_full_map_is_resource_exhausted_loses_nothing_and_still_serves_reads(make_daemon) -> None:
    daemon = make_daemon("--map-size", "2M").start()
    blob = b"x" * 50_000
    stored: list[str] = []
    async with Client(daemon.target) as client:
        await client.register("alice")
        with pytest.raises(ResourceExhausted) as err:
            for i in range(200):
                stored.append((await client.send("alice", data=blob, id=f"b{i}")).message.id)
        assert err.value.reason == "STORE_FULL"
        assert 0 < len(stored) < 200
        peek = await client.peek("alice", limit=1000)
        assert [m.id for m in peek.messages] == stored
        await client.register("still-serving")  # small writes may still fit; reads certainly do
    daemon.restart()
    async with Client(daemon.target) as client:
        assert [m.id for m in (await client.peek("alice", limit=1000)).messages] == stored


def _notify_socket(path: str) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(30)
    return sock


async def test_sd_notify_ready_only_once_serving_then_stopping(make_daemon, sock_dir) -> None:
    notify_path = os.path.join(sock_dir, "notify")
    listener = _notify_socket(notify_path)
    daemon = make_daemon(env={"NOTIFY_SOCKET": notify_path}).start()
    try:
        ready = listener.recv(4096).decode()
        assert "READY=1" in ready.splitlines()
        async with Client(daemon.target) as client:  # READY meant it: a call succeeds right away
            await client.touch("probe")
        assert daemon.stop() == 0
        stopping = listener.recv(4096).decode()
        assert "STOPPING=1" in stopping.splitlines()
    finally:
        listener.close()


async def test_graceful_shutdown_ends_a_live_subscription_and_keeps_its_mail(daemon) -> None:
    async with Client(daemon.target) as client:
        await client.register("alice")
        await client.send("alice", "before")
        call = client.mailbox.Subscribe(__import__("fabricd.v1.mailbox_service_pb2", fromlist=["x"]).SubscribeRequest(
            agent_id="alice"))
        first = await call.read()
        assert [m.text for m in first.messages] == ["before"]
        daemon.proc.send_signal(signal.SIGTERM)
        ended = await call.read()
        assert ended is grpc.aio.EOF  # the stream ends cleanly, not with an error
        assert daemon.proc.wait(30) == 0
    daemon.wait_for("fabricd stopped")
    daemon.start()
    async with Client(daemon.target) as client:
        assert [m.text for m in (await client.peek("alice")).messages] == ["before"]


async def test_subscription_resumes_across_a_restart_without_loss_or_duplicates(daemon) -> None:
    async with Client(daemon.target) as client:
        await client.register("alice")
        for i in range(5):
            await client.send("alice", f"m{i}")
        got: list[str] = []
        async with client.subscribe("alice") as inbox:
            async for m in inbox:
                got.append(m.text)
                if m.text == "m2":
                    daemon.restart()  # m2 handed out, acks of m0..m1 may or may not have landed
                    async with Client(daemon.target) as other:
                        await other.send("alice", "m5")
                if m.text == "m5":
                    break
        assert got == ["m0", "m1", "m2", "m3", "m4", "m5"]
        assert inbox.reconnects >= 1
        assert list((await client.peek("alice")).messages) == []


async def test_calls_to_a_stopped_daemon_are_unavailable(daemon) -> None:
    daemon.stop()
    async with Client(daemon.target) as client:
        with pytest.raises(Unavailable):
            await client.send("alice", "nobody home")


async def test_health_and_reflection_are_served(client: Client) -> None:
    channel = client._channel
    health = health_pb2_grpc.HealthStub(channel)
    for service in ("", "fabricd.v1.MailboxService", "fabricd.v1.DirectoryService"):
        response = await health.Check(health_pb2.HealthCheckRequest(service=service))
        assert response.status == health_pb2.HealthCheckResponse.SERVING
    stub = reflection_pb2_grpc.ServerReflectionStub(channel)

    async def requests():  # noqa: ANN202
        yield reflection_pb2.ServerReflectionRequest(list_services="")

    async for response in stub.ServerReflectionInfo(requests()):
        names = {s.name for s in response.list_services_response.service}
        assert {"fabricd.v1.MailboxService", "fabricd.v1.DirectoryService", "grpc.health.v1.Health"} <= names
        break


def test_listen_on_tcp_port_zero_prints_the_bound_port(make_daemon) -> None:
    daemon = make_daemon("--listen", "127.0.0.1:0").start()
    line = daemon.wait_for("127.0.0.1:")
    port = int(line.strip().rsplit(":", 1)[1])
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        assert stub.Check(health_pb2.HealthCheckRequest()).status == health_pb2.HealthCheckResponse.SERVING


def test_a_bad_listen_address_is_a_clear_error(make_daemon) -> None:
    daemon = make_daemon()
    cmd = daemon.command()
    cmd[cmd.index("--listen") + 1] = "nonsense"
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    assert result.returncode == 2 and "HOST:PORT" in result.stderr


def test_fabricd_version(tmp_path) -> None:
    out = subprocess.run([sys.executable, "-m", "fabricd.daemon.main", "version"], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip()


def test_a_store_of_another_schema_version_is_refused(make_daemon) -> None:
    import lmdb

    daemon = make_daemon()
    daemon.start().stop()
    env = lmdb.open(daemon.data_dir, max_dbs=32)
    meta = env.open_db(b"meta")
    with env.begin(write=True) as txn:
        txn.put(b"schema", (99).to_bytes(8, "big"), db=meta)
    env.close()
    result = subprocess.run(daemon.command(), capture_output=True, text=True, timeout=30)
    assert result.returncode == 2
    from fabricd.store.lmdb.schema import SCHEMA_VERSION

    assert "schema version 99" in result.stderr and f"reads versions 2 to {SCHEMA_VERSION}" in result.stderr
