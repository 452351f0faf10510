"""SQL pieces that keep the quota counters (fabricd.core.quota) inside the hot statements of statements.py and hot.py.

The record scripts move an agent's counters through PgTx (`usage/<quota>/<agent id>` rows of `counters`); the
one-statement hot paths move the very same rows in the same statement, so they add no round trip:
- `moved` writes fabricd.core.quota.MESSAGE_MOVES in SQL: each stored message's sender (its `sender` column) and
  stored size (the body's length) move the counters that table names, summed per counter;
- `charge` adds to counters (upserted in name order, a fixed lock order), `credit` takes off (never below zero).
"""

from __future__ import annotations

from fabricd.core import quota
from fabricd.store.usage import counter_name


def moved(rows: str) -> str:
    """A SELECT of (counter name, amount), one row a counter: fabricd.core.quota.MESSAGE_MOVES of the messages
    the SELECT `rows` gives as (sender, stored size), summed (a message without sender moves none)."""
    values = ", ".join(f"('{counter_name(m.quota, '')}' || r.s, {'r.b' if m.by_size else '1'}::bigint)"
                       for m in quota.MESSAGE_MOVES)
    return (f"SELECT v.n, sum(v.d)::bigint FROM ({rows}) AS r(s, b) CROSS JOIN LATERAL (VALUES {values}) AS v(n, d) "
            "WHERE r.s <> '' GROUP BY v.n")


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
