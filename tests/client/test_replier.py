"""The replier stream's bookkeeping (fabricd.client._replier), with a stand-in for the stream."""

from __future__ import annotations

import asyncio
import types

from fabricd.client._replier import Replier
from fabricd.v1 import rendezvous_service_pb2 as rv_pb


class AnswerBeforeTheWriteReturns:
    """A Serve stream whose answer is read (by the replier's reader) while the write that asked for it is still
    returning: under load the daemon answers that fast (a soak saw it: the replier ended with a KeyError)."""

    def __init__(self, replier: Replier) -> None:
        self.replier = replier

    async def write(self, frame: rv_pb.ServeRequest) -> None:
        _, future = self.replier._pending.pop(frame.seq)  # what the reader does with an answer frame
        future.set_result(rv_pb.ServeAnswer(seq=frame.seq, ticket_id=frame.reply.ticket_id))

    def cancel(self) -> None:
        pass


async def test_an_answer_read_before_its_write_returns_still_answers_the_reply() -> None:
    client = types.SimpleNamespace(streams=True, _consumed=lambda ticket_id: None)
    replier = Replier(client, "worker")  # type: ignore[arg-type]  # only what reply() touches
    replier._task = asyncio.get_running_loop().create_future()  # no stream of its own: the stand-in is it
    replier._call = AnswerBeforeTheWriteReturns(replier)
    assert await replier.reply("t-1", "done") == "t-1"
