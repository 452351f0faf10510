"""fabricd.v1 tickets in any state: GetTicket, CancelTicket, ListTickets, reply outcomes and follow-ups."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import pytest

from fabricd.client import Client, FailedPrecondition, InvalidArgument, NotFound, PermissionDenied
from fabricd.v1 import rendezvous_service_pb2 as rv

BACKENDS = ["lmdb", "postgres"]
pytestmark = pytest.mark.timeout(60)


@pytest.fixture
async def fabric(daemon):  # noqa: ANN201
    async with Client(daemon.target) as c:
        for agent in ("alice", "bob", "carol"):
            await c.register(agent)
        yield c


async def test_get_ticket_shows_the_position_then_the_outcome_data_and_headers(fabric: Client) -> None:
    head = await fabric.enqueue("alice", "first", source_agent="bob")
    behind = await fabric.enqueue("alice", "second", data=b"\x89PNG", headers={"content-type": "image/png"})
    got = await fabric.get_ticket(behind.ticket_id)
    assert (got.state, got.position, got.task, got.data, got.headers["content-type"]) == (
        rv.TICKET_STATE_QUEUED, 1, "second", b"\x89PNG", "image/png")
    await fabric.reply("alice", "no", ticket_id=head.ticket_id, outcome=rv.TICKET_OUTCOME_REJECTED,
                       data=b"{}", headers={"content-type": "application/json"})
    done = await fabric.get_ticket(head.ticket_id)
    assert (done.state, done.position, done.outcome, done.result, done.result_data) == (
        rv.TICKET_STATE_ANSWERED, -1, rv.TICKET_OUTCOME_REJECTED, "no", b"{}")
    assert done.source.agent_id == "bob" and done.finish_time.seconds > 0
    assert (await fabric.get_ticket(behind.ticket_id)).position == 0
    with pytest.raises(NotFound) as caught:
        await fabric.get_ticket("no-such-ticket")
    assert caught.value.reason == "TICKET_NOT_FOUND"


async def test_cancel_ticket_withdraws_one_behind_the_head_and_leaves_a_finished_one(fabric: Client) -> None:
    head = await fabric.enqueue("alice", "a")
    behind = await fabric.enqueue("alice", "b")
    waiting = asyncio.ensure_future(fabric.await_reply(behind.ticket_id, timeout=30))
    response = await fabric.cancel_ticket(behind.ticket_id)
    assert response.cancelled and response.ticket.state == rv.TICKET_STATE_ABORTED
    with pytest.raises(Exception) as aborted:
        await waiting
    assert aborted.value.reason == "TICKET_ABORTED"
    assert [t.ticket_id for t in await fabric.get_queue("alice")] == [head.ticket_id]
    assert [m.ticket_id for m in (await fabric.peek("alice")).messages] == [head.ticket_id]
    await fabric.reply("alice", "done")
    again = await fabric.cancel_ticket(head.ticket_id)
    assert not again.cancelled and again.ticket.state == rv.TICKET_STATE_ANSWERED


async def test_list_tickets_pages_newest_first_and_filters(fabric: Client) -> None:
    ids = [(await fabric.enqueue("alice", f"t{n}", conversation_id="c" if n % 2 else "",
                                 source_agent="bob" if n < 2 else None)).ticket_id for n in range(5)]
    await fabric.reply("alice", "done")  # t0
    page = await fabric.list_tickets("alice", page_size=2)
    assert [t.ticket_id for t in page] == [ids[4], ids[3]] and page.next_page_token
    assert [t.position for t in page] == [3, 2]  # queued tickets say where they stand
    rest = await fabric.list_tickets("alice", page_size=10, page_token=page.next_page_token)
    assert [t.ticket_id for t in rest] == [ids[2], ids[1], ids[0]] and not rest.next_page_token
    assert [t.ticket_id for t in await fabric.list_tickets("alice", conversation_id="c")] == [ids[3], ids[1]]
    answered = await fabric.list_tickets("alice", states=[rv.TICKET_STATE_ANSWERED])
    assert [(t.ticket_id, t.outcome) for t in answered] == [(ids[0], rv.TICKET_OUTCOME_COMPLETED)]
    assert [t.ticket_id for t in await fabric.list_tickets("alice", source_agent_id="bob")] == [ids[1], ids[0]]
    assert list(await fabric.list_tickets("carol")) == []


async def test_an_asker_sees_input_required_and_continues_the_same_ticket(fabric: Client) -> None:
    asking = asyncio.ensure_future(fabric.ask_answer("alice", "book a table", source_agent="bob",
                                                     conversation_id="dinner", timeout=30))
    (ticket,) = [t async for t in _first_queue(fabric, "alice")]
    await fabric.reply("alice", "for how many?", outcome=rv.TICKET_OUTCOME_INPUT_REQUIRED)
    first = await asking
    assert (first.outcome, first.result) == (rv.TICKET_OUTCOME_INPUT_REQUIRED, "for how many?")
    asking = asyncio.ensure_future(fabric.ask_answer("alice", "four", source_agent="bob",
                                                     continue_ticket_id=first.ticket_id, timeout=30))
    (again,) = [t async for t in _first_queue(fabric, "alice")]
    assert again.ticket_id == first.ticket_id and again.conversation_id == "dinner"
    (task,) = (await fabric.peek("alice")).messages
    assert task.id == f"{first.ticket_id}/2" and task.headers["fabricd-ticket-turn"] == "2"
    await fabric.reply("alice", "booked for four")
    final = await asking
    assert (final.ticket_id, final.outcome, final.result) == (first.ticket_id, rv.TICKET_OUTCOME_COMPLETED,
                                                              "booked for four")
    shown = await fabric.get_ticket(first.ticket_id)
    assert [(t.task, t.result) for t in shown.earlier_turns] == [("book a table", "for how many?")]
    with pytest.raises(FailedPrecondition) as caught:  # answered COMPLETED: nothing to continue
        await fabric.enqueue("alice", "more", source_agent="bob", continue_ticket_id=first.ticket_id)
    assert caught.value.reason == "TICKET_NOT_CONTINUABLE"


async def _first_queue(fabric: Client, agent: str):  # noqa: ANN202
    """The queue once it holds a ticket (on WatchQueue: no sleep)."""
    async for tickets in fabric.watch_queue(agent):
        if tickets:
            for t in tickets:
                yield t
            return


async def test_an_agent_token_reads_and_cancels_only_its_tickets_and_lists_only_what_it_asked(make_daemon) -> None:
    daemon = make_daemon("--listen", "127.0.0.1:0").start()
    tcp = daemon.wait_for("127.0.0.1:").strip().rsplit(" ", 1)[-1]
    async with Client(daemon.target) as local:
        await local.register("alice")
        others = await local.enqueue("alice", "not carol's", source_agent="bob")
        token = (await local.issue_token(agent_id="carol")).token
        async with Client(tcp, token=token) as carol:
            mine = await carol.enqueue("alice", "carol's", source_agent="carol")
            assert (await carol.get_ticket(mine.ticket_id)).task == "carol's"
            with pytest.raises(PermissionDenied):
                await carol.get_ticket(others.ticket_id)
            with pytest.raises(PermissionDenied):
                await carol.cancel_ticket(others.ticket_id)
            assert [t.ticket_id for t in await carol.list_tickets("alice")] == [mine.ticket_id]
            with pytest.raises(PermissionDenied):
                await carol.list_tickets("alice", source_agent_id="bob")
            assert (await carol.cancel_ticket(mine.ticket_id)).cancelled
        assert (await local.get_ticket(others.ticket_id)).state == rv.TICKET_STATE_QUEUED


def _fabric(daemon, *args: str) -> str:
    return subprocess.run([sys.executable, "-m", "fabricd.cli.main", "--target", daemon.target, *args],
                          check=True, capture_output=True, text=True).stdout


async def test_the_cli_shows_lists_and_cancels_tickets_and_replies_with_an_outcome(daemon, fabric: Client) -> None:
    first = await fabric.enqueue("alice", "question")
    second = await fabric.enqueue("alice", "another")
    await asyncio.to_thread(_fabric, daemon, "reply", "alice", "which one?", "--outcome", "input-required")
    shown = json.loads(await asyncio.to_thread(_fabric, daemon, "--json", "ticket", "show", first.ticket_id))
    assert (shown["outcome"], shown["result"]) == ("TICKET_OUTCOME_INPUT_REQUIRED", "which one?")
    assert "cancelled ticket" in await asyncio.to_thread(_fabric, daemon, "ticket", "cancel", second.ticket_id)
    lines = (await asyncio.to_thread(_fabric, daemon, "--json", "ticket", "ls", "alice")).splitlines()
    assert [json.loads(line)["ticket_id"] for line in lines] == [second.ticket_id, first.ticket_id]
    table = await asyncio.to_thread(_fabric, daemon, "ticket", "ls", "alice", "--state", "aborted")
    assert second.ticket_id in table and first.ticket_id not in table


async def test_fabric_ask_says_when_the_agent_asks_back_and_continue_answers_it(daemon, fabric: Client) -> None:
    def ask(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "fabricd.cli.main", "--target", daemon.target, "--json", "ask",
                               "alice", *args], capture_output=True, text=True, timeout=60)

    asking = asyncio.ensure_future(asyncio.to_thread(ask, "book a table", "--from", "bob"))
    (ticket,) = [t async for t in _first_queue(fabric, "alice")]
    await fabric.reply("alice", "for how many?", outcome=rv.TICKET_OUTCOME_INPUT_REQUIRED)
    first = await asking
    assert first.returncode == 3 and f"--continue {ticket.ticket_id}" in first.stderr
    assert json.loads(first.stdout) == {"result": "for how many?", "outcome": "input-required",
                                        "ticket_id": ticket.ticket_id}
    asking = asyncio.ensure_future(asyncio.to_thread(ask, "four", "--from", "bob", "--continue", ticket.ticket_id))
    (again,) = [t async for t in _first_queue(fabric, "alice")]
    assert again.ticket_id == ticket.ticket_id
    await fabric.reply("alice", "booked")
    done = await asking
    assert done.returncode == 0 and json.loads(done.stdout)["result"] == "booked"


async def test_an_unknown_state_filter_is_named_in_the_refusal(client: Client) -> None:
    await client.register("alice")
    with pytest.raises(InvalidArgument) as err:
        await client.list_tickets("alice", states=[rv.TICKET_STATE_QUEUED, rv.TICKET_STATE_QUEUED, 7])
    assert (err.value.reason, err.value.metadata["field"]) == ("INVALID_FIELD", "states")
    assert "states: 7 is no ticket state (QUEUED 1, ANSWERED 2, ABORTED 3)" in err.value.message
    assert list(await client.list_tickets("alice", states=[rv.TICKET_STATE_QUEUED, rv.TICKET_STATE_QUEUED])) == []
