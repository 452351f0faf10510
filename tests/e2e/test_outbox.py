"""OutboxService against the real daemon: fan-out, delivery with retries, receipts, crashes."""

from __future__ import annotations

import asyncio
import signal
import time

import pytest

from fabricd.client import AlreadyExists, Client, InvalidArgument
from fabricd.v1 import outbox_service_pb2 as ob
from fabricd.v1 import types_pb2 as pb

BACKENDS = ("lmdb", "postgres")  # every test here runs on both stores (tests/conftest.py)

PENDING, DEAD, DELIVERED = ob.OUTBOX_ROW_STATE_PENDING, ob.OUTBOX_ROW_STATE_DEAD_LETTER, ob.OUTBOX_ROW_STATE_DELIVERED


def job(key: str = "req-1", reply_to: list[tuple[str, str]] | None = None,
        outcome: int = ob.JOB_OUTCOME_COMPLETED, mail: bool = True, job_id: str = "job-1") -> ob.SettledJob:
    settled = ob.SettledJob(job_id=job_id, outcome=outcome, agent=pb.Address(agent_id="child", session_id="child-session"))
    if mail:
        addresses = reply_to if reply_to is not None else [("parent", "parent-session")]
        settled.mail.CopyFrom(pb.Mail(key=key, sender=pb.Address(agent_id="parent", session_id="parent-session"),
                                      recipient=pb.Address(agent_id="child", session_id="child-session"),
                                      reply_to=[pb.Address(agent_id=a, session_id=s) for a, s in addresses],
                                      content="please fix the tests"))
    return settled


async def rows(client: Client, state: int = ob.OUTBOX_ROW_STATE_UNSPECIFIED) -> list[ob.OutboxRow]:
    out: list[ob.OutboxRow] = []
    after = ""
    while True:
        page = await client.list_outbox(state=state, limit=1000, after_key=after)
        out.extend(page.rows)
        if not page.next_after_key:
            return out
        after = page.next_after_key


async def until(predicate, timeout: float = 30.0) -> None:
    """Poll the daemon until `predicate()` holds (the delivery loop runs on its own clock)."""
    deadline = time.monotonic() + timeout
    while not await predicate():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.02)


@pytest.fixture
def manual(make_daemon):  # noqa: ANN201
    """A daemon whose delivery loop is off: tests drive it with DrainOutbox."""
    return make_daemon("--no-outbox-loop").start()


@pytest.mark.parametrize(("outcome", "word"), [
    (ob.JOB_OUTCOME_COMPLETED, "completed"),
    (ob.JOB_OUTCOME_FAILED, "interrupted"),
    (ob.JOB_OUTCOME_OUTCOME_UNKNOWN, "interrupted"),
    (ob.JOB_OUTCOME_INTERRUPTED, "interrupted"),
])
async def test_each_reply_starts_with_the_outcome_header(manual, outcome, word) -> None:
    async with Client(manual.target) as client:
        response = await client.fan_out(job(outcome=outcome), "A test fixture was missing. Fixed it.")
        assert list(response.reply_keys) == ["outbox:req-1:reply:0"] and response.written == 1
        assert (await client.drain_outbox()).posted == 1
        (message,) = (await client.peek("parent")).messages
        assert message.text == (f"---\noutcome: {word}\nagentId: child\nsessionId: child-session\n---\n\n"
                                "A test fixture was missing. Fixed it.")
        assert message.id == "outbox:req-1:reply:0"
        assert message.recipient.session_id == "parent-session"
        assert (message.sender.agent_id, message.sender.session_id) == ("child", "child-session")


async def test_cancelled_jobs_and_jobs_without_mail_send_nothing(manual) -> None:
    async with Client(manual.target) as client:
        cancelled = await client.fan_out(job(outcome=ob.JOB_OUTCOME_CANCELLED), "never sent")
        no_mail = await client.fan_out(job(mail=False), "never sent")
        assert list(cancelled.reply_keys) == list(no_mail.reply_keys) == []
        assert (await client.drain_outbox()).posted == 0
        assert await rows(client) == [] and await client.list_mailboxes() == []


async def test_keys_name_the_mail_and_the_reply_index(manual) -> None:
    async with Client(manual.target) as client:
        response = await client.fan_out(job(key="k/7", reply_to=[("a", "s"), ("b", "s"), ("c", "s")]), "done")
        assert list(response.reply_keys) == ["outbox:k/7:reply:0", "outbox:k/7:reply:1", "outbox:k/7:reply:2"]
        assert [r.key for r in await rows(client, PENDING)] == list(response.reply_keys)


async def test_after_key_pages_go_on_between_two_agents_rows_with_one_key(manual) -> None:
    """next_after_key names the page's last row: a page that ends between the rows three agents settled under
    one mail key goes on with the next agent's row, none skipped; a bare key still goes on after all of them."""
    async with Client(manual.target) as client:
        for agent in ("ann", "bob", "cat"):
            settled = job(key="req-1", job_id=f"{agent}-job")
            settled.agent.CopyFrom(pb.Address(agent_id=agent, session_id=f"{agent}-session"))
            await client.fan_out(settled, f"{agent}'s result")
        await client.fan_out(job(key="req-2"), "child's result")
        listed, after = [], ""
        while True:
            page = await client.list_outbox(limit=1, after_key=after)
            listed += [(r.key, r.sender.agent_id) for r in page.rows]
            if not (after := page.next_after_key):
                break
        # Within one key the order is the store's (LMDB: the agent's key bytes), each row exactly once.
        assert sorted(listed) == [("outbox:req-1:reply:0", "ann"), ("outbox:req-1:reply:0", "bob"),
                                  ("outbox:req-1:reply:0", "cat"), ("outbox:req-2:reply:0", "child")]
        assert [key for key, _ in listed] == sorted(key for key, _ in listed)
        old = await client.list_outbox(limit=10, after_key="outbox:req-1:reply:0")  # a bare key, as clients kept
        assert [(r.key, r.sender.agent_id) for r in old.rows] == [("outbox:req-2:reply:0", "child")]
        with pytest.raises(InvalidArgument) as err:
            await client.list_outbox(limit=10, after_key="outbox:req-1:reply:0\0bob\0")
        assert err.value.reason == "INVALID_CHARACTERS"


async def test_200_addresses_page_through_in_64s(manual) -> None:
    async with Client(manual.target) as client:
        await client.fan_out(job(reply_to=[(f"agent-{i:03}", "s") for i in range(200)]), "done")
        pages = [await client.drain_outbox() for _ in range(5)]
        assert [(p.posted, p.more) for p in pages] == [(64, True), (64, True), (64, True), (8, False), (0, False)]
        for i in range(200):
            assert (await client.peek(f"agent-{i:03}")).unread_count == 1
        assert len(await rows(client, DELIVERED)) == 200


async def test_replaying_a_settlement_writes_and_posts_nothing_twice(manual) -> None:
    async with Client(manual.target) as client:
        first = await client.fan_out(job(reply_to=[("a", "s"), ("b", "s")]), "done")
        await client.drain_outbox()
        again = await client.fan_out(job(reply_to=[("a", "s"), ("b", "s")]), "done")
        assert (first.written, again.written) == (2, 0)
        assert list(again.reply_keys) == list(first.reply_keys)
        assert (await client.drain_outbox()).posted == 0
    manual.restart()
    async with Client(manual.target) as client:
        assert (await client.fan_out(job(reply_to=[("a", "s"), ("b", "s")]), "done")).written == 0
        assert (await client.drain_outbox()).posted == 0
        assert [(await client.peek(a)).unread_count for a in ("a", "b")] == [1, 1]


async def test_a_recipient_over_quota_is_retried_without_limit_and_served_once_room_frees(make_daemon) -> None:
    # The default max_attempts (0) never dead-letters: the outbox keeps trying, with the capped back-off.
    daemon = make_daemon("--max-unread", "1", "--outbox-backoff", "0.01", "--outbox-backoff-cap", "0.02").start()
    async with Client(daemon.target) as client:
        await client.register("parent")
        await client.send("parent", "fills the mailbox")
        await client.fan_out(job(), "the result")

        async def retried() -> bool:
            (row,) = await rows(client)
            assert row.state == PENDING
            return row.attempts >= 12  # past the old default of 8 attempts, still pending

        await until(retried)
        (row,) = await rows(client)
        assert row.last_error.startswith("MAILBOX_FULL") and row.next_attempt_time.seconds > 0
        await client.drain("parent")  # room frees

        async with client.subscribe("parent") as inbox:
            async for message in inbox:
                assert message.id == "outbox:req-1:reply:0"
                break
        (row,) = await rows(client)
        assert row.state == DELIVERED and row.receipt.message_id == row.key and row.content == ""
        assert (await client.peek("parent")).unread_count == 0


async def test_dead_letter_after_max_attempts_then_retry(make_daemon) -> None:
    daemon = make_daemon("--max-unread", "1", "--outbox-backoff", "0.01", "--outbox-backoff-cap", "0.02",
                         "--outbox-max-attempts", "3").start()
    async with Client(daemon.target) as client:
        await client.register("parent")
        await client.send("parent", "fills the mailbox")
        await client.fan_out(job(), "the result")

        async def dead() -> bool:
            return len(await rows(client, DEAD)) == 1

        await until(dead)
        (row,) = await rows(client, DEAD)
        assert row.attempts == 3 and "MAILBOX_FULL" in row.last_error
        await client.drain("parent")
        assert await client.retry_dead_letters() == 1
        assert await client.retry_dead_letters() == 0

        async def delivered() -> bool:
            return len(await rows(client, DELIVERED)) == 1

        await until(delivered)
        assert [m.id for m in (await client.peek("parent")).messages] == ["outbox:req-1:reply:0"]


async def test_due_deliveries_resume_after_a_restart_without_any_client_call(make_daemon) -> None:
    daemon = make_daemon("--no-outbox-loop").start()
    async with Client(daemon.target) as client:
        await client.fan_out(job(reply_to=[(f"r{i}", "s") for i in range(100)]), "done")
    daemon.stop()
    daemon.args.remove("--no-outbox-loop")
    daemon.start()
    async with Client(daemon.target) as client:
        async with client.subscribe("r99") as inbox:  # no DrainOutbox: the daemon delivers by itself
            async for message in inbox:
                assert message.id == "outbox:req-1:reply:99"
                break

        async def all_delivered() -> bool:
            return len(await rows(client, DELIVERED)) == 100

        await until(all_delivered)


async def test_sigkill_mid_fan_out_then_restart_delivers_every_reply_exactly_once(make_daemon) -> None:
    daemon = make_daemon("--no-outbox-loop").start()
    recipients = [f"agent-{i}" for i in range(50)]
    jobs = [job(key=f"req-{j}", job_id=f"job-{j}", reply_to=[(r, "s") for r in recipients]) for j in range(100)]
    total = len(jobs) * len(recipients)
    async with Client(daemon.target) as client:
        for settled in jobs:
            await client.fan_out(settled, "done")  # 5,000 replies waiting
    daemon.stop()

    daemon.args.remove("--no-outbox-loop")
    daemon.start()  # the loop starts delivering by itself
    async with Client(daemon.target) as client, client.subscribe("agent-49", auto_ack=False) as inbox:
        async for _ in inbox:  # the first reply landed: kill the daemon mid-delivery
            daemon.stop(signal.SIGKILL)
            break

    daemon.args.append("--no-outbox-loop")  # look at what the crash left before delivery resumes
    daemon.start()
    async with Client(daemon.target) as client:
        before = len(await rows(client, DELIVERED))
        assert 0 < before < total, "the kill should land mid-delivery"
    daemon.stop()
    daemon.args.remove("--no-outbox-loop")
    daemon.start()
    async with Client(daemon.target) as client:
        for settled in jobs:  # the settlements are replayed after the crash, as an executor would
            assert (await client.fan_out(settled, "done")).written == 0

        async def all_delivered() -> bool:
            return len(await rows(client, DELIVERED)) == total

        await until(all_delivered)
        for i, r in enumerate(recipients):
            ids = [m.id for m in (await client.peek(r, limit=1000)).messages]
            assert sorted(ids) == sorted(f"outbox:req-{j}:reply:{i}" for j in range(len(jobs))), r


async def test_receipts_can_be_pruned_by_an_operator(manual) -> None:
    async with Client(manual.target) as client:
        await client.fan_out(job(reply_to=[("a", "s")]), "done")
        await client.drain_outbox()
        assert await client.prune_receipts(0) == 0
        assert await client.prune_receipts(time.time_ns() + 1) == 1
        assert await rows(client) == []


async def test_a_replay_naming_another_reply_to_is_already_exists_and_writes_nothing(manual) -> None:
    """A reply key names one reply: a FanOut under it to another address is another request reusing the key,
    refused whether the row is pending or a receipt, never absorbed (the new address would get nothing)."""
    async with Client(manual.target) as client:
        await client.fan_out(job(reply_to=[("a", "s")]), "done")
        for _ in ("pending", "delivered"):
            for reply_to in ([("b", "s")], [("a", "other-session")], [("a", "s"), ("b", "s")][::-1]):
                with pytest.raises(AlreadyExists) as err:
                    await client.fan_out(job(reply_to=reply_to), "done")
                assert err.value.reason == "OUTBOX_KEY_REUSED" and err.value.metadata["key"] == "outbox:req-1:reply:0"
                assert "already the reply to 'a'" in err.value.message
            assert [(r.key, r.recipient.agent_id) for r in await rows(client)] == [("outbox:req-1:reply:0", "a")]
            assert (await client.fan_out(job(reply_to=[("a", "s")]), "other text")).written == 0  # a replay
            await client.drain_outbox()
        assert (await client.fan_out(job(reply_to=[("a", "s"), ("b", "s")]), "done")).written == 1  # one more


async def test_a_settlement_replayed_after_its_receipt_was_pruned_is_absorbed_while_the_id_is_remembered(
        manual) -> None:
    """PruneReceipts' promise: the replay writes its row again, and posting it answers the reply already
    unread in the mailbox (its message id): one copy, the receipt naming it. Another recipient under the key
    is refused (MESSAGE_ID_REUSED) and retried, never a second reply."""
    async with Client(manual.target) as client:
        await client.fan_out(job(reply_to=[("a", "s")]), "done")
        await client.drain_outbox()
        (first,) = (await client.peek("a")).messages
        assert await client.prune_receipts(time.time_ns() + 1) == 1
        assert (await client.fan_out(job(reply_to=[("a", "s")]), "done again")).written == 1
        assert (await client.drain_outbox()).posted == 1
        assert [(m.id, m.seq, m.text) for m in (await client.peek("a")).messages] == [(first.id, first.seq,
                                                                                      first.text)]
        (receipt,) = await rows(client)
        assert (receipt.state, receipt.receipt.seq) == (DELIVERED, first.seq)

        assert await client.prune_receipts(time.time_ns() + 1) == 1
        await client.fan_out(job(reply_to=[("b", "s")]), "done")
        assert (await client.drain_outbox()).failed == 1
        (row,) = await rows(client)
        assert row.state == PENDING and row.last_error.startswith("MESSAGE_ID_REUSED")
        assert (await client.peek("b")).messages == [] and len((await client.peek("a")).messages) == 1


@pytest.mark.parametrize(("settled", "reason"), [
    (ob.SettledJob(), "MISSING_FIELD"),
    (ob.SettledJob(job_id="j", outcome=ob.JOB_OUTCOME_COMPLETED), "MISSING_FIELD"),
    (ob.SettledJob(job_id="j", outcome=9, agent=pb.Address(agent_id="a", session_id="s")), "INVALID_FIELD"),
    (job(key=""), "MISSING_FIELD"),
    (job(reply_to=[("a", "")]), "MISSING_FIELD"),
    (job(key="k" * 257), "FIELD_TOO_LONG"),
])
async def test_bad_settlements_are_invalid_argument_and_write_nothing(manual, settled, reason) -> None:
    async with Client(manual.target) as client:
        with pytest.raises(InvalidArgument) as err:
            await client.fan_out(settled, "x")
        assert err.value.reason == reason
        assert await rows(client) == []
