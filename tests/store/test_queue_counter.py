"""The LMDB queued-ticket counter: kept with every ticket change, and counted once in stores from before it."""

from __future__ import annotations

import asyncio

from fabricd.core.directory import Directory
from fabricd.core.limits import Limits
from fabricd.core.notify import LocalWakeups
from fabricd.core.rendezvous import Rendezvous, TicketRequest
from fabricd.store import open_store
from fabricd.store.lmdb import keys


async def test_a_store_without_the_counter_counts_its_fifo_once_and_keeps_it_from_then_on(tmp_path) -> None:
    wakeups = LocalWakeups()
    store = open_store(str(tmp_path / "data"), wakeups=wakeups, clock=lambda: 1, sync=False)
    await store.start()
    try:
        await Directory(store, Limits(), lambda: 1).register("bob")
        rv = Rendezvous(store, Limits(), lambda: 1)
        for i in range(3):
            await rv.enqueue(TicketRequest("bob", f"t{i}"))
        engine = store.engine  # type: ignore[attr-defined]

        def forget_counter(tx) -> bool:  # as a store written before the counter existed
            return tx._txn.delete(keys.queue_length("bob"), db=tx._dbs.meta)

        assert await engine.write(forget_counter)
        assert (await rv.enqueue(TicketRequest("bob", "t3")))[1] == 3
        await rv.reply("bob", "done")
        assert (await rv.enqueue(TicketRequest("bob", "t4")))[1] == 3
        assert await engine.read(lambda tx: tx.queue_length("bob")) == len((await rv.queue("bob")).items) == 4
    finally:
        wakeups.close()
        await store.close()


async def test_one_commit_stops_gathering_writes_at_a_budget_of_work(tmp_path) -> None:
    from fabricd.store.lmdb.engine import MAX_BATCH_WORK

    wakeups = LocalWakeups()
    store = open_store(str(tmp_path / "data"), wakeups=wakeups, clock=lambda: 1, sync=False)
    await store.start()
    batches: list[int] = []
    store.on_commit = lambda writes, seconds: batches.append(writes)
    try:
        engine = store.engine  # type: ignore[attr-defined]
        heavy = [engine.write(lambda tx: None, weight=MAX_BATCH_WORK // 2 + 1) for _ in range(3)]
        light = [engine.write(lambda tx: None) for _ in range(10)]
        await asyncio.gather(*heavy, *light)
        assert batches == [1, 1, 11]  # no two heavy writes share a commit; light ones fill the budget
    finally:
        wakeups.close()
        await store.close()
