"""LMDB's consume paths (ack by ids, drain) read each record once and still check it, credit the sender exactly,
and never consume another mailbox's message."""

from __future__ import annotations

import asyncio
import itertools

import pytest

from fabricd.core.ids import IdMint
from fabricd.core.kv import mailbox
from fabricd.core.mailbox import digest_of
from fabricd.core.model import Address, Message
from fabricd.store.lmdb import keys, records, sealed
from fabricd.store.lmdb.engine import LmdbEngine


@pytest.fixture
def engine(tmp_path):  # noqa: ANN201
    e = LmdbEngine(str(tmp_path / "data"), map_size=1 << 26)
    yield e
    asyncio.run(e.close())


async def _send(engine: LmdbEngine, recipient: str, texts: list[str], ids: bool = False) -> list[str]:
    mint, now = IdMint(), itertools.count(1_700_000_000_000_000_000, 1_000_000)
    items = []
    for text in texts:
        msg = Message(id=f"client-{recipient}-{text}" if ids else "", sender=Address("alice"),
                      recipient=Address(recipient), text=text)
        items.append((msg, digest_of(msg) if ids else b""))
    sent = await engine.write(lambda tx: mailbox.append(tx, next(now), mint.mint, items, True, False, 0))
    return [s.message.id for s in sent]


async def test_an_ack_consumes_only_its_own_mailboxes_messages_and_credits_the_sender(engine: LmdbEngine) -> None:
    await engine.start()
    # "b" is a prefix of "bo": an id record's recipient must be read whole, also with a client id after it
    mine = await _send(engine, "b", ["one", "two"]) + await _send(engine, "b", ["three"], ids=True)
    theirs = await _send(engine, "bo", ["four"]) + await _send(engine, "bo", ["five"], ids=True)
    charged = (await engine.read(lambda tx: tx.usage("alice"))).unread_bytes
    assert charged > 0
    assert await engine.write(lambda tx: mailbox.ack(tx, 1, "b", theirs)) == 0
    assert await engine.read(lambda tx: len(tx.unread("b", 0, 10))) == 3
    acked = await engine.write(lambda tx: mailbox.ack(tx, 1, "b", [*theirs, "no-such-id", *mine, mine[0]]))
    assert acked == 3
    assert await engine.write(lambda tx: mailbox.ack(tx, 1, "bo", mine)) == 0
    left = await engine.read(lambda tx: (tx.get_entry("b").unread_count, tx.get_entry("bo").unread_count,
                                         [records.decode_message(e.encoded).text for e in tx.unread("bo", 0, 10)]))
    assert left == (0, 2, ["four", "five"])
    assert await engine.write(lambda tx: mailbox.ack(tx, 1, "bo", theirs)) == 2
    assert (await engine.read(lambda tx: tx.usage("alice"))).unread_bytes == 0


async def test_a_drain_credits_the_sender_exactly_what_the_send_charged(engine: LmdbEngine) -> None:
    await engine.start()
    await _send(engine, "box", ["x" * n for n in (1, 200, 5000)])
    drained, remaining, _ = await engine.write(lambda tx: mailbox.drain(tx, 1, "box", 2, 1 << 20))
    assert len(drained) == 2 and remaining == 1
    left = (await engine.read(lambda tx: tx.usage("alice"))).unread_bytes
    assert left == len((await engine.read(lambda tx: tx.unread("box", 0, 10)))[0].encoded)
    await engine.write(lambda tx: mailbox.drain(tx, 1, "box", 10, 1 << 20))
    assert (await engine.read(lambda tx: tx.usage("alice"))).unread_bytes == 0


def _flip(engine: LmdbEngine, name: str, key: bytes) -> None:
    with engine._env.begin(write=True) as txn:
        db = getattr(engine._dbs, name)
        value = bytearray(txn.get(key, db=db))
        value[len(value) // 2] ^= 0x01
        txn.put(key, bytes(value), db=db)


async def test_an_ack_of_a_corrupt_record_consumes_nothing_and_moves_it_aside(engine: LmdbEngine) -> None:
    await engine.start()
    first, second, third = await _send(engine, "box", ["one", "two", "three"])
    _flip(engine, "ids", keys.minted_id(first))  # the ack cannot know where the message is
    _flip(engine, "messages", keys.message(keys.entry("box"), 2))  # nor whose bytes it credits
    assert await engine.write(lambda tx: mailbox.ack(tx, 1, "box", [first, second, third])) == 1
    while engine.quarantine.moved < 2:  # the quarantine is a write of its own, queued by the reads
        await asyncio.sleep(0.01)
    with engine._env.begin() as txn:
        assert txn.get(sealed.quarantine_key("ids", keys.minted_id(first)), db=engine._dbs.quarantine)
        key = keys.message(keys.entry("box"), 2)
        assert txn.get(sealed.quarantine_key("messages", key), db=engine._dbs.quarantine)
