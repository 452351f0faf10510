"""The look-alike indexes: a new name's look-alikes (an agent's id or session name, a channel's name, a
directory agent's name) are found without reading every record, a store or database written before an index
gets it (LMDB at open, PostgreSQL by its migration), and it follows renames and removals."""

from __future__ import annotations

import asyncio
import time

import asyncpg
import pytest

from fabricd import wire
from fabricd.core import lookalike
from fabricd.core.agentdir import Agent, AgentDirectory
from fabricd.core.channel_service import Channels
from fabricd.core.directory import Directory
from fabricd.core.errors import AlreadyExists
from fabricd.core.limits import Limits
from fabricd.core.model_channels import Channel
from fabricd.core.notify import LocalWakeups
from fabricd.store import open_store
from fabricd.store.lmdb import keys, records
from fabricd.store.postgres import directory as pg_directory
from fabricd.store.postgres import locks, schema
from fabricd.store.postgres.store import PgStore
from fabricd.v1 import agent_directory_service_pb2 as ad_pb

LOOKS = next(m.version for m in schema.MIGRATIONS if "look-alike" in m.description)


async def _fabric(path: str):  # noqa: ANN202
    wakeups = LocalWakeups()
    store = open_store(path, wakeups=wakeups, clock=lambda: 1, sync=False)
    await store.start()
    return wakeups, store, Directory(store, Limits(), lambda: 1)


async def test_a_new_name_reads_only_its_look_alikes_not_every_entry(tmp_path, monkeypatch) -> None:
    wakeups, store, directory = await _fabric(str(tmp_path / "data"))
    try:
        for i in range(200):
            await directory.register(f"agent-{i}", session_name=f"team-{i}")
        await directory.register("alice")
        decoded = []
        real = records.decode_entry
        monkeypatch.setattr(records, "decode_entry", lambda raw: decoded.append(1) or real(raw))
        with pytest.raises(AlreadyExists) as err:
            await directory.register("\u0430lice")
        assert err.value.metadata["looks_like"] == "alice"
        await directory.register("carol", session_name="reviewer")
        assert len(decoded) <= 4, len(decoded)  # alice's entry and the new ones: none of the 200 others
    finally:
        wakeups.close()
        await store.close()


@pytest.mark.parametrize("built", [None, keys.u64(1)], ids=["before the index", "with other confusables data"])
async def test_an_lmdb_store_indexed_before_or_otherwise_is_indexed_when_opened(tmp_path, built) -> None:
    path = str(tmp_path / "data")
    wakeups, store, directory = await _fabric(path)
    await directory.register("alice", session_name="reviewer")
    engine = store.engine  # type: ignore[attr-defined]

    def forget_index(tx) -> None:  # as a store written by a fabricd without the looks database
        tx._txn.drop(tx._dbs.looks, delete=False)
        if built is None:
            tx._txn.delete(keys.LOOKS_BUILT, db=tx._dbs.meta)
        else:
            tx._txn.put(keys.LOOKS_BUILT, built, db=tx._dbs.meta)

    await engine.write(forget_index)
    await directory.register("\u0430lice")  # the index is gone: the look-alike passes
    await directory.unregister("\u0430lice", purge=True)
    wakeups.close()
    await store.close()
    wakeups, store, directory = await _fabric(path)
    try:
        for name in ("\u0430lice", "Reviewer"):
            with pytest.raises(AlreadyExists):
                await directory.register(name)
    finally:
        wakeups.close()
        await store.close()


async def test_migration_11_indexes_the_registered_mailboxes(pg_empty_url: str) -> None:
    conn = await asyncpg.connect(pg_empty_url)
    try:
        await schema.migrate(conn, LOOKS - 1)
        await conn.execute("INSERT INTO mailboxes (agent_id, session_name, registered) VALUES "
                           "('alice', 'reviewer', true), ('made-by-mail', '', false)")
        assert await schema.migrate(conn, LOOKS) == [LOOKS]
        looks = dict(await conn.fetch("SELECT agent_id, looks FROM mailboxes"))
        assert set(looks["alice"]) == lookalike.entry_keys("alice", "reviewer", True) and looks["made-by-mail"] == []
        found = await conn.fetch("SELECT agent_id FROM mailboxes WHERE registered AND looks && $1::text[]",
                                 sorted(lookalike.keys("revi\u0435wer")))
        assert [r["agent_id"] for r in found] == ["alice"]
    finally:
        await conn.close()


async def test_postgresql_looks_computed_with_other_confusables_data_are_computed_again(pg_url: str) -> None:
    conn = await asyncpg.connect(pg_url)
    try:
        await schema.refresh_looks(conn)
        await conn.execute("INSERT INTO mailboxes (agent_id, session_name, registered, looks) VALUES "
                           "('alice', 'reviewer', true, '{stale}')")
        assert not await schema.refresh_looks(conn)  # computed with this data: left alone
        await conn.execute("COMMENT ON COLUMN mailboxes.looks IS 'an older Unicode'")
        assert await schema.refresh_looks(conn)
        looks = await conn.fetchval("SELECT looks FROM mailboxes WHERE agent_id = 'alice'")
        assert set(looks) == lookalike.entry_keys("alice", "reviewer", True)
        assert not await schema.refresh_looks(conn)
    finally:
        await conn.close()


async def test_two_nodes_registering_look_alikes_at_once_admit_one(pg_url: str) -> None:
    """Node B registers 'аlice' while node A's registration of 'alice' is not committed yet: B waits for A's
    look-alike lock, then reads A's row and refuses (without the lock it read nothing and took the twin)."""
    store = PgStore(pg_url, LocalWakeups(), time.time_ns, pool_size=2)
    await store.start()
    node_a = await asyncpg.connect(pg_url)
    try:
        directory = Directory(store, Limits(), time.time_ns)
        async with node_a.transaction():  # node A's register of 'alice', as PgTx does it, before its commit
            for key in sorted(lookalike.keys("alice")):
                await node_a.execute("SELECT pg_advisory_xact_lock($1, hashtext($2))", locks.LOOKS, key)
            await node_a.execute("INSERT INTO mailboxes (agent_id, registered, looks) VALUES ('alice', true, $1)",
                                 sorted(lookalike.entry_keys("alice", "", True)))
            twin = asyncio.create_task(directory.register("\u0430lice"))
            while not twin.done() and not await node_a.fetchval(
                    "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"):
                await asyncio.sleep(0.01)  # polls for B to be waiting (or done): no outcome depends on the time
            assert not twin.done(), "the look-alike was registered while alice's registration was in flight"
        with pytest.raises(AlreadyExists) as err:
            await twin
        assert err.value.metadata["looks_like"] == "alice"
    finally:
        await node_a.close()
        await store.close()


NAMES = next(m.version for m in schema.MIGRATIONS if "look-alike keys of their names" in m.description)


@pytest.mark.parametrize("built", [None, keys.u64(1)], ids=["before the index", "with other confusables data"])
async def test_an_lmdb_store_without_the_name_index_gets_it_for_channels_and_agents_when_opened(tmp_path,
                                                                                                built) -> None:
    path = str(tmp_path / "data")
    wakeups, store, _ = await _fabric(path)
    agents = AgentDirectory(store, Limits(), lambda: 1)
    await Channels(store, Limits(), lambda: 1).create(Channel("general"), None)
    await agents.create_agent("planner", "", "", "")

    def forget_index(tx) -> None:  # as a store written by a fabricd without the name_looks database
        tx._txn.drop(tx._dbs.name_looks, delete=False)
        if built is None:
            tx._txn.delete(keys.NAME_LOOKS_BUILT, db=tx._dbs.meta)
        else:
            tx._txn.put(keys.NAME_LOOKS_BUILT, built, db=tx._dbs.meta)

    await store.engine.write(forget_index)  # type: ignore[attr-defined]
    wakeups.close()
    await store.close()
    wakeups, store, _ = await _fabric(path)
    try:
        with pytest.raises(AlreadyExists):
            await Channels(store, Limits(), lambda: 1).create(Channel("Gen\u0435ral"), None)
        with pytest.raises(AlreadyExists):
            await AgentDirectory(store, Limits(), lambda: 1).create_agent("PLANNER", "", "", "")
    finally:
        wakeups.close()
        await store.close()


async def test_migration_15_indexes_the_channels_and_directory_agents(pg_empty_url: str) -> None:
    conn = await asyncpg.connect(pg_empty_url)
    try:
        await schema.migrate(conn, NAMES - 1)
        await conn.execute("INSERT INTO channels (name, uid) VALUES ('general', 'u1')")
        await conn.execute("INSERT INTO ad_agents (agent_id, name, body) VALUES ('agent-1', 'planner', '')")
        assert await schema.migrate(conn, NAMES) == [NAMES]
        assert set(await conn.fetchval("SELECT looks FROM channels")) == lookalike.keys("general")
        assert set(await conn.fetchval("SELECT looks FROM ad_agents")) == lookalike.keys("planner")
        found = await conn.fetchval("SELECT name FROM channels WHERE looks && $1::text[]",
                                    sorted(lookalike.keys("g\u0435neral")))
        assert found == "general"
        await conn.execute("UPDATE channels SET looks = '{stale}'")
        await conn.execute("UPDATE ad_agents SET looks = '{stale}'")
        await conn.execute("COMMENT ON COLUMN mailboxes.looks IS 'an older Unicode'")
        assert await schema.refresh_looks(conn)  # other confusables data: every name's keys again
        assert set(await conn.fetchval("SELECT looks FROM channels")) == lookalike.keys("general")
        assert set(await conn.fetchval("SELECT looks FROM ad_agents")) == lookalike.keys("planner")
    finally:
        await conn.close()


async def test_two_nodes_creating_look_alike_directory_agents_at_once_admit_one(pg_url: str) -> None:
    """Node B creates agent 'PLANNER' while node A's 'planner' is not committed yet: B waits for A's look-alike
    lock, then reads A's row and refuses."""
    store = PgStore(pg_url, LocalWakeups(), time.time_ns, pool_size=2)
    await store.start()
    node_a = await asyncpg.connect(pg_url)
    try:
        agents = AgentDirectory(store, Limits(), time.time_ns)
        async with node_a.transaction():  # node A's create of 'planner', as PgTx does it, before its commit
            for key in sorted(lookalike.keys("planner")):
                await node_a.execute("SELECT pg_advisory_xact_lock($1, hashtext($2))", locks.LOOKS,
                                     f"agent-name:{key}")
            await pg_directory.put_agent(node_a, "a-1", "planner",
                                         wire.to_pb(Agent("a-1", "planner"), ad_pb.Agent).SerializeToString())
            twin = asyncio.create_task(agents.create_agent("PLANNER", "", "", ""))
            while not twin.done() and not await node_a.fetchval(
                    "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"):
                await asyncio.sleep(0.01)  # polls for B to be waiting (or done): no outcome depends on the time
            assert not twin.done(), "the look-alike was created while planner's creation was in flight"
        with pytest.raises(AlreadyExists) as err:
            await twin
        assert err.value.metadata["looks_like"] == "planner"
    finally:
        await node_a.close()
        await store.close()
