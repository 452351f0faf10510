"""DirectoryService against the real daemon: register, touch, list, resolve, watch."""

from __future__ import annotations

import asyncio

import pytest

from fabricd.client import Aborted, AmbiguousNameWarning, Client, FailedPrecondition, InvalidArgument, NotFound
from fabricd.v1 import directory_service_pb2 as dir_pb
from fabricd.v1 import types_pb2 as pb

BACKENDS = ("lmdb", "postgres")  # every test here runs on both stores (tests/conftest.py)


async def test_registered_agent_is_discoverable_before_any_mail(client: Client) -> None:
    entry = await client.register("agent-1", session_name="planner", capabilities=[
        pb.Capability(name="plan", description="breaks work down", payload='{"max": 3}')], cwd="/src",
        metadata={"model": "x"})
    assert entry.registered and entry.presence == pb.PRESENCE_LIVE
    listed = await client.list_mailboxes()
    assert [e.agent_id for e in listed] == ["agent-1"]
    e = listed[0]
    assert (e.session_name, e.cwd, dict(e.metadata)) == ("planner", "/src", {"model": "x"})
    assert [(c.name, c.description, c.payload) for c in e.capabilities] == [("plan", "breaks work down", '{"max": 3}')]
    assert e.unread_count == 0 and e.register_time.seconds > 0


async def test_reregister_updates_and_empty_capabilities_clear(client: Client) -> None:
    await client.register("agent-1", session_name="old", capabilities=["a", "b"])
    entry = await client.register("agent-1", session_name="new")
    assert entry.session_name == "new" and list(entry.capabilities) == []
    assert (await client.resolve("new")).agent_id == "agent-1"
    with pytest.raises(NotFound):
        await client.resolve("old")


async def test_reregister_without_a_name_keeps_the_registered_name(client: Client) -> None:
    await client.register("agent-1", session_name="planner", capabilities=["a"])
    entry = await client.register("agent-1", capabilities=["b"])
    assert entry.session_name == "planner" and [c.name for c in entry.capabilities] == ["b"]
    assert (await client.resolve("planner")).agent_id == "agent-1"


async def test_registering_a_name_a_live_agent_uses_warns_that_it_is_ambiguous(client: Client) -> None:
    first = await client.directory.Register(dir_pb.RegisterRequest(agent_id="a-1", session_name="builder"))
    assert list(first.name_shared_with) == []
    second = await client.directory.Register(dir_pb.RegisterRequest(agent_id="a-2", session_name="builder"))
    assert list(second.name_shared_with) == ["a-1"]
    with pytest.warns(AmbiguousNameWarning, match="'builder' is now ambiguous: live agents a-1, a-2"):
        await client.register("a-3", session_name="builder")
    await client.touch("a-1", offline=True)  # an agent that left does not make the name ambiguous
    third = await client.directory.Register(dir_pb.RegisterRequest(agent_id="a-4", session_name="builder"))
    assert list(third.name_shared_with) == ["a-2", "a-3"]


async def test_list_includes_mail_only_mailboxes(client: Client) -> None:
    await client.register("reg")
    await client.send("mail-only", "hi", sender="reg", create_mailbox=True)
    entries = {e.agent_id: e for e in await client.list_mailboxes()}
    assert set(entries) == {"reg", "mail-only"}
    assert entries["reg"].registered and not entries["mail-only"].registered
    assert entries["mail-only"].unread_count == 1


async def test_touch_creates_unknown_agent_and_marks_busy(client: Client) -> None:
    touched = await client.touch("worker", busy=True)
    assert touched.created
    assert not (await client.touch("worker", busy=True)).created
    (entry,) = await client.list_mailboxes()
    assert entry.agent_id == "worker" and entry.busy and entry.presence == pb.PRESENCE_BUSY
    assert entry.heartbeat_time.seconds > 0
    await client.send("worker", "mail is accepted while busy")
    await client.touch("worker", busy=False)
    (entry,) = await client.list_mailboxes()
    assert not entry.busy and entry.presence == pb.PRESENCE_LIVE and entry.unread_count == 1


async def test_touching_an_unknown_name_says_it_created_it_and_names_the_closest(client: Client) -> None:
    await client.register("agent-7f3a", session_name="reviewer")
    touched = await client.touch("reviwer")
    assert touched.created and list(touched.similar_names) == ["reviewer"]


async def test_presence_follows_the_agents_own_activity(client: Client) -> None:
    await client.register("silent")  # registering is activity
    await client.register("sender")
    await client.send("mail-only", "hi", sender="sender", create_mailbox=True)
    await client.register("leaver")
    await client.touch("leaver", offline=True)  # a goodbye
    entries = {e.agent_id: e.presence for e in await client.list_mailboxes()}
    assert entries == {"silent": pb.PRESENCE_LIVE, "sender": pb.PRESENCE_LIVE, "mail-only": pb.PRESENCE_OFFLINE,
                       "leaver": pb.PRESENCE_OFFLINE}
    await client.touch("leaver")  # heard from again
    assert {e.agent_id: e.presence for e in await client.list_mailboxes()}["leaver"] == pb.PRESENCE_LIVE


async def test_without_activity_inside_the_live_window_every_agent_is_offline(make_daemon) -> None:
    daemon = make_daemon("--live-window", "0").start()
    async with Client(daemon.target) as client:
        await client.register("silent")  # registered, then never heard from
        await client.touch("stale", busy=True)  # busy, then went quiet
        entries = {e.agent_id: e.presence for e in await client.list_mailboxes()}
        assert entries == {"silent": pb.PRESENCE_OFFLINE, "stale": pb.PRESENCE_OFFLINE}


async def test_last_activity_moves_with_the_senders_mail_not_the_recipients(client: Client) -> None:
    await client.register("a")
    await client.register("b")
    before = {e.agent_id: e.last_activity_time.ToNanoseconds() for e in await client.list_mailboxes()}
    await client.send("b", "hi", sender="a")
    after = {e.agent_id: e.last_activity_time.ToNanoseconds() for e in await client.list_mailboxes()}
    assert after["a"] > before["a"] and after["b"] == before["b"]
    await client.drain("b")  # reading its mail is b's activity
    assert {e.agent_id: e.last_activity_time.ToNanoseconds() for e in await client.list_mailboxes()}["b"] > before["b"]


async def test_unregister_removes_an_empty_mailbox_and_its_name(client: Client) -> None:
    await client.register("agent-9", session_name="temp")
    response = await client.unregister("temp")
    assert (response.purged_messages, response.aborted_tickets) == (0, 0)
    assert await client.list_mailboxes() == []
    with pytest.raises(NotFound):
        await client.resolve("temp")
    with pytest.raises(NotFound) as err:
        await client.send("agent-9", "gone?")
    assert err.value.reason == "UNKNOWN_RECIPIENT"
    with pytest.raises(NotFound) as err:
        await client.unregister("agent-9")
    assert err.value.reason == "NAME_NOT_FOUND"


async def test_unregister_refuses_a_mailbox_with_mail_or_tickets_unless_purged(client: Client) -> None:
    await client.register("busy-agent")
    await client.send("busy-agent", "one")
    await client.send("busy-agent", "two", id="client-id-1")
    ticket = await client.enqueue("busy-agent", "a task")
    with pytest.raises(FailedPrecondition) as err:
        await client.unregister("busy-agent")
    assert err.value.reason == "MAILBOX_NOT_EMPTY"
    assert (err.value.metadata["unread"], err.value.metadata["queued_tickets"]) == ("3", "1")
    assert (await client.peek("busy-agent")).unread_count == 3  # nothing changed on refusal
    response = await client.unregister("busy-agent", purge=True)
    assert (response.purged_messages, response.aborted_tickets) == (2, 1)
    with pytest.raises(Aborted):
        await client.await_reply(ticket.ticket_id, timeout=5)
    assert await client.list_mailboxes() == []
    # A mailbox made anew starts empty; the purged client id is free again.
    await client.register("busy-agent")
    assert not (await client.send("busy-agent", "two", id="client-id-1")).duplicate
    assert [m.text for m in (await client.peek("busy-agent")).messages] == ["two"]


async def test_resolve_by_id_session_name_and_suffix(client: Client) -> None:
    await client.register("agent-aaaa", session_name="solo")
    await client.register("agent-1111", session_name="twins")
    await client.register("agent-2222", session_name="twins")
    assert (await client.resolve("agent-aaaa")).agent_id == "agent-aaaa"
    assert (await client.resolve("solo")).agent_id == "agent-aaaa"
    assert (await client.resolve("twins/1111")).agent_id == "agent-1111"
    with pytest.raises(FailedPrecondition) as err:
        await client.resolve("twins")
    assert err.value.metadata["candidates"] == "agent-1111,agent-2222"
    with pytest.raises(NotFound):
        await client.resolve("nobody")
    with pytest.raises(NotFound):
        await client.resolve("twins/9999")


async def test_watch_sends_snapshot_then_each_change(client: Client) -> None:
    await client.register("first")
    events: asyncio.Queue = asyncio.Queue()

    async def watch() -> None:
        async for response in client.watch_mailboxes():
            for e in response.events:
                await events.put((e.type, e.entry.agent_id))
            if response.snapshot_complete:
                await events.put(("complete", ""))

    task = asyncio.create_task(watch())
    try:
        assert await events.get() == (dir_pb.MAILBOX_EVENT_TYPE_SNAPSHOT, "first")
        assert await events.get() == ("complete", "")
        await client.register("second")
        assert await events.get() == (dir_pb.MAILBOX_EVENT_TYPE_REGISTERED, "second")
        await client.touch("second")
        assert await events.get() == (dir_pb.MAILBOX_EVENT_TYPE_TOUCHED, "second")
        await client.touch("second", busy=True)
        assert await events.get() == (dir_pb.MAILBOX_EVENT_TYPE_BUSY_CHANGED, "second")
        await client.register("second", capabilities=["new"])
        assert await events.get() == (dir_pb.MAILBOX_EVENT_TYPE_CAPABILITIES_CHANGED, "second")
        await client.send("third", "creates a mailbox", create_mailbox=True)
        assert await events.get() == (dir_pb.MAILBOX_EVENT_TYPE_CREATED, "third")
        await client.unregister("third", purge=True)
        assert await events.get() == (dir_pb.MAILBOX_EVENT_TYPE_UNREGISTERED, "third")
    finally:
        task.cancel()


@pytest.mark.parametrize(
    ("kwargs", "reason"),
    [
        ({"agent_id": ""}, "MISSING_FIELD"),
        ({"agent_id": "x" * 257}, "FIELD_TOO_LONG"),
        ({"agent_id": "tab\there"}, "INVALID_CHARACTERS"),
        ({"agent_id": "a", "session_name": "has/slash"}, "INVALID_CHARACTERS"),
        ({"agent_id": "a", "capabilities": [pb.Capability(name="")]}, "MISSING_FIELD"),
        ({"agent_id": "a", "capabilities": ["dup", "dup"]}, "DUPLICATE_ITEM"),
        ({"agent_id": "a", "metadata": {"": "v"}}, "INVALID_FIELD"),
        ({"agent_id": "a", "metadata": {"k": "v" * 70000}}, "FIELD_TOO_LARGE"),
    ],
)
async def test_bad_register_is_invalid_argument_and_writes_nothing(client: Client, kwargs, reason) -> None:
    kwargs = dict(kwargs)  # the parameter is shared by both backends' runs: leave it whole
    agent_id = kwargs.pop("agent_id")
    with pytest.raises(InvalidArgument) as err:
        await client.register(agent_id, **kwargs)
    assert err.value.reason == reason
    assert await client.list_mailboxes() == []
