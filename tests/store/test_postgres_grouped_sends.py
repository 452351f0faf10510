"""Concurrent single sends on PostgreSQL go as one batch (fabricd/store/postgres/coalesce.py), and each
caller still gets exactly the outcome it would have had sending alone, one after another."""

from __future__ import annotations

import asyncio

import pytest

from fabricd.core.errors import AlreadyExists, FabricError, NotFound, ResourceExhausted
from fabricd.core.mailbox import digest_of
from fabricd.core.model import Address, Message, Sent
from fabricd.core.quota import Quotas
from fabricd.store.postgres import coalesce
from fabricd.store.postgres.store import PgStore
from tests.store.test_postgres_hot import start
from tests.store.test_postgres_round_trips import counted


def mail(to: str, text: str, id: str = "", sender: str = "alice") -> tuple[Message, bytes]:
    msg = Message(id=id, sender=Address(sender), recipient=Address(to), text=text)
    return msg, digest_of(msg) if id else b""


async def send(store: PgStore, item: tuple[Message, bytes], max_unread: int = 0,
               quota: Quotas | None = None) -> Sent | FabricError:
    (result,) = await store.mailboxes.append([item], create=False, atomic=False, max_unread=max_unread, quota=quota)
    return result


async def concurrently(store: PgStore, items: list[tuple[Message, bytes]], **kw: object) -> list[Sent | FabricError]:
    """Every send started at once: the first ones take the free lanes, the others wait and go as one group."""
    commits = store.engine.commits
    out = list(await asyncio.gather(*(send(store, item, **kw) for item in items)))  # type: ignore[arg-type]
    assert store.engine.commits - commits == coalesce.LANES + 1, "a send alone per lane, then the others as a group"
    return out


async def seqs_of(store: PgStore, agent_id: str) -> list[int]:
    envelopes, _ = await store.mailboxes.peek(agent_id, 1000, 0)
    return [e.seq for e in envelopes]


@pytest.fixture
def lanes(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> int:
    """One lane unless a test says otherwise: the first send runs alone and every other one waits, so which
    sends make up the group (and the order their seqs come in) is known."""
    n = getattr(request, "param", 1)
    monkeypatch.setattr(coalesce, "LANES", n)
    return n


@pytest.fixture
async def store(pg_url: str, lanes: int):  # noqa: ANN201
    s = await start(pg_url)
    for agent in ("alice", "bob", "carol"):
        await s.directory.register(agent, "", (), "", {})
    yield s
    await s.close()


@pytest.mark.parametrize("lanes", [1, 2, 4], indirect=True)
async def test_concurrent_single_sends_take_fewer_statements_than_sends_and_get_gap_free_seqs(
        store: PgStore, lanes: int) -> None:
    await send(store, mail("bob", "warm-up"))  # prepares the single statement
    await concurrently(store, [mail("bob", f"warm-{i}") for i in range(lanes + 2)])  # and the batch's
    first, n = lanes + 4, 40
    with counted() as seen:
        out = await concurrently(store, [mail("bob", f"m{i}") for i in range(n)])
    assert all(isinstance(r, Sent) and not r.duplicate for r in out)
    assert sorted(r.message.seq for r in out) == list(range(first, first + n))  # type: ignore[union-attr]
    assert len(seen) < n, f"{n} concurrent sends made {len(seen)} round trips"
    assert await seqs_of(store, "bob") == list(range(1, first + n))
    assert (await store.directory.get("bob")).unread_count == first - 1 + n
    texts = {r.message.seq: r.message.text for r in out}  # type: ignore[union-attr]
    assert sorted(texts.values()) == sorted(f"m{i}" for i in range(n))


async def test_a_lone_send_is_two_statements_its_facts_and_its_write(store: PgStore) -> None:
    await send(store, mail("bob", "warm-up"))
    with counted() as seen:
        result = await send(store, mail("bob", "alone"))
    assert isinstance(result, Sent) and result.message.seq == 2
    assert seen == ["fetch", "fetchrow"]  # no transaction: the write is guarded by the facts it was decided on


async def test_one_refused_send_in_a_group_fails_alone_and_the_others_get_their_seqs(store: PgStore) -> None:
    first = await send(store, mail("bob", "original", id="taken"))
    assert isinstance(first, Sent)
    out = await concurrently(store, [mail("bob", "a"), mail("bob", "b"), mail("bob", "not the original", id="taken"),
                                     mail("carol", "c"), mail("bob", "d")])
    reused = out[2]
    assert isinstance(reused, AlreadyExists) and reused.reason == "MESSAGE_ID_REUSED"
    assert [r.message.seq for r in out if isinstance(r, Sent) and r.message.recipient.agent_id == "bob"] == [2, 3, 4]
    assert isinstance(out[3], Sent) and out[3].message.seq == 1
    assert await seqs_of(store, "bob") == [1, 2, 3, 4]


async def test_a_send_to_no_mailbox_in_a_group_fails_alone(store: PgStore) -> None:
    """The group's facts name no mailbox "nobody": the decider asks for the name resolved (a session name?),
    then for close names to refuse it with; the others are stored, in the same transaction."""
    out = await concurrently(store, [mail("bob", "a"), mail("bob", "b"), mail("nobody", "lost"), mail("bob", "c")])
    assert isinstance(out[2], NotFound)
    assert [r.message.seq for r in out if isinstance(r, Sent)] == [1, 2, 3]
    assert await seqs_of(store, "bob") == [1, 2, 3]
    assert await store.directory.get("nobody") is None


async def test_a_mailbox_fills_inside_a_group_exactly_as_with_sends_one_after_another(store: PgStore) -> None:
    for i in range(3):
        await send(store, mail("carol", f"old{i}"), max_unread=5)
    out = await concurrently(store, [mail("bob", "x"), mail("carol", "4th"), mail("carol", "5th"),
                                     mail("carol", "6th"), mail("bob", "y")], max_unread=5)
    assert [r.message.seq for r in out[1:3]] == [4, 5]  # type: ignore[union-attr]
    assert isinstance(out[3], ResourceExhausted) and out[3].reason == "MAILBOX_FULL"
    assert [out[0].message.seq, out[4].message.seq] == [1, 2]  # type: ignore[union-attr]
    assert await seqs_of(store, "carol") == [1, 2, 3, 4, 5]


async def test_a_send_over_its_quota_in_a_group_fails_alone(store: PgStore) -> None:
    quota = Quotas(unread_bytes=300)
    out = await concurrently(store, [mail("bob", "a"), mail("bob", "small", sender="dave"),
                                     mail("bob", "x" * 400, sender="erin"), mail("bob", "b")], quota=quota)
    assert isinstance(out[2], ResourceExhausted) and out[2].reason == "QUOTA_UNREAD_BYTES"
    assert [r.message.seq for r in out if isinstance(r, Sent)] == [1, 2, 3]
    assert (await store.mailboxes.usage("erin")).unread_bytes == 0
    assert (await store.mailboxes.usage("dave")).unread_bytes > 0


async def test_duplicates_by_id_in_a_group_behave_as_sends_one_after_another(store: PgStore) -> None:
    await send(store, mail("bob", "earlier", id="e"))
    out = await concurrently(store, [mail("bob", "first", id="k"), mail("bob", "other"), mail("bob", "first", id="k"),
                                     mail("bob", "changed", id="k"), mail("bob", "earlier", id="e")])
    stored, other, again, changed, resent = out
    assert isinstance(stored, Sent) and not stored.duplicate and stored.message.seq == 2
    assert isinstance(other, Sent) and other.message.seq == 3
    assert isinstance(again, Sent) and again.duplicate and again.message.seq == 2 and again.message.id == "k"
    assert isinstance(changed, AlreadyExists) and changed.reason == "MESSAGE_ID_REUSED"
    assert isinstance(resent, Sent) and resent.duplicate and resent.message.seq == 1
    assert await seqs_of(store, "bob") == [1, 2, 3]


async def test_a_send_the_database_rejects_fails_alone_when_its_group_fails(store: PgStore) -> None:
    """A NUL in an id is not text to PostgreSQL: the whole batch statement fails, so each call runs again
    on its own and only that one fails."""
    out = await asyncio.gather(*(send(store, item) for item in [
        mail("bob", "a"), mail("bob", "b"), mail("bob", "bad", id="nul\x00id"), mail("bob", "c")]),
        return_exceptions=True)
    assert isinstance(out[2], Exception) and not isinstance(out[2], FabricError)
    assert sorted(r.message.seq for r in out if isinstance(r, Sent)) == [1, 2, 3]  # the re-runs race
    assert await seqs_of(store, "bob") == [1, 2, 3]


async def test_a_caller_that_leaves_before_its_group_starts_sends_nothing(store: PgStore) -> None:
    first = asyncio.ensure_future(send(store, mail("bob", "first")))
    await asyncio.sleep(0)  # the first send holds the lane
    left = asyncio.ensure_future(send(store, mail("bob", "left")))
    stays = asyncio.ensure_future(send(store, mail("bob", "stays")))
    await asyncio.sleep(0)  # both wait for the lane
    left.cancel()
    assert [r.message.seq for r in await asyncio.gather(first, stays)] == [1, 2]
    envelopes, _ = await store.mailboxes.peek("bob", 10, 0)
    assert len(envelopes) == 2
