"""PgStore: the core's Store port on PostgreSQL, shared by any number of fabricd nodes.

It is the key-value store of the embedded backends (fabricd.core.kv.store.KvStore)
over PgEngine, so every operation runs the same transaction script, with the
same refusals (reasons and messages), as on LMDB and in memory, except the hot
paths (append, peek, unread, drain, ack, enqueue, reply, ticket reads, the outbox
claim), which run one statement or one short transaction each and decide with the
functions the scripts use (fabricd.core.mailbox_writes for appends, drains and put-backs,
fabricd.core.tickets for enqueues and replies, fabricd.core.outbox and wake_claims for the
outbox page, fabricd.core.wake for arming): nothing is handed over; single sends that
arrive while others are in flight go as one batch (coalesce.py). What differs:
- the node id comes from the database (sequence `node_ids`) when the store starts,
  so ids minted by nodes sharing the database never collide;
- there are no synchronous reads: `ticket_now` and `token_now` answer None, the
  guard reads tickets through the async port and reloads its token cache on the
  `tokens` wake-up (a revoke on one node reaches every node);
- housekeeping (forgetting old ids, pruning tickets) takes a transaction-scoped
  advisory lock: one node does a round, the others skip it.
"""

from __future__ import annotations

from collections.abc import Callable

from fabricd.core.kv.store import KvStore
from fabricd.core.model import PostgresInfo, Ticket
from fabricd.core.ports import Wakeups
from fabricd.core.tokens import Token
from fabricd.store.postgres.channels import PgChannels
from fabricd.store.postgres.coalesce import GroupedMailboxes
from fabricd.store.postgres.engine import PgEngine
from fabricd.store.postgres.hot_outbox import PgOutbox
from fabricd.store.postgres.hot_rendezvous import PgRendezvous


class PgStore(KvStore):
    """Implements fabricd.core.ports.Store on PostgreSQL (see the module docstring)."""

    engine: PgEngine

    def __init__(self, url: str, wakeups: Wakeups, clock: Callable[[], int], *, pool_size: int = 8,
                 migrate: bool = True, poll_interval: float = 0.0, failpoint: str = "") -> None:
        super().__init__(PgEngine(url, wakeups, pool_size=pool_size, migrate=migrate, poll_interval=poll_interval,
                                  failpoint=failpoint), wakeups, clock)
        self.backup_to = None  # a database has its own tools (pg_dump, base backups)
        # The hot paths as single statements or short transactions (hot.py), concurrent single sends as one
        # batch (coalesce.py); the rest runs the record scripts.
        self.mailboxes = GroupedMailboxes(self.engine, clock, self._mint_id)
        self.rendezvous = PgRendezvous(self.engine, clock, self._mint_id)
        self.outbox = PgOutbox(self.engine, clock, self._mint_id)
        self.channels = PgChannels(self.engine, clock, self._mint_id)

    async def start(self) -> None:
        await self.engine.start()
        self.use_node_id(self.engine.node_id)

    async def postgres_info(self) -> PostgresInfo:
        return await self.engine.info()

    def ticket_now(self, ticket_id: str) -> Ticket | None:
        return None

    def token_now(self, key: bytes) -> Token | None:
        return None
