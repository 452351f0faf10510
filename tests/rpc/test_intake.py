"""The intake's byte budget: untrusted reads wait for room in arrival order, a quarter per identity, none lost."""

from __future__ import annotations

import asyncio

import pytest

from fabricd.rpc.auth import LOCAL, Identity
from fabricd.rpc.intake import Intake

ALICE = Identity("agent", "alice", "tok-a")
BOB = Identity("agent", "bob", "tok-b")
CAROL = Identity("agent", "carol", "tok-c")


def intake(frame: int = 10, total: int = 40) -> Intake:
    return Intake(frame, lambda: total, trim_after=1 << 62)


async def test_trusted_callers_are_not_held_back() -> None:
    gate = intake()
    assert await gate.reserve(LOCAL) is None and await gate.reserve(Identity("admin", "", "t")) is None
    assert gate.held == 0


async def test_one_identity_reads_a_quarter_of_the_budget_at_once_and_others_pass_it() -> None:
    gate = intake(frame=10, total=40)
    first = await gate.reserve(ALICE)
    second = asyncio.ensure_future(gate.reserve(ALICE))
    bob = await gate.reserve(BOB)  # alice's second read waits for her first; bob's does not
    await asyncio.sleep(0)
    assert not second.done() and gate.held == 20
    first.shrink(3)  # alice's request was 3 bytes: 7 of her share are back, not enough for a whole frame
    await asyncio.sleep(0)
    assert not second.done() and gate.held == 13
    first.release()
    assert (await second).size == 10 and gate.held == 20
    bob.release()
    (await second).release()
    assert gate.held == 0


async def test_reads_wait_for_room_in_arrival_order_and_a_cancelled_wait_gives_nothing_away() -> None:
    gate = intake(frame=10, total=20)  # a quarter is 5: each identity reads 5 bytes at a time
    held = [await gate.reserve(ALICE), await gate.reserve(BOB)]
    assert [r.size for r in held] == [5, 5]
    more = [await gate.reserve(Identity("agent", f"a{i}", f"t{i}")) for i in range(2)]
    waiting = asyncio.ensure_future(gate.reserve(CAROL))
    cancelled = asyncio.ensure_future(gate.reserve(Identity("agent", "dave", "tok-d")))
    await asyncio.sleep(0)
    assert not waiting.done() and gate.held == 20
    cancelled.cancel()
    with pytest.raises(asyncio.CancelledError):
        await cancelled
    held[0].release()
    assert (await waiting).size == 5 and gate.held == 20
    for r in (*held, *more, await waiting):
        r.release()
    assert gate.held == 0


async def test_memory_is_trimmed_once_enough_was_read_and_no_read_is_reserved() -> None:
    gate = Intake(10, lambda: 40, trim_after=100)
    trims: list[int] = []
    gate._trim = lambda: trims.append(1)  # count the calls instead of trimming this test's process
    reservation = await gate.reserve(ALICE)
    gate.read(150)
    gate.ended()  # alice's read is still reserved
    await asyncio.sleep(0)
    assert trims == []
    reservation.release()
    gate.ended()
    await asyncio.sleep(0)
    assert trims == [1] and gate.read_since_trim == 0
