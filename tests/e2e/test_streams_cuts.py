"""The bidirectional streams cut between a commit and its answer: a resend after reconnect is safe or not made.

A relay between the client and the daemon holds the daemon's bytes back, so a frame's commit
lands while its answer has not reached the client; cutting the relay's connections then loses
that answer, as a dropped network would, and the client resends (or fails) the frame.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import pytest

from fabricd.client import Client, Replier, Unavailable
from fabricd.v1 import rendezvous_service_pb2 as rv

BACKENDS = ("lmdb", "postgres")


class Relay:
    """A TCP listener that relays each connection to the daemon's unix socket; `hold` keeps the daemon's bytes
    from the client, `cut` drops every connection (new ones are relayed as before)."""

    def __init__(self, socket_path: str) -> None:
        self._socket = socket_path
        self._server: asyncio.Server | None = None
        self._open: set[asyncio.StreamWriter] = set()
        self._flowing = asyncio.Event()
        self._flowing.set()
        self._tasks: set[asyncio.Task[None]] = set()
        self.target = ""

    async def __aenter__(self) -> Relay:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.target = f"127.0.0.1:{self._server.sockets[0].getsockname()[1]}"
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        self.cut()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def hold(self) -> None:
        self._flowing.clear()

    def cut(self) -> None:
        """Drop every connection open now; bytes held are lost, new connections flow."""
        for writer in self._open:
            writer.transport.abort()
        self._open.clear()
        self._flowing.set()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_unix_connection(self._socket)
        self._open |= {writer, up_writer}
        for task in (self._pump(reader, up_writer, held=False), self._pump(up_reader, writer, held=True)):
            t = asyncio.ensure_future(task)
            self._tasks.add(t)
            t.add_done_callback(self._tasks.discard)

    async def _pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *, held: bool) -> None:
        with contextlib.suppress(OSError, ConnectionError):
            while chunk := await reader.read(65536):
                if held:
                    await self._flowing.wait()
                if writer not in self._open:
                    return  # cut while held: the chunk is lost
                writer.write(chunk)
                await writer.drain()
        writer.transport.abort()


@pytest.fixture
async def relay(daemon) -> AsyncIterator[Relay]:
    async with Relay(daemon.socket) as r:
        yield r


async def test_a_reply_to_the_head_whose_answer_was_lost_never_answers_the_next_ticket(daemon, relay) -> None:
    async with Client(daemon.target) as direct, Client(relay.target) as relayed:
        await direct.register("worker")
        first = (await direct.enqueue("worker", "first")).ticket_id
        second = (await direct.enqueue("worker", "second")).ticket_id
        async with Replier(relayed, "worker", window=2) as replier:
            assert (await anext(replier)).ticket_id == first
            relay.hold()
            replying = asyncio.ensure_future(replier.reply("", "for the head"))  # the head: the first ticket
            assert await direct.await_reply(first, timeout=30) == "for the head"  # committed; the answer held
            relay.cut()
            with pytest.raises(Unavailable):  # it may have landed: written again, it would answer the next
                await replying
            assert (await direct.get_ticket(second)).state == rv.TICKET_STATE_QUEUED


async def test_an_ack_of_a_chosen_id_whose_answer_was_lost_is_not_sent_again_to_take_another_senders_copy(
        daemon, relay) -> None:
    async with Client(daemon.target) as direct, Client(relay.target, retry_window=10) as bob:
        await direct.register("bob")
        for sender in ("alice", "carol"):  # two senders chose one id
            await direct.send("bob", f"from {sender}", sender=sender, id="x")
        await bob.ack("bob", ["none"])  # bob's send stream is open
        relay.hold()
        acking = asyncio.ensure_future(bob.ack("bob", ["x"]))  # takes the oldest copy: alice's
        while len((await direct.peek("bob")).messages) == 2:  # until it has landed; its answer is held
            pass
        relay.cut()
        with pytest.raises(Unavailable):  # sent again, it would take carol's copy, which bob never saw
            await acking
        assert [m.text for m in (await direct.peek("bob")).messages] == ["from carol"]


async def test_an_ack_of_minted_ids_whose_answer_was_lost_is_sent_again(daemon, relay) -> None:
    async with Client(daemon.target) as direct, Client(relay.target, retry_window=10) as bob:
        await direct.register("bob")
        sent = [(await direct.send("bob", f"m{i}")).message.id for i in range(2)]
        await bob.ack("bob", ["none"])
        relay.hold()
        acking = asyncio.ensure_future(bob.ack("bob", [sent[0]]))
        while len((await direct.peek("bob")).messages) == 2:
            pass
        relay.cut()
        assert await acking == 0  # sent again on a new stream: it landed before, so it finds nothing now
        assert [m.id for m in (await direct.peek("bob")).messages] == [sent[1]]
