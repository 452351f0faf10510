"""The store's writers share themselves between tokens (fabricd.store.fair): one token's flood does not make
another token's write wait for all of it, on LMDB (the writer's batches) and PostgreSQL (the pool).

Orders are asserted, never timings: which write a batch takes, which waiter a freed connection goes to.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest

from fabricd.core import lanes
from fabricd.core.notify import LocalWakeups
from fabricd.store.fair import FairGate, FairQueue
from fabricd.store.lmdb.engine import MAX_BATCH_WORK, SHARED_BATCH_WORK, LmdbEngine
from fabricd.store.postgres.store import PgStore


def test_a_batch_takes_one_item_of_each_lane_in_turn_and_keeps_each_lanes_order() -> None:
    queue: FairQueue[str] = FairQueue()
    for i in range(4):
        queue.put("flood", f"f{i}")
    queue.put("other", "o0")
    queue.put("other", "o1")
    assert queue.take(3, 100) == ["f0", "o0", "f1"]
    assert queue.take(10, 100) == ["o1", "f2", "f3"]  # the lane served last waits its turn
    assert len(queue) == 0 and queue.take(10, 100) == []


def test_a_heavy_head_is_passed_over_for_a_light_write_of_another_lane_but_always_taken_first() -> None:
    queue: FairQueue[str] = FairQueue()
    for i in range(3):
        queue.put("flood", f"f{i}", weight=1500)
    queue.put("other", "o0", weight=1)
    assert queue.take(100, 2048) == ["f0", "o0"]  # f1 would pass the work limit: the light write goes in
    assert queue.take(100, 2048) == ["f1"]
    assert queue.take(100, 1000) == ["f2"]  # heavier than a whole batch: still taken, alone


async def _run_in_lane(lane: str, work: Callable[[], Awaitable[object]]) -> object:
    lanes.LANE.set(lane)
    return await work()


async def test_a_freed_slot_goes_to_the_next_lane_and_a_waiter_that_left_holds_none() -> None:
    gate = FairGate(1)
    granted: list[str] = []
    release = asyncio.Event()

    async def hold(name: str, lane: str) -> None:
        async with gate.slot(lane):
            granted.append(name)
            if name == "first":
                await release.wait()

    first = asyncio.create_task(hold("first", "flood"))
    await asyncio.sleep(0)
    waiters = [asyncio.create_task(hold(f"f{i}", "flood")) for i in range(3)]
    gone = asyncio.create_task(hold("gone", "third"))
    waiters.append(asyncio.create_task(hold("o0", "other")))
    while len(gate._waiting) < 5:  # every waiter queued
        await asyncio.sleep(0)
    gone.cancel()
    release.set()
    await asyncio.gather(first, *waiters)
    assert granted == ["first", "f0", "o0", "f1", "f2"]
    assert gone.cancelled()
    async with gate.slot("later"):  # every slot came back
        pass


class Holder:
    """A task holding a slot of `gate` in `lane` until `let_go` is set."""

    def __init__(self, gate: FairGate, lane: str) -> None:
        self.granted = asyncio.Event()
        self.let_go = asyncio.Event()
        self.task = asyncio.create_task(self._hold(gate, lane))

    async def _hold(self, gate: FairGate, lane: str) -> None:
        async with gate.slot(lane):
            self.granted.set()
            await self.let_go.wait()


async def test_while_another_lane_is_active_a_lane_may_not_take_the_last_free_slot() -> None:
    gate = FairGate(3)
    async with gate.slot("calm"):  # the calm lane asked a moment ago
        pass
    a, b = Holder(gate, "flood"), Holder(gate, "flood")
    await a.granted.wait()
    await b.granted.wait()
    c = Holder(gate, "flood")
    await asyncio.sleep(0)  # its first step: take a slot or queue
    assert len(gate._waiting) == 1 and not c.granted.is_set()  # the flood's third call waits: the last is kept
    calm = Holder(gate, "calm")
    await calm.granted.wait()  # at once: no call of the flood had to end first
    assert not c.granted.is_set()
    a.let_go.set()
    await c.granted.wait()  # a slot of its own lane came back: the flood goes on with two
    for holder in (b, c, calm):
        holder.let_go.set()
    await asyncio.gather(a.task, b.task, c.task, calm.task)
    assert gate._free == 3 and gate._held == {}


async def test_a_lane_alone_takes_every_slot_and_one_held_back_by_the_reserve_gets_it_once_others_are_quiet(
        monkeypatch) -> None:
    gate = FairGate(2)
    alone = [Holder(gate, "solo"), Holder(gate, "solo")]
    for holder in alone:
        await holder.granted.wait()  # no other lane asked: both slots
    for holder in alone:
        holder.let_go.set()
    await asyncio.gather(*(holder.task for holder in alone))
    monkeypatch.setattr("fabricd.store.fair.SHARED_WINDOW_S", 0.05)
    async with gate.slot("calm"):
        pass
    first = Holder(gate, "flood")
    await first.granted.wait()
    second = Holder(gate, "flood")  # the last slot, while calm counts as active: held back, then handed on
    await asyncio.wait_for(second.granted.wait(), 10)  # by the re-check once calm has been quiet long enough
    for holder in (first, second):
        holder.let_go.set()
    await asyncio.gather(first.task, second.task)


@pytest.fixture
async def lmdb_engine(tmp_path) -> AsyncIterator[LmdbEngine]:
    e = LmdbEngine(str(tmp_path / "data"), map_size=1 << 26, wakeups=LocalWakeups())
    await e.start()
    yield e
    await e.close()


async def test_lmdb_a_flood_of_heavy_writes_lets_another_tokens_write_into_the_next_batch(
        lmdb_engine: LmdbEngine) -> None:
    applied: list[str] = []

    def write(name: str) -> Callable[[], Awaitable[object]]:
        weight = MAX_BATCH_WORK // 2 if name.startswith("f") else 1  # two of the flood fill a batch
        return lambda: lmdb_engine.write(lambda tx: applied.append(name), weight)

    # All queued before the writer takes its first batch (the flush runs after these tasks' first steps).
    flood = [asyncio.create_task(_run_in_lane("flood-token", write(f"f{i}"))) for i in range(8)]
    other = asyncio.create_task(_run_in_lane("other-token", write("o0")))
    await asyncio.gather(*flood, other)
    assert applied.index("o0") == 1  # right after the flood's first write, not after all eight
    assert [a for a in applied if a != "o0"] == [f"f{i}" for i in range(8)]


async def test_lmdb_while_tokens_share_the_writer_a_commit_holds_one_heavy_write_and_the_light_ones_that_fit(
        lmdb_engine: LmdbEngine) -> None:
    applied: list[str] = []
    commits: list[int] = []
    lmdb_engine.on_commit = lambda writes, _seconds: commits.append(writes)
    assert 100 <= SHARED_BATCH_WORK < 100 + 250  # a batch of 100 and a light write fit; a drain of 250 does not

    def write(name: str, weight: int) -> Callable[[], Awaitable[object]]:
        return lambda: lmdb_engine.write(lambda tx: applied.append(name), weight)

    tasks = [asyncio.create_task(_run_in_lane("flood-token", write(f"f{i}", 100))) for i in range(4)]
    tasks += [asyncio.create_task(_run_in_lane("drain-token", write(f"d{i}", 250))) for i in range(2)]
    tasks.append(asyncio.create_task(_run_in_lane("calm-token", write("o0", 1))))
    await asyncio.gather(*tasks)
    # the calm write rides with the flood's first batch, never with a drain; no two heavy writes share a commit
    assert applied == ["f0", "o0", "d0", "f1", "d1", "f2", "f3"]
    assert commits == [2, 1, 1, 1, 1, 1]


async def test_lmdb_a_token_writing_alone_gets_whole_batches(lmdb_engine: LmdbEngine) -> None:
    before = lmdb_engine.commits
    heavy = MAX_BATCH_WORK // 2

    def write() -> Callable[[], Awaitable[object]]:
        return lambda: lmdb_engine.write(lambda tx: None, heavy)

    await asyncio.gather(*(asyncio.create_task(_run_in_lane("solo-token", write())) for _ in range(4)))
    assert lmdb_engine.commits - before == 2  # two heavy writes a commit: no share while no other token writes


@pytest.fixture
async def pg_store(pg_url: str) -> AsyncIterator[PgStore]:
    s = PgStore(pg_url, LocalWakeups(), time.time_ns, pool_size=1)
    await s.start()
    yield s
    await s.close()


async def test_postgres_a_freed_connection_goes_to_another_tokens_waiting_call_before_the_flood(
        pg_store: PgStore) -> None:
    engine = pg_store.engine
    ran: list[str] = []
    release = asyncio.Event()

    def op(name: str) -> Callable[[], Awaitable[object]]:
        async def fn(conn, attempt) -> None:
            ran.append(name)
            if name == "held":
                await release.wait()
            await conn.fetchval("SELECT 1")
        return lambda: engine.op(fn)

    held = asyncio.create_task(_run_in_lane("flood-token", op("held")))
    while not ran:
        await asyncio.sleep(0)
    flood = [asyncio.create_task(_run_in_lane("flood-token", op(f"f{i}"))) for i in range(3)]
    while len(engine._gate._waiting) < 3:  # the flood waits for the one connection
        await asyncio.sleep(0)
    other = asyncio.create_task(_run_in_lane("other-token", op("o0")))
    while len(engine._gate._waiting) < 4:
        await asyncio.sleep(0)
    release.set()
    await asyncio.gather(held, *flood, other)
    assert ran == ["held", "f0", "o0", "f1", "f2"]
