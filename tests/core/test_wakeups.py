"""The in-process wake-ups (fabricd.core.notify.LocalWakeups): bounded versions, and no missed move."""

from __future__ import annotations

import asyncio

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
