"""Every list pages the same way (AIP-158), through cursor reads of the store port, on every store."""

from __future__ import annotations

import base64

import pytest

from fabricd.core import paging
from fabricd.core.agentdir import FILTER_ALL, Submission
from fabricd.core.errors import InvalidArgument, NotFound
from fabricd.core.model import Address, Capability, JobOutcome, Mail, RowState, SettledJob
from fabricd.core.outbox import row_cursor
from fabricd.core.paging import DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE
from fabricd.core.rendezvous import TicketRequest
from tests.core.conftest import Fabric


async def all_pages(read, page_size: int = 0) -> tuple[list, int]:
    """Every item of a list call, and how many pages it took."""
    items, token, pages = [], "", 0
    while True:
        listed = await read(page_size, token)
        items.extend(listed.items)
        pages += 1
        token = listed.next_page_token
        if not token:
            return items, pages


async def test_250_mailboxes_come_in_three_pages_each_once(fabric: Fabric) -> None:
    names = [f"agent-{i:03}" for i in range(250)]
    for name in names:
        await fabric.directory.register(name)
    first = await fabric.directory.list()
    assert len(first.items) == DEFAULT_PAGE_SIZE and first.next_page_token
    entries, pages = await all_pages(fabric.directory.list)
    assert pages == 3 and sorted(e.agent_id for e in entries) == names


async def test_a_page_size_over_the_maximum_is_the_maximum_and_a_negative_one_is_refused(fabric: Fabric) -> None:
    assert (paging.page_size(0), paging.page_size(7), paging.page_size(MAX_PAGE_SIZE * 5)) == (
        DEFAULT_PAGE_SIZE, 7, MAX_PAGE_SIZE)
    await fabric.directory.register("alice")
    assert [e.agent_id for e in (await fabric.directory.list(MAX_PAGE_SIZE * 5)).items] == ["alice"]
    with pytest.raises(InvalidArgument) as refused:
        await fabric.directory.list(-1)
    assert (refused.value.reason, refused.value.metadata["field"]) == ("LIMIT_OUT_OF_RANGE", "page_size")


async def test_a_changed_token_or_one_of_another_list_is_invalid_page_token(fabric: Fabric) -> None:
    for i in range(5):
        await fabric.directory.register(f"a{i}")
        await fabric.agent_directory.create_agent(f"agent {i}", "", "", "")
    token = (await fabric.directory.list(2)).next_page_token
    raw = bytearray(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
    raw[-3] ^= 1
    changed = base64.urlsafe_b64encode(bytes(raw)).rstrip(b"=").decode()
    agents_token = (await fabric.agent_directory.list_agents(2)).next_page_token
    forged_cursor = paging.encode("mailboxes", "", "not hex", 0)  # right list, a cursor the backend cannot read
    for bad in (changed, token[:-4], "garbage!", agents_token, forged_cursor):
        with pytest.raises(InvalidArgument) as refused:
            await fabric.directory.list(2, bad)
        assert refused.value.reason == "INVALID_PAGE_TOKEN" and refused.value.metadata["field"] == "page_token"


async def test_pages_stop_at_the_byte_budget_with_entries_near_their_size_limit(fabric: Fabric) -> None:
    big = "x" * (fabric.directory.limits.max_entry_bytes - 1024)
    for i in range(120):
        await fabric.directory.register(f"big-{i:03}", capabilities=(Capability("c", payload=big),))
    listed = await fabric.directory.list(1000)
    assert 1 < len(listed.items) < 100 and listed.next_page_token
    assert sum(paging.approx_size(e) for e in listed.items) <= paging.budget()
    entries, _ = await all_pages(fabric.directory.list, 1000)
    assert len({e.agent_id for e in entries}) == 120


async def test_a_queue_pages_head_first_with_positions_continuing(fabric: Fabric) -> None:
    await fabric.directory.register("alice")
    for i in range(7):
        await fabric.rendezvous.enqueue(TicketRequest(target="alice", task=f"task {i}"))
    first = await fabric.rendezvous.queue("alice", 3)
    second = await fabric.rendezvous.queue("alice", 3, first.next_page_token)
    third = await fabric.rendezvous.queue("alice", 3, second.next_page_token)
    assert [t.task for t in first.items + second.items + third.items] == [f"task {i}" for i in range(7)]
    assert (first.offset, second.offset, third.offset, third.next_page_token) == (0, 3, 6, "")
    await fabric.directory.register("bob")
    with pytest.raises(InvalidArgument, match="another filter or agent"):
        await fabric.rendezvous.queue("bob", 3, first.next_page_token)


async def test_a_filtered_outbox_page_may_be_short_but_goes_on_to_every_row(fabric: Fabric) -> None:
    for name in ("alice", "bob"):
        await fabric.directory.register(name)
    for i in range(30):
        job = SettledJob(f"job-{i}", int(JobOutcome.COMPLETED), Address("worker", "s"),
                         Mail(f"mail-{i:02}", reply_to=(Address("alice", "s"),)))
        await fabric.outbox.fan_out(job, "done")
    await fabric.outbox.drain_once()
    delivered, pages = await all_pages(lambda size, token: fabric.outbox.list(0, "", int(RowState.DELIVERED), size,
                                                                              token), 7)
    assert len(delivered) == 30 and pages == 5
    old = await fabric.outbox.list(10, "", 0)  # the older limit/after_key still page, in key order
    assert [r.key for r in old.items] == sorted(r.key for r in delivered)[:10] and old.next_cursor == row_cursor(old.items[-1])
    with pytest.raises(InvalidArgument, match="another filter"):
        await fabric.outbox.list(0, "", int(RowState.PENDING), 7, old.next_page_token)


async def test_agents_threads_requests_and_tokens_page_too(fabric: Fabric) -> None:
    ad = fabric.agent_directory
    agent = await ad.create_agent("worker", "", "", "")
    for i in range(5):
        await ad.create_agent(f"helper {i}", "", "", "")
        await ad.create_thread(agent.agent_id, f"thread {i}", "", 0, ())
        await ad.admit(agent.agent_id, "", Submission(text=f"work {i}"), False)
        await fabric.tokens.issue("agent", f"agent-{i}", f"label {i}")
    agents, pages = await all_pages(ad.list_agents, 2)
    assert len(agents) == 6 and pages == 3
    threads, _ = await all_pages(lambda size, token: ad.list_threads(agent.agent_id, size, token), 2)
    titles = [t.title for t in threads if t.title.startswith("thread")]  # admitting made a thread each too
    assert titles == [f"thread {i}" for i in range(5)] and len(threads) == 10  # creation order
    requests, _ = await all_pages(lambda size, token: ad.list_requests(FILTER_ALL, size, token), 2)
    assert [r.submission.text for r in requests] == [f"work {i}" for i in range(5)]  # admission order
    tokens, _ = await all_pages(fabric.tokens.list, 2)
    assert sorted(t.label for t in tokens) == [f"label {i}" for i in range(5)]
    with pytest.raises(NotFound):
        await ad.list_threads("agent-nope", 2)


async def test_a_request_token_of_the_first_release_still_works(fabric: Fabric) -> None:
    agent = await fabric.agent_directory.create_agent("worker", "", "", "")
    for i in range(3):
        await fabric.agent_directory.admit(agent.agent_id, "", Submission(text=f"work {i}"), False)
    first = await fabric.agent_directory.list_requests(FILTER_ALL, 1, "")
    rest = await fabric.agent_directory.list_requests(FILTER_ALL, 10, f"r{first.items[0].seq}")
    assert [r.submission.text for r in rest.items] == ["work 1", "work 2"]


async def test_a_directory_watch_snapshot_of_big_entries_comes_in_batches_within_the_budget(fabric: Fabric) -> None:
    big = "x" * (fabric.directory.limits.max_entry_bytes - 1024)
    for i in range(100):
        await fabric.directory.register(f"big-{i:03}", capabilities=(Capability("c", payload=big),))
    batches = []
    async for batch in fabric.directory.watch():
        batches.append(batch)
        if batch.snapshot_complete:
            break
    assert len(batches) >= 2 and sum(len(b.changes) for b in batches) == 100
    assert all(sum(paging.approx_size(e) for _, e in b.changes) <= paging.budget() for b in batches)
