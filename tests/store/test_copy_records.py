"""What `fabricd copy` takes from LMDB records whose keys hold only a digest of a name.

New records keep the text beside the digest; records written before that are
read as they always were, and copied when the text survives elsewhere (an unread
message holds its id; a request holds its repair key), counted as not copied otherwise.
"""

from __future__ import annotations

import asyncio
from collections import Counter

from fabricd.core import agentdir
from fabricd.core.model import Address, Message
from fabricd.store import transfer
from fabricd.store.lmdb import dump, keys, records
from fabricd.store.lmdb.engine import LmdbEngine
from fabricd.store.lmdb.sealed import SealedTxn
from fabricd.store.lmdb.tx import LmdbTx


def test_an_id_record_keeps_a_hashed_ids_text_and_still_reads_its_recipient() -> None:
    raw = records.encode_id("bob", 7, 99, b"d" * 16, "client-1")
    assert records.decode_id(raw) == records.decode_id(records.encode_id("bob", 7, 99, b"d" * 16))
    assert records.decode_id(raw).recipient == "bob"
    assert records.hashed_id(raw) == "client-1"
    assert records.hashed_id(records.encode_id("bob", 7, 99, b"")) is None


def test_a_minted_ids_record_names_its_sender_and_an_older_one_none() -> None:
    raw = records.encode_id("bob", 7, 99, b"", sender="alice")
    assert records.decode_id(raw) == records.decode_id(records.encode_id("bob", 7, 99, b""))
    assert records.id_texts(raw) == (None, "alice")
    assert records.id_texts(records.encode_id("bob", 7, 99, b"")) == (None, None)
    assert records.id_texts(records.encode_id("bob", 7, 99, b"d" * 16, "client-1", "carol")) == ("client-1", "carol")


def test_a_request_key_record_keeps_its_scope_and_key() -> None:
    raw = records.encode_request_key("admit", "key-1", b"d" * 16, "request-1")
    assert records.decode_request_key(raw) == (b"d" * 16, "request-1", ("admit", "key-1"))
    assert records.decode_request_key(b"d" * 16 + b"request-1") == (b"d" * 16, "request-1", None)


def _message(agent_id: str, seq: int, mid: str) -> Message:
    return Message(id=mid, recipient=Address(agent_id), text="hi", send_time_ns=5, seq=seq)


def test_records_of_an_older_fabricd_are_copied_when_their_text_survives_and_counted_when_not(tmp_path) -> None:
    path = str(tmp_path / "data")
    engine = LmdbEngine(path, map_size=1 << 26)
    try:
        with engine._env.begin(write=True) as raw:  # the writer thread is not running
            tx = LmdbTx(raw, engine._dbs)
            txn = SealedTxn(raw, engine._dbs.sealed, None)  # records are sealed since schema 3
            for seq, mid in ((1, "consumed-old"), (2, "unread-old"), (3, "consumed-new")):
                tx.put_message(_message("bob", seq, mid), b"", True)
            for seq in (1, 3):
                tx.delete_message("bob", seq)
            for seq, mid in ((1, "consumed-old"), (2, "unread-old")):  # as an older fabricd wrote them
                txn.put(keys.chosen_id("", mid), records.encode_id("bob", seq, 5, b""), db=engine._dbs.ids)
            tx.put_request_key("admit", "new-key", b"d" * 16, "request-1")
            txn.put(keys.request_key("admit", "old-key"), b"d" * 16 + b"request-2", db=engine._dbs.ad_repairs)
            request = agentdir.WorkRequest("request-3", "agent", "thread", agentdir.Submission(text="fix"),
                                           repair=agentdir.RepairInfo(key="disk-check", generation=2), seq=1)
            tx.put_request(request)
            tx.put_repair("disk-check", 2, "request-3")
            tx.flush()
    finally:
        asyncio.run(engine.close())

    source = dump.LmdbSource(path)
    got = asyncio.run(transfer.dump_all(source))
    ids = sorted(value[0] for kind, value in got if kind is transfer.Kind.MESSAGE_ID)
    assert ids == ["consumed-new", "unread-old"]
    assert [value for kind, value in got if kind is transfer.Kind.REQUEST_KEY] == [
        ("admit", "new-key", b"d" * 16, "request-1")]
    assert [value for kind, value in got if kind is transfer.Kind.REPAIR] == [("disk-check", 2, "request-3")]
    assert source.skipped == {dump.OLD_IDS: 1, dump.OLD_KEYS: 1}
    assert any("not copied: 1 message ids" in line for line in transfer.summary(
        Counter(), source.skipped))
