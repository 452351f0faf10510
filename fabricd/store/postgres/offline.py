"""Operators' tools on a PostgreSQL store without a daemon: issuing a token straight into the database.

The token is written by the same transaction script a daemon's IssueToken runs, and its commit sends the
`tokens` wake-up every node listens to, so each node serving the database reloads its token cache and accepts
the token at once (as a revoke reaches every node). The schema is migrated first when behind, as `serve` does.
"""

from __future__ import annotations

import time

from fabricd.core.limits import Limits
from fabricd.core.notify import LocalWakeups
from fabricd.core.tokens import Token, mint
from fabricd.store.postgres.store import PgStore


async def issue_token(url: str, scope: str, agent_id: str, label: str,
                      session_names: tuple[str, ...] = ()) -> tuple[Token, str]:
    """Store a new token in the database at `url`; returns it and its secret (shown once)."""
    key, token, secret = mint(scope, agent_id, label, Limits(), time.time_ns(), session_names)
    store = PgStore(url, LocalWakeups(), time.time_ns, pool_size=1)
    await store.start()
    try:
        await store.tokens.add(key, token)
    finally:
        await store.close()
    return token, secret
