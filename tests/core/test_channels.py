"""Channels' rules (fabricd.core.channels) on every store: the log, its copies, membership, retention."""

from __future__ import annotations

import asyncio
import random
import re

import pytest

from fabricd.core import channel_search
from fabricd.core.channel_service import Channels
from fabricd.core.errors import (
    AlreadyExists,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    ResourceExhausted,
)
from fabricd.core.limits import Limits
from fabricd.core.model import Address, Message
from fabricd.core.model_channels import DAY_NS, Channel, Delivery, Retention
from tests.core.conftest import Fabric, MakeFabric, decoded

ADMIN = None  # a trusted caller


def channels_of(f: Fabric) -> Channels:
    return Channels(f.store, f.mailboxes.limits, f.clock, keepalive_s=0.05)


def post(text: str, sender: str, id: str = "") -> Message:
    return Message(id=id, sender=Address(sender), text=text)


async def team(f: Fabric, *members: str, open: bool = True, retention: Retention | None = None) -> Channels:
    ch = channels_of(f)
    for m in members:
        await f.directory.register(m, "", (), "", {})
    await ch.create(Channel("team", description="the team", open=open, retention=retention or Retention()), ADMIN)
    for m in members:
        await ch.join("team", m, Delivery.MAILBOX, ADMIN)
    return ch


async def test_a_post_is_appended_to_the_log_and_copied_to_every_member_but_its_sender(fabric: Fabric) -> None:
    ch = await team(fabric, "ann", "bob", "cid")
    first = await ch.publish("team", post("main is red", "ann"), "ann")
    second = await ch.publish("team", post("fixed", "bob"), "bob")
    assert (first.post.seq, second.post.seq) == (1, 2)
    assert (first.delivered, first.skipped, second.delivered) == (2, (), 2)
    bob = decoded((await fabric.mailboxes.peek("bob", 10))[0])
    assert [m.text for m in bob] == ["main is red"]
    copy = bob[0]
    assert copy.sender.agent_id == "ann"
    assert copy.headers == {"fabricd-channel": "team", "fabricd-channel-seq": "1",
                            "fabricd-channel-post": first.post.message.id}
    assert [m.text for m in decoded((await fabric.mailboxes.peek("ann", 10))[0])] == ["fixed"]
    assert [m.text for m in decoded((await fabric.mailboxes.peek("cid", 10))[0])] == ["main is red", "fixed"]
    posts, channel = await ch.read("team", "cid", 0, 0)
    assert [(p.seq, p.message.text, p.message.recipient.agent_id) for p in posts] == [
        (1, "main is red", "#team"), (2, "fixed", "#team")]
    assert (channel.last_seq, channel.first_seq, channel.count, channel.members) == (2, 1, 2, 3)


async def test_concurrent_posts_get_distinct_seqs_and_each_member_its_copies_in_channel_order(
        fabric: Fabric) -> None:
    ch = await team(fabric, "ann", "bob", "cid")
    done = await asyncio.gather(*(ch.publish("team", post(f"p{i}", "ann" if i % 2 else "bob"), None)
                                  for i in range(12)))
    assert sorted(d.post.seq for d in done) == list(range(1, 13))
    for member in ("ann", "bob", "cid"):
        copies = decoded((await fabric.mailboxes.peek(member, 100))[0])
        seqs = [int(m.headers["fabricd-channel-seq"]) for m in copies]
        assert seqs == sorted(seqs)  # a member's copies come in channel order
        assert all(m.sender.agent_id != member for m in copies)
    assert len(decoded((await fabric.mailboxes.peek("cid", 100))[0])) == 12


async def test_a_log_member_gets_no_copies_and_reads_the_log(fabric: Fabric) -> None:
    ch = await team(fabric, "ann", "bob")
    member, joined = await ch.join("team", "bob", Delivery.LOG, "bob")
    assert (member.delivery, joined) == (Delivery.LOG, False)
    published = await ch.publish("team", post("hello", "ann"), "ann")
    assert published.delivered == 0
    assert (await fabric.mailboxes.peek("bob", 10))[0] == []
    assert [p.message.text for p in (await ch.read("team", "bob", 0, 0))[0]] == ["hello"]


async def test_a_resend_of_a_post_is_answered_as_stored_and_copied_once(fabric: Fabric) -> None:
    ch = await team(fabric, "ann", "bob")
    first = await ch.publish("team", post("once", "ann", id="p-1"), "ann")
    again = await ch.publish("team", post("once", "ann", id="p-1"), "ann")
    assert again.duplicate and again.post.seq == first.post.seq == 1
    assert len((await fabric.mailboxes.peek("bob", 10))[0]) == 1
    with pytest.raises(AlreadyExists) as reused:
        await ch.publish("team", post("other", "ann", id="p-1"), "ann")
    assert reused.value.reason == "MESSAGE_ID_REUSED"
    other = await ch.publish("team", post("once", "bob", id="p-1"), "bob")  # another sender's id is its own
    assert not other.duplicate and other.post.seq == 2


async def test_a_full_mailbox_skips_that_copy_and_not_the_post_or_the_others(make_fabric: MakeFabric) -> None:
    f = await make_fabric(Limits(max_unread=1))
    ch = await team(f, "ann", "bob", "cid")
    await f.mailboxes.send(Message(sender=Address("x"), recipient=Address("bob"), text="fills bob"))
    published = await ch.publish("team", post("for all", "ann"), "ann")
    assert published.delivered == 1
    assert published.skipped == (("bob", "MAILBOX_FULL"),)
    assert [m.text for m in decoded((await f.mailboxes.peek("cid", 10))[0])] == ["for all"]
    assert [p.message.text for p in (await ch.read("team", "bob", 0, 0))[0]] == ["for all"]  # bob reads the log


async def test_a_member_without_a_mailbox_gets_no_copy_and_none_is_made_for_it(fabric: Fabric) -> None:
    ch = await team(fabric, "ann", "bob")
    await fabric.store.directory.unregister("bob", purge=True)
    published = await ch.publish("team", post("still there?", "ann"), "ann")
    assert (published.delivered, published.skipped) == (0, (("bob", "UNKNOWN_RECIPIENT"),))
    assert await fabric.store.directory.get("bob") is None


async def test_an_agent_reads_and_publishes_only_where_it_is_a_member(fabric: Fabric) -> None:
    ch = await team(fabric, "ann")
    with pytest.raises(PermissionDenied) as refused:
        await ch.publish("team", post("hi", "eve"), "eve")
    assert refused.value.reason == "NOT_A_MEMBER"
    with pytest.raises(PermissionDenied):
        await ch.read("team", "eve", 0, 0)
    with pytest.raises(PermissionDenied):
        await ch.members("team", "eve", 0, "")
    assert (await ch.read("team", "ann", 0, 0))[1].last_seq == 0
    await ch.publish("team", post("as an admin", "ops"), ADMIN)  # a trusted caller publishes as any sender


async def test_an_agent_joins_an_open_channel_itself_and_a_closed_one_only_through_a_member(fabric: Fabric) -> None:
    ch = channels_of(fabric)
    for a in ("ann", "bob", "eve"):
        await fabric.directory.register(a, "", (), "", {})
    made = await ch.create(Channel("ops", open=False), "ann")
    assert (made.creator, made.members) == ("ann", 1)
    with pytest.raises(PermissionDenied) as refused:
        await ch.join("ops", "eve", Delivery.MAILBOX, "eve")
    assert refused.value.reason == "CHANNEL_CLOSED"
    with pytest.raises(PermissionDenied) as not_member:
        await ch.join("ops", "eve", Delivery.MAILBOX, "bob")
    assert not_member.value.reason == "NOT_A_MEMBER"
    member, joined = await ch.join("ops", "bob", Delivery.UNSPECIFIED, "ann")  # a member adds another
    assert joined and member.delivery == Delivery.MAILBOX
    await ch.create(Channel("lobby"), ADMIN)
    assert (await ch.join("lobby", "", Delivery.MAILBOX, "eve"))[1]  # its own join of an open channel
    with pytest.raises(NotFound) as unknown:
        await ch.join("ops", "nobody", Delivery.MAILBOX, "ann")
    assert unknown.value.reason == "UNKNOWN_RECIPIENT"
    with pytest.raises(PermissionDenied):
        await ch.leave("ops", "bob", "ann")  # an agent leaves by itself
    assert await ch.leave("ops", "", "bob")
    assert not await ch.leave("ops", "", "bob")
    assert [m.agent_id for m in (await ch.members("ops", "ann", 0, "")).items] == ["ann"]


async def test_names_are_checked_and_taken_once(fabric: Fabric) -> None:
    ch = channels_of(fabric)
    await ch.create(Channel("team"), ADMIN)
    with pytest.raises(AlreadyExists) as taken:
        await ch.create(Channel("team"), ADMIN)
    assert taken.value.reason == "CHANNEL_EXISTS"
    for bad in ("#team", "a/b", "", "tab\there"):
        with pytest.raises(InvalidArgument):
            await ch.create(Channel(bad), ADMIN)
    with pytest.raises(NotFound) as missing:
        await ch.get("tema")
    assert missing.value.reason == "CHANNEL_NOT_FOUND"
    assert missing.value.metadata["suggestions"] == "team"
    assert [c.name for c in (await ch.listed(0, "")).items] == ["team"]


@pytest.mark.parametrize("twin", ["g\u0435neral", "gener\u0430l", "General", "GENERAL", "general ", " general",
                                  "\uff47eneral", "genera1"],
                         ids=["cyrillic e", "cyrillic a", "case", "upper case", "trailing space", "leading space",
                              "fullwidth g", "digit 1 for l"])
async def test_a_channel_name_that_only_looks_like_another_is_name_collision_and_writes_nothing(
        fabric: Fabric, twin: str) -> None:
    ch = channels_of(fabric)
    await ch.create(Channel("general"), ADMIN)
    with pytest.raises(AlreadyExists) as err:
        await ch.create(Channel(twin), ADMIN)
    assert err.value.reason == "NAME_COLLISION" and err.value.metadata["looks_like"] == "general"
    assert ascii(twin) in str(err.value)  # the difference shown in ASCII
    assert [c.name for c in (await ch.listed(0, "")).items] == ["general"]
    await ch.create(Channel("generals"), ADMIN)  # a name that reads differently is fine
    await ch.delete("general", False, ADMIN)
    await ch.create(Channel(twin), ADMIN)  # a name given up is free for its look-alikes


async def test_a_look_alike_of_the_channel_listed_after_ten_thousand_others_is_refused(fabric: Fabric) -> None:
    # The check reads the names that look alike through an index, not the first names of a scan.
    ch = channels_of(fabric)
    await fabric.store.engine.write(  # type: ignore[attr-defined]
        lambda tx: [tx.put_channel(Channel(f"team{i:05d}", uid=f"u{i}")) for i in range(10_001)])
    last = await fabric.store.engine.read(  # type: ignore[attr-defined]
        lambda tx: [c.name for _, c in tx.channels_from("")][-1])
    with pytest.raises(AlreadyExists) as err:
        await ch.create(Channel(last.upper()), ADMIN)
    assert err.value.reason == "NAME_COLLISION" and err.value.metadata["looks_like"] == last
    await ch.delete(last, False, ADMIN)
    await ch.create(Channel(last.upper()), ADMIN)  # its index entries went with it


async def test_retention_drops_the_oldest_posts_past_max_messages_and_max_bytes(fabric: Fabric) -> None:
    ch = await team(fabric, "ann", retention=Retention(max_messages=3))
    for i in range(5):
        await ch.publish("team", post(f"p{i}", "ann"), "ann")
    posts, channel = await ch.read("team", "ann", 0, 0)
    assert [p.message.text for p in posts] == ["p2", "p3", "p4"]
    assert (channel.first_seq, channel.last_seq, channel.count) == (3, 5, 3)
    assert [p.seq for p in (await ch.read("team", "ann", 1, 0))[0]] == [3, 4, 5]  # from the oldest retained
    await ch.create(Channel("small", retention=Retention(max_bytes=10)), ADMIN)
    await ch.publish("small", post("x" * 8, "ops"), ADMIN)
    await ch.publish("small", post("y" * 8, "ops"), ADMIN)
    posts, channel = await ch.read("small", ADMIN, 0, 0)
    assert [p.message.text for p in posts] == ["y" * 8]
    assert (channel.count, channel.size) == (1, 8)


async def test_posts_older_than_max_age_are_dropped_by_the_sweep_but_never_the_newest(fabric: Fabric) -> None:
    ch = await team(fabric, "ann")
    await ch.publish("team", post("old", "ann"), "ann")
    fabric.clock.advance(29 * 86400)
    await ch.publish("team", post("newer", "ann"), "ann")
    fabric.clock.advance(2 * 86400)
    assert await fabric.store.channels.expire(1000) == 1
    fabric.clock.advance(60 * 86400)
    assert await fabric.store.channels.expire(1000) == 0
    assert [p.message.text for p in (await ch.read("team", "ann", 0, 0))[0]] == ["newer"]
    assert (await ch.get("team")).retention.age_ns == 30 * DAY_NS


async def test_a_channel_with_posts_is_deleted_only_with_purge(fabric: Fabric) -> None:
    ch = await team(fabric, "ann")
    await ch.publish("team", post("keep", "ann"), "ann")
    with pytest.raises(FailedPrecondition) as refused:
        await ch.delete("team", False, ADMIN)
    assert refused.value.reason == "CHANNEL_NOT_EMPTY"
    assert await ch.delete("team", True, ADMIN) == 1
    with pytest.raises(NotFound):
        await ch.get("team")
    made = await ch.create(Channel("team"), ADMIN)  # the name again: a new channel, empty
    assert (made.last_seq, made.members) == (0, 0)


async def test_quotas_hold_an_agents_channels_and_retained_posts(make_fabric: MakeFabric) -> None:
    f = await make_fabric(Limits(quota_channels=1, quota_posts=2))
    ch = channels_of(f)
    await ch.create(Channel("one"), "ann", agent_token=True)
    with pytest.raises(ResourceExhausted) as refused:
        await ch.create(Channel("two"), "ann", agent_token=True)
    assert refused.value.reason == "QUOTA_CHANNELS"
    for text in ("a", "b"):
        await ch.publish("one", post(text, "ann"), "ann", agent_token=True)
    with pytest.raises(ResourceExhausted) as posts:
        await ch.publish("one", post("c", "ann"), "ann", agent_token=True)
    assert posts.value.reason == "QUOTA_POSTS"
    assert (await ch.get("one")).count == 2  # nothing written
    await ch.delete("one", True, "ann")
    await ch.create(Channel("two"), "ann", agent_token=True)  # given back
    await ch.publish("two", post("c", "ann"), "ann", agent_token=True)


async def test_a_subscriber_gets_the_history_then_new_posts_in_order(fabric: Fabric) -> None:
    ch = await team(fabric, "ann")
    await ch.publish("team", post("one", "ann"), "ann")
    stream = ch.subscribe("team", "ann", 0)
    got = [p.message.text for p in await anext(stream)]
    assert got == ["one"]
    nxt = asyncio.ensure_future(anext(stream))
    await ch.publish("team", post("two", "ann"), "ann")
    batch = await nxt
    while not batch:  # keepalives
        batch = await anext(stream)
    assert [(p.seq, p.message.text) for p in batch] == [(2, "two")]
    await stream.aclose()
    resumed = ch.subscribe("team", "ann", 1)
    assert [p.seq for p in await anext(resumed)] == [2]
    await resumed.aclose()


async def test_search_finds_words_phrases_and_prefixes_in_the_channels_a_caller_reads(fabric: Fabric) -> None:
    ch = await team(fabric, "ann", "bob")
    await ch.create(Channel("secret", open=False), "eve")
    await ch.publish("team", post("main is red, stop merging", "ann"), "ann")
    await ch.publish("team", post("I took the API refactor", "bob"), "bob")
    await ch.publish("secret", post("main is red in secret", "eve"), "eve")
    hits, _ = await ch.search("main red", "", "", 0, 0, 0, "", "ann")
    assert [(h.channel, h.seq, h.sender) for h in hits] == [("team", 1, "ann")]
    assert "[main]" in hits[0].snippet and "[red]" in hits[0].snippet
    assert [h.seq for h in (await ch.search('"API refactor"', "", "", 0, 0, 0, "", "ann"))[0]] == [2]
    assert [h.seq for h in (await ch.search("refact*", "team", "bob", 0, 0, 0, "", "bob"))[0]] == [2]
    assert (await ch.search('"refactor API"', "", "", 0, 0, 0, "", "ann"))[0] == []
    assert (await ch.search("main -stop", "", "", 0, 0, 0, "", ADMIN))[0][0].channel == "secret"
    with pytest.raises(InvalidArgument) as empty:
        await ch.search(" -word ", "", "", 0, 0, 0, "", "ann")
    assert empty.value.reason == "EMPTY_QUERY"
    with pytest.raises(PermissionDenied):
        await ch.search("main", "secret", "", 0, 0, 0, "", "ann")


async def every_hit(ch: Channels, query: str, channel: str = "", sender: str = "", after_ns: int = 0,
                    before_ns: int = 0, page_size: int = 5, caller: str | None = ADMIN) -> list[tuple[int, str, int]]:
    """(send_ns, channel, seq) of every hit, page after page."""
    got: list[tuple[int, str, int]] = []
    token = ""
    while True:
        hits, token = await ch.search(query, channel, sender, after_ns, before_ns, page_size, token, caller)
        assert len(hits) <= page_size
        got += [(h.send_ns, h.channel, h.seq) for h in hits]
        if not token:
            return got


async def test_paging_through_many_hits_hands_out_each_once_newest_first_while_posts_arrive(
        fabric: Fabric, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("fabricd.store.postgres.channels.WALK", 4)  # PostgreSQL: 4 posts walked, then the GIN index
    ch = await team(fabric, "ann")
    await ch.create(Channel("ops"), ADMIN)
    await ch.join("ops", "ann", Delivery.LOG, ADMIN)
    texts = ("main is red", "main is green", "red main", "deploy now", "stop: red main build")
    expected = []
    for i in range(40):
        if i % 3 == 0:
            fabric.clock.advance(1)  # the others share a time with a post before them: ties by channel, then seq
        for name in ("team", "ops"):
            done = await ch.publish(name, post(f"{texts[i % len(texts)]} {i}", "ann"), ADMIN)
            if channel_search.matches(channel_search.parse("main red"), done.post.message.text):
                expected.append((done.post.message.send_time_ns, name, done.post.seq))
    expected.sort(reverse=True)
    assert len(expected) == 48
    assert await every_hit(ch, "main red") == expected
    assert await every_hit(ch, "main red", caller="ann", page_size=1) == expected
    assert await every_hit(ch, "main red", channel="team", page_size=7, caller="ann") == [
        e for e in expected if e[1] == "team"]
    first, token = await ch.search("main red", "", "", 0, 0, 10, "", ADMIN)
    fabric.clock.advance(1)
    await ch.publish("team", post("main red again", "ann"), ADMIN)  # newer than the pages handed out
    rest = []
    while token:
        hits, token = await ch.search("main red", "", "", 0, 0, 10, token, ADMIN)
        rest += hits
    assert [(h.send_ns, h.channel, h.seq) for h in first + rest] == expected
    newest, _ = await ch.search("main red", "", "", 0, 0, 1, "", ADMIN)
    assert [(h.channel, h.seq, h.snippet) for h in newest] == [("team", 41, "[main] [red] again")]
    _, token = await ch.search("main red", "", "", 0, 0, 10, "", ADMIN)
    with pytest.raises(InvalidArgument) as other:
        await ch.search("main green", "", "", 0, 0, 10, token, ADMIN)
    assert other.value.reason == "INVALID_PAGE_TOKEN"


async def test_every_backend_finds_what_the_reference_reading_of_a_query_finds(
        fabric: Fabric, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("fabricd.store.postgres.channels.WALK", 4)
    ch = await team(fabric, "ann", "bob")
    words = ("main", "red", "green", "mainline", "deploy", "deployed", "redo", "stop")
    rng = random.Random(7)
    posts = []
    for i in range(60):
        fabric.clock.advance(1)
        text = " ".join(rng.choice(words) for _ in range(5))
        sender = ("ann", "bob")[i % 2]
        done = await ch.publish("team", post(text, sender), ADMIN)
        posts.append((done.post.message.send_time_ns, "team", done.post.seq, text, sender))
    newest_first = sorted(posts, reverse=True)
    middle = posts[20][0], posts[45][0]
    for query in ('"main red"', "mai*", "main -red", '"red main" -green', "deploy* main -stop", "redo"):
        terms = channel_search.parse(query)
        want = [p[:3] for p in newest_first if channel_search.matches(terms, p[3])]
        assert want, query
        assert await every_hit(ch, query) == want, query
        assert await every_hit(ch, query, sender="bob") == [
            p[:3] for p in newest_first if p[4] == "bob" and channel_search.matches(terms, p[3])], query
        assert await every_hit(ch, query, after_ns=middle[0], before_ns=middle[1], page_size=3) == [
            w for w in want if middle[0] < w[0] < middle[1]], query
    hits, _ = await ch.search('"main red"', "", "", 0, 0, 0, "", ADMIN)
    assert hits and all(re.search(r"\[main]? \[?red]", h.snippet) for h in hits)  # FTS5 marks "[main red]"
