"""The in-process wake-ups (fabricd.core.notify.LocalWakeups): bounded versions, and no missed move."""

from __future__ import annotations

import asyncio
import tracemalloc

from fabricd.core.notify import MAX_KEYS, LocalWakeups


async def test_a_key_per_ticket_keeps_the_versions_bounded_and_no_reader_misses_a_move() -> None:
    # Every ticket wakes a key of its own: a daemon answering millions of asks must not keep a version each.
    wakeups = LocalWakeups()
    wakeups.notify("mailbox/alice")
    read = wakeups.version("mailbox/alice")  # a reader read it, then reads storage, then waits
    waiter = asyncio.create_task(wakeups.wait("mailbox/bob", wakeups.version("mailbox/bob"), None))
    await asyncio.sleep(0)  # the waiter is now waiting (one turn of the loop: it awaits its future)
    assert wakeups.waiter_count() == 1
    for i in range(3 * MAX_KEYS):
        wakeups.notify(f"ticket/{i}")
        assert wakeups.key_count() <= MAX_KEYS + 1
    assert await wakeups.wait("mailbox/alice", read, 0)  # forgotten: it moved, never back to what was read
    for _ in range(5):
        wakeups.notify("mailbox/alice")
        assert wakeups.version("mailbox/alice") != read
    assert not waiter.done()  # a key someone waits on is kept, and its waiter woken by its next move
    wakeups.notify("mailbox/bob")
    assert await waiter


def test_the_versions_of_finished_tickets_take_well_under_a_mebibyte() -> None:
    # A daemon answering asks wakes a new ticket key each time; at 65,536 kept keys that was ~8 MiB for ever.
    wakeups = LocalWakeups()
    tracemalloc.start()
    try:
        for i in range(3 * MAX_KEYS):
            wakeups.notify(f"ticket/{i:026d}")  # a minted ticket id has 26 characters
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20


async def test_keys_kept_for_their_waiters_do_not_make_every_notify_a_full_pass(monkeypatch) -> None:
    # Past MAX_KEYS keys waited on (streams each waiting on its own key), a pass keeps them all: the next
    # waits until the map has doubled, or every notify would copy the whole map.
    passes = 0
    forget = LocalWakeups._forget

    def counted(self: LocalWakeups) -> None:
        nonlocal passes
        passes += 1
        forget(self)

    monkeypatch.setattr(LocalWakeups, "_forget", counted)
    wakeups = LocalWakeups()
    waiters = []
    for i in range(2 * MAX_KEYS):  # each key moved once, then waited on
        wakeups.notify(f"mailbox/{i}")
        waiters.append(asyncio.create_task(wakeups.wait(f"mailbox/{i}", wakeups.version(f"mailbox/{i}"), None)))
        await asyncio.sleep(0)  # its waiter is now waiting
    passes = 0
    for i in range(4 * MAX_KEYS):
        wakeups.notify(f"ticket/{i}")
    assert passes <= 3
    assert wakeups.key_count() <= 4 * MAX_KEYS + 1
    wakeups.close()
    assert not any(await asyncio.gather(*waiters))  # closed: each resumes with False
