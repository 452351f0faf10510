"""A hostile agent's weight, each bounded: request bodies before authentication, answers stock clients cannot take,
echoed fields, a full store.

The memory tests read the real daemon's VmRSS and VmHWM (/proc/PID/status) around a burst of oversized requests.
The burst is modest (a few hundred MB from the client, seconds); `--soak` runs the issue's size (24 x 60 MB).
"""

from __future__ import annotations

import asyncio
import datetime
import re

import grpc
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.x509.oid import NameOID

from fabricd.a2a import a2a_pb2 as a2a
from fabricd.a2a import a2a_pb2_grpc as a2a_grpc
from fabricd.client import Client, ClientTls, FabricError, ResourceExhausted
from fabricd.v1 import mailbox_service_pb2 as mb
from fabricd.v1 import mailbox_service_pb2_grpc as mb_grpc
from fabricd.v1 import types_pb2 as pb
from tests.e2e.test_security import ALICE, BOB, _cert, _key, _pem
from tests.reliability.test_resources import small_disk  # noqa: F401 - a fixture

BACKENDS = ("lmdb", "postgres")
LMDB_ONLY = ("test_oversized_calls_without_a_valid_token_are_never_read",
             "test_a_burst_of_oversized_out_of_scope_calls_is_read_a_few_at_a_time_and_let_go",
             "test_errors_echo_at_most_200_characters_of_a_field_and_say_its_length",  # the rpc layer's
             "test_a_full_store_still_drains_and_acks_and_then_takes_mail_again",  # LMDB's map size
             "test_a_full_disk_still_drains_and_acks",  # LMDB's file
             "test_certificates_expired_not_yet_valid_or_from_another_ca_are_refused_at_the_handshake")
MIB = 1 << 20
BIG_CHANNEL = [("grpc.max_send_message_length", 1 << 30), ("grpc.max_receive_message_length", 1 << 30)]


def memory_mib(pid: int) -> tuple[int, int]:
    """The process's resident set now and its peak (VmRSS, VmHWM), in MiB."""
    status = open(f"/proc/{pid}/status").read()
    rss, peak = (int(re.search(rf"{key}:\s+(\d+) kB", status).group(1)) // 1024 for key in ("VmRSS", "VmHWM"))
    return rss, peak


async def burst(tcp: str, token: str, calls: int, size: int) -> list[grpc.StatusCode]:
    """`calls` SendMessage calls at once, each `size` bytes of text to bob as alice, each on its own connection."""
    request = mb.SendMessageRequest(message=pb.Message(recipient=pb.Address(agent_id=BOB),
                                                       sender=pb.Address(agent_id=ALICE), text="x" * size))
    metadata = (("authorization", f"Bearer {token}"),) if token else ()

    async def one() -> grpc.StatusCode:
        async with grpc.aio.insecure_channel(tcp, options=BIG_CHANNEL) as channel:
            try:
                await mb_grpc.MailboxServiceStub(channel).SendMessage(request, metadata=metadata)
            except grpc.aio.AioRpcError as exc:
                return exc.code()
            return grpc.StatusCode.OK

    return list(await asyncio.gather(*(one() for _ in range(calls))))


@pytest.fixture
async def listener(make_daemon):  # noqa: ANN201
    """A daemon with a loopback listener that requires tokens: its pid, that address, a token for mallory, and
    the daemon's unix socket (a trusted local caller's)."""
    daemon = make_daemon("--listen", "127.0.0.1:0", "--no-outbox-loop")
    daemon.start()
    port = int(daemon.wait_for("127.0.0.1:").strip().rsplit(":", 1)[1])
    async with Client(daemon.target) as local:
        await local.register(BOB)
        mallory = (await local.issue_token(agent_id="mallory")).token
    yield daemon.proc.pid, f"127.0.0.1:{port}", mallory, daemon.target


@pytest.mark.parametrize("who", ["no token", "a bad token"])
async def test_oversized_calls_without_a_valid_token_are_never_read(listener, who, soak) -> None:
    pid, tcp, _, _ = listener
    token = "" if who == "no token" else "fdt_not-a-token"
    await burst(tcp, token, 2, 1 * MIB)  # warm the daemon's paths up before measuring
    rss, peak = memory_mib(pid)
    calls, size = (24, 60 * MIB) if soak else (8, 24 * MIB)
    assert set(await burst(tcp, token, calls, size)) == {grpc.StatusCode.UNAUTHENTICATED}
    after, peak_after = memory_mib(pid)
    # Unread: each call's body stays with its client behind HTTP/2 flow control (it took +330 MB, kept).
    assert peak_after - peak <= 48 and after - rss <= 32, (rss, peak, after, peak_after)


async def test_a_burst_of_oversized_out_of_scope_calls_is_read_a_few_at_a_time_and_let_go(listener, soak) -> None:
    pid, tcp, mallory, _ = listener
    await burst(tcp, mallory, 2, 1 * MIB)
    rss, _ = memory_mib(pid)
    calls, size = (24, 60 * MIB) if soak else (12, 24 * MIB)
    assert set(await burst(tcp, mallory, calls, size)) == {grpc.StatusCode.PERMISSION_DENIED}
    after, peak = memory_mib(pid)
    # One token's requests are read one frame's worth at a time (fabricd.rpc.intake), and a refused request is
    # let go with its call (it stayed in a reference cycle: +280 MB kept) and the allocator trimmed after it.
    assert after - rss <= 64, (rss, after, peak)
    # A request being read costs a few times its size for a moment (gRPC's buffer, its bytes, the parsed message).
    # With HTTP/2 BDP probing on, gRPC read ahead into every stream's growing window: +190 MB on a loaded machine.
    assert peak - rss <= 64 + 4 * size // MIB < calls * size // MIB, (rss, after, peak)


# -- echoed fields

HUGE = "a" * 70_000


async def test_errors_echo_at_most_200_characters_of_a_field_and_say_its_length(listener) -> None:
    _, tcp, mallory, local_target = listener
    async with Client(tcp, token=mallory) as agent, Client(local_target) as local:
        calls = [("OUT_OF_SCOPE", agent.peek(HUGE)), ("OUT_OF_SCOPE", agent.drain(HUGE)),
                 ("OUT_OF_SCOPE", agent.register(HUGE)), ("OUT_OF_SCOPE", agent.send(BOB, "hi", sender=HUGE)),
                 ("OUT_OF_SCOPE", agent.register("mallory", session_name=HUGE)),
                 ("FIELD_TOO_LONG", local.send(HUGE + "/x", "hi")), ("FIELD_TOO_LONG", local.get_agent(HUGE))]
        for reason, call in calls:
            with pytest.raises(FabricError) as err:
                await call
            error = err.value  # the daemon's refusal, not the client's "metadata too large"
            assert error.reason == reason, (error.reason, error.message[:200])
            echoed = " ".join([error.message, *error.metadata.values()])
            assert HUGE[:201] not in echoed and len(echoed) < 1000, (reason, error.metadata.keys())
            if HUGE[:200] in echoed:
                assert re.search(r"a… \(7000[02] characters\)", echoed), echoed[-100:]


# -- answers a stock client can take

STOCK_LIMIT = 4 << 20
"""gRPC's default receive limit in most languages' stubs: a channel opened with no options."""


async def test_a_stock_client_drains_and_peeks_everything_in_answers_under_4_mib(daemon, client: Client) -> None:
    await client.register(BOB)
    texts = [f"{i:03}" + "x" * (30 << 10) for i in range(200)]  # 6 MB in all: 16 MiB answers held it whole
    await client.send_many([pb.Message(recipient=pb.Address(agent_id=BOB), text=t) for t in texts])
    async with grpc.aio.insecure_channel(daemon.target) as channel:  # default options: 4 MiB answers at most
        stub = mb_grpc.MailboxServiceStub(channel)
        peeked = await stub.PeekMessages(mb.PeekMessagesRequest(agent_id=BOB, limit=1000))
        assert 0 < len(peeked.messages) < 200 and peeked.ByteSize() <= STOCK_LIMIT and peeked.unread_count == 200
        drained, sizes = [], []
        while True:
            answer = await stub.DrainMessages(mb.DrainMessagesRequest(agent_id=BOB, limit=1000))
            if not answer.messages:
                break
            sizes.append(answer.ByteSize())
            drained += [m.text for m in answer.messages]
    assert drained == texts and len(sizes) == 2 and max(sizes) <= STOCK_LIMIT  # none lost, in order


async def test_a_client_with_a_raised_limit_asks_for_larger_answers_up_to_16_mib(daemon, client: Client) -> None:
    await client.register(BOB)
    await client.send_many([pb.Message(recipient=pb.Address(agent_id=BOB), text="x" * (100 << 10))
                            for _ in range(200)])  # 20 MB
    assert len((await client.peek(BOB, 1000, max_bytes=1)).messages) == 1  # always at least one
    assert len((await client.peek(BOB, 1000, max_bytes=8 << 20)).messages) == 81
    first = await client.drain(BOB, 1000, max_bytes=1 << 40)  # read as 16 MiB
    assert len(first.messages) == 163 and first.ByteSize() <= 16 << 20 and first.remaining == 37
    assert len((await client.drain(BOB, 1000)).messages) == 37


async def test_a_drain_answer_a_stock_client_refuses_is_put_back(daemon, client: Client) -> None:
    await client.register(BOB)
    texts = [f"{i:03}" + "x" * (100 << 10) for i in range(200)]  # 20 MB
    await client.send_many([pb.Message(recipient=pb.Address(agent_id=BOB), text=t) for t in texts])
    async with grpc.aio.insecure_channel(daemon.target) as channel:  # default options: 4 MiB answers at most
        stub = mb_grpc.MailboxServiceStub(channel)
        with pytest.raises(grpc.aio.AioRpcError) as err:  # it asked for more than it can take
            await stub.DrainMessages(mb.DrainMessagesRequest(agent_id=BOB, limit=1000, max_bytes=16 << 20))
        assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        while (await client.peek(BOB, 1)).unread_count < 200:  # put back: the answer never reached it
            await asyncio.sleep(0.01)
        drained = []
        while batch := (await stub.DrainMessages(mb.DrainMessagesRequest(agent_id=BOB, limit=1000))).messages:
            drained += [m.text for m in batch]
    assert drained == texts  # none lost, none twice, in order


# -- a full store


async def fill(client: Client, mailbox: str, size: int, prefix: str) -> list[str]:
    """Send messages of `size` bytes with ids until the store is full; the ids stored."""
    stored: list[str] = []
    while True:
        try:
            stored.append((await client.send(mailbox, data=b"x" * size, id=f"{prefix}{len(stored)}",
                                              create_mailbox=True)).message.id)
        except ResourceExhausted as err:
            assert err.reason == "STORE_FULL", err.reason
            return stored


@pytest.mark.parametrize("size", [200, 20_000])
async def test_a_full_store_still_drains_and_acks_and_then_takes_mail_again(make_daemon, size) -> None:
    daemon = make_daemon("--map-size", "4M").start()
    async with Client(daemon.target) as client:
        stored = await fill(client, BOB, size, "a")
        drained = [m.id for m in (await client.drain(BOB, 5)).messages]  # consuming is the way out of a full store
        assert drained == stored[:5]
        unread = [m.id for m in (await client.peek(BOB, 5)).messages]
        assert await client.ack(BOB, unread) == 5
        rest = []
        while len(rest) < len(stored) // 2:  # half the mail read: its room takes mail again
            rest += [m.id for m in (await client.drain(BOB, 100)).messages]
        more = await fill(client, BOB, size, "b")
        assert more
        while batch := [m.id for m in (await client.drain(BOB, 100)).messages]:
            rest += batch
        assert rest == stored[10:] + more  # nothing lost, nothing twice


async def test_a_full_disk_still_drains_and_acks(make_daemon, small_disk) -> None:  # noqa: F811
    daemon = make_daemon("--map-size", "64M", data_dir=str(small_disk / "data")).start()
    async with Client(daemon.target) as client:
        stored: list[str] = []
        with pytest.raises(ResourceExhausted) as err:
            while True:
                stored.append((await client.send(BOB, data=b"x" * 200, id=f"a{len(stored)}",
                                                 create_mailbox=True)).message.id)
        assert err.value.reason == "DISK_FULL", err.value.reason
        assert [m.id for m in (await client.drain(BOB, 100)).messages] == stored[:100]
        unread = [m.id for m in (await client.peek(BOB, 100)).messages]
        assert await client.ack(BOB, unread) == 100


# -- hostile A2A parts


def a2a_parts() -> dict[str, list]:
    """A2A parts with a NUL (U+0000) where the daemon keeps text: file names, URLs, media types, metadata."""
    nul_data = a2a.Part()
    nul_data.data.string_value = "a\0b"
    with_metadata = a2a.Part(raw=b"x")
    with_metadata.metadata.update({"k\0": "v\0"})
    return {"data": [nul_data], "filename": [a2a.Part(raw=b"x", filename="f\0n")],
            "url": [a2a.Part(url="https://example.com/\0")], "media type": [a2a.Part(raw=b"x", media_type="a\0b")],
            "part metadata": [with_metadata], "text and url": [a2a.Part(text="t"), a2a.Part(url="u\0", filename="\0")]}


@pytest.mark.parametrize("where", list(a2a_parts()))
async def test_a2a_parts_carrying_nul_are_kept_or_refused_never_internal(daemon, client: Client, where) -> None:
    await client.register(BOB)
    request = a2a.SendMessageRequest(tenant=BOB, configuration=a2a.SendMessageConfiguration(return_immediately=True),
                                     message=a2a.Message(message_id="m-1", role=a2a.ROLE_USER, parts=a2a_parts()[where]))
    request.message.metadata.update({"note\0": "x\0"})
    async with grpc.aio.insecure_channel(daemon.target) as channel:
        stub = a2a_grpc.A2AServiceStub(channel)
        try:
            task = (await stub.SendMessage(request)).task
        except grpc.aio.AioRpcError as err:
            assert err.code() == grpc.StatusCode.INVALID_ARGUMENT, (err.code(), err.details())
            assert await client.get_queue(BOB) == []  # refused: nothing queued
            return
        seen = await stub.GetTask(a2a.GetTaskRequest(tenant=BOB, id=task.id))
        assert [p.WhichOneof("content") for p in seen.history[0].parts] == [
            p.WhichOneof("content") for p in a2a_parts()[where]]
        assert len((await stub.ListTasks(a2a.ListTasksRequest(tenant=BOB))).tasks) == 1


# -- mutual TLS identities


def write_pem(path, item) -> str:
    data = item.public_bytes(serialization.Encoding.PEM) if hasattr(item, "public_bytes") else _pem(item)
    path.write_bytes(data)
    return str(path)


def client_cert(name: str, issuer: str, issuer_key, *, days: tuple[int, int] = (-1, 1)) -> tuple:
    """A client certificate for `name` signed by `issuer_key`, valid from days[0] to days[1] from now."""
    key, now = _key(), datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)]))
            .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer)]))
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now + datetime.timedelta(days=days[0]))
            .not_valid_after(now + datetime.timedelta(days=days[1]))
            .sign(issuer_key, hashes.SHA256()))
    return cert, key


async def test_certificates_expired_not_yet_valid_or_from_another_ca_are_refused_at_the_handshake(
        make_daemon, tmp_path) -> None:
    ca_key, server_key = _key(), _key()
    ca = _cert("fabricd test CA", ca_key, "fabricd test CA", ca_key, ca=True)
    server = _cert("server", server_key, "fabricd test CA", ca_key, server=True)
    files = {name: write_pem(tmp_path / name, item) for name, item in
             (("ca.crt", ca), ("server.crt", server), ("server.key", server_key))}
    daemon = make_daemon("--listen", "127.0.0.1:0", "--tls-cert", files["server.crt"], "--tls-key",
                         files["server.key"], "--tls-client-ca", files["ca.crt"], "--tls-require-client-cert",
                         "--tls-admin-names", "operator").start()
    target = f"127.0.0.1:{int(daemon.wait_for('127.0.0.1:').strip().rsplit(':', 1)[1])}"
    hostile = {"another CA": client_cert("operator", "fabricd test CA", _key()),
               "expired": client_cert("operator", "fabricd test CA", ca_key, days=(-10, -1)),
               "not yet valid": client_cert("operator", "fabricd test CA", ca_key, days=(1, 10))}
    hostile["good"] = client_cert("operator", "fabricd test CA", ca_key)
    for what, (cert, key) in hostile.items():
        tls = ClientTls.from_files(files["ca.crt"], write_pem(tmp_path / f"{what}.crt", cert),
                                   write_pem(tmp_path / f"{what}.key", key))
        async with Client(target, tls=tls) as caller:
            if what == "good":
                assert await caller.list_tokens() == []  # the daemon serves on, and this is how it looks
                continue
            with pytest.raises(FabricError) as err:
                await caller.list_tokens()
            assert err.value.code == grpc.StatusCode.UNAVAILABLE, (what, err.value)
