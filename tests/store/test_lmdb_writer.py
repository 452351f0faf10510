"""LMDB's writer (fabricd.store.lmdb.engine): a lone write while the daemon is quiet commits on the loop thread,
with the same promises as the writer thread's group commit; anything else queues for the writer."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable

import pytest

from fabricd.core.errors import InvalidArgument
from fabricd.core.kv import mailbox
from fabricd.core.model import Address, Message
from fabricd.core.notify import LocalWakeups
from fabricd.store.lmdb import records
from fabricd.store.lmdb.engine import ALONE_BEFORE_HERE, LmdbEngine
from fabricd.store.lmdb.tx import LmdbTx


@pytest.fixture
async def engine(tmp_path) -> AsyncIterator[LmdbEngine]:
    e = LmdbEngine(str(tmp_path / "data"), map_size=1 << 26, wakeups=LocalWakeups())
    await e.start()
    yield e
    await e.close()


def send(text: str, threads: list[str] | None = None) -> Callable[[LmdbTx], object]:
    """A write storing one message to "box" (noting the thread that applies it) and waking "box"."""
    msg = Message(sender=Address("a"), recipient=Address("box"), text=text)

    def fn(tx: LmdbTx) -> object:
        if threads is not None:
            threads.append(threading.current_thread().name)
        tx.wake("box")
        return mailbox.store(tx, 1, lambda now: f"id-{text}", msg, b"", True, 0)

    return fn


async def settle(engine: LmdbEngine) -> None:
    """Lone writes until the writer has committed one write at a time long enough (ALONE_BEFORE_HERE)."""
    for i in range(ALONE_BEFORE_HERE):
        await engine.write(send(f"settle {i}"))


async def texts(engine: LmdbEngine) -> list[str]:
    return await engine.read(lambda tx: [records.decode_message(e.encoded).text for e in tx.unread("box", 0, 10)])


async def test_a_lone_write_while_quiet_commits_on_the_loop_thread_before_it_returns(engine: LmdbEngine,
                                                                                     tmp_path) -> None:
    engine.quiet = lambda: True
    await settle(engine)
    wakeups = engine._wakeups
    seen = wakeups.version("box")
    threads: list[str] = []
    await engine.write(send("hello", threads))
    assert threads == [threading.current_thread().name]
    assert engine.commits_here == 1 and engine.commits == ALONE_BEFORE_HERE + 1
    assert wakeups.version("box") != seen  # its wake-up went out before the caller was answered
    assert (await texts(engine))[-1] == "hello"
    await engine.close()
    reopened = LmdbEngine(str(tmp_path / "data"), map_size=1 << 26)
    try:
        assert (await texts(reopened))[-1] == "hello"
    finally:
        await reopened.close()


async def test_writes_go_to_the_writer_thread_while_the_daemon_is_busy(engine: LmdbEngine) -> None:
    await settle(engine)
    engine.quiet = lambda: False
    threads: list[str] = []
    await engine.write(send("one", threads))
    assert threads == ["fabricd-writer"] and engine.commits_here == 0


async def test_a_quiet_write_never_jumps_writes_already_waiting_for_the_writer(engine: LmdbEngine) -> None:
    await settle(engine)
    answers = iter([False, True])
    engine.quiet = lambda: next(answers)
    threads: list[str] = []
    await asyncio.gather(engine.write(send("first", threads)), engine.write(send("second", threads)))
    assert threads == ["fabricd-writer", "fabricd-writer"]
    assert engine.commits == ALONE_BEFORE_HERE + 1 and engine.commits_here == 0  # one batch, in arrival order
    assert (await texts(engine))[-2:] == ["first", "second"]


async def test_after_a_batch_of_several_writes_stay_on_the_writer_until_lone_commits_follow(
        engine: LmdbEngine) -> None:
    engine.quiet = lambda: False
    await asyncio.gather(engine.write(send("a")), engine.write(send("b")))  # one batch of two
    engine.quiet = lambda: True
    threads: list[str] = []
    for i in range(ALONE_BEFORE_HERE + 1):
        await engine.write(send(f"lone {i}", threads))
    assert threads == ["fabricd-writer"] * ALONE_BEFORE_HERE + [threading.current_thread().name]


async def test_a_refused_write_on_the_loop_thread_raises_and_stores_nothing(engine: LmdbEngine) -> None:
    engine.quiet = lambda: True
    await settle(engine)

    def refused(tx: LmdbTx) -> None:
        send("never")(tx)
        raise InvalidArgument("no", reason="MALFORMED_REQUEST")

    with pytest.raises(InvalidArgument):
        await engine.write(refused)
    assert "never" not in await texts(engine) and engine.commits_here == 1
    await engine.write(send("after"))
    assert (await texts(engine))[-1] == "after" and engine.commits_here == 2
