"""MailboxService against the real daemon: send, batch, peek, drain, subscribe, ack."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import AsyncIterator

import grpc
import pytest

from fabricd.client import AlreadyExists, Client, FailedPrecondition, InvalidArgument, NotFound, ResourceExhausted
from fabricd.v1 import directory_service_pb2 as dir_pb
from fabricd.v1 import mailbox_service_pb2 as mbx_pb
from fabricd.v1 import rendezvous_service_pb2 as rv_pb
from fabricd.v1 import types_pb2 as pb

BACKENDS = ("lmdb", "postgres")  # every test here runs on both stores (tests/conftest.py)

AGENTS = ("alice", "bob", "shared", "inbox", "big", "q", "quiet", "x")
"""The agents these tests mail, registered first as real agents are."""


@pytest.fixture
async def client(daemon) -> AsyncIterator[Client]:
    async with Client(daemon.target) as c:
        for name in AGENTS:
            await c.register(name)
        yield c


async def test_server_assigns_unique_sortable_ids_seq_and_time(client: Client) -> None:
    results = [await client.send("alice", f"m{i}") for i in range(20)]
    ids = [r.message.id for r in results]
    assert len(set(ids)) == 20
    assert ids == sorted(ids)
    assert [r.message.seq for r in results] == list(range(1, 21))
    assert all(r.message.send_time.seconds > 0 for r in results)


async def test_peek_returns_unread_oldest_first_without_consuming(client: Client) -> None:
    for i in range(5):
        await client.send("alice", f"m{i}")
    first = await client.peek("alice", limit=3)
    assert [m.text for m in first.messages] == ["m0", "m1", "m2"]
    assert first.unread_count == 5
    again = await client.peek("alice")
    assert [m.text for m in again.messages] == ["m0", "m1", "m2", "m3", "m4"]


async def test_drained_message_never_appears_again(client: Client) -> None:
    for i in range(5):
        await client.send("alice", f"m{i}")
    drained = await client.drain("alice", limit=2)
    assert [m.text for m in drained.messages] == ["m0", "m1"]
    assert drained.remaining == 3
    rest = await client.drain("alice")
    assert [m.text for m in rest.messages] == ["m2", "m3", "m4"]
    assert rest.remaining == 0
    assert list((await client.peek("alice")).messages) == []
    assert list((await client.drain("alice")).messages) == []


async def test_drain_consumes_exactly_once_under_20_concurrent_drainers(client: Client) -> None:
    n = 500
    await client.send_many([pb.Message(recipient=pb.Address(agent_id="q"), text=str(i)) for i in range(n)])

    async def drainer() -> list[str]:
        got: list[str] = []
        while True:
            r = await client.drain("q", limit=7)
            if not r.messages:
                return got
            got.extend(m.text for m in r.messages)

    results = await asyncio.gather(*(drainer() for _ in range(20)))
    everything = [t for r in results for t in r]
    assert len(everything) == n
    assert sorted(everything, key=int) == [str(i) for i in range(n)]
    assert sum(1 for r in results if r) > 1  # the drainers really competed


async def test_100_concurrent_senders_all_land_in_per_sender_order(client: Client) -> None:
    per_sender = 20

    async def sender(s: int) -> None:
        for i in range(per_sender):
            await client.send("inbox", f"{s}:{i}", sender=f"sender-{s}")

    await asyncio.gather(*(sender(s) for s in range(100)))
    seen: dict[str, list[int]] = defaultdict(list)
    while True:
        r = await client.drain("inbox", limit=1000)
        if not r.messages:
            break
        for m in r.messages:
            s, i = m.text.split(":")
            seen[s].append(int(i))
    assert len(seen) == 100
    for s, order in seen.items():
        assert order == list(range(per_sender)), s


async def test_idempotent_resend_stores_once(client: Client) -> None:
    first = await client.send("alice", "hi", id="client-1", sender="bob")
    again = await client.send("alice", "hi", id="client-1", sender="bob")
    assert not first.duplicate and again.duplicate
    assert again.message.id == first.message.id == "client-1"
    assert again.message.seq == first.message.seq
    assert again.message.send_time == first.message.send_time
    assert (await client.peek("alice")).unread_count == 1


async def test_same_id_with_a_different_body_is_already_exists(client: Client) -> None:
    await client.send("alice", "hi", id="client-1")
    with pytest.raises(AlreadyExists) as err:
        await client.send("alice", "something else", id="client-1")
    assert err.value.reason == "MESSAGE_ID_REUSED"
    assert (await client.peek("alice")).unread_count == 1


async def test_resend_after_drain_is_still_a_duplicate(client: Client) -> None:
    await client.send("alice", "hi", id="once")
    assert len((await client.drain("alice")).messages) == 1
    again = await client.send("alice", "hi", id="once")
    assert again.duplicate
    assert list((await client.peek("alice")).messages) == []


async def test_mail_to_an_unknown_name_is_refused_with_the_closest_names_and_stores_nothing(client: Client) -> None:
    await client.register("agent-7f3a", session_name="reviewer")
    before = {e.agent_id: e.revision for e in await client.list_mailboxes()}
    with pytest.raises(NotFound) as refused:
        await client.send("revewer", "please review")
    assert refused.value.reason == "UNKNOWN_RECIPIENT"
    assert "did you mean 'reviewer'" in refused.value.message
    assert refused.value.metadata["suggestions"] == "reviewer"
    assert {e.agent_id: e.revision for e in await client.list_mailboxes()} == before  # no mailbox appeared
    results = await client.send_many([pb.Message(recipient=pb.Address(agent_id="alice"), text="ok"),
                                      pb.Message(recipient=pb.Address(agent_id="reviwer"), text="typo")])
    assert not isinstance(results[0], Exception)
    assert isinstance(results[1], NotFound) and results[1].reason == "UNKNOWN_RECIPIENT"


async def test_mail_for_an_agent_not_registered_yet_needs_create_mailbox(client: Client) -> None:
    await client.send("newcomer", "welcome", create_mailbox=True)
    await client.send("newcomer", "second")  # the mailbox exists now
    raw = await client.mailbox.SendMessages(mbx_pb.SendMessagesRequest(
        messages=[pb.Message(recipient=pb.Address(agent_id="later"), text="hi")], create_mailbox=True))
    assert not raw.results[0].HasField("error")
    entries = {e.agent_id: e for e in await client.list_mailboxes()}
    assert entries["newcomer"].unread_count == 2
    assert not entries["newcomer"].registered
    assert entries["newcomer"].presence == pb.PRESENCE_OFFLINE  # receiving mail is not activity
    assert entries["later"].unread_count == 1


async def test_send_to_a_session_name_reaches_its_agent(client: Client) -> None:
    await client.register("agent-7f3a", session_name="reviewer")
    sent = await client.send("reviewer", "please review")
    assert sent.message.recipient.agent_id == "agent-7f3a"
    assert [m.text for m in (await client.peek("agent-7f3a")).messages] == ["please review"]


async def test_send_to_an_ambiguous_session_name_is_failed_precondition(client: Client) -> None:
    await client.register("a-1111", session_name="builder")
    await client.register("a-2222", session_name="builder")
    with pytest.raises(FailedPrecondition) as err:
        await client.send("builder", "hello?")
    assert err.value.reason == "AMBIGUOUS_NAME"
    assert "a-1111" in err.value.message and "a-2222" in err.value.message
    assert err.value.metadata["forms"] == "builder/a-1111,builder/a-2222"  # the hint names forms that resolve
    for form in err.value.metadata["forms"].split(","):
        assert (await client.send(form, "hello")).message.recipient.agent_id == form.split("/")[1]
    assert (await client.send("builder/2222", "hello")).message.recipient.agent_id == "a-2222"  # suffixes still work
    assert {e.agent_id for e in await client.list_mailboxes()} == {"a-1111", "a-2222", *AGENTS}


async def test_session_slash_segment_means_the_last_path_segment_of_the_agent_id(client: Client) -> None:
    await client.register("sess1/main", session_name="goal_builder")
    await client.register("sess1/domain", session_name="goal_builder")
    assert (await client.send("goal_builder/main", "m")).message.recipient.agent_id == "sess1/main"
    assert (await client.send("goal_builder/domain", "d")).message.recipient.agent_id == "sess1/domain"
    await client.register("sess2/main", session_name="goal_builder")
    with pytest.raises(FailedPrecondition) as err:  # two agents end in /main: only their full ids resolve
        await client.send("goal_builder/main", "?")
    assert err.value.metadata["forms"] == "sess1/main,sess2/main"


async def test_batch_without_atomic_stores_the_valid_and_reports_each_error(client: Client) -> None:
    results = await client.send_many([
        pb.Message(recipient=pb.Address(agent_id="alice"), text="ok-1"),
        pb.Message(text="no recipient"),
        pb.Message(recipient=pb.Address(agent_id="x" * 257), text="too long"),
        pb.Message(recipient=pb.Address(agent_id="alice"), text="ok-2"),
    ])
    assert [type(r).__name__ for r in results] == ["SendResult", "InvalidArgument", "InvalidArgument", "SendResult"]
    assert results[1].reason == "MISSING_FIELD"
    assert results[2].reason == "FIELD_TOO_LONG"
    assert [m.text for m in (await client.peek("alice")).messages] == ["ok-1", "ok-2"]


async def test_atomic_batch_with_one_bad_message_stores_nothing_and_names_its_index(client: Client) -> None:
    with pytest.raises(InvalidArgument) as err:
        await client.send_many([
            pb.Message(recipient=pb.Address(agent_id="alice"), text="ok"),
            pb.Message(recipient=pb.Address(agent_id="alice"), text="bad", hops=-1),
        ], atomic=True)
    assert err.value.metadata["index"] == "1"
    assert "messages[1]" in err.value.message
    assert list((await client.peek("alice")).messages) == []


async def test_coalesced_sends_fail_only_the_bad_caller(client: Client) -> None:
    calls = [client.send("bob", f"m{i}") for i in range(63)] + [client.send("", "no recipient")]
    results = await asyncio.gather(*calls, return_exceptions=True)
    assert isinstance(results[-1], InvalidArgument)
    assert all(not isinstance(r, Exception) for r in results[:-1])
    assert (await client.peek("bob", limit=1000)).unread_count == 63


async def test_sends_in_flight_when_the_client_closes_are_answered_not_cancelled(daemon) -> None:
    client = Client(daemon.target)
    await client.register("bob")
    for queued in (0, 20):
        sends = [asyncio.create_task(client.send("bob", "alone"))]  # nothing else in flight: sent in its own task
        await asyncio.sleep(0)  # it has started its RPC
        sends += [asyncio.create_task(client.send("bob", f"queued {i}")) for i in range(queued)]  # then a batch
        await asyncio.sleep(0)
        await client.close()
        assert all(not s.result().duplicate for s in sends)
        client = Client(daemon.target)
    async with client:
        assert (await client.peek("bob", limit=100)).unread_count == 22


async def test_mailbox_over_its_quota_refuses_with_resource_exhausted(make_daemon) -> None:
    daemon = make_daemon("--max-unread", "3").start()
    async with Client(daemon.target) as client:
        for name in AGENTS:
            await client.register(name)
        for i in range(3):
            await client.send("alice", f"m{i}")
        with pytest.raises(ResourceExhausted) as err:
            await client.send("alice", "one too many")
        assert err.value.reason == "MAILBOX_FULL"
        await client.drain("alice", limit=1)
        await client.send("alice", "room again")
        assert [m.text for m in (await client.peek("alice")).messages] == ["m1", "m2", "room again"]


async def test_ack_is_idempotent_and_counts_only_unread(client: Client) -> None:
    a = await client.send("alice", "a")
    b = await client.send("alice", "b")
    await client.send("bob", "not yours", id="bobs")
    assert await client.ack("alice", [a.message.id, "no-such-id", "bobs"]) == 1
    assert await client.ack("alice", [a.message.id]) == 0
    assert [m.id for m in (await client.peek("alice")).messages] == [b.message.id]
    assert (await client.peek("bob")).unread_count == 1


async def test_subscribe_delivers_backlog_then_new_mail_in_order(client: Client) -> None:
    for i in range(3):
        await client.send("alice", f"old{i}")
    got: list[str] = []
    async with client.subscribe("alice") as inbox:
        async for m in inbox:
            got.append(m.text)
            if m.text == "old2":
                await client.send("alice", "new0")
            if m.text == "new0":
                break
    assert got == ["old0", "old1", "old2", "new0"]


async def test_unacked_mail_is_delivered_again_after_the_stream_drops(client: Client) -> None:
    for i in range(3):
        await client.send("alice", f"m{i}")
    call = client.mailbox.Subscribe(mbx_pb.SubscribeRequest(agent_id="alice"))
    first = await call.read()
    assert [m.text for m in first.messages] == ["m0", "m1", "m2"]
    await client.ack("alice", [first.messages[0].id])
    call.cancel()  # the consumer "crashes" without acking m1 and m2
    call = client.mailbox.Subscribe(mbx_pb.SubscribeRequest(agent_id="alice"))
    second = await call.read()
    call.cancel()
    assert [m.text for m in second.messages] == ["m1", "m2"]


async def test_a_stream_on_an_empty_mailbox_is_open_before_its_first_mail(client: Client) -> None:
    # Its headers come at once: a client waiting for the stream to be open (the Python client's Subscription,
    # `fabric tail` after the daemon came back) learns it then, not at the first keepalive (15 s later).
    call = client.mailbox.Subscribe(mbx_pb.SubscribeRequest(agent_id="nobody-yet"))
    await asyncio.wait_for(call.wait_for_connection(), 10)
    await client.send("nobody-yet", "first", create_mailbox=True)
    assert [m.text for m in (await call.read()).messages] == ["first"]
    call.cancel()


async def test_two_subscribers_of_one_mailbox_each_see_every_message(client: Client) -> None:
    for i in range(50):
        await client.send("shared", f"m{i}")

    async def consume() -> list[str]:
        out: list[str] = []
        async with client.subscribe("shared", auto_ack=False) as inbox:
            async for m in inbox:
                out.append(m.text)
                if len(out) == 50:
                    return out
        return out

    a, b = await asyncio.gather(consume(), consume())
    assert a == b == [f"m{i}" for i in range(50)]


async def test_subscription_acks_what_was_handled_when_closed(client: Client) -> None:
    for i in range(10):
        await client.send("alice", f"m{i}")
    async with client.subscribe("alice") as inbox:
        async for m in inbox:
            if m.text == "m4":
                break
    remaining = await client.peek("alice")
    assert [m.text for m in remaining.messages] == [f"m{i}" for i in range(5, 10)]


async def test_a_message_whose_handler_raised_out_of_the_subscription_is_delivered_again(client: Client) -> None:
    for i in range(5):
        await client.send("alice", f"m{i}")

    class HandlerFailed(Exception):
        pass

    with pytest.raises(HandlerFailed):
        async with client.subscribe("alice") as inbox:
            async for m in inbox:
                if m.text == "m2":
                    raise HandlerFailed  # m0 and m1 were handled; m2 was not
    remaining = await client.peek("alice")
    assert [m.text for m in remaining.messages] == ["m2", "m3", "m4"]


async def test_closing_a_subscription_from_another_task_ends_the_iteration_waiting_on_it(client: Client) -> None:
    inbox = client.subscribe("quiet")
    waiting = asyncio.create_task(anext(inbox, None))
    while (await client.get_status()).open_streams < 1:  # its stream is open: it waits
        await asyncio.sleep(0.01)
    await inbox.close()  # a shutdown handler stops the consumer
    assert await asyncio.wait_for(waiting, 30) is None, "the iteration ended"
    deadline = asyncio.get_running_loop().time() + 30
    while (await client.get_status()).open_streams:  # and no new stream was opened behind the close
        assert asyncio.get_running_loop().time() < deadline, "a closed subscription subscribed again"
        await asyncio.sleep(0.01)
    await client.send("quiet", "after the close")
    assert (await client.peek("quiet")).unread_count == 1


async def test_a_closed_subscription_hands_out_nothing_more_of_its_batch(client: Client) -> None:
    await client.send_many([pb.Message(recipient=pb.Address(agent_id="alice"), text=f"m{i}") for i in range(20)])
    inbox = client.subscribe("alice")
    assert (await anext(inbox)).text == "m0"  # the batch of 20 came in one response
    await inbox.close()  # a shutdown handler stops the consumer mid-batch: m0 was handled
    assert await anext(inbox, None) is None, "a message handed out after the close would never be acked"
    assert [m.text for m in (await client.peek("alice")).messages] == [f"m{i}" for i in range(1, 20)]


async def test_a_subscription_keeps_one_ack_in_flight_and_acks_everything_while_it_waits(client: Client) -> None:
    for start in range(0, 3000, 500):
        await client.send_many([pb.Message(recipient=pb.Address(agent_id="alice"), text=f"m{i}")
                                for i in range(start, start + 500)])
    in_flight, most, acked = 0, 0, []
    ack = client.ack

    async def counted(agent_id: str, ids: list[str]) -> int:
        nonlocal in_flight, most
        in_flight += 1
        most = max(most, in_flight)
        try:
            return await ack(agent_id, ids)
        finally:
            in_flight -= 1
            acked.append(len(ids))

    client.ack = counted  # type: ignore[method-assign]
    all_in = asyncio.Event()

    async def consume() -> None:
        got = 0
        async with client.subscribe("alice") as inbox:
            async for _ in inbox:
                got += 1
                if got == 3000:
                    all_in.set()

    consumer = asyncio.create_task(consume())
    await all_in.wait()
    # Still subscribed, waiting for more: everything handled is acked meanwhile, not only at close.
    deadline = asyncio.get_running_loop().time() + 30
    while (await client.peek("alice")).unread_count:
        assert asyncio.get_running_loop().time() < deadline, "handled mail was left unacked"
        await asyncio.sleep(0.01)
    consumer.cancel()
    await asyncio.gather(consumer, return_exceptions=True)
    assert most == 1 and sum(acked) == 3000 and max(acked) <= 1000
    assert (await client.peek("alice")).unread_count == 0


async def test_every_stream_marks_its_keepalives_the_same_way(make_daemon) -> None:
    daemon = make_daemon("--keepalive", "0.05").start()
    async with Client(daemon.target) as client:
        for name in AGENTS:
            await client.register(name)
        call = client.mailbox.Subscribe(mbx_pb.SubscribeRequest(agent_id="quiet"))
        response = await call.read()
        call.cancel()
        assert list(response.messages) == [] and response.keepalive
        watch = client.directory.WatchMailboxes(dir_pb.WatchMailboxesRequest())
        snapshot = await watch.read()
        while not snapshot.snapshot_complete:
            snapshot = await watch.read()
        assert not snapshot.keepalive
        response = await watch.read()
        watch.cancel()
        assert list(response.events) == [] and response.keepalive
        queue = client.rendezvous.WatchQueue(rv_pb.WatchQueueRequest(agent_id="quiet"))
        assert not (await queue.read()).keepalive  # the snapshot
        assert (await queue.read()).keepalive
        queue.cancel()


async def test_subscribe_to_a_bad_agent_id_is_invalid_argument(client: Client) -> None:
    call = client.mailbox.Subscribe(mbx_pb.SubscribeRequest(agent_id=""))
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await call.read()
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT


async def test_consumed_ids_are_forgotten_after_the_dedupe_window_but_unread_ones_never(make_daemon) -> None:
    daemon = make_daemon("--dedupe-window", "0", "--housekeeping-interval", "0.05").start()
    async with Client(daemon.target) as client:
        for name in AGENTS:
            await client.register(name)
        await client.send("alice", "read me", id="consumed")
        unread = await client.send("bob", "keep me", id="unread")
        await client.drain("alice")
        deadline = asyncio.get_running_loop().time() + 30
        while (await client.send("alice", "read me", id="consumed")).duplicate:  # until housekeeping forgets it
            assert asyncio.get_running_loop().time() < deadline, "the consumed id was never forgotten"
            await asyncio.sleep(0.05)
        assert [m.text for m in (await client.peek("alice")).messages] == ["read me"]  # stored anew, once
        assert (await client.send("bob", "keep me", id="unread")).duplicate  # an unread id is never forgotten
        assert await client.ack("bob", [unread.message.id]) == 1


async def test_forgetting_ids_copes_with_the_last_record_of_the_table(make_daemon) -> None:
    daemon = make_daemon("--dedupe-window", "0", "--housekeeping-interval", "0.05").start()
    async with Client(daemon.target) as client:
        for name in AGENTS:
            await client.register(name)
        ids = [f"id-{i}" for i in range(40)]  # digests in every order: some consumed id is the table's last
        for mid in ids:
            await client.send("alice", "x", id=mid)
        await client.drain("alice")
        deadline = asyncio.get_running_loop().time() + 30
        for mid in ids:
            while (await client.send("alice", "x", id=mid)).duplicate:
                assert asyncio.get_running_loop().time() < deadline, f"{mid} was never forgotten"
                await asyncio.sleep(0.05)


async def test_large_messages_are_batched_and_returned_within_the_frame_limit(client: Client) -> None:
    blob = b"z" * (1 << 20)  # the largest message: 1 MiB
    sent = await asyncio.gather(*(client.send("big", data=blob, id=f"b{i}") for i in range(40)))  # 40 MiB at once
    assert len({s.message.seq for s in sent}) == 40
    peek = await client.peek("big", limit=1000)
    assert 0 < len(peek.messages) < 40 and peek.unread_count == 40  # one response stays under 16 MiB
    drained: list[str] = []
    while batch := (await client.drain("big", limit=1000)).messages:
        drained.extend(m.id for m in batch)
    assert sorted(drained, key=lambda i: int(i[1:])) == [f"b{i}" for i in range(40)]  # nothing lost to a cap


async def test_a_mailbox_made_again_numbers_its_mail_above_the_old_ones_and_old_ids_ack_nothing(
        client: Client) -> None:
    await client.register("again")
    old = [(await client.send("again", f"before {i}")).message for i in range(3)]
    assert await client.ack("again", [old[0].id]) == 1
    await client.unregister("again", purge=True)
    await client.register("again")
    new = (await client.send("again", "after")).message
    assert new.seq > old[-1].seq  # never a seq the old mailbox used: cursors and id records stay true
    assert await client.ack("again", [m.id for m in old]) == 0
    assert [m.text for m in (await client.peek("again")).messages] == ["after"]


async def test_a_subscription_follows_a_mailbox_removed_and_made_again(client: Client) -> None:
    await client.register("again")
    for i in range(5):
        await client.send("again", f"old {i}")
    five, renewed = asyncio.Event(), asyncio.Event()
    texts: list[str] = []

    async def consume() -> None:
        async with client.subscribe("again") as inbox:
            async for m in inbox:
                texts.append(m.text)
                if len(texts) == 5:
                    five.set()
                if m.text == "new":
                    renewed.set()
                    return

    consumer = asyncio.create_task(consume())
    await asyncio.wait_for(five.wait(), 30)
    await client.unregister("again", purge=True)
    await client.register("again")
    await client.send("again", "new")
    await asyncio.wait_for(renewed.wait(), 30)  # the stream's cursor (seq 5) is below the new mailbox's mail
    await consumer
    assert texts == [f"old {i}" for i in range(5)] + ["new"]

async def test_a_mailbox_no_one_had_numbers_its_first_message_1_after_others_were_removed(client: Client) -> None:
    for i in range(65):
        await client.send("busy", f"m{i}", create_mailbox=True)
    await client.unregister("busy", purge=True)  # a removed mailbox that used seqs up to 65
    first = (await client.send("newbie", "hello", create_mailbox=True)).message
    await client.register("registered-first")
    touched = await client.touch("touched-first")
    assert touched.created
    assert first.seq == 1
    assert (await client.send("registered-first", "hi")).message.seq == 1
    assert (await client.send("touched-first", "hi")).message.seq == 1
    again = (await client.send("busy", "back", create_mailbox=True)).message
    assert again.seq == 66  # made again: above its own old seqs
