"""Wake delivery per hook, on every store: lanes, one send at a time, back-off, one wake waiting, disable."""

from __future__ import annotations

import asyncio
import json
from collections import defaultdict

from fabricd.core.errors import FabricError
from fabricd.core.model import OutboxRow, RowState
from fabricd.core.outbox import RetryPolicy
from fabricd.core.wake import WakeHook, Wakes
from tests.core.conftest import Fabric, MakeFabric, decoded, mail

URL = "http://127.0.0.1:9/wake"


class Gate:
    """A sender whose sends to hooks named in `held` wait until released; `failing` hooks fail."""

    def __init__(self) -> None:
        self.held: dict[str, asyncio.Event] = {}
        self.started: defaultdict[str, asyncio.Event] = defaultdict(asyncio.Event)
        self.failing: set[str] = set()
        self.sent: list[str] = []

    async def __call__(self, row: OutboxRow, hook: WakeHook) -> None:
        agent = hook.agent_id
        self.started[agent].set()
        if agent in self.held:
            await self.held[agent].wait()
        if agent in self.failing:
            raise FabricError("HTTP 503", reason="WAKE_DELIVERY_FAILED")
        self.sent.append(row.key)


async def hooked(fabric: Fabric, *agents: str) -> tuple[Wakes, Gate]:
    gate = Gate()
    fabric.outbox.send_wake = gate
    wakes = Wakes(fabric.store, fabric.mailboxes.limits, fabric.clock)
    for agent in agents:
        await fabric.directory.register(agent)
        await wakes.set(agent, url=URL, quiet_ns=0)
    return wakes, gate


async def wake_rows(fabric: Fabric, state: RowState = RowState.UNSPECIFIED) -> list[OutboxRow]:
    return [r for r in await fabric.store.outbox.rows("", 100, state) if r.key.startswith("wake:")]


async def test_the_delivery_loop_hands_wakes_to_lanes_and_a_held_hook_holds_up_no_other(fabric: Fabric) -> None:
    wakes, gate = await hooked(fabric, "slow", "quick")
    gate.held["slow"] = asyncio.Event()
    for agent in ("slow", "quick"):
        await fabric.mailboxes.send(mail(agent))
    await wakes.fire_due()
    result = await fabric.outbox.drain_once(wait_wakes=False)  # returns while slow's send is held
    assert len(result.claimed) == 2
    await gate.started["slow"].wait()
    await settled(fabric, 1)  # quick's lane finishes (sent and settled) while slow's send is held
    assert [key.split(":")[1] for key in gate.sent] == ["quick"]
    assert [r.key.split(":")[1] for r in await wake_rows(fabric, RowState.DELIVERED)] == ["quick"]
    gate.held["slow"].set()
    await settled(fabric, 0)
    assert len(gate.sent) == 2 and len(await wake_rows(fabric, RowState.DELIVERED)) == 2


async def settled(fabric: Fabric, sending: int) -> None:
    """Until this many wake sends are under way (lanes settle on their own, through the store's writer)."""
    for _ in range(5000):
        if fabric.outbox.sending() == sending:
            return
        await asyncio.sleep(0.002)
    raise AssertionError(f"{fabric.outbox.sending()} wake sends under way, not {sending}")


async def test_a_hook_sends_one_wake_at_a_time_and_keeps_one_more_waiting_with_the_latest_counts(
        fabric: Fabric) -> None:
    wakes, gate = await hooked(fabric, "alice")
    await fabric.mailboxes.send(mail("alice"))
    await wakes.fire_due()
    policy = RetryPolicy(lease_s=15)
    (first, _), = (await fabric.store.outbox.deliver_due(64, policy, 0)).claimed  # being sent
    for i in range(5):  # each arrival fires (quiet period 0); all go into one waiting row
        await fabric.mailboxes.send(mail("alice", f"more {i}"))
        await wakes.fire_due()
    pending = await wake_rows(fabric, RowState.PENDING)
    assert len(pending) == 2 and (await wakes.get("alice")).fires == 2
    (waiting,) = [r for r in pending if r.key != first.key]
    assert json.loads(waiting.content)["unread"] == 6
    assert (await fabric.store.outbox.deliver_due(64, policy, 0)).claimed == ()  # the hook is sending
    assert await fabric.store.outbox.settle_wake(first.key, None, policy)
    (again, _), = (await fabric.store.outbox.deliver_due(64, policy, 0)).claimed  # due at once after the send
    assert again.key == waiting.key


async def test_a_failure_backs_the_hook_off_and_a_success_resets_it(make_fabric: MakeFabric) -> None:
    fabric = await make_fabric(policy=RetryPolicy(base_s=4, jitter=0))
    wakes, gate = await hooked(fabric, "alice")
    gate.failing.add("alice")
    await fabric.mailboxes.send(mail("alice"))
    await wakes.fire_due()
    await fabric.outbox.drain_once()
    hook = await wakes.get("alice")
    assert (hook.failures, hook.retry_ns, wakes.state(hook)) == (1, fabric.clock.now + 4 * 10**9, "BACKING_OFF")
    assert hook.last_error == "WAKE_DELIVERY_FAILED: HTTP 503"
    (row,) = await wake_rows(fabric, RowState.PENDING)
    assert row.next_attempt_ns == hook.retry_ns
    await fabric.mailboxes.send(mail("alice", "more"))
    await wakes.fire_due()
    assert [r.key for r in await wake_rows(fabric, RowState.PENDING)] == [row.key]  # rewritten, not added
    fabric.clock.advance(4)
    await fabric.outbox.drain_once()  # fails again: the wait doubles
    hook = await wakes.get("alice")
    assert (hook.failures, hook.retry_ns) == (2, fabric.clock.now + 8 * 10**9)
    gate.failing.clear()
    fabric.clock.advance(8)
    await fabric.outbox.drain_once()
    hook = await wakes.get("alice")
    assert (hook.failures, hook.retry_ns, hook.last_error, wakes.state(hook)) == (0, 0, "", "ACTIVE")
    assert gate.sent == [row.key]


async def test_a_hook_failing_disable_after_times_in_a_row_is_disabled_its_owner_told_and_fires_no_more(
        make_fabric: MakeFabric) -> None:
    fabric = await make_fabric(policy=RetryPolicy(base_s=1, jitter=0, disable_after=3))
    wakes, gate = await hooked(fabric, "alice")
    gate.failing.add("alice")
    await fabric.mailboxes.send(mail("alice", "work"))
    await wakes.fire_due()
    for _ in range(3):
        await fabric.outbox.drain_once()
        fabric.clock.advance(10)
    hook = await wakes.get("alice")
    assert hook.disabled and wakes.state(hook) == "DISABLED" and hook.failures == 3
    (receipt,) = await wake_rows(fabric)
    assert receipt.state == RowState.DELIVERED and receipt.last_error.startswith(
        "not sent: the hook was disabled after 3 failed sends in a row (WAKE_DELIVERY_FAILED: HTTP 503)")
    envelopes, _ = await fabric.mailboxes.peek("alice", 10)
    work, notice = decoded(envelopes)
    assert notice.sender.agent_id == "fabricd" and notice.headers == {"fabricd-wake": "disabled"}
    assert "failed 3 times in a row and is disabled" in notice.text
    await fabric.mailboxes.send(mail("alice", "more"))
    await wakes.fire_due()
    assert len(await wake_rows(fabric)) == 1 and not (await wakes.get("alice")).armed  # nothing made
    await wakes.set("alice", url=URL, quiet_ns=0)  # set again: enabled
    assert wakes.state(await wakes.get("alice")) == "ACTIVE"
