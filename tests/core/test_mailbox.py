"""The mailbox contract on every store."""

from __future__ import annotations

import asyncio

import pytest

from fabricd.core.errors import AlreadyExists, FabricError, NotFound, ResourceExhausted
from fabricd.core.limits import Limits
from tests.core.conftest import Fabric, MakeFabric, decoded, mail, texts


async def test_mail_to_an_unknown_name_is_refused_unless_create_mailbox(fabric: Fabric) -> None:
    await fabric.directory.register("alice")
    with pytest.raises(NotFound) as refused:
        await fabric.mailboxes.send(mail("alicee"))
    assert refused.value.reason == "UNKNOWN_RECIPIENT" and refused.value.metadata["suggestions"] == "alice"
    assert (await fabric.directory.list()).items == [await fabric.directory.resolve("alice")]  # no mailbox was made
    sent = await fabric.mailboxes.send(mail("alicee"), create_mailbox=True)
    assert sent.message.seq == 1 and (await fabric.mailboxes.peek("alicee", 10))[1] == 1


async def test_a_resend_with_the_same_id_is_stored_once(fabric: Fabric) -> None:
    await fabric.directory.register("bob")
    first = await fabric.mailboxes.send(mail("bob", id="m-1"))
    again = await fabric.mailboxes.send(mail("bob", id="m-1"))
    assert again.duplicate and not first.duplicate
    assert (again.message.seq, again.message.send_time_ns) == (first.message.seq, first.message.send_time_ns)
    assert (await fabric.mailboxes.peek("bob", 10))[1] == 1


async def test_an_id_reused_for_a_different_message_is_refused(fabric: Fabric) -> None:
    await fabric.directory.register("bob")
    await fabric.mailboxes.send(mail("bob", "one", id="m-1"))
    with pytest.raises(AlreadyExists) as refused:
        await fabric.mailboxes.send(mail("bob", "two", id="m-1"))
    assert refused.value.reason == "MESSAGE_ID_REUSED"
    assert texts((await fabric.mailboxes.peek("bob", 10))[0]) == ["one"]


async def test_a_full_mailbox_refuses_mail_and_stores_nothing(make_fabric: MakeFabric) -> None:
    fabric = await make_fabric(Limits(max_unread=2))
    await fabric.directory.register("bob")
    for text in ("a", "b"):
        await fabric.mailboxes.send(mail("bob", text))
    with pytest.raises(ResourceExhausted) as refused:
        await fabric.mailboxes.send(mail("bob", "c"))
    assert refused.value.reason == "MAILBOX_FULL"
    assert texts((await fabric.mailboxes.peek("bob", 10))[0]) == ["a", "b"]


async def test_seqs_are_gap_free_in_arrival_order_and_ids_are_minted(fabric: Fabric) -> None:
    await fabric.directory.register("bob")
    sent = [await fabric.mailboxes.send(mail("bob", str(i))) for i in range(5)]
    assert [s.message.seq for s in sent] == [1, 2, 3, 4, 5]
    ids = [s.message.id for s in sent]
    assert len(set(ids)) == 5 and ids == sorted(ids)


async def test_the_callers_message_is_left_alone(fabric: Fabric) -> None:
    await fabric.directory.register("bob", session_name="builder")
    message = mail("builder")
    sent = await fabric.mailboxes.send(message)
    assert (message.id, message.seq, message.send_time_ns, message.recipient.agent_id) == ("", 0, 0, "builder")
    assert sent.message.recipient.agent_id == "bob" and sent.message.id


async def test_drained_message_never_appears_again(fabric: Fabric) -> None:
    await fabric.directory.register("bob")
    for text in ("a", "b", "c"):
        await fabric.mailboxes.send(mail("bob", text))
    got, remaining = await fabric.mailboxes.drain("bob", 2)
    assert texts(got) == ["a", "b"] and remaining == 1
    got, remaining = await fabric.mailboxes.drain("bob", 10)
    assert texts(got) == ["c"] and remaining == 0
    assert await fabric.mailboxes.drain("bob", 10) == ([], 0)


async def test_ack_consumes_once_and_is_idempotent(fabric: Fabric) -> None:
    await fabric.directory.register("bob")
    sent = await fabric.mailboxes.send(mail("bob"))
    assert await fabric.mailboxes.ack("bob", [sent.message.id]) == 1
    assert await fabric.mailboxes.ack("bob", [sent.message.id]) == 0
    assert await fabric.mailboxes.ack("mallory", [sent.message.id]) == 0  # not hers to ack
    assert (await fabric.mailboxes.peek("bob", 10))[1] == 0


async def test_atomic_batch_with_one_refusal_stores_nothing_and_names_its_index(fabric: Fabric) -> None:
    await fabric.directory.register("bob")
    with pytest.raises(NotFound) as refused:
        await fabric.mailboxes.send_many([mail("bob", "a"), mail("nobody")], atomic=True)
    assert refused.value.metadata["index"] == "1" and refused.value.message.startswith("messages[1]:")
    assert (await fabric.mailboxes.peek("bob", 10))[1] == 0


async def test_batch_without_atomic_stores_the_valid_and_reports_each_error(fabric: Fabric) -> None:
    await fabric.directory.register("bob")
    results = await fabric.mailboxes.send_many([mail("bob", "a"), mail("nobody"), mail("bad\nname")], atomic=False)
    assert [type(r).__name__ for r in results] == ["Sent", "NotFound", "InvalidArgument"]
    assert isinstance(results[2], FabricError) and results[2].metadata["field"] == "message.recipient.agent_id"
    assert texts((await fabric.mailboxes.peek("bob", 10))[0]) == ["a"]


async def test_subscribe_delivers_unread_then_new_mail_after_a_wake_up(fabric: Fabric) -> None:
    await fabric.directory.register("bob")
    await fabric.mailboxes.send(mail("bob", "old"))
    stream = fabric.mailboxes.subscribe("bob")
    assert texts(await anext(stream)) == ["old"]
    pending = asyncio.ensure_future(anext(stream))
    await asyncio.sleep(0)
    await fabric.mailboxes.send(mail("bob", "new"))
    batch = await asyncio.wait_for(pending, 5)
    while not batch:  # an empty batch is a keepalive (keepalive_s=0.05 runs out first on a slow store)
        batch = await asyncio.wait_for(anext(stream), 5)
    assert texts(batch) == ["new"]


async def test_a_lost_wake_up_is_recovered_by_waking_every_waiter(make_fabric: MakeFabric) -> None:
    fabric = await make_fabric(keepalive_s=60)  # no keepalive ends the wait while the send runs
    await fabric.directory.register("bob")
    stream = fabric.mailboxes.subscribe("bob")
    pending = asyncio.ensure_future(anext(stream))
    await asyncio.sleep(0.01)
    versions = fabric.wakeups.version("mailbox/bob")
    fabric.wakeups.notify = lambda key: None  # type: ignore[method-assign]  # the wake-up is lost
    await fabric.mailboxes.send(mail("bob", "quiet"))
    assert fabric.wakeups.version("mailbox/bob") == versions and not pending.done()
    fabric.wakeups.wake_all()  # what a LISTEN reconnect does
    assert texts(await asyncio.wait_for(pending, 5)) == ["quiet"]


async def test_ids_of_consumed_mail_are_forgotten_after_the_window(fabric: Fabric) -> None:
    await fabric.directory.register("bob")
    await fabric.mailboxes.send(mail("bob", id="m-1"))
    await fabric.mailboxes.drain("bob", 10)
    assert (await fabric.mailboxes.send(mail("bob", id="m-1"))).duplicate
    await fabric.mailboxes.drain("bob", 10)
    fabric.clock.advance(3600)
    assert await fabric.mailboxes.forget_old_ids(window_s=60) == 1
    resent = await fabric.mailboxes.send(mail("bob", id="m-1"))
    assert not resent.duplicate and [m.seq for m in decoded((await fabric.mailboxes.peek("bob", 10))[0])] == [2]


async def test_a_mailbox_made_again_numbers_its_mail_above_every_seq_a_removed_one_used(fabric: Fabric) -> None:
    await fabric.directory.register("bob")
    old = [(await fabric.mailboxes.send(mail("bob", f"m{i}"))).message for i in range(3)]
    await fabric.directory.unregister("bob", purge=True)
    # Made again by each path that makes a mailbox: register, a send that creates it, a heartbeat.
    await fabric.directory.register("bob")
    again = (await fabric.mailboxes.send(mail("bob", "again"))).message
    assert again.seq == old[-1].seq + 1
    assert await fabric.mailboxes.ack("bob", [m.id for m in old]) == 0  # old ids name no message of the new one
    assert texts((await fabric.mailboxes.peek("bob", 10))[0]) == ["again"]
    await fabric.directory.unregister("bob", purge=True)
    created = (await fabric.mailboxes.send(mail("bob", "made by mail"), create_mailbox=True)).message
    assert created.seq == again.seq + 1
    await fabric.directory.unregister("bob", purge=True)
    await fabric.directory.touch("bob", busy=False)
    assert (await fabric.mailboxes.send(mail("bob", "after a heartbeat"))).message.seq == created.seq + 1
    fresh = (await fabric.mailboxes.send(mail("carol", "first"), create_mailbox=True)).message
    assert fresh.seq == 1  # the floor is the id's: a mailbox no one had starts at 1
