"""Channels over real gRPC on both backends: tokens, membership, copies in mailboxes, the stream, search."""

from __future__ import annotations

import asyncio

import pytest

from fabricd.client import (
    AlreadyExists,
    Client,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    SyncClient,
)
from fabricd.v1 import channel_service_pb2 as ch

BACKENDS = ("lmdb", "postgres")


@pytest.fixture
async def team(make_daemon):  # noqa: ANN201
    """A daemon with a trusted unix socket and a TCP listener that requires tokens; agents ann, bob, eve."""
    daemon = make_daemon("--listen", "127.0.0.1:0", "--no-outbox-loop")
    daemon.start()
    port = int(daemon.wait_for("127.0.0.1:").strip().rsplit(":", 1)[1])
    async with Client(daemon.target) as local:
        tokens = {}
        for name in ("ann", "bob", "eve"):
            await local.register(name)
            tokens[name] = (await local.issue_token(agent_id=name)).token
        yield daemon, f"127.0.0.1:{port}", local, tokens


async def test_a_post_reaches_every_members_mailbox_with_its_channel_and_seq(team) -> None:
    _, tcp, local, tokens = team
    async with Client(tcp, token=tokens["ann"]) as ann, Client(tcp, token=tokens["bob"]) as bob:
        made = await ann.create_channel("#team", description="the team")
        assert (made.name, made.creator, made.member_count) == ("team", "ann", 1)
        assert (await bob.join_channel("#team")).joined
        sent = await ann.publish("#team", "main is red, stop merging")
        assert (sent.post.seq, sent.delivered, sent.skipped) == (1, 1, 0)
        drained = (await bob.drain("bob")).messages
        assert [m.text for m in drained] == ["main is red, stop merging"]
        assert drained[0].sender.agent_id == "ann"
        assert drained[0].headers["fabricd-channel"] == "team"
        assert drained[0].headers["fabricd-channel-seq"] == "1"
        assert (await ann.peek("ann")).messages == []  # no copy of its own post
        again = await ann.publish("#team", "twice", id="p-1")
        assert (await ann.publish("#team", "twice", id="p-1")).duplicate
        history = await bob.read_channel("#team")
        assert [(p.seq, p.message.text) for p in history.posts] == [(1, "main is red, stop merging"),
                                                                   (2, "twice")]
        assert again.post.message.recipient.agent_id == "#team"
        assert (history.first_seq, history.last_seq) == (1, 2)
        assert [m.agent_id for m in await local.list_members("team")] == ["ann", "bob"]


async def test_an_agent_token_reads_and_posts_only_where_its_agent_is_a_member(team) -> None:
    _, tcp, local, tokens = team
    await local.create_channel("ops", open=False)
    await local.join_channel("ops", "ann")
    async with Client(tcp, token=tokens["eve"]) as eve, Client(tcp, token=tokens["ann"]) as ann:
        for call in (eve.read_channel("ops"), eve.publish("ops", "hi"), eve.list_members("ops"),
                     eve.search_messages("hi", channel="ops")):
            with pytest.raises(PermissionDenied) as refused:
                await call
            assert refused.value.reason == "NOT_A_MEMBER"
        with pytest.raises(PermissionDenied) as closed:
            await eve.join_channel("ops")
        assert closed.value.reason == "CHANNEL_CLOSED"
        with pytest.raises(PermissionDenied) as as_other:
            await ann.publish("ops", "as bob", sender="bob")
        assert as_other.value.reason == "OUT_OF_SCOPE"
        await ann.join_channel("ops", "eve")  # a member adds another
        assert (await eve.publish("ops", "hello")).post.seq == 1
        with pytest.raises(PermissionDenied):
            await eve.delete_channel("ops", purge=True)  # its creator's (here an admin's) or an admin's
        with pytest.raises(FailedPrecondition) as not_empty:
            await local.delete_channel("ops")
        assert not_empty.value.reason == "CHANNEL_NOT_EMPTY"
        assert await local.delete_channel("ops", purge=True) == 1
        with pytest.raises(NotFound) as gone:
            await eve.read_channel("ops")
        assert gone.value.reason == "CHANNEL_NOT_FOUND"


async def test_bad_channel_requests_get_their_reason_and_write_nothing(team) -> None:
    _, _, local, _ = team
    await local.create_channel("team")
    with pytest.raises(AlreadyExists) as exists:
        await local.create_channel("team")
    assert exists.value.reason == "CHANNEL_EXISTS"
    with pytest.raises(InvalidArgument) as bad:
        await local.create_channel("a/b")
    assert bad.value.reason == "INVALID_CHARACTERS"
    with pytest.raises(NotFound) as typo:
        await local.get_channel("tema")
    assert typo.value.metadata["suggestions"] == "team"
    with pytest.raises(InvalidArgument) as empty:
        await local.search_messages("  ")
    assert empty.value.reason == "EMPTY_QUERY"
    assert [c.name for c in await local.list_channels()] == ["team"]


async def test_a_channel_subscriber_gets_history_then_live_posts_and_resumes(team) -> None:
    _, _, local, _ = team
    await local.create_channel("team")
    await local.publish("team", "one", sender="ann")
    stream = local.subscribe_channel("team")
    assert [p.message.text for p in await anext(stream)] == ["one"]
    nxt = asyncio.ensure_future(anext(stream))
    await local.publish("team", "two", sender="bob")
    assert [(p.seq, p.message.text) for p in await nxt] == [(2, "two")]
    await stream.aclose()
    resumed = local.subscribe_channel("team", after_seq=1)
    assert [p.seq for p in await anext(resumed)] == [2]
    await resumed.aclose()


async def test_search_finds_posts_with_highlighted_snippets(team) -> None:
    _, tcp, local, tokens = team
    await local.create_channel("team")
    await local.join_channel("team", "ann")
    await local.publish("team", "main is red, stop merging", sender="ann")
    await local.publish("team", "I took the API refactor", sender="bob")
    async with Client(tcp, token=tokens["ann"]) as ann:
        found = await ann.search_messages("main red")
        assert [(h.channel, h.seq, h.sender) for h in found.hits] == [("team", 1, "ann")]
        assert "[main]" in found.hits[0].snippet and "[red]" in found.hits[0].snippet
        assert [h.seq for h in (await ann.search_messages("refact*")).hits] == [2]
        assert [h.seq for h in (await ann.search_messages('"API refactor"', sender="bob")).hits] == [2]



async def test_search_pages_hand_out_each_hit_once_newest_first(team) -> None:
    _, tcp, local, tokens = team
    await local.create_channel("team")
    await local.join_channel("team", "ann")
    for i in range(1, 26):
        await local.publish("team", f"deploy {i} is {'red' if i % 5 else 'green'}", sender="bob")
    async with Client(tcp, token=tokens["ann"]) as ann:
        seqs, token, pages = [], "", 0
        while True:
            found = await ann.search_messages("deploy* -green", channel="team", page_size=7, page_token=token)
            seqs += [h.seq for h in found.hits]
            pages += 1
            token = found.next_page_token
            if pages == 1:
                await local.publish("team", "deploy 26 is red", sender="bob")  # after the first page: not in these
            if not token:
                break
        assert seqs == [i for i in range(25, 0, -1) if i % 5] and pages == 3
        assert [h.seq for h in (await ann.search_messages('"is red"', page_size=2)).hits] == [26, 24]
        with pytest.raises(InvalidArgument) as other:
            await ann.search_messages("deploy*", channel="team", page_token=token or "bm90IGEgdG9rZW4")
        assert other.value.reason == "INVALID_PAGE_TOKEN"

def test_the_sync_client_publishes_and_reads(team) -> None:
    daemon = team[0]
    with SyncClient(daemon.target) as client:
        client.create_channel("#sync", max_messages=2)
        for text in ("a", "b", "c"):
            client.publish("#sync", text, sender="ann")
        read = client.read_channel("#sync")
        assert [p.message.text for p in read.posts] == ["b", "c"]
        assert client.get_channel("sync").retention.max_messages == 2
        assert client.join_channel("sync", "bob", delivery=ch.CHANNEL_DELIVERY_LOG).member.delivery == \
            ch.CHANNEL_DELIVERY_LOG


async def test_fabricd_check_reads_every_channel_record(team, backend) -> None:
    from tests.e2e.test_store_operations import fabricd, flip_byte_in

    daemon, _, local, _ = team
    await local.create_channel("team")
    await local.join_channel("team", "ann")
    for text in ("post-one", "post-two"):
        await local.publish("team", text, sender="bob")
    where = ("--store", backend) if backend.startswith("postgresql:") else ("--data-dir", daemon.data_dir)
    checked = fabricd("check", *where)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    if backend.startswith("postgresql:"):
        import asyncpg

        conn = await asyncpg.connect(backend)
        await conn.execute("UPDATE channel_posts SET body = '\\xff'::bytea WHERE seq = 2")  # a tool broke a row
        await conn.close()
        broken = fabricd("check", *where)
        assert broken.returncode == 1 and "channel_posts" in broken.stdout, broken.stdout + broken.stderr
    else:
        daemon.stop()
        flip_byte_in(daemon.data_dir, "chan_log", b"post-two")
        broken = fabricd("check", *where)
        assert broken.returncode == 1 and "database chan_log" in broken.stdout, broken.stdout
        daemon.start()
