"""Pure rules of the core, without storage or network."""

from __future__ import annotations

import asyncio

import pytest

from fabricd.core import validate
from fabricd.core.errors import InvalidArgument, ResourceExhausted
from fabricd.core.ids import IdMint, message_digest
from fabricd.core.limits import Limits
from fabricd.core.model import Address, MailboxEntry, Message, Presence, presence
from fabricd.core.notify import LocalWakeups

MINUTE = 60 * 10**9


def test_presence_follows_the_agents_last_activity() -> None:
    now = 100 * MINUTE
    window = 15 * MINUTE
    assert presence(MailboxEntry("a"), now, window) == Presence.OFFLINE  # never active: a mail-only mailbox
    assert presence(MailboxEntry("a", last_activity_ns=now - 14 * MINUTE), now, window) == Presence.LIVE
    assert presence(MailboxEntry("a", last_activity_ns=now - 16 * MINUTE), now, window) == Presence.OFFLINE
    assert presence(MailboxEntry("a", busy=True, last_activity_ns=now), now, window) == Presence.BUSY
    # a busy agent that went quiet is offline, not busy forever
    assert presence(MailboxEntry("a", busy=True, last_activity_ns=now - 16 * MINUTE), now, window) == Presence.OFFLINE


def test_minted_ids_are_unique_and_sort_by_minting_order() -> None:
    mint = IdMint()
    ids = [mint.mint(1_700_000_000_000_000_000) for _ in range(1000)]
    ids += [mint.mint(1_700_000_000_001_000_000) for _ in range(1000)]
    assert len(set(ids)) == 2000
    assert ids == sorted(ids)
    assert all(len(i) == 26 for i in ids)


def test_a_clock_step_back_does_not_break_id_order() -> None:
    mint = IdMint()
    a = mint.mint(2_000_000_000_000_000_000)
    b = mint.mint(1_000_000_000_000_000_000)
    assert b > a


def test_digest_tells_bodies_apart() -> None:
    base = dict(sender=("a", ""), recipient=("", ""), reply_to=(), thread_id="", text="hi", data=b"", headers={},
                kind=1, hops=0, ticket_id="")
    assert message_digest(**base) == message_digest(**base)
    assert message_digest(**base) != message_digest(**{**base, "text": "hi!"})
    assert message_digest(**base) != message_digest(**{**base, "headers": {"k": "v"}})


def test_limit_zero_means_default_and_too_high_is_refused() -> None:
    limits = Limits()
    assert validate.limit(0, limits) == limits.default_limit
    assert validate.limit(1000, limits) == 1000
    with pytest.raises(InvalidArgument):
        validate.limit(1001, limits)


def test_ids_are_1_to_256_printable_characters() -> None:
    limits = Limits()
    assert validate.agent_id("é" * 256, limits)
    for bad in ("", "x" * 257, "a\x00b", "new\nline"):
        with pytest.raises(InvalidArgument):
            validate.agent_id(bad, limits)


def test_message_size_counts_text_data_and_headers() -> None:
    limits = Limits(max_message_bytes=10)
    validate.message(Message(recipient=Address("a"), text="12345", data=b"12345"), limits)
    with pytest.raises(ResourceExhausted):
        validate.message(Message(recipient=Address("a"), text="12345", data=b"12345", headers={"k": ""}), limits)


async def test_notifier_never_misses_a_change_between_read_and_wait() -> None:
    n = LocalWakeups()
    seen = n.version("k")
    n.notify("k")  # lands after the read, before the wait
    assert await n.wait("k", seen, timeout=5)


async def test_notifier_wakes_waiters_and_times_out() -> None:
    n = LocalWakeups()
    waiter = asyncio.ensure_future(n.wait("k", n.version("k"), timeout=5))
    await asyncio.sleep(0)
    assert n.waiter_count() == 1
    n.notify("k")
    assert await waiter
    assert n.waiter_count() == 0
    assert not await n.wait("k", n.version("k"), timeout=0.01)
    assert n.waiter_count() == 0


async def test_a_woken_waiter_resumes_on_the_very_next_turn_of_the_loop() -> None:
    n = LocalWakeups()
    resumed: list[bool] = []

    async def waiter() -> None:
        resumed.append(await n.wait("k", n.version("k"), timeout=5))

    task = asyncio.create_task(waiter())
    await asyncio.sleep(0)
    assert n.waiter_count() == 1
    n.notify("k")
    await asyncio.sleep(0)  # one turn: an ask round trip pays this twice, so no hop through another future
    assert resumed == [True]
    await task


async def test_a_cancelled_or_closed_waiter_leaves_no_waiter_behind() -> None:
    n = LocalWakeups()
    cancelled = asyncio.ensure_future(n.wait("k", n.version("k"), timeout=5))
    closed = asyncio.ensure_future(n.wait("j", n.version("j"), timeout=None))
    await asyncio.sleep(0)
    assert n.waiter_count() == 2
    cancelled.cancel()
    with pytest.raises(asyncio.CancelledError):
        await cancelled
    assert n.waiter_count() == 1
    n.close()
    assert await closed is False  # woken by the close: False, as for a timeout
    assert n.waiter_count() == 0
    assert not await n.wait("k", n.version("k"), timeout=5)  # closed: no wait at all
