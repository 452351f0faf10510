"""RendezvousService against the real daemon: ask, FIFO tickets, reply, cancel, restart."""

from __future__ import annotations

import asyncio
import random

import grpc
import pytest

from fabricd.client import Aborted, Client, DeadlineExceeded, FailedPrecondition, InvalidArgument, NotFound, Unavailable
from fabricd.v1 import rendezvous_service_pb2 as rv_pb

BACKENDS = ("lmdb", "postgres")  # every test here runs on both stores (tests/conftest.py)


async def wait_for_queue(client: Client, agent_id: str, predicate) -> list:
    """Follow WatchQueue until the snapshot satisfies `predicate`."""
    async for tickets in client.watch_queue(agent_id):
        if predicate(tickets):
            return tickets
    raise AssertionError("watch ended")


async def replier(client: Client, agent_id: str, seen: list[str], stop_after: int | None = None) -> None:
    """A target that reads its inbox and answers each task positionally."""
    async with client.subscribe(agent_id) as inbox:
        async for message in inbox:
            if not message.ticket_id:
                continue
            task = message.text.rsplit("\n", 1)[-1]
            seen.append(task)
            await client.reply(agent_id, f"done: {task}")
            if stop_after is not None and len(seen) >= stop_after:
                return


async def test_ask_blocks_until_the_target_replies(client: Client) -> None:
    await client.register("worker")
    seen: list[str] = []
    task = asyncio.create_task(replier(client, "worker", seen, stop_after=1))
    assert await client.ask("worker", "fix the test", source_agent="planner", timeout=30) == "done: fix the test"
    await task
    assert seen == ["fix the test"]


async def test_fifo_order_and_replies_go_to_the_head(client: Client) -> None:
    await client.register("worker")
    t1 = await client.enqueue("worker", "first", source_agent="a")
    t2 = await client.enqueue("worker", "second", source_agent="b")
    t3 = await client.enqueue("worker", "third")
    assert (t1.position, t2.position, t3.position) == (0, 1, 2)
    queue = await client.get_queue("worker")
    assert [q.ticket_id for q in queue] == [t1.ticket_id, t2.ticket_id, t3.ticket_id]
    assert [q.position for q in queue] == [0, 1, 2]
    assert [q.requester for q in queue] == ["a", "b", "human"]
    assert queue[0].source.kind == rv_pb.TICKET_SOURCE_KIND_AGENT and queue[0].source.agent_id == "a"
    assert await client.reply("worker", "r1") == t1.ticket_id
    assert await client.reply("worker", "r2") == t2.ticket_id
    assert await client.await_reply(t1.ticket_id) == "r1"
    assert await client.await_reply(t2.ticket_id) == "r2"
    assert [q.ticket_id for q in await client.get_queue("worker")] == [t3.ticket_id]


async def test_reply_by_ticket_id_out_of_order(client: Client) -> None:
    await client.register("worker")
    t1 = await client.enqueue("worker", "first")
    t2 = await client.enqueue("worker", "second")
    assert await client.reply("worker", "answer two", ticket_id=t2.ticket_id) == t2.ticket_id
    assert await client.await_reply(t2.ticket_id) == "answer two"
    queue = await client.get_queue("worker")
    assert [(q.ticket_id, q.position) for q in queue] == [(t1.ticket_id, 0)]


async def test_50_concurrent_asks_to_one_target_are_answered_in_order(client: Client) -> None:
    await client.register("worker")
    seen: list[str] = []
    serving = asyncio.create_task(replier(client, "worker", seen, stop_after=50))
    results = await asyncio.gather(*(client.ask("worker", f"task {i}", source_agent=f"asker-{i}", timeout=60)
                                     for i in range(50)))
    await serving
    assert results == [f"done: task {i}" for i in range(50)]  # each asker got the answer to its own task
    assert sorted(seen, key=lambda t: int(t.split()[1])) == [f"task {i}" for i in range(50)]
    assert len(seen) == 50


async def test_asks_to_two_targets_do_not_block_each_other(client: Client) -> None:
    await client.register("slow")
    await client.register("fast")
    stuck = asyncio.create_task(client.ask("slow", "never answered", timeout=60))
    await wait_for_queue(client, "slow", lambda q: len(q) == 1)
    seen: list[str] = []
    serving = asyncio.create_task(replier(client, "fast", seen, stop_after=1))
    assert await client.ask("fast", "quick one", timeout=30) == "done: quick one"
    await serving
    assert not stuck.done()
    await client.close_queue("slow")
    with pytest.raises(Aborted):
        await stuck


async def test_reply_with_nothing_queued_is_failed_precondition(client: Client) -> None:
    await client.register("idle")
    with pytest.raises(FailedPrecondition) as err:
        await client.reply("idle", "an answer nobody asked for")
    assert err.value.message == "no pending request to reply to for agent idle"
    assert err.value.reason == "NO_PENDING_REQUEST"
    t = await client.enqueue("idle", "a task")
    with pytest.raises(FailedPrecondition):
        await client.reply("someone-else", "wrong agent", ticket_id=t.ticket_id)
    assert [q.ticket_id for q in await client.get_queue("idle")] == [t.ticket_id]


async def test_cancel_head_retires_only_the_head(client: Client) -> None:
    await client.register("worker")
    t1 = await client.enqueue("worker", "first")
    t2 = await client.enqueue("worker", "second")
    assert await client.cancel_head("worker", t2.ticket_id) is False
    assert [q.ticket_id for q in await client.get_queue("worker")] == [t1.ticket_id, t2.ticket_id]
    assert await client.cancel_head("worker", t1.ticket_id) is True
    assert await client.cancel_head("worker", t1.ticket_id) is False  # idempotent
    with pytest.raises(Aborted) as err:
        await client.await_reply(t1.ticket_id)
    assert "reply channel closed before a result was rendered" in err.value.message
    assert [q.ticket_id for q in await client.get_queue("worker")] == [t2.ticket_id]


async def test_timeout_retires_the_ticket_and_the_queue_advances(client: Client) -> None:
    await client.register("worker")
    with pytest.raises(DeadlineExceeded):
        await client.ask("worker", "too slow", timeout=0.2)
    assert await client.get_queue("worker") == []
    assert (await client.peek("worker")).unread_count == 0  # the unread task was withdrawn
    with pytest.raises(FailedPrecondition):
        await client.reply("worker", "late answer")


async def test_a_timed_out_ticket_behind_the_head_leaves_the_queue_too(client: Client) -> None:
    await client.register("worker")
    head = await client.enqueue("worker", "head")
    with pytest.raises(DeadlineExceeded):
        await client.ask("worker", "behind the head", timeout=0.2)
    assert [q.ticket_id for q in await client.get_queue("worker")] == [head.ticket_id]
    assert [m.ticket_id for m in (await client.peek("worker")).messages] == [head.ticket_id]


async def test_the_calls_deadline_also_ends_the_wait(client: Client) -> None:
    await client.register("worker")
    request = rv_pb.AskRequest(target="worker", task="t")
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await client.rendezvous.Ask(request, timeout=0.3)
    assert err.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    await wait_for_queue(client, "worker", lambda q: q == [])


async def test_a_caller_that_disconnects_retires_its_ticket(client: Client) -> None:
    await client.register("worker")
    call = client.rendezvous.Ask(rv_pb.AskRequest(target="worker", task="abandoned"))
    await wait_for_queue(client, "worker", lambda q: len(q) == 1)
    call.cancel()
    await wait_for_queue(client, "worker", lambda q: q == [])
    assert (await client.peek("worker")).unread_count == 0


async def test_await_reply_timeout_keeps_the_ticket_and_many_awaiters_get_the_result(client: Client) -> None:
    await client.register("worker")
    t = await client.enqueue("worker", "task")
    with pytest.raises(DeadlineExceeded):
        await client.await_reply(t.ticket_id, timeout=0.1)
    assert [q.ticket_id for q in await client.get_queue("worker")] == [t.ticket_id]
    waiters = [asyncio.create_task(client.await_reply(t.ticket_id, timeout=30)) for _ in range(5)]
    status = await client.get_status()
    while status.open_waits < 5:  # wait until all five are parked on the ticket
        await asyncio.sleep(0)
        status = await client.get_status()
    await client.reply("worker", "for everyone")
    assert await asyncio.gather(*waiters) == ["for everyone"] * 5


async def test_closing_a_queue_aborts_its_waiters(client: Client) -> None:
    await client.register("worker")
    asks = [asyncio.create_task(client.ask("worker", f"t{i}", timeout=60)) for i in range(3)]
    await wait_for_queue(client, "worker", lambda q: len(q) == 3)
    assert await client.close_queue("worker", "the worker's session ended") == 3
    for ask in asks:
        with pytest.raises(Aborted) as err:
            await ask
        assert "session ended" in err.value.message


async def test_a_target_that_only_drains_its_mailbox_sees_the_task_with_its_ticket(client: Client) -> None:
    await client.register("reader")
    t = await client.enqueue("reader", "summarise the log", source_agent="planner")
    (message,) = (await client.drain("reader")).messages
    assert message.ticket_id == t.ticket_id == message.id
    assert "summarise the log" in message.text and "planner" in message.text
    assert message.sender.agent_id == "planner"
    await client.reply("reader", "summary", ticket_id=message.ticket_id)
    assert await client.await_reply(t.ticket_id) == "summary"


async def test_watch_queue_sends_the_snapshot_then_each_change(client: Client) -> None:
    await client.register("worker")
    t1 = await client.enqueue("worker", "one")
    snapshots: list[list[str]] = []

    async def watch() -> None:
        async for tickets in client.watch_queue("worker"):
            snapshots.append([q.ticket_id for q in tickets])
            if len(snapshots) == 3:
                return

    watcher = asyncio.create_task(watch())
    await wait_for_queue(client, "worker", lambda q: len(q) == 1)
    while not snapshots:
        await asyncio.sleep(0)
    t2 = await client.enqueue("worker", "two")
    while len(snapshots) < 2:
        await asyncio.sleep(0)
    await client.reply("worker", "r")
    await watcher
    assert snapshots == [[t1.ticket_id], [t1.ticket_id, t2.ticket_id], [t2.ticket_id]]


async def test_unknown_targets_tickets_and_bad_input(client: Client) -> None:
    with pytest.raises(NotFound) as err:
        await client.ask("nobody", "hello?", timeout=1)
    assert err.value.reason == "UNKNOWN_TARGET"
    with pytest.raises(NotFound):
        await client.await_reply("no-such-ticket", timeout=1)
    await client.register("worker")
    with pytest.raises(InvalidArgument):
        await client.enqueue("worker", "")
    with pytest.raises(InvalidArgument):
        await client.enqueue("worker", "t", requester="r" * 257)
    with pytest.raises(grpc.aio.AioRpcError) as raw:
        await client.rendezvous.EnqueueTicket(rv_pb.EnqueueTicketRequest(
            target="worker", task="t", source=rv_pb.TicketSource(kind=rv_pb.TICKET_SOURCE_KIND_AGENT)))
    assert raw.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "source.agent_id" in raw.value.details()
    with pytest.raises(grpc.aio.AioRpcError) as raw:
        await client.rendezvous.EnqueueTicket(rv_pb.EnqueueTicketRequest(
            target="worker", task="t", source=rv_pb.TicketSource(kind=7)))
    assert raw.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    with pytest.raises(InvalidArgument):
        await client.ask("worker", "t", timeout=-1)
    assert await client.get_queue("worker") == []


async def test_no_waiter_is_left_behind_after_1000_asks(client: Client) -> None:
    await client.register("worker")
    rng = random.Random(7)
    answered = 0
    baseline = (await client.get_status()).waiters  # the daemon's own loops (the outbox's) wait too

    async def serve() -> None:
        nonlocal answered
        async with client.subscribe("worker") as inbox:
            async for message in inbox:
                if message.ticket_id and rng.random() < 0.7:
                    try:
                        await client.reply("worker", "ok", ticket_id=message.ticket_id)
                        answered += 1
                    except FailedPrecondition:
                        pass  # that ask timed out first

    serving = asyncio.create_task(serve())
    sem = asyncio.Semaphore(50)

    async def one(i: int) -> str:
        async with sem:
            try:
                return await client.ask("worker", f"t{i}", timeout=rng.choice([0.05, 0.2, 1]))
            except DeadlineExceeded:
                return "timeout"

    outcomes = await asyncio.gather(*(one(i) for i in range(1000)))
    serving.cancel()
    assert outcomes.count("ok") == answered > 0
    assert outcomes.count("timeout") > 0
    status = await client.get_status()
    while status.open_streams > 1:  # the cancelled subscription's closes on the server side; the asks' stays
        await asyncio.sleep(0.01)
        status = await client.get_status()
    assert (status.open_waits, status.waiters - baseline, status.queued_tickets) == (0, 0, 0)


async def test_tickets_and_uncollected_results_survive_a_restart(daemon) -> None:
    async with Client(daemon.target) as client:
        await client.register("worker")
        t1 = await client.enqueue("worker", "answered before the restart")
        t2 = await client.enqueue("worker", "still queued")
        await client.reply("worker", "kept for you")
    daemon.restart()
    async with Client(daemon.target) as client:
        assert await client.await_reply(t1.ticket_id, timeout=5) == "kept for you"
        assert [q.ticket_id for q in await client.get_queue("worker")] == [t2.ticket_id]
        waiting = asyncio.create_task(client.await_reply(t2.ticket_id, timeout=30))
        await client.reply("worker", "after the restart")
        assert await waiting == "after the restart"


async def test_shutdown_during_ask_is_unavailable_with_the_ticket_to_reattach(daemon) -> None:
    async with Client(daemon.target) as client:
        await client.register("worker")
        asking = asyncio.create_task(client.ask("worker", "long job", timeout=60))
        (queued,) = await wait_for_queue(client, "worker", lambda q: len(q) == 1)
        daemon.stop()
        with pytest.raises(Unavailable) as err:
            await asking
        assert err.value.metadata.get("ticket_id") == queued.ticket_id
    daemon.start()
    async with Client(daemon.target) as client:
        waiting = asyncio.create_task(client.await_reply(queued.ticket_id, timeout=30))
        await client.reply("worker", "finished")
        assert await waiting == "finished"


async def test_reply_and_queue_accept_the_targets_session_name(client: Client) -> None:
    await client.register("agent-5150", session_name="reviewer")
    t = await client.enqueue("reviewer", "look at this")
    assert [q.ticket_id for q in await client.get_queue("reviewer")] == [t.ticket_id]
    assert await client.reply("reviewer", "looked") == t.ticket_id
    assert await client.await_reply(t.ticket_id) == "looked"


async def test_cancel_head_and_close_queue_take_a_session_name(client: Client) -> None:
    await client.register("agent-w1", session_name="worker-name")
    t1 = await client.enqueue("worker-name", "one")
    await client.enqueue("worker-name", "two")
    assert await client.cancel_head("worker-name", t1.ticket_id) is True
    assert [t.task for t in await client.get_queue("worker-name")] == ["two"]
    assert await client.close_queue("worker-name") == 1
    assert await client.get_queue("agent-w1") == []


async def test_watch_queue_snapshots_of_a_long_queue_are_its_head_with_the_total_and_truncated(client) -> None:
    from fabricd.v1 import rendezvous_service_pb2 as rv_pb

    await client.register("busy")
    for start in range(0, 1200, 400):  # more than the 1,000 a snapshot may hold at most
        await asyncio.gather(*(client.enqueue("busy", f"task {i:04d} " + "t" * 200) for i in range(start, start + 400)))
    call = client.rendezvous.WatchQueue(rv_pb.WatchQueueRequest(agent_id="busy"))
    first = await call.read()
    assert (len(first.tickets), first.total, first.truncated) == (100, 1200, True)
    assert first.ByteSize() < 64 << 10  # not 1,200 tickets in one response
    assert [t.position for t in first.tickets] == list(range(100))
    await client.enqueue("busy", "one more")  # the tail moves: a snapshot with the new total
    second = await call.read()
    assert (len(second.tickets), second.total) == (100, 1201)
    call.cancel()
    small = client.rendezvous.WatchQueue(rv_pb.WatchQueueRequest(agent_id="busy", max_tickets=3))
    head = await small.read()
    assert [t.ticket_id for t in head.tickets] == [t.ticket_id for t in first.tickets[:3]] and head.truncated
    small.cancel()
    assert len(await anext(client.watch_queue("busy", max_tickets=2000))) == 1000  # at most 1000
