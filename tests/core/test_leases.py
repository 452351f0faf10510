"""The lease rules on every store (memory, LMDB, PostgreSQL): grants all or nothing, modes, fencing tokens,
renewal, release, and the ends of a lease (ttl, unregister, presence), each with its cause."""

from __future__ import annotations

import asyncio

import pytest

from fabricd.core.errors import (
    Aborted,
    DeadlineExceeded,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    ResourceExhausted,
)
from fabricd.core.lease_service import Leases
from fabricd.core.leases import LeaseConflict, Line, Queued
from fabricd.core.limits import Limits
from fabricd.core.model_leases import EndCause, Lease, LeaseMode, Waiter
from tests.core.conftest import Fabric, MakeFabric

MIN = 60 * 10**9
EX, SH = LeaseMode.EXCLUSIVE, LeaseMode.SHARED


def leases_of(fabric: Fabric, limits: Limits | None = None) -> Leases:
    return Leases(fabric.store, limits or Limits(), fabric.clock, keepalive_s=0.05)


async def take(leases: Leases, agent: str, *resources: str, mode: LeaseMode = EX, ttl_ns: int = 10 * MIN,
               reason: str = "", presence: bool = False, quota: bool = False) -> Lease:
    return await leases.acquire(leases.request(agent, resources, mode, ttl_ns, reason, presence), held_to_quota=quota)


async def test_an_overlapping_exclusive_request_is_refused_with_every_holder_and_nothing_granted(
        fabric: Fabric) -> None:
    leases = leases_of(fabric)
    await fabric.directory.register("alice", session_name="builder")
    held = await take(leases, "alice", "src/api/**", reason="refactor")
    with pytest.raises(LeaseConflict) as refused:
        await take(leases, "bob", "docs/readme.md", "src/api/app.py")
    err = refused.value
    assert err.reason == "LEASE_CONFLICT" and err.metadata["holders"] == "1"
    assert err.metadata["holder_0_agent_id"] == "alice" and err.metadata["holder_0_session_name"] == "builder"
    assert err.metadata["holder_0_resource"] == "src/api/**"
    assert err.metadata["holder_0_requested"] == "src/api/app.py"
    assert err.metadata["holder_0_mode"] == "EXCLUSIVE" and err.metadata["holder_0_reason"] == "refactor"
    assert err.metadata["holder_0_expire_ns"] == str(held.expire_ns)
    assert [lease.agent_id for lease in await leases.live()] == ["alice"]  # docs/readme.md was not granted alone


async def test_shared_leases_overlap_each_other_but_not_an_exclusive_one(fabric: Fabric) -> None:
    leases = leases_of(fabric)
    await take(leases, "a", "data/**", mode=SH)
    await take(leases, "b", "data/set.csv", mode=SH)
    with pytest.raises(LeaseConflict) as refused:
        await take(leases, "c", "data/set.csv")
    assert refused.value.metadata["holders"] == "2"
    with pytest.raises(LeaseConflict):
        await take(leases, "c", "data/**", mode=EX)
    await take(leases, "a", "data/x")  # its own SHARED data/** does not stand in its way


async def test_fencing_tokens_strictly_increase_and_survive_a_reopen(make_fabric: MakeFabric,
                                                                     store_location: str) -> None:
    fabric = await make_fabric()
    leases = leases_of(fabric)
    first = await take(leases, "a", "x")
    await leases.release(first.lease_id, "", "")
    second = await take(leases, "b", "x")
    assert second.fencing_token > first.fencing_token
    if store_location == "memory:":
        return  # memory keeps nothing across a reopen; LMDB and PostgreSQL go on
    await fabric.store.close()
    again = await make_fabric()
    after = leases_of(again)
    [kept] = await after.live()
    assert kept.lease_id == second.lease_id and kept.expire_ns == second.expire_ns
    third = await take(after, "c", "y")
    assert third.fencing_token > second.fencing_token


async def test_a_lease_ends_when_its_ttl_passes_without_renewal(fabric: Fabric) -> None:
    leases = leases_of(fabric)
    held = await take(leases, "a", "x", ttl_ns=MIN)
    fabric.clock.advance(50)
    renewed = await leases.renew(held.lease_id, 0, "")
    assert renewed.expire_ns == fabric.clock.now + MIN and renewed.revision > held.revision
    fabric.clock.advance(61)
    assert await leases.live() == []
    with pytest.raises(NotFound) as gone:
        await leases.renew(held.lease_id, 0, "")
    assert gone.value.reason == "LEASE_NOT_FOUND"
    ended, _ = await leases.sweep()
    assert [(e.lease_id, e.end_cause) for e in ended] == [(held.lease_id, EndCause.EXPIRED)]
    await take(leases, "b", "x")


async def test_unregister_ends_the_agents_leases_in_its_transaction(fabric: Fabric) -> None:
    leases = leases_of(fabric)
    await fabric.directory.register("a")
    held = await take(leases, "a", "x", ttl_ns=60 * MIN)
    await fabric.directory.unregister("a", purge=True)
    assert await leases.live() == []
    changes = await fabric.store.leases.since(held.revision, 100)
    assert [(c.lease_id, c.end_cause) for c in changes] == [(held.lease_id, EndCause.UNREGISTERED)]


async def test_a_lease_ends_when_its_agent_is_offline_past_the_grace_unless_live(make_fabric: MakeFabric) -> None:
    limits = Limits(live_window_s=60.0, lease_offline_grace_s=30.0)
    fabric = await make_fabric(limits)
    leases = leases_of(fabric, limits)
    await fabric.directory.register("a")
    await fabric.directory.register("b")
    kept = await take(leases, "a", "kept/**", ttl_ns=600 * MIN, presence=True)
    lost = await take(leases, "b", "lost/**", ttl_ns=600 * MIN)
    for _ in range(4):  # "a" heartbeats every 50s; "b" says nothing
        fabric.clock.advance(50)
        await fabric.directory.touch("a", busy=False)
    assert [lease.lease_id for lease in await leases.live()] == [kept.lease_id]
    ended, _ = await leases.sweep()
    assert [(e.lease_id, e.end_cause) for e in ended] == [(lost.lease_id, EndCause.HOLDER_OFFLINE)]


async def test_renew_with_presence_keeps_a_lease_past_its_ttl_while_the_agent_is_live(
        make_fabric: MakeFabric) -> None:
    limits = Limits(live_window_s=600.0)
    fabric = await make_fabric(limits)
    leases = leases_of(fabric, limits)
    await fabric.directory.register("a")
    await fabric.directory.register("b")
    kept = await take(leases, "a", "x", ttl_ns=MIN, presence=True)
    plain = await take(leases, "b", "y", ttl_ns=MIN)
    for _ in range(5):
        fabric.clock.advance(40)
        await fabric.directory.touch("a", busy=False)
        await fabric.directory.touch("b", busy=False)  # a heartbeat renews nothing unless asked
    assert [lease.lease_id for lease in await leases.live()] == [kept.lease_id]
    assert plain.lease_id not in {lease.lease_id for lease in await leases.live()}


async def test_release_ends_one_or_all_and_only_the_holder_may(fabric: Fabric) -> None:
    leases = leases_of(fabric)
    one = await take(leases, "a", "x")
    await take(leases, "a", "y")
    with pytest.raises(PermissionDenied):
        await leases.release(one.lease_id, "", as_agent="b")
    with pytest.raises(PermissionDenied):
        await leases.renew(one.lease_id, 0, as_agent="b")
    assert [r.lease_id for r in await leases.release(one.lease_id, "", as_agent="a")] == [one.lease_id]
    assert await leases.release(one.lease_id, "", as_agent="a") == []  # twice is no error
    assert len(await leases.release("", "a", as_agent="")) == 1
    assert await leases.live() == []


async def test_check_names_the_conflicts_other_agents_leases_would_cause(fabric: Fabric) -> None:
    leases = leases_of(fabric)
    await take(leases, "a", "src/**")
    await take(leases, "b", "docs/**", mode=SH)
    conflicts = await leases.check("c", ["src/a.py", "docs/x.md", "README.md"], EX)
    assert sorted((h.lease.agent_id, h.requested) for h in conflicts) == [("a", "src/a.py"), ("b", "docs/x.md")]
    assert [h.lease.agent_id for h in await leases.check("c", ["docs/x.md"], SH)] == []
    assert await leases.check("a", ["src/a.py"], EX) == []


async def test_a_literal_check_asks_about_the_file_named_so_not_every_file_its_characters_match(
        fabric: Fabric) -> None:
    # A file may be named `a*.py`: asked literally, its `*` and `?` are characters, and a lease is in the way
    # when one of its resources covers that file; asked as a pattern, it overlaps every `a...py`.
    leases = leases_of(fabric)
    await take(leases, "a", "src/ab.py", "src/[ab].py")
    await take(leases, "b", "lib/*.py")
    await take(leases, "w", "*/gen/x?.py")

    async def holders(path: str, literal: bool) -> list[str]:
        return sorted(h.lease.agent_id for h in await leases.check("c", [path], EX, literal=literal))

    assert await holders("src/a*.py", literal=False) == ["a"]
    for free in ("src/a*.py", "src/a?.py", "src/*", "src/[a].py", "src/a**b.py"):
        assert await holders(free, literal=True) == [], free
    for path, holder in (("src/ab.py", ["a"]), ("src/[ab].py", ["a"]), ("lib/*.py", ["b"]), ("lib/x?.py", ["b"]),
                         ("lib/x.py", ["b"]), ("q/gen/x?.py", ["w"]), ("*/gen/x*.py", ["w"]),
                         ("*/gen/xy.py", ["w"]), ("*/src/ab.py", [])):
        assert await holders(path, literal=True) == holder, path
    with pytest.raises(InvalidArgument):  # '**' inside a segment: refused in a pattern, a file's name when literal
        await leases.check("c", ["src/a**b.py"], EX)
    with pytest.raises(InvalidArgument):  # a literal path is still a relative path
        await leases.check("c", ["../x"], EX, literal=True)


async def test_bad_requests_are_refused_before_anything_is_written(fabric: Fabric) -> None:
    leases = leases_of(fabric, Limits(lease_max_ttl_s=60.0))
    for resources, ttl, reason in ((["../etc"], 0, "LEASE_PATTERN_INVALID"), ([], 0, "MISSING_FIELD"),
                                   (["x"], 61 * 10**9, "LEASE_TTL_OUT_OF_RANGE"),
                                   (["x"], -1, "LEASE_TTL_OUT_OF_RANGE")):
        with pytest.raises(InvalidArgument) as refused:
            leases.request("a", resources, EX, ttl, "", False)
        assert refused.value.reason == reason
    assert await leases.live() == []


async def test_an_agent_token_is_held_to_its_lease_quota(make_fabric: MakeFabric) -> None:
    fabric = await make_fabric(Limits(quota_leases=2))
    leases = leases_of(fabric, Limits(quota_leases=2))
    await take(leases, "a", "x", quota=True)
    await take(leases, "a", "y", quota=True)
    with pytest.raises(ResourceExhausted) as refused:
        await take(leases, "a", "z", quota=True)
    assert refused.value.reason == "QUOTA_LEASES" and refused.value.metadata["limit"] == "2"
    await take(leases, "a", "z")  # an admin's call is not held to it


async def test_a_waiting_acquire_is_granted_when_the_holder_releases(fabric: Fabric) -> None:
    import asyncio

    leases = leases_of(fabric)
    held = await take(leases, "a", "x")
    request = leases.request("b", ["x"], EX, MIN, "", False)
    waiting = asyncio.ensure_future(leases.acquire(request, held_to_quota=False, wait_s=30))
    await asyncio.sleep(0)
    assert not waiting.done()
    await leases.release(held.lease_id, "", "")
    granted = await asyncio.wait_for(waiting, 10)
    assert granted.agent_id == "b" and granted.fencing_token > held.fencing_token
    with pytest.raises(DeadlineExceeded) as late:
        await leases.acquire(leases.request("c", ["x"], EX, MIN, "", False), held_to_quota=False, wait_s=0.1)
    assert late.value.reason == "LEASE_WAIT_TIMEOUT"


async def test_watch_sends_a_snapshot_then_each_change_with_its_cause(fabric: Fabric) -> None:
    leases = leases_of(fabric)
    first = await take(leases, "a", "x")
    stream = leases.watch()
    snapshot = await anext(stream)
    assert snapshot.snapshot_complete and [(e.kind, e.lease.lease_id) for e in snapshot.events] == [
        ("SNAPSHOT", first.lease_id)]
    second = await take(leases, "b", "y")
    await leases.release(first.lease_id, "", "")
    seen: list[tuple[str, str, EndCause]] = []
    while len(seen) < 2:
        batch = await anext(stream)
        seen += [(e.kind, e.lease.lease_id, e.lease.end_cause) for e in batch.events]
    assert seen == [("ACQUIRED", second.lease_id, EndCause.UNSPECIFIED),
                    ("ENDED", first.lease_id, EndCause.RELEASED)]
    await stream.aclose()


async def test_list_pages_oldest_grant_first_with_filters(fabric: Fabric) -> None:
    leases = leases_of(fabric)
    made = [await take(leases, f"agent-{i}", f"dir-{i}/**") for i in range(5)]
    items, token = await leases.page("", "", 2, "")
    assert [lease.lease_id for lease in items] == [m.lease_id for m in made[:2]] and token
    rest, end = await leases.page("", "", 10, token)
    assert [lease.lease_id for lease in rest] == [m.lease_id for m in made[2:]] and end == ""
    assert [lease.agent_id for lease in (await leases.page("agent-3", "", 0, ""))[0]] == ["agent-3"]
    assert [lease.agent_id for lease in (await leases.page("", "dir-1/a.py", 0, ""))[0]] == ["agent-1"]
    with pytest.raises(InvalidArgument):
        await leases.page("agent-3", "", 2, token)


async def test_many_holders_are_judged_alike_when_their_presence_is_read_in_one_listing(
        make_fabric: MakeFabric) -> None:
    limits = Limits(live_window_s=60.0, lease_offline_grace_s=0.0)
    fabric = await make_fabric(limits)
    leases = leases_of(fabric, limits)
    for i in range(40):  # more holders than kv.leases.BULK: presence comes from one listing of the entries
        await fabric.directory.register(f"agent-{i}")
        await take(leases, f"agent-{i}", f"dir-{i}/**", ttl_ns=600 * MIN)
    fabric.clock.advance(50)
    for i in range(0, 40, 2):
        await fabric.directory.touch(f"agent-{i}", busy=False)
    fabric.clock.advance(30)  # the odd agents are offline now: their leases ended
    assert sorted(lease.agent_id for lease in await leases.live()) == sorted(f"agent-{i}" for i in range(0, 40, 2))
    assert [h.lease.agent_id for h in await leases.check("me", ["dir-4/x", "dir-5/x"], EX)] == ["agent-4"]


async def test_leases_are_found_through_their_anchors_whichever_side_holds_the_pattern(fabric: Fabric) -> None:
    leases = leases_of(fabric)
    wild = await take(leases, "a", "*/generated/**")  # first segment a pattern: it may overlap anything
    plain = await take(leases, "b", "src/api/**")
    assert [h.lease.agent_id for h in await leases.check("c", ["lib/generated/x.py"], EX)] == ["a"]
    assert sorted(h.lease.agent_id for h in await leases.check("c", ["*/api/x.py"], EX)) == ["b"]
    assert sorted(h.lease.agent_id for h in await leases.check("c", ["src/generated/x"], EX)) == ["a"]
    await leases.release(wild.lease_id, "", "")
    await leases.release(plain.lease_id, "", "")
    assert await leases.check("c", ["src/generated/x", "src/api/y"], EX) == []
    assert await fabric.store.leases.live(leases.clocks()) == []
    again = await take(leases, "c", "*/generated/**")  # an ended lease left no slot behind
    assert [lease.lease_id for lease in await leases.live()] == [again.lease_id]


async def test_an_acquire_names_at_most_256_resources(fabric: Fabric) -> None:
    leases = leases_of(fabric)
    with pytest.raises(InvalidArgument) as refused:
        leases.request("a", [f"f{i}" for i in range(257)], EX, 0, "", False)
    assert refused.value.reason == "TOO_MANY_ITEMS" and refused.value.metadata["limit"] == "256"
    assert len((await take(leases, "a", *(f"f{i}" for i in range(256)))).resources) == 256


async def test_ended_records_are_kept_for_watchers_then_pruned(fabric: Fabric) -> None:
    from fabricd.core.kv.leases import ENDED_KEPT_NS

    leases = leases_of(fabric)
    held = await take(leases, "a", "x")
    await leases.release(held.lease_id, "", "")
    [record] = await fabric.store.leases.since(0, 100)
    assert record.lease_id == held.lease_id and record.end_cause == EndCause.RELEASED
    fabric.clock.advance(ENDED_KEPT_NS / 1e9 + 1)
    await leases.sweep()  # nothing due: ended records stay until a pruning sweep
    assert [r.lease_id for r in await fabric.store.leases.since(0, 100)] == [held.lease_id]
    await leases.sweep(prune=True)
    assert await fabric.store.leases.since(0, 100) == []


async def test_the_sweeps_read_of_live_leases_decodes_no_ended_record(fabric: Fabric, monkeypatch) -> None:
    """Ended records are kept ENDED_KEPT_NS for watchers; the sweep, which reads the live leases every few
    seconds, must not read them all again each time."""
    from fabricd.core import model_leases

    leases = leases_of(fabric)
    held = [await take(leases, f"agent-{i}", f"dir-{i}/**") for i in range(24)]
    for lease in held[3:]:
        await leases.release(lease.lease_id, "", "")
    decoded: list[str] = []
    real = model_leases.decode

    def counting(raw: bytes) -> Lease:
        lease = real(raw)
        decoded.append(lease.lease_id)
        return lease

    monkeypatch.setattr(model_leases, "decode", counting)
    gone, next_end = await leases.sweep()
    assert gone == [] and next_end == min(lease.expire_ns for lease in held[:3])
    assert set(decoded) <= {lease.lease_id for lease in held[:3]}  # memory decodes nothing: it keeps objects
    assert sorted(lease.lease_id for lease in await leases.live()) == sorted(lease.lease_id for lease in held[:3])


async def test_a_watcher_reads_what_changed_in_revision_order(fabric: Fabric) -> None:
    leases = leases_of(fabric)
    first = await take(leases, "a", "x")
    second = await take(leases, "b", "y")
    renewed = await leases.renew(first.lease_id, 0, "")
    await leases.release(second.lease_id, "", "")
    changed = await fabric.store.leases.since(first.revision, 100)
    assert [(c.lease_id, c.live) for c in changed] == [(first.lease_id, True), (second.lease_id, False)]
    assert changed[0].revision == renewed.revision and changed[0].revision < changed[1].revision
    assert [c.lease_id for c in await fabric.store.leases.since(0, 100)] == [first.lease_id, second.lease_id]  # moved slots


# -- the line: fair waiting across nodes (FIFO per resource), one record per waiting call in the store


async def two_nodes(make_fabric: MakeFabric, store_location: str, limits: Limits | None = None) -> tuple[
        Fabric, Leases, Leases]:
    """Two nodes' lease services over one store: on PostgreSQL two stores on one database (their wake-ups
    cross by NOTIFY, as between daemons); on memory and LMDB, two services over the one store."""
    first = await make_fabric(limits)
    second = await make_fabric(limits) if store_location.startswith("postgres") else first
    return first, leases_of(first, limits), leases_of(second, limits)


async def until_waiting(leases: Leases, count: int) -> list[Waiter]:
    """The store's live waiter records once there are `count` (polled: a waiter is visible in the store)."""
    async with asyncio.timeout(10):
        while len(found := await leases.waiters()) != count:
            await asyncio.sleep(0.005)
    return found


def wait_for(leases: Leases, agent: str, *resources: str, mode: LeaseMode = EX, wait_s: float = 30) -> asyncio.Task[Lease]:
    request = leases.request(agent, resources, mode, 10 * MIN, "", False)
    return asyncio.ensure_future(leases.acquire(request, held_to_quota=False, wait_s=wait_s))


async def test_waiters_on_two_nodes_are_granted_in_the_order_they_queued(make_fabric: MakeFabric,
                                                                           store_location: str) -> None:
    _, node1, node2 = await two_nodes(make_fabric, store_location)
    held = await take(node1, "a", "src/**")
    first = wait_for(node1, "b", "src/api.py")
    [queued] = await until_waiting(node1, 1)
    assert queued.agent_id == "b" and queued.resources == ("src/api.py",)
    second = wait_for(node2, "c", "src/**")
    assert [w.agent_id for w in await until_waiting(node2, 2)] == ["b", "c"]
    await node2.release(held.lease_id, "", "")  # released on the node of the later waiter: it still goes second
    granted = await asyncio.wait_for(first, 10)
    assert granted.agent_id == "b" and not second.done()
    assert [w.agent_id for w in await until_waiting(node1, 1)] == ["c"]  # the grant took b out of the line
    await node1.release(granted.lease_id, "", "")
    after = await asyncio.wait_for(second, 10)
    assert after.agent_id == "c" and after.fencing_token > granted.fencing_token > held.fencing_token
    assert await node1.waiters() == []


async def test_a_request_that_does_not_wait_never_jumps_the_line(make_fabric: MakeFabric,
                                                                  store_location: str) -> None:
    _, node1, node2 = await two_nodes(make_fabric, store_location)
    await take(node1, "a", "x")
    waiting = wait_for(node1, "b", "x", "y")  # y is free, but b takes all or nothing: it waits for x
    await until_waiting(node1, 1)
    with pytest.raises(FailedPrecondition) as refused:
        await take(node2, "c", "y")
    err = refused.value
    assert err.reason == "LEASE_QUEUED" and err.metadata["waiters"] == "1"
    assert err.metadata["waiter_0_agent_id"] == "b" and err.metadata["waiter_0_resource"] == "y"
    assert err.metadata["waiter_0_requested"] == "y" and err.metadata["waiter_0_mode"] == "EXCLUSIVE"
    with pytest.raises(LeaseConflict) as both:  # a holder and a waiter in the way: the holder is named
        await take(node2, "c", "x")
    assert both.value.metadata["waiters_ahead"] == "1"
    with pytest.raises(FailedPrecondition, match="waiting"):
        await take(node2, "d", "y", mode=SH)  # SHARED behind an EXCLUSIVE waiter waits too
    assert (await take(node2, "c", "z")).agent_id == "c"  # what no one waits for is granted at once
    assert (await take(node1, "b", "y")).agent_id == "b"  # an agent's own waiting call is not in its way
    assert [lease.agent_id for lease in await node1.live()] == ["a", "c", "b"]
    waiting.cancel()


async def test_shared_waiters_do_not_stand_in_each_others_way(make_fabric: MakeFabric, store_location: str) -> None:
    _, node1, node2 = await two_nodes(make_fabric, store_location)
    held = await take(node1, "a", "data/**")
    readers = [wait_for(node1, "b", "data/x", mode=SH), wait_for(node2, "c", "data/y", mode=SH)]
    await until_waiting(node1, 2)
    writer = wait_for(node2, "d", "data/**")
    await until_waiting(node1, 3)
    await node1.release(held.lease_id, "", "")
    got = [await asyncio.wait_for(r, 10) for r in readers]
    assert {lease.agent_id for lease in got} == {"b", "c"} and not writer.done()
    for lease in got:
        await node1.release(lease.lease_id, "", "")
    assert (await asyncio.wait_for(writer, 10)).agent_id == "d"


async def test_a_waiting_call_that_ends_ungranted_leaves_the_line(make_fabric: MakeFabric,
                                                                   store_location: str) -> None:
    _, node1, node2 = await two_nodes(make_fabric, store_location)
    await take(node1, "a", "x")
    with pytest.raises(DeadlineExceeded):
        await node1.acquire(node1.request("b", ["x"], EX, MIN, "", False), held_to_quota=False, wait_s=0.05)
    assert await node1.waiters() == []
    cancelled = wait_for(node2, "c", "x")  # its client went away: gRPC cancels the call
    await until_waiting(node1, 1)
    cancelled.cancel()
    with pytest.raises(asyncio.CancelledError):
        await cancelled
    await until_waiting(node1, 0)
    with pytest.raises(LeaseConflict):  # the holder is still in the way, but no waiter is
        await take(node2, "d", "x")


async def test_a_dead_nodes_waiter_stands_in_the_way_until_its_place_expires(make_fabric: MakeFabric) -> None:
    limits = Limits(lease_waiter_ttl_s=20.0)
    fabric = await make_fabric(limits)
    leases = leases_of(fabric, limits)
    held = await take(leases, "a", "x")
    # A node queues b, then dies: its record is stored and no call tries again (nor leaves the line).
    line = Line("from-a-dead-node", 0, 20 * 10**9)
    queued = await fabric.store.leases.wait_turn(leases.request("b", ["x"], EX, MIN, "", False), "l1",
                                                 leases.clocks(), 0, line)
    assert isinstance(queued, Queued) and queued.waiter.expire_ns == fabric.clock.now + 20 * 10**9
    later = wait_for(leases, "c", "x")
    await until_waiting(leases, 2)
    await leases.release(held.lease_id, "", "")
    with pytest.raises(FailedPrecondition, match="waiting"):
        await take(leases, "d", "x")
    assert not later.done() and [w.agent_id for w in await leases.waiters()] == ["b", "c"]
    fabric.clock.advance(21)  # b's place dies with no try (c's too under this jump: its next try queues it anew)
    granted = await asyncio.wait_for(later, 10)
    assert granted.agent_id == "c" and await leases.waiters() == []


async def test_the_sweep_deletes_dead_waiter_records_and_says_when_the_next_one_dies(fabric: Fabric) -> None:
    leases = leases_of(fabric)
    await take(leases, "a", "x")
    request = leases.request("b", ["x"], EX, MIN, "", False)
    await fabric.store.leases.wait_turn(request, "l1", leases.clocks(), 0, Line("w", 0, 5 * 10**9))
    _, next_at = await leases.sweep()
    assert next_at == fabric.clock.now + 5 * 10**9  # before the lease's ttl: the waiter's place dies first
    fabric.clock.advance(6)
    await leases.sweep()
    assert await leases.waiters() == [] and await fabric.store.leases.leave("w") is False


async def test_a_reopened_embedded_store_forgets_the_waiters_of_the_process_before(make_fabric: MakeFabric,
                                                                                  store_location: str) -> None:
    fabric = await make_fabric()
    leases = leases_of(fabric)
    await take(leases, "a", "x")
    await fabric.store.leases.wait_turn(leases.request("b", ["x"], EX, MIN, "", False), "l1", leases.clocks(), 0,
                                        Line("w", 0, 20 * 10**9))
    if store_location == "memory:":
        return  # memory keeps nothing across a reopen
    await fabric.store.close()
    again = leases_of(await make_fabric())
    # LMDB: one daemon holds the folder, so every waiter was a call of a process that is gone. PostgreSQL: other
    # nodes' waiters are live calls; a dead node's die at their expiry (the test above).
    on_postgres = store_location.startswith("postgres")
    assert [w.agent_id for w in await again.waiters()] == (["b"] if on_postgres else [])


async def test_a_waiting_call_ends_when_its_agent_unregisters_and_leaves_the_line(make_fabric: MakeFabric,
                                                                                   store_location: str) -> None:
    first, node1, node2 = await two_nodes(make_fabric, store_location)
    await first.directory.register("b")
    held = await take(node1, "a", "x")
    leaving = wait_for(node2, "b", "x")  # registered: tied to its agent
    staying = wait_for(node1, "c", "x")  # never registered: held to its own deadline only, as a lease to its ttl
    await until_waiting(node1, 2)
    await first.directory.unregister("b", purge=True)  # on node 1; b waits on node 2 (woken across nodes)
    with pytest.raises(Aborted) as ended:
        await asyncio.wait_for(leaving, 10)
    assert ended.value.reason == "LEASE_WAIT_ABORTED"
    assert (ended.value.metadata["agent_id"], ended.value.metadata["cause"]) == ("b", "UNREGISTERED")
    assert [w.agent_id for w in await node1.waiters()] == ["c"] and not staying.done()
    await node1.release(held.lease_id, "", "")
    assert (await asyncio.wait_for(staying, 10)).agent_id == "c"


async def test_a_waiting_call_ends_when_its_agent_is_offline_past_the_grace(make_fabric: MakeFabric) -> None:
    limits = Limits(live_window_s=60.0, lease_offline_grace_s=30.0, lease_waiter_ttl_s=3600.0)
    fabric = await make_fabric(limits)
    leases = leases_of(fabric, limits)
    for agent in ("quiet", "busy"):
        await fabric.directory.register(agent)
    held = await take(leases, "a", "x")
    quiet = wait_for(leases, "quiet", "x", wait_s=3600)
    busy = wait_for(leases, "busy", "x", wait_s=3600)
    await until_waiting(leases, 2)
    fabric.clock.advance(50)  # within live_window of quiet's last activity (its call)
    await fabric.directory.touch("busy", busy=False)
    await until_waiting(leases, 2)
    assert not quiet.done()
    # 100 s: past live_window + grace. Its tries since are the daemon's, not its own: they keep it live no longer.
    fabric.clock.advance(50)
    await fabric.directory.touch("busy", busy=False)
    with pytest.raises(Aborted) as ended:
        await asyncio.wait_for(quiet, 10)  # its next try (every keepalive) finds it gone
    assert ended.value.reason == "LEASE_WAIT_ABORTED" and ended.value.metadata["cause"] == "HOLDER_OFFLINE"
    assert [w.agent_id for w in await leases.waiters()] == ["busy"] and not busy.done()
    await leases.release(held.lease_id, "", "")
    assert (await asyncio.wait_for(busy, 10)).agent_id == "busy"
