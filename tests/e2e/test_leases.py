"""LeaseService against the real daemon, on LMDB and PostgreSQL: conflicts with their holders (metadata and
the typed detail), check, list, waiting in line, watch events with their causes, a restart, access, two
PostgreSQL nodes racing for one file, and the line of waiters across two nodes (FIFO, a killed client's and a
dead node's waiters leave it)."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator

import asyncpg
import grpc
import pytest

from fabricd.client import (
    Aborted,
    Client,
    DeadlineExceeded,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    ResourceExhausted,
    conflict_holders,
)
from fabricd.core import model_leases
from fabricd.v1 import lease_service_pb2 as ls
from fabricd.v1 import lease_service_pb2_grpc as ls_grpc
from tests.conftest import Daemon

BACKENDS = ("lmdb", "postgres")


async def test_a_conflicting_acquire_names_each_holder_and_grants_nothing(client: Client) -> None:
    await client.register("alice", session_name="builder")
    held = await client.acquire_lease("alice", ["src/api/**"], ttl=1800, reason="refactor")
    assert held.fencing_token > 0 and list(held.resources) == ["src/api/**"]
    with pytest.raises(FailedPrecondition) as refused:
        await client.acquire_lease("bob", ["docs/a.md", "src/api/app.py"], reason="fix")
    err = refused.value
    assert err.reason == "LEASE_CONFLICT" and err.metadata["holders"] == "1"
    assert (err.metadata["holder_0_agent_id"], err.metadata["holder_0_session_name"]) == ("alice", "builder")
    assert (err.metadata["holder_0_resource"], err.metadata["holder_0_mode"]) == ("src/api/**", "EXCLUSIVE")
    # The keys the catalogue names (error_reason.proto, LEASE_CONFLICT), the expiry in ns since the epoch.
    assert sorted(err.metadata) == ["holder_0_agent_id", "holder_0_expire_ns", "holder_0_mode", "holder_0_reason",
                                    "holder_0_requested", "holder_0_resource", "holder_0_session_name", "holders"]
    assert int(err.metadata["holder_0_expire_ns"]) == held.expire_time.ToNanoseconds()
    [holder] = conflict_holders(err)
    assert (holder.agent_id, holder.session_name, holder.resource, holder.requested, holder.reason) == (
        "alice", "builder", "src/api/**", "src/api/app.py", "refactor")
    assert holder.expire_time == held.expire_time and holder.mode == ls.LEASE_MODE_EXCLUSIVE
    assert [lease.agent_id for lease in await client.list_leases()] == ["alice"]  # docs/a.md was not granted


async def test_check_list_renew_and_release(client: Client) -> None:
    a = await client.acquire_lease("a", ["src/**"], ttl=60)
    await client.acquire_lease("b", ["docs/**"], mode="shared", ttl=60)
    conflicts = await client.check_leases(["src/x.py", "docs/y.md", "free.txt"], agent_id="c")
    assert sorted((c.agent_id, c.requested) for c in conflicts) == [("a", "src/x.py"), ("b", "docs/y.md")]
    assert await client.check_leases(["docs/y.md"], agent_id="c", mode="shared") == []
    assert [lease.agent_id for lease in await client.list_leases(resource="docs/z.md")] == ["b"]
    page = await client.list_leases(page_size=1)
    assert len(page) == 1 and page.next_page_token
    renewed = await client.renew_lease(a.lease_id, ttl=120)
    assert renewed.expire_time.seconds >= a.expire_time.seconds + 59
    assert await client.release_lease(a.lease_id) == 1
    assert await client.release_lease(a.lease_id) == 0
    with pytest.raises(NotFound) as gone:
        await client.renew_lease(a.lease_id)
    assert gone.value.reason == "LEASE_NOT_FOUND"
    assert await client.release_lease(agent_id="b") == 1 and await client.list_leases() == []


async def test_a_raw_check_with_literal_set_asks_about_the_file_named_with_glob_characters(
        client: Client, daemon: Daemon) -> None:
    # Any client may ask about a file literally named `a*.py` (here the plain generated stub): with `literal`
    # its `*` is a character; without it the path is a pattern and overlaps `ab.py` too.
    await client.acquire_lease("a", ["src/ab.py"], ttl=60)
    async with grpc.aio.insecure_channel(daemon.target) as channel:
        stub = ls_grpc.LeaseServiceStub(channel)
        literal = await stub.CheckLeases(ls.CheckLeasesRequest(agent_id="c", paths=["src/a*.py"], literal=True))
        pattern = await stub.CheckLeases(ls.CheckLeasesRequest(agent_id="c", paths=["src/a*.py"]))
        named = await stub.CheckLeases(ls.CheckLeasesRequest(agent_id="c", paths=["src/ab.py"], literal=True))
    assert list(literal.conflicts) == [] and [h.agent_id for h in pattern.conflicts] == ["a"]
    assert [h.agent_id for h in named.conflicts] == ["a"]


async def test_bad_requests_get_invalid_argument_and_write_nothing(client: Client) -> None:
    for resources, ttl, reason in ((["../x"], None, "LEASE_PATTERN_INVALID"), (["/etc"], None, "LEASE_PATTERN_INVALID"),
                                   ([], None, "MISSING_FIELD"), (["x"], 10 * 86400, "LEASE_TTL_OUT_OF_RANGE")):
        with pytest.raises(InvalidArgument) as refused:
            await client.acquire_lease("a", resources, ttl=ttl)
        assert refused.value.reason == reason
    assert await client.list_leases() == []


async def test_a_waiting_acquire_is_granted_when_the_holder_releases(client: Client) -> None:
    held = await client.acquire_lease("a", ["x"])
    waiting = asyncio.ensure_future(client.acquire_lease("b", ["x"], wait=True, wait_timeout=30))
    seen = await client.check_leases(["x"], agent_id="b")
    assert [h.agent_id for h in seen] == ["a"] and not waiting.done()
    await client.release_lease(held.lease_id)
    granted = await asyncio.wait_for(waiting, 20)
    assert granted.agent_id == "b" and granted.fencing_token > held.fencing_token
    with pytest.raises(DeadlineExceeded) as late:
        await client.acquire_lease("c", ["x"], wait=True, wait_timeout=0.2)
    assert late.value.reason == "LEASE_WAIT_TIMEOUT"


async def test_a_waiting_acquire_ends_aborted_when_its_agent_unregisters(client: Client) -> None:
    await client.register("leaver")
    held = await client.acquire_lease("a", ["x"])
    waiting = asyncio.ensure_future(client.acquire_lease("leaver", ["x"], wait=True, wait_timeout=600))
    async with asyncio.timeout(20):  # polled: the line is the observable state
        while not await client.lease_waiters(["x"], agent_id="other"):
            await asyncio.sleep(0.02)
    await client.unregister("leaver", purge=True)
    with pytest.raises(Aborted) as ended:
        await asyncio.wait_for(waiting, 10)  # promptly: not at its wait_timeout, nor at its place's expiry
    assert ended.value.reason == "LEASE_WAIT_ABORTED" and ended.value.metadata["cause"] == "UNREGISTERED"
    assert "unregistered" in str(ended.value) and "acquire again" in str(ended.value)
    assert await client.lease_waiters(["x"], agent_id="other") == []
    with pytest.raises(FailedPrecondition) as refused:  # the holder alone stands in the way: no waiter does
        await client.acquire_lease("other", ["x"])
    assert refused.value.reason == "LEASE_CONFLICT" and "waiters_ahead" not in refused.value.metadata
    await client.release_lease(held.lease_id)


async def test_watch_shows_grants_and_ends_with_their_cause(client: Client) -> None:
    await client.register("gone")
    first = await client.acquire_lease("gone", ["a/**"])
    stream = client.watch_leases()
    snapshot = await asyncio.wait_for(anext(stream), 10)
    assert snapshot.snapshot_complete and [e.lease.lease_id for e in snapshot.events] == [first.lease_id]
    await client.unregister("gone")
    second = await client.acquire_lease("other", ["a/**"])
    events: list[tuple[int, str, int]] = []
    while len(events) < 2:
        batch = await asyncio.wait_for(anext(stream), 10)
        events += [(e.type, e.lease.lease_id, e.cause) for e in batch.events]
    assert events == [(ls.LEASE_EVENT_TYPE_ENDED, first.lease_id, ls.LEASE_END_CAUSE_UNREGISTERED),
                      (ls.LEASE_EVENT_TYPE_ACQUIRED, second.lease_id, ls.LEASE_END_CAUSE_UNSPECIFIED)]
    await stream.aclose()


async def test_a_restart_keeps_leases_their_expiry_and_the_fencing_counter(daemon: Daemon) -> None:
    async with Client(daemon.target) as client:
        held = await client.acquire_lease("a", ["x"], ttl=3600)
    daemon.restart()
    async with Client(daemon.target) as client:
        [kept] = await client.list_leases()
        assert kept.lease_id == held.lease_id and kept.expire_time == held.expire_time
        assert (await client.acquire_lease("b", ["y"])).fencing_token > held.fencing_token


async def test_a_lease_ends_on_its_ttl_and_the_sweep_says_so(client: Client) -> None:
    short = await client.acquire_lease("a", ["x"], ttl=0.3)
    stream = client.watch_leases()
    await asyncio.wait_for(anext(stream), 10)
    batch = await asyncio.wait_for(anext(stream), 10)
    assert [(e.type, e.lease.lease_id, e.cause) for e in batch.events] == [
        (ls.LEASE_EVENT_TYPE_ENDED, short.lease_id, ls.LEASE_END_CAUSE_EXPIRED)]
    await stream.aclose()
    assert (await client.acquire_lease("b", ["x"])).agent_id == "b"


async def test_an_agent_token_takes_and_releases_for_its_own_agent_only(make_daemon) -> None:
    daemon = make_daemon("--listen", "127.0.0.1:0", "--no-outbox-loop")
    daemon.start()
    port = int(daemon.wait_for("127.0.0.1:").strip().rsplit(":", 1)[1])
    async with Client(daemon.target) as local:
        alice = (await local.issue_token(agent_id="alice")).token
        admin = (await local.issue_token(admin=True)).token
        bobs = await local.acquire_lease("bob", ["b/**"])
    async with Client(f"127.0.0.1:{port}", token=alice) as client:
        mine = await client.acquire_lease("alice", ["a/**"])
        for denied in (client.acquire_lease("bob", ["c"]), client.release_lease(bobs.lease_id),
                       client.renew_lease(bobs.lease_id), client.release_lease(agent_id="bob")):
            with pytest.raises(PermissionDenied):
                await denied
        assert len(await client.list_leases()) == 2 and await client.check_leases(["b/x"], agent_id="alice")
        assert await client.release_lease(mine.lease_id) == 1
    async with Client(f"127.0.0.1:{port}", token=admin) as client:
        assert await client.release_lease(bobs.lease_id) == 1
    assert bobs.lease_id in daemon.wait_for("released lease")


@pytest.fixture
def two_nodes(pg_url: str, tmp_path) -> Iterator[list[Daemon]]:
    made, folders = [], []
    for i in range(2):
        folders.append(tempfile.mkdtemp(prefix=f"ln{i}-", dir="/tmp"))
        made.append(Daemon(str(tmp_path / f"data{i}"), folders[-1], "--store", pg_url, "--no-outbox-loop"))
    for d in made:
        d.start()
    yield made
    for d in made:
        if d.proc is not None and d.proc.poll() is None:
            d.kill()
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)


async def test_agents_racing_for_one_file_on_two_postgres_nodes_one_wins(two_nodes: list[Daemon]) -> None:
    async with Client(two_nodes[0].target) as one, Client(two_nodes[1].target) as two:
        for round_ in range(5):
            path = f"race/{round_}.py"

            async def take(client: Client, agent: str, p: str = path) -> ls.Lease | None:
                try:
                    return await client.acquire_lease(agent, [p])
                except FailedPrecondition as exc:
                    assert exc.reason == "LEASE_CONFLICT"
                    return None

            won = await asyncio.gather(*(take(c, f"agent-{i}") for i, c in enumerate([one, two] * 3)))
            assert sum(w is not None for w in won) == 1, won
        tokens = [lease.fencing_token for lease in await one.list_leases()]
        assert len(tokens) == 5 and tokens == sorted(set(tokens))


async def test_a_waiter_on_one_node_is_granted_when_the_holder_releases_on_another(two_nodes: list[Daemon]) -> None:
    async with Client(two_nodes[0].target) as one, Client(two_nodes[1].target) as two:
        held = await one.acquire_lease("a", ["shared/x"])
        waiting = asyncio.ensure_future(two.acquire_lease("b", ["shared/x"], wait=True, wait_timeout=30))
        assert [h.agent_id for h in await two.check_leases(["shared/x"], agent_id="b")] == ["a"]
        assert not waiting.done()
        await one.release_lease(held.lease_id)
        granted = await asyncio.wait_for(waiting, 10)  # woken by the other node's NOTIFY, not a keepalive
        assert granted.agent_id == "b" and granted.fencing_token > held.fencing_token


async def test_a_lease_ends_when_its_agent_goes_offline_unless_it_stays_live(make_daemon) -> None:
    daemon = make_daemon("--live-window", "2", "--lease-offline-grace", "1").start()
    async with Client(daemon.target) as client:
        for agent in ("quiet", "busy"):
            await client.register(agent)
        lost = await client.acquire_lease("quiet", ["a/**"], ttl=3600)
        kept = await client.acquire_lease("busy", ["b/**"], ttl=3600, renew_with_presence=True)
        stream = client.watch_leases()
        await asyncio.wait_for(anext(stream), 10)

        async def first_end() -> ls.LeaseEvent:
            async for batch in stream:
                for event in batch.events:
                    if event.type == ls.LEASE_EVENT_TYPE_ENDED:
                        return event
            raise AssertionError("the watch ended")

        ending = asyncio.ensure_future(first_end())
        while not ending.done():  # "busy" heartbeats; "quiet" says nothing, and is offline after 2 s
            await client.touch("busy")
            await asyncio.wait({ending}, timeout=0.3)
        ended = ending.result()
        assert (ended.lease.lease_id, ended.cause) == (lost.lease_id, ls.LEASE_END_CAUSE_HOLDER_OFFLINE)
        assert [lease.lease_id for lease in await client.list_leases()] == [kept.lease_id]
        await stream.aclose()


async def test_a_waiting_acquire_ends_aborted_when_its_agent_goes_offline(make_daemon) -> None:
    daemon = make_daemon("--live-window", "2", "--lease-offline-grace", "1", "--lease-waiter-ttl", "1.5").start()
    async with Client(daemon.target) as client:
        for agent in ("quiet", "busy"):
            await client.register(agent)
        held = await client.acquire_lease("a", ["x"])
        quiet = asyncio.ensure_future(client.acquire_lease("quiet", ["x"], wait=True, wait_timeout=600))
        busy = asyncio.ensure_future(client.acquire_lease("busy", ["x"], wait=True, wait_timeout=600))
        async with asyncio.timeout(30):
            while not quiet.done():  # "busy" heartbeats; "quiet" says nothing while it waits: gone after 2 s + 1 s
                await client.touch("busy")
                await asyncio.wait({quiet}, timeout=0.3)
        with pytest.raises(Aborted) as ended:
            quiet.result()
        assert ended.value.reason == "LEASE_WAIT_ABORTED" and ended.value.metadata["cause"] == "HOLDER_OFFLINE"
        assert float(ended.value.metadata["waited_s"]) < 30  # its tries, every 0.5 s, found it gone
        assert [w.agent_id for w in await client.lease_waiters(["x"], agent_id="a")] == ["busy"]
        await client.release_lease(held.lease_id)
        assert (await asyncio.wait_for(busy, 10)).agent_id == "busy"


async def test_an_agent_token_is_held_to_its_lease_quota(make_daemon) -> None:
    daemon = make_daemon("--listen", "127.0.0.1:0", "--no-outbox-loop", "--quota-leases", "2")
    daemon.start()
    port = int(daemon.wait_for("127.0.0.1:").strip().rsplit(":", 1)[1])
    async with Client(daemon.target) as local:
        token = (await local.issue_token(agent_id="alice")).token
    async with Client(f"127.0.0.1:{port}", token=token) as client:
        await client.acquire_lease("alice", ["x"])
        await client.acquire_lease("alice", ["y"])
        with pytest.raises(ResourceExhausted) as refused:
            await client.acquire_lease("alice", ["z"])
        assert refused.value.reason == "QUOTA_LEASES" and refused.value.metadata["limit"] == "2"
        assert len(await client.list_leases()) == 2


# -- the line across nodes: FIFO per resource on one PostgreSQL database (docs/leases.md, "Waiting in line")

WAITER_TTL_S = 2.0


@pytest.fixture
def line_nodes(pg_url: str, tmp_path) -> Iterator[list[Daemon]]:
    """Two nodes on one database whose waiters' places die 2 s after their last try."""
    made, folders = [], []
    for i in range(2):
        folders.append(tempfile.mkdtemp(prefix=f"lq{i}-", dir="/tmp"))
        made.append(Daemon(str(tmp_path / f"data{i}"), folders[-1], "--store", pg_url, "--no-outbox-loop",
                           "--lease-waiter-ttl", str(WAITER_TTL_S)))
    for d in made:
        d.start()
    yield made
    for d in made:
        if d.proc is not None and d.proc.poll() is None:
            d.kill()
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)


async def line(url: str) -> list[str]:
    """The agents of the stored waiter records, in line order (what every node decides by)."""
    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch("SELECT body FROM lease_waiters ORDER BY ord")
    finally:
        await conn.close()
    return [model_leases.decode_waiter(r["body"]).agent_id for r in rows]


async def until_line(url: str, done: Callable[[list[str]], bool]) -> list[str]:
    """The line once `done` says so (polled: the durable line is the observable state)."""
    async with asyncio.timeout(20):
        while not done(found := await line(url)):
            await asyncio.sleep(0.02)
    return found


async def test_waiters_on_two_nodes_are_granted_in_the_order_they_queued(line_nodes: list[Daemon],
                                                                           pg_url: str) -> None:
    async with Client(line_nodes[0].target) as one, Client(line_nodes[1].target) as two:
        for round_ in range(3):
            path = f"repo/{round_}.py"
            held = await one.acquire_lease("holder", [path])
            first = asyncio.ensure_future(one.acquire_lease("a", [path, f"docs/{round_}.md"], wait=True,
                                                            wait_timeout=60))
            await until_line(pg_url, lambda found: found == ["a"])
            second = asyncio.ensure_future(two.acquire_lease("b", [path], wait=True, wait_timeout=60))
            await until_line(pg_url, lambda found: found == ["a", "b"])
            line_seen = await one.lease_waiters([path], agent_id="c")  # what any node shows of the line
            assert [(w.agent_id, w.resource, w.requested) for w in line_seen] == [("a", path, path), ("b", path, path)]
            assert line_seen[0].enqueue_time.ToNanoseconds() <= line_seen[1].enqueue_time.ToNanoseconds()
            with pytest.raises(FailedPrecondition) as queued:  # free of leases, but a waits for it: no jumping
                await two.acquire_lease("c", [f"docs/{round_}.md"])
            assert queued.value.reason == "LEASE_QUEUED" and queued.value.metadata["waiter_0_agent_id"] == "a"
            # Released through node 2: its own waiter b hears of it first, and still goes second.
            await two.release_lease(held.lease_id)
            granted = await asyncio.wait_for(first, 20)
            assert granted.agent_id == "a" and not second.done()
            assert await until_line(pg_url, lambda found: found == ["b"]) == ["b"]
            await one.release_lease(granted.lease_id)
            after = await asyncio.wait_for(second, 20)
            assert after.agent_id == "b" and after.fencing_token > granted.fencing_token > held.fencing_token
            await two.release_lease(after.lease_id)
        assert await line(pg_url) == []


async def test_a_killed_clients_waiter_leaves_the_line(line_nodes: list[Daemon], pg_url: str) -> None:
    node = line_nodes[0]
    async with Client(node.target) as client:
        await client.acquire_lease("holder", ["x"])
        waiter = subprocess.Popen([sys.executable, "-c", (
            "import sys; from fabricd.client import SyncClient\n"
            "with SyncClient(sys.argv[1]) as c: c.acquire_lease('k', ['x'], wait=True, wait_timeout=600)"),
            node.target])
        try:
            await until_line(pg_url, lambda found: found == ["k"])
        finally:
            waiter.kill()
            waiter.wait()
        # Gone with its connection, long before its place would die (WAITER_TTL_S) or its wait end (600 s).
        await until_line(pg_url, lambda found: found == [])
        with pytest.raises(FailedPrecondition) as refused:
            await client.acquire_lease("other", ["x"])
        assert refused.value.reason == "LEASE_CONFLICT"  # the holder, and no waiter, in the way


async def test_a_dead_nodes_waiters_stop_standing_in_the_way(line_nodes: list[Daemon], pg_url: str) -> None:
    live, doomed = line_nodes
    async with Client(live.target) as one, Client(doomed.target) as two:
        held = await one.acquire_lease("holder", ["x"])
        orphan = asyncio.ensure_future(two.acquire_lease("d", ["x"], wait=True, wait_timeout=600))
        await until_line(pg_url, lambda found: found == ["d"])
        doomed.kill()  # kill -9: its waiter's record stays, and no one tries for it again
        with pytest.raises(Exception):  # noqa: B017 - the call died with its node (Unavailable or a reset)
            await asyncio.wait_for(orphan, 20)
        later = asyncio.ensure_future(one.acquire_lease("e", ["x"], wait=True, wait_timeout=60))
        await until_line(pg_url, lambda found: "e" in found)
        await one.release_lease(held.lease_id)
        granted = await asyncio.wait_for(later, 20)  # within WAITER_TTL_S of d's last try, not never
        assert granted.agent_id == "e" and await line(pg_url) == []
