"""Record checksums on LMDB (fabricd.store.lmdb.sealed): a corrupt value is never served, and is reported once."""

from __future__ import annotations

import asyncio

import pytest

from fabricd.core.errors import Unavailable
from fabricd.core.model import Address, Message
from fabricd.store.lmdb import records, sealed
from fabricd.store.lmdb.engine import LmdbEngine


def test_every_single_flipped_bit_of_a_sealed_value_is_caught() -> None:
    body = records.encode_message(Message(id="m", sender=Address("a"), recipient=Address("b"), text="hello " * 40))
    raw = sealed.seal(body)
    assert sealed.unseal(raw) == body
    for i in range(len(raw)):
        for bit in range(8):
            flipped = bytearray(raw)
            flipped[i] ^= 1 << bit
            assert sealed.unseal(bytes(flipped)) is None
    assert sealed.unseal(b"abc") is None

def test_every_single_flipped_bit_of_a_sealed_wake_hook_is_caught_and_an_old_one_still_reads() -> None:
    from fabricd.core import wake

    hook = wake.WakeHook(agent_id="a", url="http://127.0.0.1:9/hook")
    raw = records.encode_wake_hook(hook)
    assert records.decode_wake_hook(raw) == hook
    for i in range(len(raw)):
        for bit in range(8):
            flipped = bytearray(raw)
            flipped[i] ^= 1 << bit
            assert records.decode_wake_hook(bytes(flipped)) is None, (i, bit)
    assert records.decode_wake_hook(wake.encode(hook)) == hook  # stored before hooks were sealed: JSON alone


@pytest.fixture
def engine(tmp_path):  # noqa: ANN201
    e = LmdbEngine(str(tmp_path / "data"), map_size=1 << 26)
    yield e
    asyncio.run(e.close())

def _corrupt_value(engine: LmdbEngine, name: str, match: bytes) -> bytes:
    with engine._env.begin(write=True) as txn:
        db = getattr(engine._dbs, name)
        for key, value in txn.cursor(db=db):
            if match in value:
                txn.put(key, value.replace(match, match.upper()), db=db)
                return bytes(key)
    raise AssertionError(match)

async def test_a_corrupt_message_is_skipped_by_reads_and_moved_aside_once(engine: LmdbEngine) -> None:
    await engine.start()
    from fabricd.core.kv import mailbox

    def send(text: str):  # noqa: ANN202
        msg = Message(sender=Address("a"), recipient=Address("box"), text=text)
        return lambda tx: mailbox.store(tx, 1, lambda now: f"id-{text}", msg, b"", True, 0)

    for text in ("one", "two", "three"):
        await engine.write(send(text))
    key = _corrupt_value(engine, "messages", b"two")
    read = await engine.read(lambda tx: [records.decode_message(e.encoded).text for e in tx.unread("box", 0, 10)])
    assert read == ["one", "three"]
    while engine.quarantine.moved < 1:  # the quarantine is a write of its own, queued by the read
        await asyncio.sleep(0.01)
    await engine.read(lambda tx: tx.unread("box", 0, 10))
    assert engine.quarantine.moved == 1
    entry = await engine.read(lambda tx: tx.get_entry("box"))
    assert entry.unread_count == 2
    with engine._env.begin() as txn:
        assert txn.get(sealed.quarantine_key("messages", key), db=engine._dbs.quarantine) is not None

async def test_a_write_needing_a_corrupt_mailbox_entry_is_unavailable_until_it_is_rebuilt(engine: LmdbEngine) -> None:
    await engine.start()
    from fabricd.core.kv import mailbox

    def send(text: str):  # noqa: ANN202
        msg = Message(sender=Address("a"), recipient=Address("box"), text=text)
        return lambda tx: mailbox.store(tx, 1, lambda now: f"id-{text}", msg, b"", True, 0)

    await engine.write(send("one"))
    _corrupt_value(engine, "entries", b"box")
    with pytest.raises(Unavailable) as err:
        await engine.write(send("two"))
    assert err.value.reason == "CORRUPT_RECORD"
    while engine.quarantine.moved < 1:
        await asyncio.sleep(0.01)
    sent = await engine.write(send("two"))
    assert sent.message.seq == 2  # rebuilt from its mail: the seq goes on

