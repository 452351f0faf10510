"""A sender stream's pipeline (fabricd.core.pipeline): frames in order, read no further ahead than its window."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from fabricd.core.errors import NotFound
from fabricd.core.pipeline import AckOp, Op, Pipeline, SendOp
from tests.core.conftest import Fabric, mail, texts


async def test_a_pipeline_reads_no_further_ahead_than_its_window_of_frames_and_bytes(fabric: Fabric) -> None:
    await fabric.directory.register("box")
    for window, window_bytes, size, bound in ((4, 1 << 20, 10, 4), (100, 1000, 400, 3)):
        pulled = 0

        async def frames(size: int = size, window: int = window) -> AsyncIterator[tuple[int, Op, int]]:
            nonlocal pulled
            for i in range(1, 11):
                pulled += 1
                yield i, SendOp([mail("box", f"m{i}", id=f"{window}-{i}")]), size

        pipeline = Pipeline(fabric.mailboxes, fabric.rendezvous, agent_token=False, window=window,
                            window_bytes=window_bytes)
        results = pipeline.run(frames())
        first = await anext(results)  # held at this yield: nothing answered is released
        for _ in range(50):  # turns for a reader that would read past its window
            await asyncio.sleep(0)
        assert first[0] == 1 and pulled <= bound, (window, window_bytes, pulled)
        rest = [seq async for seq, _ in results]
        assert rest == list(range(2, 11)) and pulled == 10


async def test_a_pipeline_answers_each_frame_in_order_with_its_own_result_or_error(fabric: Fabric) -> None:
    await fabric.directory.register("box")

    async def frames() -> AsyncIterator[tuple[int, Op, int]]:
        yield 1, SendOp([mail("box", "a", id="a")]), 1
        yield 2, SendOp([mail("nobody", "lost")]), 1
        yield 3, SendOp([mail("box", "b"), mail("box", "c")], single=False), 1
        yield 4, AckOp("box", ["a"]), 1

    answers = dict([item async for item in Pipeline(fabric.mailboxes, fabric.rendezvous, agent_token=False).run(
        frames())])
    assert answers[1].message.id == "a" and isinstance(answers[2], NotFound)
    assert [s.message.text for s in answers[3]] == ["b", "c"] and answers[4] == 1
    messages, _ = await fabric.mailboxes.peek("box", 10)
    assert texts(messages) == ["b", "c"]  # the frames' order; "a" acked


async def test_a_step_that_fails_with_no_fabric_error_ends_the_stream_instead_of_leaving_it_waiting(
        fabric: Fabric, monkeypatch) -> None:
    """As a unary call would end INTERNAL: a bug or a broken store must not leave the frames unanswered for good."""
    await fabric.directory.register("box")

    async def broken(*args: object, **kwargs: object) -> object:
        raise RuntimeError("the store broke")

    monkeypatch.setattr(fabric.mailboxes, "ack", broken)

    async def frames() -> AsyncIterator[tuple[int, Op, int]]:
        yield 1, SendOp([mail("box", "a", id="a")]), 1
        yield 2, AckOp("box", ["a"]), 1
        await asyncio.Event().wait()  # the client keeps its stream open

    answered = []
    with pytest.raises(RuntimeError, match="the store broke"):
        async with asyncio.timeout(30):  # a backstop only: the failure ends it at once
            async for seq, _ in Pipeline(fabric.mailboxes, fabric.rendezvous, agent_token=False).run(frames()):
                answered.append(seq)
    assert answered == [1]
