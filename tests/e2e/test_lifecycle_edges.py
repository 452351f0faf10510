"""Lifecycle edges: an id, a key or a name used again after what it named was finished, pruned or removed."""

from __future__ import annotations

import asyncio
import json

import pytest

from fabricd.client import Client, NotFound
from fabricd.v1 import outbox_service_pb2 as ob
from fabricd.v1 import rendezvous_service_pb2 as rv
from tests.e2e.test_wake import Receiver, until, wake_rows

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
        make_daemon, asker: str) -> None:
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
        make_daemon) -> None:
    # Kept 2 s once finished: long enough for the follow-up to continue the ticket the reply left waiting for
    # input (with 0 the housekeeper could prune it first: TICKET_NOT_FOUND 1 run in 5), short for the test.
    daemon = make_daemon("--ticket-retention", "2", "--housekeeping-interval", "0.05").start()
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


async def test_a_wake_pending_when_its_mailbox_is_removed_never_reaches_the_hook_of_the_agent_made_again(
        make_daemon) -> None:
    # The wake announced mail the removal purged; the agent made again under that id sets a hook of its own,
    # which must not be fired (and signed) with the old counts and message id.
    daemon = make_daemon("--outbox-backoff", "0.2").start()
    old_hook, new_hook = Receiver(), Receiver()
    old_hook.status = 503  # the wake stays pending, retried every 0.2 s
    try:
        async with Client(daemon.target) as client:
            await client.register("alice")
            await client.set_wake_hook("alice", url=old_hook.url, quiet_period=1)
            await client.send("alice", "before")
            await old_hook.next()
            (pending,) = await wake_rows(client)
            assert pending.state == ob.OUTBOX_ROW_STATE_PENDING
            await client.unregister("alice", purge=True)
            (settled,) = await wake_rows(client)
            assert (settled.key, settled.state) == (pending.key, ob.OUTBOX_ROW_STATE_DELIVERED)
            assert "the mailbox was removed" in settled.last_error
            await client.register("alice")
            secret = (await client.set_wake_hook("alice", url=new_hook.url, quiet_period=3600)).secret
            after = (await client.send("alice", "after")).message
            hit = await new_hook.next()
            assert json.loads(hit.body)["first_message_id"] == after.id and json.loads(hit.body)["unread"] == 1
            assert hit.headers["fabricd-wake-id"] != pending.key and secret
            await until(lambda: _all_delivered(client))
            assert [json.loads(h.body)["first_message_id"] for h in new_hook.all] == [after.id]
    finally:
        old_hook.close()
        new_hook.close()


async def _all_delivered(client: Client) -> bool:
    return all(r.state == ob.OUTBOX_ROW_STATE_DELIVERED for r in await wake_rows(client))


async def test_a_queue_watched_by_session_name_follows_the_name_to_the_agent_that_takes_it(daemon) -> None:
    # GetQueue, Ask and Reply resolve a session name at each call; a watch of the name resolved it once, and
    # showed the old agent's queue for good after the name moved.
    async with Client(daemon.target) as client:
        await client.register("r1", session_name="reviewer")
        first = await client.enqueue("reviewer", "first", source_agent="")
        snapshots = client.watch_queue("reviewer")
        assert [(t.ticket_id, t.target) for t in await anext(snapshots)] == [(first.ticket_id, "r1")]
        await client.register("r1", session_name="retired")  # the name leaves r1 (its ticket stays queued)
        await client.register("r2", session_name="reviewer")
        second = await client.enqueue("reviewer", "second", source_agent="")

        async def until_second() -> list:
            async for tickets in snapshots:
                if any(t.ticket_id == second.ticket_id for t in tickets):
                    return [(t.ticket_id, t.target) for t in tickets]
            raise AssertionError("the watch ended")

        assert await asyncio.wait_for(until_second(), 30) == [(second.ticket_id, "r2")]
        await snapshots.aclose()
