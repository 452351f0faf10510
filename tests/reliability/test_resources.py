"""Full disks, stuck and slow consumers, and many subscribers."""

from __future__ import annotations

import asyncio
import subprocess
import time

import grpc
import pytest

from fabricd.client import Client, ResourceExhausted
from fabricd.client._errors import from_rpc_error
from fabricd.v1 import mailbox_service_pb2 as mb
from fabricd.v1 import types_pb2 as pb

BACKENDS = ["lmdb", "postgres"]
LMDB_ONLY = {
    "test_a_full_disk_is_resource_exhausted_loses_nothing_and_recovers",  # LMDB's file on a full disk
}


@pytest.fixture
def small_disk(tmp_path):  # noqa: ANN201
    """A 4 MiB tmpfs: a real full disk. Needs root (mount); skipped with the reason otherwise."""
    mountpoint = tmp_path / "disk"
    mountpoint.mkdir()
    result = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mountpoint)],
                            capture_output=True, text=True)
    if result.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here (needs root): {result.stderr.strip()}")
    yield mountpoint
    subprocess.run(["umount", "-l", str(mountpoint)], check=False)


async def test_a_full_disk_is_resource_exhausted_loses_nothing_and_recovers(make_daemon, small_disk) -> None:
    filler = small_disk / "filler"
    filler.write_bytes(b"\0" * (1 << 20))  # room to make later
    daemon = make_daemon("--map-size", "64M", data_dir=str(small_disk / "data")).start()
    stored: list[str] = []
    async with Client(daemon.target) as client:
        with pytest.raises(ResourceExhausted) as err:
            for i in range(10_000):
                stored.append((await client.send("alice", data=b"x" * 20_000, id=f"m{i}", create_mailbox=True)).message.id)
        assert err.value.reason in ("DISK_FULL", "STORE_FULL"), err.value.reason
        assert stored and [m.id for m in (await client.peek("alice", 1000)).messages] == stored  # reads go on
        filler.unlink()  # room is made
        stored.append((await client.send("alice", data=b"x" * 20_000, id="after", create_mailbox=True)).message.id)
    daemon.restart()  # no corruption: everything acknowledged is there
    async with Client(daemon.target) as client:
        assert [m.id for m in (await client.peek("alice", 1000)).messages] == stored


def rss_anon_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("RssAnon:"))


async def p99_send_ms(client: Client, mailbox: str, count: int) -> float:
    samples = []
    for _ in range(count):
        start = time.perf_counter()
        await client.send(mailbox, "x" * 200, create_mailbox=True)
        samples.append(time.perf_counter() - start)
    samples.sort()
    return samples[int(count * 0.99) - 1] * 1e3


async def test_a_subscriber_that_never_reads_slows_no_sender_and_holds_no_memory(daemon) -> None:
    async with Client(daemon.target) as client, Client(daemon.target) as stuck_client:
        baseline_p99 = await p99_send_ms(client, "stuck", 300)
        stuck = stuck_client.mailbox.Subscribe(mb.SubscribeRequest(agent_id="stuck"))  # opened, never read
        before = rss_anon_kib(daemon.proc.pid)
        blob = "y" * 10_000
        for _ in range(120):  # 120 MB of mail for the stuck subscriber
            await client.send_many([pb.Message(recipient=pb.Address(agent_id="stuck"), text=blob)
                                    for _ in range(100)])
        grown_mib = (rss_anon_kib(daemon.proc.pid) - before) / 1024
        loaded_p99 = await p99_send_ms(client, "stuck", 300)
        stuck.cancel()
    # Stated factors: the stuck stream holds at most a batch and a flow-control window, not the 120 MB,
    # and senders are not held behind the backlog.
    assert grown_mib < 32, f"daemon anonymous memory grew {grown_mib:.1f} MiB for a stuck subscriber"
    # A sender stuck behind the backlog would wait seconds; finer latency goals belong to the benchmark (a loaded
    # machine has shown 0.5 s here once, against 10 ms idle, with nothing wrong).
    assert loaded_p99 < 1000, (baseline_p99, loaded_p99)
    print(f"\nstuck subscriber: send p99 {baseline_p99:.2f} ms -> {loaded_p99:.2f} ms, memory +{grown_mib:.1f} MiB")


async def test_a_subscriber_that_never_reads_while_1mb_messages_arrive_holds_bounded_memory(daemon) -> None:
    """Issue 27, slow readers of large messages: the stream is open (and handed its first batch) before the mail
    comes, so every message arrives as a wake-up of a stream that cannot take it."""
    async with Client(daemon.target) as client, Client(daemon.target) as reader:
        await client.register("slow-big")
        for i in range(8):  # warm the daemon's buffers for messages of this size (they are freed again)
            await client.send("warm", "w" * 1_000_000, id=f"warm-{i}", create_mailbox=True)
        stuck = reader.mailbox.Subscribe(mb.SubscribeRequest(agent_id="slow-big"))  # opened, never read
        await client.send("slow-big", "f" * 1_000_000, id="first")
        await stuck.wait_for_connection()
        before = rss_anon_kib(daemon.proc.pid)
        grown_mib = 0.0
        for i in range(80):  # 80 MB for a stream that reads none of it
            await client.send("slow-big", f"{i:02d}" + "b" * 1_000_000, id=f"big-{i}")
            grown_mib = max(grown_mib, (rss_anon_kib(daemon.proc.pid) - before) / 1024)
        assert (await client.peek("slow-big", 1)).unread_count == 81  # all stored, none lost to the stuck stream
        grown_mib = max(grown_mib, (rss_anon_kib(daemon.proc.pid) - before) / 1024)
        stuck.cancel()
    print(f"\nstuck subscriber, 80 x 1 MB arriving: memory +{grown_mib:.1f} MiB")
    # Stated bound: the stream holds one batch (limits.stream_buffer_bytes, or one larger message) and a
    # flow-control window, and each send's request is freed: far under the 80 MB that arrived.
    assert grown_mib < 40, f"daemon anonymous memory grew {grown_mib:.1f} MiB for 80 MB sent to a stuck stream"


async def test_1000_subscribers_on_1000_mailboxes_each_get_their_mail(daemon) -> None:
    async with Client(daemon.target) as client:
        got: dict[str, str] = {}
        ready = asyncio.Event()
        opened = 0

        async def follow(i: int) -> None:
            nonlocal opened
            async with client.subscribe(f"box-{i}") as inbox:
                opened += 1
                if opened == 1000:
                    ready.set()
                async for message in inbox:
                    got[f"box-{i}"] = message.text
                    return

        tasks = [asyncio.create_task(follow(i)) for i in range(1000)]
        await ready.wait()
        for start in range(0, 1000, 500):
            await client.send_many([pb.Message(recipient=pb.Address(agent_id=f"box-{i}"), text=f"for {i}")
                                    for i in range(start, start + 500)], create_mailbox=True)
        await asyncio.wait_for(asyncio.gather(*tasks), 120)
        assert got == {f"box-{i}": f"for {i}" for i in range(1000)}


async def test_40_never_reading_streams_of_1mb_messages_hold_bounded_memory(daemon) -> None:
    """Finding 17.7: each stream holds one small batch in flight, not a 16 MiB one (40 of them took 2.5 GB)."""
    async with Client(daemon.target) as client, Client(daemon.target) as hoarder:
        await client.register("hoard")
        baseline_p99 = await p99_send_ms(client, "hoard-sender", 200)
        for i in range(20):
            await client.send("hoard", "m" * 1_000_000, id=f"big-{i}")
        before = rss_anon_kib(daemon.proc.pid)
        stuck = [hoarder.mailbox.Subscribe(mb.SubscribeRequest(agent_id="hoard")) for _ in range(40)]
        for call in stuck:  # the daemon has handed each stream its first batch (headers go with it)
            await call.wait_for_connection()
        grown_mib = (rss_anon_kib(daemon.proc.pid) - before) / 1024
        loaded_p99 = await p99_send_ms(client, "hoard-sender", 200)
        grown_mib = max(grown_mib, (rss_anon_kib(daemon.proc.pid) - before) / 1024)
        for call in stuck:
            call.cancel()
    print(f"\n40 stuck 1 MB streams: send p99 {baseline_p99:.2f} ms -> {loaded_p99:.2f} ms, memory +{grown_mib:.1f} MiB")
    # Stated bound: a stream's batch is at most limits.stream_buffer_bytes (1 MiB) or one larger message, so
    # 40 streams hold ~40 MiB of message bytes plus their copies in flight: under 200 MiB, not 2.5 GB.
    assert grown_mib < 200, f"daemon anonymous memory grew {grown_mib:.1f} MiB for 40 stuck streams"
    # The finding was other clients' sends at 1.4 s. Tighter latency goals belong to benchmarks: while the 40 streams
    # are handed their first batches the loop is busy, and under a loaded CI machine a p99 of ~0.2 s was seen.
    assert loaded_p99 < 1000, (baseline_p99, loaded_p99)


async def open_streams_drop_to(client: Client, count: int) -> None:
    while (await client.get_status()).open_streams > count:
        await asyncio.sleep(0.02)


async def test_a_stalled_stream_ends_with_stream_stalled_and_a_subscription_resubscribes_losing_nothing(
        make_daemon) -> None:
    daemon = make_daemon("--stream-stall-timeout", "0.5").start()
    texts = [f"{i:02d}" + "s" * 900_000 for i in range(20)]  # 18 MB: more than any client window takes unread
    # unary calls: a client's SendStream would count among the open streams and calls
    async with Client(daemon.target, streams=False) as client:
        await client.register("slow")
        for i, text in enumerate(texts):
            await client.send("slow", text, id=f"slow-{i}")
        raw = client.mailbox.Subscribe(mb.SubscribeRequest(agent_id="slow"))  # opened, never read
        await raw.wait_for_connection()
        await asyncio.wait_for(open_streams_drop_to(client, 0), 10)  # the daemon ended it on its own
        with pytest.raises(grpc.aio.AioRpcError) as err:
            while True:
                await raw.read()
        assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert from_rpc_error(err.value).reason == "STREAM_STALLED"
        assert "subscribe again" in err.value.details()

        got = []
        async with client.subscribe("slow") as inbox:
            async for message in inbox:
                got.append(message.text)
                if len(got) == 1:  # stop reading until the daemon gives up on this stream
                    await asyncio.wait_for(open_streams_drop_to(client, 0), 10)
                if len(got) == len(texts):
                    break
            assert inbox.reconnects >= 1
        assert got == texts  # every message once, in order, across the resubscription


async def test_a_token_holds_at_most_max_streams_per_token_open_streams(make_daemon) -> None:
    daemon = make_daemon("--listen", "127.0.0.1:0", "--keepalive", "0.1", "--max-streams-per-token", "3").start()
    port = int(daemon.wait_for("127.0.0.1:").strip().rsplit(":", 1)[1])
    async with Client(daemon.target) as local:
        await local.register("alice")
        token = (await local.issue_token(agent_id="alice")).token
        async with Client(f"127.0.0.1:{port}", token=token) as alice:
            streams = [alice.mailbox.Subscribe(mb.SubscribeRequest(agent_id="alice")) for _ in range(3)]
            for stream in streams:
                assert (await stream.read()).keepalive
            fourth = alice.mailbox.Subscribe(mb.SubscribeRequest(agent_id="alice"))
            with pytest.raises(grpc.aio.AioRpcError) as err:
                await fourth.read()
            refusal = from_rpc_error(err.value)
            assert (err.value.code(), refusal.reason, refusal.metadata["limit"]) == (
                grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_STREAMS", "3")
            streams.pop().cancel()
            await asyncio.wait_for(open_streams_drop_to(local, 2), 10)
            again = alice.mailbox.Subscribe(mb.SubscribeRequest(agent_id="alice"))  # a closed one frees its place
            assert (await again.read()).keepalive
            # Local callers without a token are not counted.
            mine = [local.mailbox.Subscribe(mb.SubscribeRequest(agent_id="alice")) for _ in range(5)]
            for stream in mine:
                assert (await stream.read()).keepalive
