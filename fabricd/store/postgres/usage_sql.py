"""SQL pieces that keep the quota counters (fabricd.core.quota) inside the hot statements of statements.py and hot.py.

The record scripts move an agent's counters through PgTx (`usage/<quota>/<agent id>` rows of `counters`): a
stored message charges its body's length to its sender's unread bytes, consuming it credits them back, a queued
ticket counts against its asker. The one-statement hot paths keep the very same rows in the same statement,
so they add no round trip:
- `freed` reads each stored body's sender agent id in SQL (as fabricd.store.usage.sender_of does in Python):
  field 1 (the id) comes first, then field 2 (the sender Address) whose field 1 is the agent id. Lengths are
  varints of one or two bytes (ids and addresses are far below 16 KiB);
- each stored message also counts one against its sender's unread messages, and consuming it gives it back;
- `charge` adds to counters (upserted in name order, a fixed lock order), `credit` takes off (never below zero).
"""

from __future__ import annotations

from fabricd.core import quota
from fabricd.store.usage import counter_name


def _vlen(b: str, i: str) -> str:
    return f"(CASE WHEN get_byte({b}, {i}) < 128 THEN 1 ELSE 2 END)"


def _v(b: str, i: str) -> str:
    return (f"(CASE WHEN get_byte({b}, {i}) < 128 THEN get_byte({b}, {i}) "
            f"ELSE (get_byte({b}, {i}) & 127) + (get_byte({b}, {i} + 1) << 7) END)")


def freed(taken: str) -> str:
    """A SELECT of (counter name, amount), two per sender (its bytes and its message count): what consuming
    the stored bodies of CTE `taken` credits."""
    b = "t.body"
    return f"""SELECT v.n, v.d FROM (SELECT x.s, sum(x.n)::bigint AS b, count(*)::bigint AS k FROM (
        SELECT CASE WHEN q.a < 0 OR q.a >= octet_length({b}) THEN ''
                    WHEN get_byte({b}, q.a) <> 10 THEN ''
                    ELSE convert_from(substring({b} from q.a + 2 + {_vlen(b, "q.a + 1")}
                                                for {_v(b, "q.a + 1")}), 'UTF8') END AS s,
               octet_length({b}) AS n
        FROM {taken} t
        CROSS JOIN LATERAL (SELECT CASE WHEN octet_length({b}) < 3 THEN 0 WHEN get_byte({b}, 0) <> 10 THEN 0
                                        ELSE 1 + {_vlen(b, "1")} + {_v(b, "1")} END AS p) o
        CROSS JOIN LATERAL (SELECT CASE WHEN o.p + 2 >= octet_length({b}) THEN -1
                                        WHEN get_byte({b}, o.p) <> 18 THEN -1
                                        ELSE o.p + 1 + {_vlen(b, "o.p + 1")} END AS a) q
    ) AS x WHERE x.s <> '' GROUP BY x.s) AS g
    CROSS JOIN LATERAL (VALUES ('{UNREAD}' || g.s, g.b), ('{MESSAGES_UNREAD}' || g.s, g.k)) AS v(n, d)"""


UNREAD = counter_name(quota.UNREAD_BYTES, "")
MESSAGES_UNREAD = counter_name(quota.UNREAD_MESSAGES, "")
QUEUED = counter_name(quota.QUEUED, "")
MAILBOXES = counter_name(quota.MAILBOXES, "")
OUTBOX_ROWS = counter_name(quota.OUTBOX_ROWS, "")
"""Counter name prefixes: the agent id follows."""


def charge(rows: str) -> str:
    """A data-modifying CTE body: add each positive (name, delta) of the SELECT `rows` (one row a name)."""
    return f"""INSERT INTO counters (name, value)
        SELECT n, d FROM ({rows}) AS mv(n, d) WHERE n IS NOT NULL AND d > 0 ORDER BY n
        ON CONFLICT (name) DO UPDATE SET value = counters.value + EXCLUDED.value"""


def credit(rows: str) -> str:
    """A data-modifying CTE body: take each (name, amount) of the SELECT `rows` (one row a name) off its
    counter, never below zero (a counter never charged stays absent, as PgTx.count_usage leaves it at 0)."""
    return f"""UPDATE counters c SET value = greatest(0, c.value - mv.d)
        FROM ({rows}) AS mv(n, d) WHERE c.name = mv.n AND mv.d > 0"""
