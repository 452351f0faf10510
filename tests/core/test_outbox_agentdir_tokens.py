"""The outbox, agent-directory and token contracts, and node ids, on every store."""

from __future__ import annotations

import asyncio

import pytest

from fabricd.core.agentdir import FILTER_NOTIFICATIONS, Agent, Submission
from fabricd.core.errors import AlreadyExists, NotFound
from fabricd.core.ids import IdMint
from fabricd.core.limits import Limits
from fabricd.core.model import Address, JobOutcome, Mail, RowState, SettledJob
from fabricd.core.outbox import RetryPolicy
from tests.core.conftest import Fabric, MakeFabric, decoded, mail, texts


def job(key: str, *reply_to: str) -> SettledJob:
    return SettledJob("job-1", int(JobOutcome.COMPLETED), Address("worker", "s-1"),
                      Mail(key, reply_to=tuple(Address(a, "s") for a in reply_to)))


async def test_a_reply_is_delivered_exactly_once_with_its_receipt(fabric: Fabric) -> None:
    keys, added = await fabric.outbox.fan_out(job("mail-1", "alice", "bob"), "result")
    assert added == 2 and (await fabric.outbox.fan_out(job("mail-1", "alice", "bob"), "result"))[1] == 0
    first = await fabric.outbox.drain_once()
    assert (first.posted, first.failed) == (2, 0)
    assert (await fabric.outbox.drain_once()).posted == 0
    assert (await fabric.outbox.fan_out(job("mail-1", "alice", "bob"), "result"))[1] == 0  # a receipt stays
    (body,) = texts((await fabric.mailboxes.peek("alice", 10))[0])
    assert body.endswith("result")
    rows = (await fabric.outbox.list(10, "", RowState.DELIVERED)).items
    assert [(r.key, r.seq, r.content) for r in rows] == [(keys[0], 1, ""), (keys[1], 1, "")]


async def test_a_refused_post_is_retried_then_dead_lettered_at_max_attempts(make_fabric: MakeFabric) -> None:
    fabric = await make_fabric(Limits(max_unread=1), RetryPolicy(base_s=1, cap_s=1, jitter=0, max_attempts=2))
    await fabric.directory.register("alice")
    await fabric.mailboxes.send(mail("alice"))
    await fabric.outbox.fan_out(job("mail-1", "alice"), "result")
    assert (await fabric.outbox.drain_once()).failed == 1  # the mailbox is full
    assert (await fabric.outbox.drain_once()).failed == 0  # not due yet: backing off
    fabric.clock.advance(1)
    assert (await fabric.outbox.drain_once()).failed == 1
    (dead,) = (await fabric.outbox.list(10, "", RowState.DEAD_LETTER)).items
    assert dead.attempts == 2 and dead.last_error.startswith("MAILBOX_FULL")
    await fabric.mailboxes.drain("alice", 10)
    assert await fabric.outbox.retry_dead_letters([]) == 1
    assert (await fabric.outbox.drain_once()).posted == 1


async def test_the_agent_directory_sequence_moves_once_per_change(fabric: Fabric) -> None:
    ad = fabric.agent_directory
    agent, thread = await ad.initialize("be kind", "{}")
    assert (await ad.data()).sequence == 1
    assert await ad.initialize("be kind", "{}") == (agent, thread) and (await ad.data()).sequence == 1  # no change
    admission = await ad.admit(agent.agent_id, thread.thread_id, Submission(text="hello", response="alice"), False)
    assert admission.accepted and (await ad.data()).sequence == 2
    settled = await ad.settle(admission.request_id, "", interactive=False, notify=True)
    data = await ad.data()
    assert (data.sequence, data.pending, data.notifications) == (3, 0, 1) and settled.owes_notification
    assert [r.request_id for r in (await ad.list_requests(FILTER_NOTIFICATIONS, 10, "")).items] == [admission.request_id]
    await ad.notification_sent(admission.request_id)
    assert (await ad.data()).sequence == 4
    assert (await fabric.outbox.drain_once()).posted == 1  # the settlement went to `response` through the outbox
    watch = ad.watch()
    assert (await anext(watch)).data.sequence == 4


async def test_admission_refusals_say_why_and_change_nothing(fabric: Fabric) -> None:
    ad = fabric.agent_directory
    agent, _ = await ad.initialize("", "")
    refused = await ad.admit("agent-nope", "", Submission(text="x"), False)
    assert not refused.accepted and "no agent" in refused.reason
    too_deep = await ad.admit(agent.agent_id, "", Submission(text="x", causal_depth=99), False)
    assert not too_deep.accepted and "causal depth" in too_deep.reason
    assert (await ad.data()).sequence == 1
    with pytest.raises(AlreadyExists):
        await ad.create_agent("default", "", "", "")
    with pytest.raises(NotFound):
        await ad.list_threads("agent-nope")


@pytest.mark.parametrize("twin", ["pl\u0430nner", "Planner", "planner ", "\uff50lanner"],
                         ids=["cyrillic a", "case", "trailing space", "fullwidth p"])
async def test_a_directory_agent_name_that_only_looks_like_anothers_is_name_collision(fabric: Fabric,
                                                                                      twin: str) -> None:
    ad = fabric.agent_directory
    await ad.initialize("", "")
    planner = await ad.create_agent("planner", "", "", "")
    before = (await ad.data()).sequence
    with pytest.raises(AlreadyExists) as err:
        await ad.create_agent(twin, "", "", "")
    assert err.value.reason == "NAME_COLLISION"
    assert (err.value.metadata["looks_like"], err.value.metadata["held_by"]) == ("planner", planner.agent_id)
    assert sorted(a.name for a in (await ad.list_agents()).items) == ["default", "planner"]
    assert (await ad.data()).sequence == before
    assert (await ad.create_agent("planners", "", "", "")).name == "planners"  # reads differently


async def test_a_look_alike_of_the_directory_agent_listed_after_ten_thousand_others_is_refused(
        fabric: Fabric) -> None:
    # The check reads the names that look alike through an index, not the first agents of a scan.
    ad = fabric.agent_directory
    await fabric.store.engine.write(  # type: ignore[attr-defined]
        lambda tx: [tx.put_agent(Agent(f"agent-{i:05d}", f"worker{i:05d}")) for i in range(10_001)])
    last = await fabric.store.engine.read(  # type: ignore[attr-defined]
        lambda tx: [a for _, a in tx.agents_from("")][-1])
    with pytest.raises(AlreadyExists) as err:
        await ad.create_agent(last.name.upper(), "", "", "")
    assert err.value.reason == "NAME_COLLISION"
    assert (err.value.metadata["looks_like"], err.value.metadata["held_by"]) == (last.name, last.agent_id)


async def test_tokens_verify_until_revoked(fabric: Fabric) -> None:
    revoked: list[str] = []
    fabric.tokens.on_revoke.append(revoked.append)
    token, secret = await fabric.tokens.issue("agent", "alice", "laptop")
    assert fabric.tokens.verify(secret) == token and fabric.tokens.verify(secret + "x") is None
    assert await fabric.tokens.revoke(token.token_id) and not await fabric.tokens.revoke(token.token_id)
    assert fabric.tokens.verify(secret) is None and revoked == [token.token_id]
    await fabric.tokens.refresh()
    assert fabric.tokens.verify(secret) is None and [t.token_id for t in (await fabric.tokens.list()).items] == revoked


async def test_a_token_issued_while_a_refresh_reads_the_store_stays_valid(fabric: Fabric,
                                                                          monkeypatch) -> None:
    """A refresh (woken by an earlier issue) that read the store before this issue committed keeps it."""
    store_tokens = fabric.tokens._store.tokens
    read, release = asyncio.Event(), asyncio.Event()
    real_all = type(store_tokens).all

    async def slow_all(self):  # noqa: ANN202
        snapshot = await real_all(self)
        read.set()
        await release.wait()
        return snapshot

    monkeypatch.setattr(type(store_tokens), "all", slow_all)
    refreshing = asyncio.create_task(fabric.tokens.refresh())
    await read.wait()
    token, secret = await fabric.tokens.issue("agent", "alice")
    release.set()
    await refreshing
    assert fabric.tokens.verify(secret) == token


async def test_a_token_revoked_by_another_node_ends_this_nodes_calls_at_the_refresh(fabric: Fabric) -> None:
    from fabricd.core.tokens import Tokens

    other = Tokens(fabric.tokens._store, fabric.tokens.limits, fabric.clock)
    ended: list[str] = []
    fabric.tokens.on_revoke.append(ended.append)
    token, secret = await fabric.tokens.issue("agent", "alice")
    kept, kept_secret = await fabric.tokens.issue("agent", "bob")
    assert fabric.tokens.verify(secret) == token
    await other.refresh()
    assert await other.revoke(token.token_id)
    await fabric.tokens.refresh()
    assert fabric.tokens.verify(secret) is None and ended == [token.token_id]
    await fabric.tokens.refresh()
    assert ended == [token.token_id]  # once, and that token's only
    assert fabric.tokens.verify(kept_secret).token_id == kept.token_id


def test_nodes_never_mint_the_same_id_in_the_same_millisecond() -> None:
    now = 1_700_000_000 * 10**9
    ids = [IdMint(node).mint(now) for node in range(64) for _ in range(8)]
    assert len(set(ids)) == len(ids)
    with pytest.raises(ValueError):
        IdMint(1 << 16)


async def test_wake_all_moves_every_version_so_no_waiter_sleeps_on_a_lost_wake_up(fabric: Fabric) -> None:
    seen = fabric.wakeups.version("mailbox/nobody")
    waiter = asyncio.ensure_future(fabric.wakeups.wait("queue/x", fabric.wakeups.version("queue/x"), 5))
    await asyncio.sleep(0)
    fabric.wakeups.wake_all()
    assert await asyncio.wait_for(waiter, 1) and fabric.wakeups.version("mailbox/nobody") != seen


async def test_listing_the_outbox_after_a_key_with_control_characters_is_refused(fabric: Fabric) -> None:
    from fabricd.core.errors import InvalidArgument

    with pytest.raises(InvalidArgument) as caught:
        await fabric.outbox.list(10, "\x00", int(RowState.PENDING))
    assert caught.value.reason == "INVALID_CHARACTERS"


async def test_a_reply_is_held_to_the_message_limit_with_its_header_and_headers(make_fabric: MakeFabric) -> None:
    """The reply is its header (agent and session ids), the content, and its headers (key and job id): FanOut
    measures all of it, as a send would, so long ids never carry a reply past max_message_bytes."""
    from fabricd.core.errors import ResourceExhausted
    from fabricd.core.validate import utf8_size

    fabric = await make_fabric(Limits(max_message_bytes=4000))
    long_id = "\U0001f980" * 250  # 1,000 bytes in UTF-8
    settled = SettledJob(long_id, int(JobOutcome.COMPLETED), Address(long_id, long_id),
                         Mail("k" * 250, reply_to=(Address("alice", "s"),)))
    with pytest.raises(ResourceExhausted) as err:  # fitted a fixed 200-byte allowance: 3,800 + 200
        await fabric.outbox.fan_out(settled, "x" * 3800)
    assert err.value.reason == "MESSAGE_TOO_LARGE" and int(err.value.metadata["size"]) > 4000
    assert (await fabric.outbox.list(10, "", RowState.UNSPECIFIED)).items == []
    fits = 4000 - (int(err.value.metadata["size"]) - 3800)
    assert (await fabric.outbox.fan_out(settled, "x" * fits))[1] == 1
    assert (await fabric.outbox.drain_once()).posted == 1
    (reply,) = decoded((await fabric.mailboxes.peek("alice", 10))[0])
    assert utf8_size(reply.text) + sum(utf8_size(k) + utf8_size(v) for k, v in reply.headers.items()) == 4000
