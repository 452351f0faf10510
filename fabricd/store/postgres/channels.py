"""PgChannels: the channels' port on PostgreSQL. Publish is one short transaction (hot_channels.py); the other
writes run the record scripts (fabricd.core.kv.channels, on PgTx); SearchMessages is PostgreSQL's own
full-text search over `channel_posts.search` (a tsvector generated from the text, GIN-indexed) and the index
channel_posts_newest on (channel, send_ns, seq) (migration 13), so it never scans the log, reads one page
of hits newest first, and retention's deletes leave the index in step."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fabricd.core import channel_search
from fabricd.core.channel_search import Term
from fabricd.core.kv.channel_port import KvChannels
from fabricd.core.model import Message
from fabricd.core.model_channels import Hit, Published, SearchQuery
from fabricd.core.quota import Quotas
from fabricd.store.postgres import hot_channels
from fabricd.store.postgres.engine import PgEngine

if TYPE_CHECKING:
    from fabricd.store.postgres.conn import Conn

_HEADLINE = "ts_headline('simple', text, q, 'StartSel=[, StopSel=], MaxWords=24, MinWords=8, MaxFragments=1')"
_BELOW = """(send_ns, seq) < ($4::bigint, CASE WHEN c.name COLLATE "C" < $5 THEN 9223372036854775807
                                           WHEN c.name COLLATE "C" > $5 THEN 0 ELSE $6::bigint END)"""
_WALK = f"""
SELECT w.channel, w.seq, w.sender, w.id, w.send_ns, {_HEADLINE} AS snippet
FROM to_tsquery('simple', {{query}}) AS q, unnest(coalesce($1::text[], ARRAY(SELECT name FROM channels))) AS c(name),
LATERAL (
    SELECT * FROM (
        SELECT channel, seq, sender, id, send_ns, text, search FROM channel_posts
        WHERE channel = c.name AND ($3::bigint = 0 OR send_ns > $3) AND {_BELOW}
        ORDER BY send_ns DESC, seq DESC LIMIT $8) x
    WHERE search @@ q AND ($2 = '' OR sender = $2)
    LIMIT $7) w
"""
"""Phase one of a search: in each channel, walk the newest $8 (WALK) posts below the page's bound backwards
(channel_posts_newest) and stop at $7 hits. Words most posts hold end here after a few dozen posts."""
_GIN = f"""
SELECT w.channel, w.seq, w.sender, w.id, w.send_ns, {_HEADLINE} AS snippet
FROM to_tsquery('simple', {{query}}) AS q, unnest($1::text[]) AS c(name), LATERAL (
    SELECT send_ns AS ns, seq AS sq FROM channel_posts
    WHERE channel = c.name AND ($3::bigint = 0 OR send_ns > $3) AND {_BELOW}
    ORDER BY send_ns DESC, seq DESC OFFSET $8 - 1 LIMIT 1) f,
LATERAL (
    SELECT * FROM (
        SELECT channel, seq, sender, id, send_ns, text FROM channel_posts
        WHERE channel = c.name AND search @@ q AND ($2 = '' OR sender = $2) AND ($3::bigint = 0 OR send_ns > $3)
          AND (send_ns, seq) < (f.ns, f.sq)
        OFFSET 0) m
    ORDER BY send_ns DESC, seq DESC LIMIT $7) w
"""
"""Phase two, for the channels whose walk found fewer than $7 hits: their matches older than the walk's last
post, from the GIN index (the OFFSET 0 fence keeps PostgreSQL from walking again), newest $7 of them."""
WALK = 2048
MAX_BIGINT = (1 << 63) - 1


def bound(q: SearchQuery) -> tuple[int, str, int]:
    """The place hits are below: the page's last hit, or before_ns (a post at before_ns is not before it)."""
    below = q.below if q.below is not None else (MAX_BIGINT, "", 0)
    return min(below, (q.before_ns, "", 0)) if q.before_ns else below


def literal(text: str) -> str:
    """A SQL string literal (standard_conforming_strings, on since PostgreSQL 9.1)."""
    return "'" + text.replace("'", "''") + "'"


def ts_query(terms: list[Term]) -> str:
    """The tsquery of parsed terms: a word 'w', a prefix 'w':*, a phrase 'a' <-> 'b', an excluded one !(...)."""
    parts = []
    for t in terms:
        words = [f"'{w}'" for w in t.words]
        if t.prefix:
            words[-1] += ":*"
        text = " <-> ".join(words)
        parts.append(f"!({text})" if t.exclude else f"({text})")
    return " & ".join(parts)


class PgChannels(KvChannels):
    __slots__ = ()
    _e: PgEngine

    async def publish(self, name: str, msg: Message, digest: bytes, caller: str | None, max_unread: int,
                      quota: Quotas | None) -> Published:
        return await hot_channels.publish(self._e, self._clock, self._mint, name, msg, digest, caller, max_unread,
                                          quota)

    async def search(self, query: SearchQuery) -> list[Hit]:
        """One page of hits, newest first (fabricd.core.model_channels.Hit.order), each channel's from its
        newest posts (_WALK) and, where those hold too few, from the GIN index (_GIN); only the page is
        highlighted. The tsquery is written into the statements (a literal of `ts_query`'s quoted words), not
        passed as a parameter, so PostgreSQL plans for these words, never for words of unknown frequency."""
        terms = channel_search.parse(query.query)
        names = list(query.channels) if query.channels is not None else None
        q = literal(ts_query(terms))
        args = (query.sender, query.after_ns, *bound(query), query.limit, WALK)

        async def run(conn: Conn, _: object) -> list[Any]:
            rows = list(await conn.fetch(_WALK.format(query=q), names, *args))
            found: dict[str, int] = {}
            for r in rows:
                found[r["channel"]] = found.get(r["channel"], 0) + 1
            searched = names if names is not None else [r["name"] for r in await conn.fetch(
                "SELECT name FROM channels")]
            short = [n for n in searched if found.get(n, 0) < query.limit]
            if short:
                rows += await conn.fetch(_GIN.format(query=q), short, *args)
            return rows

        rows = await self._e.op(run, rerun_safe=True)
        hits = [Hit(r["channel"], r["seq"], r["sender"], r["send_ns"], r["snippet"], r["id"]) for r in rows]
        return sorted(hits, key=lambda h: h.order, reverse=True)[:query.limit]
