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
from fabricd.store.lmdb.engine import LmdbEngine
from fabricd.store.lmdb.tx import LmdbTx


@pytest.fixture
async def engine(tmp_path) -> AsyncIterator[LmdbEngine]:  # noqa: ANN001
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


async def texts(engine: LmdbEngine) -> list[str]:
    return await engine.read(lambda tx: [records.decode_message(e.encoded).text for e in tx.unread("box", 0, 10)])


async def test_a_lone_write_while_quiet_commits_on_the_loop_thread_before_it_returns(engine: LmdbEngine,
                                                                                     tmp_path) -> None:  # noqa: ANN001
    engine.quiet = lambda: True
    wakeups = engine._wakeups  # noqa: SLF001
    seen = wakeups.version("box")
    threads: list[str] = []
    await engine.write(send("hello", threads))
    assert threads == [threading.current_thread().name]
    assert engine.commits_here == 1 and engine.commits == 1
    assert wakeups.version("box") != seen  # its wake-up went out before the caller was answered
    assert await texts(engine) == ["hello"]
    await engine.close()
    reopened = LmdbEngine(str(tmp_path / "data"), map_size=1 << 26)
    try:
        assert await texts(reopened) == ["hello"]
    finally:
        await reopened.close()


async def test_writes_go_to_the_writer_thread_while_the_daemon_is_busy(engine: LmdbEngine) -> None:
    engine.quiet = lambda: False
    threads: list[str] = []
    await engine.write(send("one", threads))
    assert threads == ["fabricd-writer"] and engine.commits_here == 0
    assert await texts(engine) == ["one"]


async def test_a_quiet_write_never_jumps_writes_already_waiting_for_the_writer(engine: LmdbEngine) -> None:
    answers = iter([False, True])
    engine.quiet = lambda: next(answers)
    threads: list[str] = []
    await asyncio.gather(engine.write(send("first", threads)), engine.write(send("second", threads)))
    assert threads == ["fabricd-writer", "fabricd-writer"]
    assert engine.commits == 1 and engine.commits_here == 0  # one batch, in arrival order
    assert await texts(engine) == ["first", "second"]


async def test_a_refused_write_on_the_loop_thread_raises_and_stores_nothing(engine: LmdbEngine) -> None:
    engine.quiet = lambda: True

    def refused(tx: LmdbTx) -> None:
        send("never")(tx)
        raise InvalidArgument("no", reason="MALFORMED_REQUEST")

    with pytest.raises(InvalidArgument):
        await engine.write(refused)
    assert await texts(engine) == []
    await engine.write(send("after"))
    assert await texts(engine) == ["after"] and engine.commits_here == 2
