"""SqliteIndex: the full-text index of the channels' posts on LMDB, in SQLite FTS5 beside the store.

    <data folder>/search.sqlite3   (PRAGMA user_version = 2; a file of another version is indexed anew)
      posts(text, chan, channel, seq, sender, id, send_ns)   FTS5 (unicode61); `text` and `chan` indexed
      indexed(channel PRIMARY KEY, uid, first_seq, last_seq)   which part of each channel's log it holds

`chan` holds one token naming the post's channel (`c` and the name's UTF-8 in hex), so a search of one
channel is an index lookup, not a filter of every match. A channel's posts are added in seq order, so
their rowids follow their seqs: a search walks the matches newest first (ORDER BY rowid DESC) and stops
after one page, never ranking, sorting or highlighting the rest. Several channels are searched one by one
and their pages merged by (send_ns, channel, seq) (fabricd.core.model_channels.Hit.order), which is a
channel's seq order as long as its posts' times follow their seqs (one process stamps them, in order).

The channels' logs in LMDB are the truth; the index follows them. Before every search it catches up, in
one SQLite transaction per channel behind: the posts after `last_seq` are added, those below the
channel's first retained seq (retention, a purge) are deleted, a channel gone or made again (another uid)
or behind its index (a restored backup) is indexed anew. So a crash at any moment leaves at worst an index
behind its log, which the next search (or the daemon's housekeeping, whose first round runs at its start)
catches up; a missing file is rebuilt.
"""

from __future__ import annotations

import asyncio
import functools
import os
import sqlite3
import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from fabricd.core.channel_search import Term
from fabricd.core.kv.tx import RecordTx
from fabricd.core.model_channels import Hit, Post, SearchQuery

T = TypeVar("T")
FILE = "search.sqlite3"
BATCH = 512
VERSION = 2
_SCHEMA = f"""
CREATE VIRTUAL TABLE IF NOT EXISTS posts USING fts5(text, chan, channel UNINDEXED, seq UNINDEXED,
    sender UNINDEXED, id UNINDEXED, send_ns UNINDEXED, tokenize = 'unicode61');
CREATE TABLE IF NOT EXISTS indexed (channel TEXT PRIMARY KEY, uid TEXT NOT NULL, first_seq INTEGER NOT NULL,
    last_seq INTEGER NOT NULL);
PRAGMA user_version = {VERSION};
"""
_OLD = "DROP TABLE IF EXISTS posts; DROP TABLE IF EXISTS indexed;"
_SNIPPET = "snippet(posts, 0, '[', ']', '…', 24)"
Read = Callable[[Callable[[RecordTx], T]], Awaitable[T]]


def chan_token(channel: str) -> str:
    """The one token of a channel's name in the `chan` column: `c` and its UTF-8 in hex (one word for unicode61)."""
    return "c" + channel.encode("utf-8", "surrogatepass").hex()


def fts_query(terms: list[Term], channel: str | None = None) -> str:
    """The FTS5 query of parsed terms: words and phrases quoted, prefix*, NOT for -excluded; in the `text`
    column, and of one channel's posts when `channel` is given."""
    include: list[str] = []
    exclude: list[str] = []
    for t in terms:
        text = '"' + " ".join(t.words).replace('"', '""') + '"' + ("*" if t.prefix else "")
        (exclude if t.exclude else include).append(text)
    query = " AND ".join(include)
    for text in exclude:
        query += f" NOT {text}"
    if channel is None:
        return f"text : ({query})"
    return f'chan : "{chan_token(channel)}" AND text : ({query})'


class SqliteIndex:
    """Implements fabricd.core.kv.channel_port.SearchIndex for a data folder."""

    def __init__(self, folder: str) -> None:
        self.path = os.path.join(folder, FILE)
        self._db: sqlite3.Connection | None = None
        self._lock = threading.Lock()  # one thread at a time on the connection
        self._catching_up = asyncio.Lock()

    def _conn(self) -> sqlite3.Connection:
        if self._db is None:
            _create_like_the_store(self.path)
            db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = NORMAL")  # a lost tail is caught up from the log
            if db.execute("PRAGMA user_version").fetchone()[0] != VERSION:
                db.executescript(_OLD)  # an index of an older layout: indexed anew from the logs
            db.executescript(_SCHEMA)
            self._db = db
        return self._db

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    def _run(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        with self._lock:
            return fn(self._conn())

    async def catch_up(self, read: Read[Any]) -> int:
        """Bring the index level with the channels' logs; the posts added."""
        async with self._catching_up:
            logs = await read(lambda tx: [(c.name, c.uid, c.first_seq, c.last_seq) for _, c in tx.channels_from("")])
            if not logs and self._db is None and not os.path.exists(self.path):
                return 0  # a store without channels gets no index file
            known = await asyncio.to_thread(self._run, lambda db: {
                r[0]: (r[1], r[2], r[3]) for r in db.execute("SELECT channel, uid, first_seq, last_seq FROM indexed")})
            added = 0
            for name in set(known) - {n for n, *_ in logs}:
                await asyncio.to_thread(self._run, lambda db, n=name: _drop(db, n))
            for name, uid, first, last in logs:
                seen = known.get(name)
                if seen is not None and (seen[0] != uid or seen[2] > last):
                    await asyncio.to_thread(self._run, lambda db, n=name: _drop(db, n))
                    seen = None
                after = max(seen[2], first - 1) if seen is not None else first - 1
                if seen is None or seen[1] < first:
                    await asyncio.to_thread(self._run, lambda db, n=name, u=uid, f=first, a=after:
                                            _trim(db, n, u, f, a))
                while after < last:
                    posts: list[Post] = await read(functools.partial(_posts, name, after))
                    if not posts:
                        break
                    await asyncio.to_thread(self._run, lambda db, n=name, u=uid, p=posts: _add(db, n, u, p))
                    after = posts[-1].seq
                    added += len(posts)
            return added

    async def search(self, read: Read[Any], terms: list[Term], query: SearchQuery) -> list[Hit]:
        await self.catch_up(read)
        return await asyncio.to_thread(self._run, lambda db: _search(db, terms, query))


def _create_like_the_store(path: str) -> None:
    """Create the index file with the mode and group of the store's data.mdb (private, or the socket group's),
    before SQLite makes it with the process's umask; its -wal and -shm files take the same mode."""
    data = os.path.join(os.path.dirname(path), "data.mdb")
    if os.path.exists(path) or not os.path.exists(data):
        return
    st = os.stat(data)
    fd = os.open(path, os.O_CREAT | os.O_WRONLY | os.O_EXCL, st.st_mode & 0o777)
    try:
        os.fchmod(fd, st.st_mode & 0o777)
        if st.st_gid != os.getegid():
            os.fchown(fd, -1, st.st_gid)
    finally:
        os.close(fd)


def _posts(channel: str, after: int, tx: RecordTx) -> list[Post]:
    return tx.posts(channel, after, BATCH)


def _drop(db: sqlite3.Connection, channel: str) -> None:
    with db:
        db.execute("BEGIN")
        db.execute("DELETE FROM posts WHERE rowid IN (SELECT rowid FROM posts WHERE posts MATCH ?)",
                   (f'chan : "{chan_token(channel)}"',))
        db.execute("DELETE FROM indexed WHERE channel = ?", (channel,))


def _trim(db: sqlite3.Connection, channel: str, uid: str, first: int, after: int) -> None:
    """Retention dropped the posts below `first`: so does the index."""
    with db:
        db.execute("BEGIN")
        rows = db.execute("SELECT rowid, seq FROM posts WHERE posts MATCH ? ORDER BY rowid",
                          (f'chan : "{chan_token(channel)}"',))
        gone = []
        for rowid, seq in rows:  # the channel's oldest first (rowids follow seqs): read only those dropped
            if seq >= first:
                break
            gone.append((rowid,))
        rows.close()
        db.executemany("DELETE FROM posts WHERE rowid = ?", gone)
        db.execute("INSERT INTO indexed (channel, uid, first_seq, last_seq) VALUES (?, ?, ?, ?) ON CONFLICT (channel) "
                   "DO UPDATE SET uid = excluded.uid, first_seq = excluded.first_seq, last_seq = excluded.last_seq",
                   (channel, uid, first, after))


def _add(db: sqlite3.Connection, channel: str, uid: str, posts: list[Post]) -> None:
    with db:
        db.execute("BEGIN")
        chan = chan_token(channel)
        db.executemany("INSERT INTO posts (text, chan, channel, seq, sender, id, send_ns) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?)",
                       [(p.message.text, chan, channel, p.seq, p.message.sender.agent_id, p.message.id,
                         p.message.send_time_ns) for p in posts])
        db.execute("UPDATE indexed SET last_seq = ? WHERE channel = ? AND uid = ?", (posts[-1].seq, channel, uid))


def _search(db: sqlite3.Connection, terms: list[Term], q: SearchQuery) -> list[Hit]:
    """The first q.limit hits, newest first: one channel's straight from the index, several channels' merged."""
    names = q.channels if q.channels is not None else [r[0] for r in db.execute("SELECT channel FROM indexed")]
    if len(names) == 1:
        return [_hit(r) for r in _newest(db, terms, q, names[0], _SNIPPET)]
    rows = sorted((r for name in names for r in _newest(db, terms, q, name, "''")),
                  key=lambda r: (r[4], r[1], r[2]), reverse=True)[:q.limit]
    text = fts_query(terms)
    return [_hit(r[:5] + db.execute(f"SELECT {_SNIPPET} FROM posts WHERE posts MATCH ? AND rowid = ?",
                                    (text, r[0])).fetchone() + r[6:]) for r in rows]


def _newest(db: sqlite3.Connection, terms: list[Term], q: SearchQuery, channel: str, snippet: str) -> list[Any]:
    """One channel's first q.limit matches, newest first: the index walked backwards, stopped after a page."""
    where: list[str] = ["posts MATCH ?"]
    args: list[Any] = [fts_query(terms, channel)]
    if q.sender:
        where.append("sender = ?")
        args.append(q.sender)
    if q.after_ns:
        where.append("send_ns > ?")
        args.append(q.after_ns)
    if q.before_ns:
        where.append("send_ns < ?")
        args.append(q.before_ns)
    if q.below is not None:
        where.append("(send_ns, channel, seq) < (?, ?, ?)")
        args.extend(q.below)
    return db.execute(f"SELECT rowid, channel, seq, sender, send_ns, {snippet}, id FROM posts "
                      f"WHERE {' AND '.join(where)} ORDER BY rowid DESC LIMIT ?", (*args, q.limit)).fetchall()


def _hit(r: Any) -> Hit:
    return Hit(r[1], int(r[2]), r[3], int(r[4]), r[5], r[6])
