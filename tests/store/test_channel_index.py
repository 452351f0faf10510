"""LMDB's channel search index (SQLite FTS5 beside the store) follows the logs: across restarts, retention,
a purge, a channel made again, and a lost or stale index file."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from fabricd.core.channel_service import Channels
from fabricd.core.limits import Limits
from fabricd.core.model import Address, Message
from fabricd.core.model_channels import Channel, Retention
from fabricd.core.notify import LocalWakeups
from fabricd.store import open_store
from fabricd.store.lmdb.channel_index import FILE, VERSION

NOW = 1_700_000_000 * 10**9


async def opened(folder: Path) -> tuple[object, Channels]:
    store = open_store(str(folder), wakeups=LocalWakeups(), clock=lambda: NOW, sync=False)
    await store.start()
    return store, Channels(store, Limits(), lambda: NOW)


def post(text: str) -> Message:
    return Message(sender=Address("ann"), text=text)


async def found(ch: Channels, query: str) -> list[tuple[str, int]]:
    return [(h.channel, h.seq) for h in (await ch.search(query, "", "", 0, 0, 0, "", None))[0]]


async def test_the_index_catches_up_with_posts_written_while_it_was_not_looking(tmp_path: Path) -> None:
    store, ch = await opened(tmp_path)
    await ch.create(Channel("team"), None)
    await ch.publish("team", post("alpha one"), None)
    assert await found(ch, "alpha") == [("team", 1)]
    await ch.publish("team", post("alpha two"), None)  # not indexed until the next search
    await store.close()  # type: ignore[attr-defined]
    store, ch = await opened(tmp_path)
    assert sorted(await found(ch, "alpha")) == [("team", 1), ("team", 2)]
    await store.close()  # type: ignore[attr-defined]


async def test_a_lost_index_is_rebuilt_from_the_log(tmp_path: Path) -> None:
    store, ch = await opened(tmp_path)
    await ch.create(Channel("team"), None)
    await ch.publish("team", post("beta"), None)
    assert await found(ch, "beta") == [("team", 1)]
    await store.close()  # type: ignore[attr-defined]
    for name in os.listdir(tmp_path):
        if name.startswith(FILE):
            os.remove(tmp_path / name)
    store, ch = await opened(tmp_path)
    assert await found(ch, "beta") == [("team", 1)]
    await store.close()  # type: ignore[attr-defined]


async def test_retention_a_purge_and_a_channel_made_again_leave_the_index(tmp_path: Path) -> None:
    store, ch = await opened(tmp_path)
    await ch.create(Channel("team", retention=Retention(max_messages=2)), None)
    for i in range(3):
        await ch.publish("team", post(f"gamma {i}"), None)
        await found(ch, "gamma")
    assert sorted(await found(ch, "gamma")) == [("team", 2), ("team", 3)]
    await ch.delete("team", True, None)
    assert await found(ch, "gamma") == []
    await ch.create(Channel("team"), None)
    await ch.publish("team", post("gamma again"), None)
    assert await found(ch, "gamma") == [("team", 1)]
    await store.close()  # type: ignore[attr-defined]
    db = sqlite3.connect(tmp_path / FILE)
    assert db.execute("SELECT count(*) FROM posts").fetchone() == (1,)
    db.close()


async def test_the_housekeepings_catch_up_indexes_the_logs_without_a_search(tmp_path: Path) -> None:
    store, ch = await opened(tmp_path)
    await ch.create(Channel("team"), None)
    for text in ("delta one", "delta two"):
        await ch.publish("team", post(text), None)
    assert await store.channels.catch_up() == 2  # type: ignore[attr-defined]
    assert await store.channels.catch_up() == 0  # type: ignore[attr-defined]  # level: nothing to add
    await store.close()  # type: ignore[attr-defined]
    db = sqlite3.connect(tmp_path / FILE)
    assert db.execute("SELECT count(*) FROM posts WHERE posts MATCH 'delta'").fetchone() == (2,)
    db.close()


async def test_the_index_file_is_made_only_for_channels_and_as_private_as_the_store(tmp_path: Path) -> None:
    store, ch = await opened(tmp_path)
    assert await store.channels.catch_up() == 0  # type: ignore[attr-defined]
    assert not os.path.exists(tmp_path / FILE)  # no channels: no file
    await ch.create(Channel("team"), None)
    await store.channels.catch_up()  # type: ignore[attr-defined]
    assert os.stat(tmp_path / FILE).st_mode & 0o777 == os.stat(tmp_path / "data.mdb").st_mode & 0o777
    await store.close()  # type: ignore[attr-defined]


async def test_an_index_of_the_older_layout_is_indexed_anew(tmp_path: Path) -> None:
    store, ch = await opened(tmp_path)
    await ch.create(Channel("team"), None)
    await ch.publish("team", post("delta one"), None)
    await store.close()  # type: ignore[attr-defined]
    db = sqlite3.connect(tmp_path / FILE)  # the first layout: no `chan` column, user_version 0
    db.executescript("""
        CREATE VIRTUAL TABLE posts USING fts5(text, channel UNINDEXED, seq UNINDEXED, sender UNINDEXED,
            id UNINDEXED, send_ns UNINDEXED, tokenize = 'unicode61');
        CREATE TABLE indexed (channel TEXT PRIMARY KEY, uid TEXT NOT NULL, first_seq INTEGER NOT NULL,
            last_seq INTEGER NOT NULL);
        INSERT INTO posts VALUES ('delta stale', 'team', 9, 'ann', 'x', 0);
        INSERT INTO indexed VALUES ('team', 'gone', 1, 9);""")
    db.close()
    store, ch = await opened(tmp_path)
    assert await found(ch, "delta") == [("team", 1)]
    await store.close()  # type: ignore[attr-defined]
    db = sqlite3.connect(tmp_path / FILE)
    assert db.execute("PRAGMA user_version").fetchone() == (VERSION,)
    db.close()


async def test_retention_trims_only_the_oldest_posts_of_its_channel(tmp_path: Path) -> None:
    store, ch = await opened(tmp_path)
    await ch.create(Channel("team", retention=Retention(max_messages=3)), None)
    await ch.create(Channel("ops"), None)
    for i in range(6):
        await ch.publish("ops", post(f"epsilon ops {i}"), None)
        await ch.publish("team", post(f"epsilon team {i}"), None)
        if i % 2:
            await found(ch, "epsilon")
    assert await found(ch, "epsilon team") == [("team", 6), ("team", 5), ("team", 4)]
    assert await found(ch, "epsilon ops") == [("ops", n) for n in range(6, 0, -1)]
    await store.close()  # type: ignore[attr-defined]
