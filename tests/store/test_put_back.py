"""A drain whose caller left puts its messages back: into the mailbox they were drained from, never into one
made again under that id (LMDB's and PostgreSQL's record of removals; the memory store's in tests/core)."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator

import pytest

from fabricd.core.model import Address, Message
from fabricd.core.notify import LocalWakeups
from fabricd.core.ports import Store
from fabricd.store import open_store
from fabricd.v1 import types_pb2 as pb


@pytest.fixture(params=["lmdb", "postgres"])
def location(request, tmp_path) -> str:
    return str(tmp_path) if request.param == "lmdb" else request.getfixturevalue("pg_url")


@pytest.fixture
async def store(location: str) -> AsyncIterator[Store]:
    opened = open_store(location, wakeups=LocalWakeups(), clock=time.time_ns, map_size=1 << 26)
    await opened.start()
    try:
        yield opened
    finally:
        await opened.close()


async def _send(store: Store, *texts: str) -> None:
    for text in texts:
        message = Message(id="", sender=Address("alice"), recipient=Address("bob"), text=text)
        await store.mailboxes.append([(message, b"")], create=False, atomic=False, max_unread=0)


async def _unread(store: Store) -> list[tuple[int, str]]:
    envelopes, _ = await store.mailboxes.peek("bob", 100, 0)
    return [(e.seq, pb.Message.FromString(e.encoded).text) for e in envelopes]


async def test_drained_messages_go_back_into_their_mailbox_changed_meanwhile(store: Store) -> None:
    await store.directory.register("bob", "", (), "", {})
    await store.directory.register("carol", "", (), "", {})
    await _send(store, "m0", "m1", "m2")
    drained, left, revision = await store.mailboxes.drain("bob", 2, 0)
    assert left == 1
    await store.directory.register("bob", "builder", (), "", {})  # its entry changed, not removed
    await store.directory.touch("bob", True, False)
    await store.directory.unregister("carol", purge=False)  # another mailbox's removal says nothing of bob's
    assert await store.mailboxes.put_back("bob", drained, revision) == 2
    assert [t for _, t in await _unread(store)] == ["m0", "m1", "m2"]


async def test_drained_messages_never_go_into_a_mailbox_made_again_under_their_id(store: Store) -> None:
    await store.directory.register("bob", "", (), "", {})
    await _send(store, "m0", "m1", "m2")
    drained, _, revision = await store.mailboxes.drain("bob", 2, 0)
    await store.directory.unregister("bob", purge=True)
    await store.directory.register("bob", "", (), "", {})
    await _send(store, "new")
    charged = await store.mailboxes.usage("alice")
    assert await store.mailboxes.put_back("bob", drained, revision) == 0
    ((seq, text),) = await _unread(store)
    assert text == "new" and seq > max(e.seq for e in drained)
    assert (await store.mailboxes.peek("bob", 100, 0))[1] == 1
    assert await store.mailboxes.usage("alice") == charged  # nothing charged for messages not stored
