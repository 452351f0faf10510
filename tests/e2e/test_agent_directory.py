"""AgentDirectoryService against the real daemon: agents, threads, admissions, settlements, sequence."""

from __future__ import annotations

import asyncio

import pytest

from fabricd.client import AlreadyExists, Client, FailedPrecondition, NotFound
from fabricd.v1 import agent_directory_service_pb2 as ad


async def seq(client: Client) -> int:
    return (await client.get_directory_data()).sequence


async def test_initialize_creates_the_default_agent_and_thread_idempotently(client: Client) -> None:
    first = await client.initialize("be helpful", '{"model": "m"}')
    assert first.agent.name == "default" and first.thread.agent_id == first.agent.agent_id
    s = await seq(client)
    again = await client.initialize("be helpful", '{"model": "m"}')
    assert again.agent.agent_id == first.agent.agent_id and again.thread.thread_id == first.thread.thread_id
    assert await seq(client) == s  # unchanged call, no change
    updated = await client.initialize("be brief", '{"model": "m"}')
    assert updated.agent.instructions == "be brief" and await seq(client) == s + 1
    data = await client.get_directory_data()
    assert data.default_agent.instructions == "be brief" and data.initial_thread.thread_id == first.thread.thread_id


async def test_agents_have_unique_names_and_threads(client: Client) -> None:
    agent = await client.create_agent("reviewer", description="reviews", instructions="be strict", settings="{}")
    assert agent.agent_id and agent.create_time.seconds > 0
    with pytest.raises(AlreadyExists):
        await client.create_agent("reviewer")
    assert (await client.get_agent(agent.agent_id)).name == "reviewer"
    assert [a.name for a in await client.list_agents()] == ["reviewer"]
    with pytest.raises(NotFound):
        await client.get_agent("agent-none")
    t1 = await client.create_thread(agent.agent_id, title="one", kind="chat", contexts=["ctx"])
    t2 = await client.create_thread(agent.agent_id, title="two")
    assert [t.thread_id for t in await client.list_threads(agent.agent_id)] == [t1.thread_id, t2.thread_id]
    assert list(t1.contexts) == ["ctx"]
    with pytest.raises(NotFound):
        await client.create_thread("agent-none", title="x")


async def test_each_refusal_is_an_answer_with_a_reason_and_changes_nothing(client: Client) -> None:
    agent = await client.create_agent("worker")
    other = await client.create_agent("other")
    other_thread = await client.create_thread(other.agent_id)
    ok = await client.admit(agent.agent_id, ad.Submission(text="real work"))
    assert ok.accepted
    await client.advertise("{}", '{"status": "busy"}')
    cases = [
        (dict(agent_id="agent-none", submission=ad.Submission(text="x")), "no agent"),
        (dict(agent_id=agent.agent_id, thread_id="thread-none", submission=ad.Submission(text="x")), "has no thread"),
        (dict(agent_id=agent.agent_id, thread_id=other_thread.thread_id, submission=ad.Submission(text="x")),
         "has no thread"),
        (dict(agent_id=agent.agent_id, submission=ad.Submission(text="x"), optional_work=True), "unavailable or busy"),
        (dict(agent_id=agent.agent_id, submission=ad.Submission(text="x", causal_depth=9)), "causal depth 9"),
        (dict(agent_id=agent.agent_id, submission=ad.Submission(text="x", retry_of="req-none")), "retry_of"),
        (dict(agent_id=agent.agent_id, submission=ad.Submission(text="x", related="req-none")), "related"),
        (dict(agent_id=agent.agent_id, submission=ad.Submission(text="x", root="req-none")), "root"),
    ]
    before = await client.get_directory_data()
    for kwargs, reason in cases:
        agent_id = kwargs.pop("agent_id")
        submission = kwargs.pop("submission")
        admission = await client.admit(agent_id, submission, **kwargs)
        assert not admission.accepted and reason in admission.reason, (reason, admission.reason)
        assert not admission.request_id
    assert await client.get_directory_data() == before
    assert (await client.admit(agent.agent_id, ad.Submission(text="x", causal_depth=8))).accepted
    assert (await client.admit(agent.agent_id, ad.Submission(text="x", retry_of=ok.request_id))).accepted
    await client.advertise("{}", '{"status": "available"}')
    assert (await client.admit(agent.agent_id, ad.Submission(text="x"), optional_work=True)).accepted


async def test_ordinary_and_notification_counts_follow_admit_settle_and_notification_sent(client: Client) -> None:
    agent = await client.create_agent("worker")
    ordinary = await client.admit(agent.agent_id, ad.Submission(text="do it", source_kind="user"))
    note = await client.admit(agent.agent_id, ad.Submission(text="fyi", source_kind="notification"))
    data = await client.get_directory_data()
    assert (data.pending, data.ordinary_pending, data.notification_pending) == (2, 1, 1)
    await client.settle(ordinary.request_id, thread_id=ordinary.thread_id, notify=True)
    data = await client.get_directory_data()
    assert (data.pending, data.ordinary_pending, data.notification_pending, data.notifications) == (1, 0, 1, 1)
    owed = await client.list_requests(ad.REQUEST_FILTER_NOTIFICATIONS)
    assert [r.request_id for r in owed.requests] == [ordinary.request_id]
    await client.mark_notification_sent(ordinary.request_id)
    await client.settle(note.request_id)
    data = await client.get_directory_data()
    assert (data.pending, data.ordinary_pending, data.notification_pending, data.notifications) == (0, 0, 0, 0)
    assert (await client.list_requests(ad.REQUEST_FILTER_NOTIFICATIONS)).requests == []
    (first, second) = (await client.list_requests(ad.REQUEST_FILTER_ALL)).requests
    assert first.notification_sent and first.state == ad.REQUEST_STATE_SETTLED


async def test_settling_twice_unknown_or_in_the_wrong_thread(client: Client) -> None:
    agent = await client.create_agent("worker")
    admitted = await client.admit(agent.agent_id, ad.Submission(text="x"))
    other = await client.create_thread(agent.agent_id)
    with pytest.raises(FailedPrecondition):
        await client.settle(admitted.request_id, thread_id=other.thread_id)
    settled = await client.settle(admitted.request_id, thread_id=admitted.thread_id, interactive=True)
    assert settled.state == ad.REQUEST_STATE_SETTLED and settled.interactive and settled.settle_time.seconds > 0
    s = await seq(client)
    again = await client.settle(admitted.request_id, notify=True)
    assert again.settle_time == settled.settle_time and not again.notify
    assert await seq(client) == s
    with pytest.raises(NotFound):
        await client.settle("req-none")
    with pytest.raises(NotFound):
        await client.mark_notification_sent("req-none")


async def test_reconcile_repair_by_key_and_generation(client: Client) -> None:
    with pytest.raises(FailedPrecondition):
        await client.reconcile_repair("disk-1", 1, "repair the disk")
    await client.initialize("i")
    first = await client.reconcile_repair("disk-1", 1, "repair the disk", configuration='{"x":1}', attempt=1)
    s = await seq(client)
    assert await client.reconcile_repair("disk-1", 1, "repair the disk") == first
    assert await seq(client) == s
    newer = await client.reconcile_repair("disk-1", 2, "repair the disk again")
    assert newer != first and await seq(client) == s + 1
    requests = {r.request_id: r for r in (await client.list_requests(ad.REQUEST_FILTER_ALL)).requests}
    assert requests[first].state == ad.REQUEST_STATE_SETTLED
    assert requests[newer].state == ad.REQUEST_STATE_PENDING
    assert requests[newer].repair.generation == 2 and requests[first].repair.configuration == '{"x":1}'
    with pytest.raises(FailedPrecondition):
        await client.reconcile_repair("disk-1", 1, "stale")
    data = await client.get_directory_data()
    assert data.pending == 1


async def test_sequence_moves_once_per_change_and_never_on_reads(client: Client) -> None:
    s = await seq(client)
    agent = await client.create_agent("worker")
    thread = await client.create_thread(agent.agent_id)
    admitted = await client.admit(agent.agent_id, ad.Submission(text="x"), thread_id=thread.thread_id)
    await client.settle(admitted.request_id, notify=True)
    await client.mark_notification_sent(admitted.request_id)
    await client.advertise("p", "a")
    assert await seq(client) == s + 6
    await client.list_agents()
    await client.get_agent(agent.agent_id)
    await client.list_threads(agent.agent_id)
    await client.list_requests()
    await client.advertise("p", "a")  # unchanged: not a change
    await client.mark_notification_sent(admitted.request_id)  # already sent: not a change
    await client.admit("agent-none", ad.Submission(text="x"))  # refused: not a change
    assert await seq(client) == s + 6


async def test_50_concurrent_admits_make_50_requests_and_50_sequence_steps(client: Client) -> None:
    agent = await client.create_agent("worker")
    s = await seq(client)
    admissions = await asyncio.gather(*(client.admit(agent.agent_id, ad.Submission(text=f"t{i}")) for i in range(50)))
    assert all(a.accepted for a in admissions)
    assert len({a.request_id for a in admissions}) == 50
    assert await seq(client) == s + 50
    assert (await client.get_directory_data()).pending == 50


async def test_list_requests_pages(client: Client) -> None:
    agent = await client.create_agent("worker")
    ids = [(await client.admit(agent.agent_id, ad.Submission(text=f"t{i}"))).request_id for i in range(7)]
    seen, token = [], ""
    while True:
        page = await client.list_requests(ad.REQUEST_FILTER_PENDING, page_size=3, page_token=token)
        seen.extend(r.request_id for r in page.requests)
        token = page.next_page_token
        if not token:
            break
    assert seen == ids


async def test_a_settlement_naming_a_response_agent_reaches_its_mailbox_once(client: Client) -> None:
    agent = await client.create_agent("worker")
    admitted = await client.admit(agent.agent_id, ad.Submission(text="summarise", response="parent-agent"))
    await client.settle(admitted.request_id)
    await client.settle(admitted.request_id)  # twice: still one message
    async with client.subscribe("parent-agent") as inbox:
        async for message in inbox:
            assert admitted.request_id in message.text and "summarise" in message.text
            break
    while (await client.get_status()).outbox_pending:
        await asyncio.sleep(0.01)
    assert (await client.peek("parent-agent")).unread_count == 0


async def test_watch_delivers_each_sequence_value_in_order(client: Client) -> None:
    agent = await client.create_agent("worker")
    start = await seq(client)
    got: list[int] = []

    async def watch() -> None:
        async for response in client.watch_directory_data():
            assert not response.gap
            got.append(response.data.sequence)
            if response.data.sequence == start + 30:
                return

    watcher = asyncio.create_task(watch())
    while not got:
        await asyncio.sleep(0)
    await asyncio.gather(*(client.admit(agent.agent_id, ad.Submission(text=f"t{i}")) for i in range(30)))
    await asyncio.wait_for(watcher, 30)
    assert got == list(range(start, start + 31))


async def test_the_directory_survives_a_restart(daemon) -> None:
    async with Client(daemon.target) as client:
        init = await client.initialize("i", "s")
        agent = await client.create_agent("worker")
        admitted = await client.admit(agent.agent_id, ad.Submission(text="x", source_kind="notification"))
        await client.advertise("profiles", "available")
        before = await client.get_directory_data()
    daemon.restart()
    async with Client(daemon.target) as client:
        assert await client.get_directory_data() == before
        assert sorted(a.name for a in await client.list_agents()) == ["default", "worker"]  # store order
        assert (await client.list_requests(ad.REQUEST_FILTER_PENDING)).requests[0].request_id == admitted.request_id
        assert (await client.initialize("i", "s")).agent.agent_id == init.agent.agent_id
        assert (await client.create_agent("after")).name == "after"
        assert await seq(client) == before.sequence + 1
