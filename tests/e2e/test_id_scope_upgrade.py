"""Issue 17 #4 on a store written before it: LMDB schema 3 -> 4 and PostgreSQL migration 4 -> 5.

Message ids became each sender's own and outbox rows each settling agent's: a store from before is brought
over at start, and its unread mail, consumed ids, outbox rows and receipts keep working as they did.

The old store is made from one the daemon wrote, as test_store_operations makes a schema-2 store: the
records schema 4 (migration 5) changed are put back the way schema 3 (migration 4) wrote them, byte for
byte (keys documented in fabricd.store.lmdb.keys, tables in fabricd.store.postgres.schema).
"""

from __future__ import annotations

import os

import pytest

from fabricd.client import AlreadyExists, Client
from fabricd.store.postgres.schema import LATEST
from fabricd.v1 import outbox_service_pb2 as ob
from tests.e2e.test_hostile_id_scopes import settled
from tests.e2e.test_store_operations import downgrade_lmdb_to_schema_3, fabricd

BACKENDS = ["lmdb", "postgres"]
KEEPER, ALICE, BOB, CAROL = "keeper", "alice", "bob", "carol"
LOOKS_MINTED = "0123456789ABCDEFGHIJKLMNOP"  # an id alice chose that has the form of a minted one


async def downgrade_pg_to_migration_4(url: str) -> None:
    """Undo migrations 6 (the seq-floor triggers) and 5: ids keyed by id alone (a consumed id's sender is lost,
    as before), outbox rows by key, tickets without their re-attach count."""
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        await conn.execute("""
            DROP TRIGGER mailboxes_numbered_above_the_removed ON mailboxes;
            DROP TRIGGER mailboxes_removed_raise_the_seq_floor ON mailboxes;
            DROP FUNCTION fabricd_new_mailbox(), fabricd_mailbox_removed();
            DELETE FROM counters WHERE name = 'seq-floor';
            DELETE FROM schema_version WHERE version >= 6;
            ALTER TABLE message_ids DROP CONSTRAINT message_ids_pkey;
            ALTER TABLE message_ids DROP COLUMN sender;
            ALTER TABLE message_ids ADD PRIMARY KEY (id);
            ALTER TABLE outbox DROP CONSTRAINT outbox_pkey;
            ALTER TABLE outbox ALTER COLUMN sender_agent TYPE text COLLATE "default";
            ALTER TABLE outbox ADD PRIMARY KEY (key);
            ALTER TABLE tickets DROP COLUMN reattached;
            DELETE FROM schema_version WHERE version = 5""")
    finally:
        await conn.close()


async def schema_version(url: str) -> int:
    import asyncpg

    from fabricd.store.postgres import schema

    conn = await asyncpg.connect(url)
    try:
        return await schema.version(conn)
    finally:
        await conn.close()


def shown(messages) -> list[tuple[str, int, str, str]]:
    return [(m.id, m.seq, m.sender.agent_id, m.text) for m in messages]


async def test_an_old_store_keeps_its_mail_ids_outbox_rows_and_receipts_through_the_upgrade(
        make_daemon, backend) -> None:
    daemon = make_daemon("--no-outbox-loop").start()
    async with Client(daemon.target) as local:
        for name in (KEEPER, ALICE, BOB, CAROL):
            await local.register(name)
        await local.send(KEEPER, "alice's task", sender=ALICE, id="task-1")
        minted = (await local.send(KEEPER, "bob's note", sender=BOB)).message.id
        await local.send(KEEPER, "minted-looking", sender=ALICE, id=LOOKS_MINTED)
        ticket = (await local.enqueue(KEEPER, "an old task")).ticket_id
        # consumed, within the dedupe window: a chosen id and a minted one
        await local.send(KEEPER, "done", sender=ALICE, id="done-1")
        gone = (await local.send(KEEPER, "gone", sender=BOB)).message.id
        assert await local.ack(KEEPER, ["done-1", gone]) == 2
        # a receipt (alice's reply, delivered) and a pending row (bob's)
        assert (await local.fan_out(settled(ALICE, "req-6", CAROL, "alice-job"), "alice's result")).written == 1
        assert (await local.drain_outbox()).posted == 1
        assert (await local.fan_out(settled(BOB, "req-7", CAROL, "bob-job"), "bob's result")).written == 1
        before = shown((await local.peek(KEEPER)).messages)
        carol_before = shown((await local.peek(CAROL)).messages)
    daemon.stop()

    if backend:
        await downgrade_pg_to_migration_4(backend)
        assert await schema_version(backend) == 4
    else:
        downgrade_lmdb_to_schema_3(daemon.data_dir)
        old = fabricd("check", "--data-dir", daemon.data_dir)  # schema 3 records carry checksums: checkable
        assert old.returncode == 0 and "0 corrupt" in old.stdout, old.stdout + old.stderr
    daemon.start()
    if backend:
        assert await schema_version(backend) == LATEST
    else:
        assert any("upgraded the store" in line and "from schema 3 to 4" in line for line in daemon.output)
        (backup,) = [n for n in os.listdir(daemon.data_dir) if n.startswith("data.schema-3.")]
        assert os.path.getsize(os.path.join(daemon.data_dir, backup)) > 0

    async with Client(daemon.target) as local:
        assert shown((await local.peek(KEEPER)).messages) == before
        # A resend of unread mail by its sender is the duplicate it was; other content is refused.
        for mid, text in (("task-1", "alice's task"), (LOOKS_MINTED, "minted-looking")):
            again = await local.send(KEEPER, text, sender=ALICE, id=mid)
            assert again.duplicate and (again.message.id, again.message.text) == (mid, text)
        for sender, mid in ((ALICE, "task-1"), (BOB, minted)):  # a minted id is its sender's too
            with pytest.raises(AlreadyExists) as err:
                await local.send(KEEPER, "something else", sender=sender, id=mid)
            assert err.value.reason == "MESSAGE_ID_REUSED"
        # Another sender's task-1 is its own message now.
        assert not (await local.send(KEEPER, "bob's task", sender=BOB, id="task-1")).duplicate
        # A consumed id from before is kept under sender "": its own sender's resend in the window is new mail.
        assert not (await local.send(KEEPER, "done", sender=ALICE, id="done-1")).duplicate

        # Outbox: replays write nothing (the pending row and the receipt both answer), the row posts once.
        assert (await local.fan_out(settled(ALICE, "req-6", CAROL, "alice-job"), "alice's result")).written == 0
        assert (await local.fan_out(settled(BOB, "req-7", CAROL, "bob-job"), "bob's result")).written == 0
        assert (await local.drain_outbox()).posted == 1
        assert (await local.drain_outbox()).posted == 0
        carol = shown((await local.peek(CAROL)).messages)
        assert carol[:-1] == carol_before and len(carol) == 2
        assert carol[-1][0] == "outbox:req-7:reply:0" and carol[-1][2] == BOB and "bob's result" in carol[-1][3]
        rows = (await local.list_outbox()).rows
        assert sorted((r.key, r.state) for r in rows) == [("outbox:req-6:reply:0", ob.OUTBOX_ROW_STATE_DELIVERED),
                                                           ("outbox:req-7:reply:0", ob.OUTBOX_ROW_STATE_DELIVERED)]

        # Every old message is ackable by its id, the oldest of a shared id first; the ticket is answerable.
        assert await local.ack(KEEPER, ["task-1", minted, LOOKS_MINTED]) == 3
        assert await local.reply(KEEPER, "done with it", ticket_id=ticket) == ticket
        assert [(s, t) for _, _, s, t in shown((await local.peek(KEEPER)).messages)] == [
            (BOB, "bob's task"), (ALICE, "done")]
        assert await local.ack(KEEPER, ["task-1", "done-1"]) == 2
        assert (await local.peek(KEEPER)).messages == []
    daemon.stop()
    checked = fabricd("check", "--store", backend) if backend else fabricd("check", "--data-dir", daemon.data_dir)
    assert checked.returncode == 0, checked.stdout + checked.stderr

