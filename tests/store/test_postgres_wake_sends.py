"""Two nodes on one database send one wake of a hook at a time: the hook's sending state is in the database."""

from __future__ import annotations

import json

from fabricd.core.errors import FabricError
from fabricd.core.model import Address, Message
from fabricd.core.notify import LocalWakeups
from fabricd.core.outbox import RetryPolicy
from fabricd.core.wake import WakeHook
from fabricd.store.postgres.store import PgStore


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000_000

    def __call__(self) -> int:
        return self.now


async def send(store: PgStore, text: str) -> None:
    await store.mailboxes.append([(Message(sender=Address("alice"), recipient=Address("bob"), text=text), b"")],
                                 create=False, atomic=False, max_unread=0)


async def test_a_hook_sending_on_one_node_is_not_sent_by_another_and_backs_off_on_both(pg_url: str) -> None:
    clock = Clock()
    one, two = (PgStore(pg_url, LocalWakeups(), clock, pool_size=2) for _ in range(2))
    await one.start()
    await two.start()
    policy = RetryPolicy(lease_s=15, base_s=60, jitter=0)
    try:
        for agent in ("alice", "bob"):
            await one.directory.register(agent, "", (), "", {})
        await one.wake.set(WakeHook("bob", url="https://example.test/wake", quiet_ns=0))
        await send(one, "first")
        assert await one.wake.fire("bob", lambda _: False, 0)
        (first, _), = (await one.outbox.deliver_due(64, policy, 0)).claimed  # node one sends it
        clock.now += 1
        await send(two, "second")
        assert await two.wake.fire("bob", lambda _: False, 0)  # a second wake waits
        assert (await two.outbox.deliver_due(64, policy, 0)).claimed == ()  # not while node one sends
        failed = FabricError("HTTP 503", reason="WAKE_DELIVERY_FAILED")
        assert not await one.outbox.settle_wake(first.key, failed, policy)
        hook = await two.wake.get("bob")
        assert hook is not None and (hook.failures, hook.retry_ns) == (1, clock.now + 60 * 10**9)
        assert (await two.outbox.deliver_due(64, policy, 0)).claimed == ()  # the hook backs off, on every node
        clock.now = hook.retry_ns
        (waiting, _), = (await two.outbox.deliver_due(64, policy, 0)).claimed
        assert waiting.key != first.key and json.loads(waiting.content)["unread"] == 2
    finally:
        await one.close()
        await two.close()
