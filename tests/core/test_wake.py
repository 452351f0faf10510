"""Wake hooks' rules on every store: arming, the quiet period, idleness, and delivery as outbox rows."""

from __future__ import annotations

import json

import pytest

from fabricd.core import wake
from fabricd.core.errors import FabricError, FailedPrecondition, InvalidArgument, NotFound
from fabricd.core.model import OutboxRow, RowState
from fabricd.core.outbox import RetryPolicy
from fabricd.core.rendezvous import TicketRequest
from fabricd.core.wake import WakeHook, Wakes
from tests.core.conftest import Fabric, MakeFabric, mail

URL = "http://127.0.0.1:9/wake"


class Sender:
    """Records each wake; fails while `failing`."""

    def __init__(self) -> None:
        self.sent: list[tuple[OutboxRow, WakeHook]] = []
        self.failing = False

    async def __call__(self, row: OutboxRow, hook: WakeHook) -> None:
        if self.failing:
            raise FabricError("HTTP 503", reason="WAKE_DELIVERY_FAILED")
        self.sent.append((row, hook))


def wakes_of(fabric: Fabric, streaming: set[str] | None = None) -> tuple[Wakes, Sender]:
    sender = Sender()
    fabric.outbox.send_wake = sender
    return Wakes(fabric.store, fabric.mailboxes.limits, fabric.clock,
                 streaming=lambda a: a in (streaming or set())), sender


async def fire_and_send(fabric: Fabric, wakes: Wakes) -> int | None:
    due = await wakes.fire_due()
    await fabric.outbox.drain_once()
    return due


async def test_a_burst_fires_once_and_new_work_fires_again_only_after_the_quiet_period(fabric: Fabric) -> None:
    wakes, sender = wakes_of(fabric)
    await fabric.directory.register("alice")
    await wakes.set("alice", url=URL, quiet_ns=10 * 10**9)
    for i in range(1000):
        await fabric.mailboxes.send(mail("alice", f"m{i}"))
    await fire_and_send(fabric, wakes)
    (row, hook), = sender.sent
    body = json.loads(row.content)
    assert body == {"agent_id": "alice", "session_name": "", "reason": "mail", "unread": 1000, "queued_tickets": 0,
                    "first_message_id": body["first_message_id"], "ticket_id": ""}
    assert body["first_message_id"] and hook.url == URL
    assert await fire_and_send(fabric, wakes) is None and len(sender.sent) == 1  # nothing new: nothing armed
    await fabric.mailboxes.send(mail("alice", "later"))
    due = await fire_and_send(fabric, wakes)
    assert due == fabric.clock.now + 10 * 10**9 and len(sender.sent) == 1  # armed, held by the quiet period
    fabric.clock.advance(10)
    await fire_and_send(fabric, wakes)
    assert len(sender.sent) == 2 and (await wakes.get("alice")).fires == 2


async def test_no_wake_while_subscribed_or_busy_or_when_nothing_waits_any_more(fabric: Fabric) -> None:
    wakes, sender = wakes_of(fabric, streaming={"sub"})
    for agent in ("sub", "busy", "done"):
        await fabric.directory.register(agent)
        await wakes.set(agent, url=URL)
        await fabric.mailboxes.send(mail(agent))
    await fabric.directory.touch("busy", busy=True, offline=False)
    await fabric.mailboxes.drain("done", 10)
    await fire_and_send(fabric, wakes)
    assert sender.sent == []
    for agent in ("sub", "busy", "done"):
        assert not (await wakes.get(agent)).armed  # decided, disarmed: the mail reached them another way


async def test_an_always_hook_fires_while_subscribed(fabric: Fabric) -> None:
    wakes, sender = wakes_of(fabric, streaming={"sub"})
    await fabric.directory.register("sub")
    await wakes.set("sub", url=URL, only_when_idle=False)
    await fabric.mailboxes.send(mail("sub"))
    await fire_and_send(fabric, wakes)
    assert len(sender.sent) == 1


async def test_a_ticket_wakes_with_its_id(fabric: Fabric) -> None:
    wakes, sender = wakes_of(fabric)
    await fabric.directory.register("bob")
    await wakes.set("bob", command=("/bin/true",))
    ticket, _ = await fabric.rendezvous.enqueue(TicketRequest(target="bob", task="do it"))
    await fire_and_send(fabric, wakes)
    body = json.loads(sender.sent[0][0].content)
    assert (body["reason"], body["ticket_id"], body["queued_tickets"]) == ("ticket", ticket.ticket_id, 1)


async def test_a_failed_wake_is_retried_with_back_off_then_delivered_once_with_a_receipt(
        make_fabric: MakeFabric) -> None:
    fabric = await make_fabric(policy=RetryPolicy(base_s=5, jitter=0))
    wakes, sender = wakes_of(fabric)
    await fabric.directory.register("alice")
    await wakes.set("alice", url=URL)
    await fabric.mailboxes.send(mail("alice"))
    sender.failing = True
    await fire_and_send(fabric, wakes)
    (row,) = await fabric.store.outbox.rows("", 10, RowState.UNSPECIFIED)
    assert (row.state, row.attempts, row.last_error) == (RowState.PENDING, 1, "WAKE_DELIVERY_FAILED: HTTP 503")
    assert row.next_attempt_ns == fabric.clock.now + 5 * 10**9
    sender.failing = False
    await fabric.outbox.drain_once()
    assert sender.sent == []  # not due yet
    fabric.clock.advance(5)
    await fabric.outbox.drain_once()
    await fabric.outbox.drain_once()
    (receipt,) = await fabric.store.outbox.rows("", 10, RowState.UNSPECIFIED)
    assert (receipt.state, receipt.attempts, len(sender.sent)) == (RowState.DELIVERED, 2, 1)


async def test_a_claimed_wake_is_not_claimed_again_until_its_lease_ends(fabric: Fabric) -> None:
    wakes, _ = wakes_of(fabric)
    await fabric.directory.register("alice")
    await wakes.set("alice", url=URL)
    await fabric.mailboxes.send(mail("alice"))
    await wakes.fire_due()
    policy = RetryPolicy(lease_s=15)
    first = await fabric.store.outbox.deliver_due(64, policy, 0)  # claimed; its sender "died"
    assert len(first.claimed) == 1
    fabric.clock.advance(14.9)
    assert (await fabric.store.outbox.deliver_due(64, policy, 0)).claimed == ()
    fabric.clock.advance(0.1)
    again = await fabric.store.outbox.deliver_due(64, policy, 0)
    assert [r.key for r, _ in again.claimed] == [r.key for r, _ in first.claimed]  # the same wake, not a new one


async def test_hooks_are_checked_and_a_refusal_stores_nothing(fabric: Fabric) -> None:
    wakes, _ = wakes_of(fabric)
    await fabric.directory.register("alice")
    cases = [({"url": "ftp://host/x"}, "WAKE_URL_INVALID"), ({"url": "http:///x"}, "WAKE_URL_INVALID"),
             ({"url": "http://u:p@host/"}, "WAKE_URL_INVALID"), ({"url": "http://h/" + "x" * 3000}, "WAKE_URL_INVALID"),
             ({"command": ("",)}, "WAKE_COMMAND_INVALID"), ({"command": ("a",) * 65}, "WAKE_COMMAND_INVALID"),
             ({"command": ("a\0b",)}, "WAKE_COMMAND_INVALID"),
             ({"url": URL, "command": ("x",)}, "WAKE_HOOK_AMBIGUOUS"),
             ({"url": URL, "quiet_ns": -1}, "WAKE_QUIET_PERIOD_OUT_OF_RANGE"),
             ({"url": URL, "quiet_ns": 86401 * 10**9}, "WAKE_QUIET_PERIOD_OUT_OF_RANGE")]
    for kwargs, reason in cases:
        with pytest.raises(InvalidArgument) as err:
            await wakes.set("alice", **kwargs)
        assert err.value.reason == reason, kwargs
    with pytest.raises(NotFound) as missing:
        await wakes.set("nobody", url=URL)
    assert missing.value.reason == "NAME_NOT_FOUND"
    wakes.allow_commands = False
    with pytest.raises(FailedPrecondition) as disabled:
        await wakes.set("alice", command=("/bin/true",))
    assert disabled.value.reason == "WAKE_COMMANDS_DISABLED"
    assert await wakes.get("alice") is None


async def test_setting_returns_a_secret_the_signature_uses_and_an_empty_hook_removes_it(fabric: Fabric) -> None:
    wakes, _ = wakes_of(fabric)
    await fabric.directory.register("alice")
    hook = await wakes.set("alice", url=URL)
    assert len(hook.secret) == 64 and hook.quiet_ns == wake.DEFAULT_QUIET_NS and hook.only_when_idle
    assert wake.signature(hook.secret, b"{}") != wake.signature(wake.new_secret(), b"{}")
    assert (await wakes.set("alice", url=URL)).secret != hook.secret  # set again: a new secret
    assert await wakes.set("alice") is None and await wakes.get("alice") is None
    await wakes.set("alice", url=URL)
    await fabric.directory.unregister("alice", purge=False)
    assert await wakes.get("alice") is None  # the hook went with the mailbox


def test_the_stored_form_round_trips_and_keeps_fields_it_does_not_know() -> None:
    hook = WakeHook("a", command=("x", "y"), armed_ns=5, reason="ticket", ticket_id="t")
    again = wake.decode(wake.encode(hook))
    assert again == hook
    newer = json.loads(wake.encode(hook))
    newer["from_the_future"] = 1
    assert wake.decode(json.dumps(newer)).extra == {"from_the_future": 1}


async def test_a_wake_whose_hook_was_removed_is_settled_unsent(fabric: Fabric) -> None:
    wakes, sender = wakes_of(fabric)
    await fabric.directory.register("alice")
    await wakes.set("alice", url=URL)
    await fabric.mailboxes.send(mail("alice"))
    await wakes.fire_due()
    await wakes.set("alice")  # removed between the fire and the delivery
    await fabric.outbox.drain_once()
    (receipt,) = await fabric.store.outbox.rows("", 10, RowState.UNSPECIFIED)
    assert (receipt.state, receipt.last_error, sender.sent) == (RowState.DELIVERED, "not sent: the hook was removed", [])
