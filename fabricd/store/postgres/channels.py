"""PgChannels: the channels' port on PostgreSQL. Publish is one short transaction (hot_channels.py); the other
writes run the record scripts (fabricd.core.kv.channels, on PgTx); SearchMessages is PostgreSQL's own full-text search over `channel_posts.search` (a tsvector generated
from the text, GIN-indexed), so it never scans the log and retention's deletes leave the index in step."""

from __future__ import annotations

from typing import Any

from fabricd.core import channel_search
from fabricd.core.channel_search import Term
from fabricd.core.kv.channel_port import KvChannels
from fabricd.core.model import Message
from fabricd.core.model_channels import Hit, Published, SearchQuery
from fabricd.core.quota import Quotas
from fabricd.store.postgres import hot_channels
from fabricd.store.postgres.engine import PgEngine

_SEARCH = """
SELECT channel, seq, sender, id, send_ns,
       ts_headline('simple', text, q, 'StartSel=[, StopSel=], MaxWords=24, MinWords=8, MaxFragments=1') AS snippet
FROM channel_posts, to_tsquery('simple', $1) AS q
WHERE search @@ q AND ($2::text[] IS NULL OR channel = ANY($2::text[])) AND ($3 = '' OR sender = $3)
  AND ($4::bigint = 0 OR send_ns > $4) AND ($5::bigint = 0 OR send_ns < $5)
ORDER BY ts_rank(search, q) DESC, send_ns DESC
LIMIT $6 OFFSET $7
"""


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
        terms = channel_search.parse(query.query)
        names = list(query.channels) if query.channels is not None else None

        async def run(conn: Any, _: object) -> list[Any]:
            return list(await conn.fetch(_SEARCH, ts_query(terms), names, query.sender, query.after_ns,
                                         query.before_ns, query.limit, query.offset))

        rows = await self._e.op(run, rerun_safe=True)
        return [Hit(r["channel"], r["seq"], r["sender"], r["send_ns"], r["snippet"], r["id"]) for r in rows]
