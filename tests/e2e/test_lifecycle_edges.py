"""Lifecycle edges: an id, a key or a name used again after what it named was finished, pruned or removed."""

from __future__ import annotations

import asyncio

import pytest

from fabricd.client import Client, NotFound
from fabricd.v1 import rendezvous_service_pb2 as rv

BACKENDS = ("lmdb", "postgres")  # every test here runs on both stores (tests/conftest.py)
pytestmark = pytest.mark.timeout(60)


async def _until_pruned(client: Client, ticket_id: str) -> None:
    deadline = asyncio.get_running_loop().time() + 30
    while True:
        try:
            await client.get_ticket(ticket_id)
        except NotFound:
            return
        assert asyncio.get_running_loop().time() < deadline, "the answered ticket was never pruned"
        await asyncio.sleep(0.05)


@pytest.mark.parametrize("asker", ["", "bob"])
async def test_a_request_key_used_again_after_its_ticket_was_pruned_delivers_the_new_task(
        make_daemon, asker: str) -> None:  # noqa: ANN001
    # Tickets are kept a day, consumed message ids a week: a key asked again in between names a new ticket
    # with the old ticket's id, and so a task message with an id the mailbox still remembered.
    daemon = make_daemon("--ticket-retention", "0", "--housekeeping-interval", "0.05").start()
    async with Client(daemon.target) as client:
        for name in ("alice", "bob"):
            await client.register(name)
        first = await client.enqueue("alice", "monday's report", request_key="daily-report",
                                     source_agent=asker or None)
        await client.reply("alice", "done")
        await _until_pruned(client, first.ticket_id)
        again = await client.enqueue("alice", "tuesday's report", request_key="daily-report",
                                     source_agent=asker or None)
        assert again.position == 0
        inbox = await client.peek("alice")
        assert [m.ticket_id for m in inbox.messages] == [again.ticket_id]
        assert "tuesday's report" in inbox.messages[0].text
        assert await client.reply("alice", "done again") == again.ticket_id
        assert (await client.peek("alice")).unread_count == 0


async def test_a_follow_up_of_a_ticket_asked_again_by_its_pruned_request_key_reaches_the_target(
        make_daemon) -> None:  # noqa: ANN001
    daemon = make_daemon("--ticket-retention", "0", "--housekeeping-interval", "0.05").start()
    async with Client(daemon.target) as client:
        for name in ("alice", "bob"):
            await client.register(name)
        for day in ("monday", "tuesday"):
            asked = await client.enqueue("alice", f"{day}: which format?", request_key="weekly", source_agent="bob")
            await client.reply("alice", "csv or json?", outcome=rv.TICKET_OUTCOME_INPUT_REQUIRED)
            follow_up = await client.enqueue("alice", f"{day}: json", continue_ticket_id=asked.ticket_id,
                                             source_agent="bob")
            inbox = await client.peek("alice")
            assert [(m.ticket_id, m.text.endswith(f"{day}: json")) for m in inbox.messages] == [
                (follow_up.ticket_id, True)]
            await client.reply("alice", "done")
            assert (await client.peek("alice")).unread_count == 0
            await _until_pruned(client, asked.ticket_id)
