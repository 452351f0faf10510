"""A drain consumes only what its caller can still receive."""

from __future__ import annotations

import asyncio

import pytest

from fabricd.core.errors import DeadlineExceeded
from fabricd.core.limits import Limits
from fabricd.core.mailbox import DELIVERY_MARGIN_S, Mailboxes
from fabricd.core.quota import Usage
from tests.core.conftest import Fabric, decoded, mail, texts


async def _mailbox_of_three(fabric: Fabric) -> None:
    await fabric.directory.register("bob")
    for i in range(3):
        await fabric.mailboxes.send(mail("bob", f"m{i}", sender="alice"))


async def test_a_drain_without_time_to_answer_consumes_nothing(fabric: Fabric) -> None:
    await _mailbox_of_three(fabric)
    with pytest.raises(DeadlineExceeded) as err:
        await fabric.mailboxes.drain("bob", 10, time_remaining=DELIVERY_MARGIN_S / 2)
    assert err.value.reason == "UNDELIVERABLE_DRAIN"
    assert texts((await fabric.mailboxes.peek("bob", 10))[0]) == ["m0", "m1", "m2"]
    drained, remaining = await fabric.mailboxes.drain("bob", 2, time_remaining=5.0)
    assert texts(drained) == ["m0", "m1"] and remaining == 1


async def test_a_drain_whose_caller_leaves_before_its_write_runs_consumes_nothing(fabric: Fabric) -> None:
    await _mailbox_of_three(fabric)
    port = fabric.store.mailboxes
    busy, started = asyncio.Event(), asyncio.Event()
    taken: list[int] = []

    class BusyWriter:
        """The port, with a drain that waits for the writer (busy with someone else's work) before it runs."""

        def __getattr__(self, name: str):  # noqa: ANN204
            return getattr(port, name)

        async def drain(self, *args, **kwargs):  # noqa: ANN002, ANN003, ANN202
            started.set()
            await busy.wait()
            out = await port.drain(*args, **kwargs)
            taken.append(len(out[0]))
            return out

    fabric.store.mailboxes = BusyWriter()  # type: ignore[assignment]
    drain = asyncio.ensure_future(fabric.mailboxes.drain("bob", 10))
    await started.wait()
    drain.cancel()
    with pytest.raises(asyncio.CancelledError):
        await drain
    busy.set()  # the write runs now, its caller gone
    await asyncio.gather(*fabric.mailboxes._background)
    fabric.store.mailboxes = port
    assert taken == [0]  # the write asked whether its caller could still receive: no, so it took nothing
    assert (await fabric.mailboxes.peek("bob", 10))[1] == 3
    assert texts((await fabric.mailboxes.drain("bob", 10))[0]) == ["m0", "m1", "m2"]


async def _drain_held_after_its_commit(fabric: Fabric) -> tuple[object, asyncio.Event, asyncio.Future]:
    """Start a drain of 2 of bob's mail whose write has committed but whose fsync is slow: (the real port, the
    event that lets the fsync end, the drain); returns once the store consumed the messages."""
    port = fabric.store.mailboxes
    durable, committed = asyncio.Event(), asyncio.Event()

    class SlowCommit:
        """The port, with a drain that consumes and then waits for a slow fsync."""

        def __getattr__(self, name: str):  # noqa: ANN204
            return getattr(port, name)

        async def drain(self, *args, **kwargs):  # noqa: ANN002, ANN003, ANN202
            out = await port.drain(*args, **kwargs)
            committed.set()
            await durable.wait()
            return out

    fabric.store.mailboxes = SlowCommit()  # type: ignore[assignment]
    drain = asyncio.ensure_future(fabric.mailboxes.drain("bob", 2))
    await committed.wait()
    return port, durable, drain


async def test_a_drain_whose_caller_leaves_while_its_write_commits_puts_the_messages_back(fabric: Fabric) -> None:
    await _mailbox_of_three(fabric)
    charged = await fabric.store.mailboxes.usage("alice")
    assert charged.unread_messages == 3
    port, durable, drain = await _drain_held_after_its_commit(fabric)
    assert (await fabric.mailboxes.peek("bob", 10))[1] == 1  # consumed in the store, the caller not answered
    drain.cancel()
    with pytest.raises(asyncio.CancelledError):
        await drain
    fabric.store.mailboxes = port
    durable.set()
    while (await fabric.mailboxes.peek("bob", 10))[1] != 3:
        await asyncio.sleep(0.001)
    assert texts((await fabric.mailboxes.peek("bob", 10))[0]) == ["m0", "m1", "m2"]  # back in their places
    assert await fabric.store.mailboxes.usage("alice") == charged  # charged again, exactly
    messages, _ = await fabric.mailboxes.peek("bob", 10)
    assert await fabric.mailboxes.ack("bob", [m.id for m in decoded(messages)]) == 3
    assert await fabric.store.mailboxes.usage("alice") == Usage()


async def test_a_drain_whose_mailbox_is_removed_and_made_again_while_it_commits_puts_nothing_back(
        fabric: Fabric) -> None:
    await _mailbox_of_three(fabric)
    port, durable, drain = await _drain_held_after_its_commit(fabric)
    fabric.store.mailboxes = port
    await fabric.directory.unregister("bob", purge=True)
    await fabric.directory.register("bob")
    await fabric.mailboxes.send(mail("bob", "new"))
    drain.cancel()
    with pytest.raises(asyncio.CancelledError):
        await drain
    durable.set()
    await asyncio.gather(*fabric.mailboxes._background)
    unread, count = await fabric.mailboxes.peek("bob", 10)
    assert (texts(unread), count) == (["new"], 1)  # m0 and m1 were the removed mailbox's


async def test_a_drains_byte_budget_holds_exactly_the_messages_it_returns(fabric: Fabric) -> None:
    """The budget counts each message as it is returned (its stored encoding), the same on every store: a
    budget of exactly two messages takes two, one byte less takes one (never none)."""
    for i, fits in enumerate((0, -1, None)):
        name = f"b{i}"
        await fabric.directory.register(name)
        for text in ("m0", "m1", "m2"):
            await fabric.mailboxes.send(mail(name, text))
        first, second = (await fabric.mailboxes.peek(name, 2))[0]
        budget = 1 if fits is None else len(first.encoded) + len(second.encoded) + fits
        reader = Mailboxes(fabric.store, Limits(max_response_bytes=budget), fabric.clock)
        drained, remaining = await reader.drain(name, 10)
        taken = ["m0", "m1"] if fits == 0 else ["m0"]
        assert (texts(drained), remaining) == (taken, 3 - len(taken)), budget
