"""Errors of the PostgreSQL backend, and which driver errors mean "run it again".

    PostgresError           root (a StoreError: the daemon reports it like any store failure)
    ├── SchemaAhead         the database was migrated by a newer fabricd; nothing is written
    └── Unreachable         the database did not answer or the connection broke; retry later

A transaction that failed with a serialization failure or a deadlock was rolled
back by the server, so it is always safe to run again. A connection lost during
a transaction is safe to re-run only for operations that are idempotent by
construction (the statements say so: appends carry their
id, tickets their ticket id, receipts their key); retry.run re-runs those.
"""

from __future__ import annotations

import asyncpg

from fabricd.store.errors import StoreError


class PostgresError(StoreError):
    """Root of the PostgreSQL backend's errors."""

    def __init__(self, message: str, **metadata: object) -> None:
        super().__init__(message)
        self.metadata = metadata


class SchemaAhead(PostgresError):
    """The database holds a newer schema than this fabricd knows."""


class Unreachable(PostgresError):
    """The database is down, restarting or failing over."""


# The server rolled the transaction back; nothing happened.
ROLLED_BACK = (asyncpg.SerializationError, asyncpg.DeadlockDetectedError)
# The connection broke: before the commit nothing happened; during it, the outcome is unknown.
CONNECTION_LOST = (
    asyncpg.ConnectionDoesNotExistError,
    asyncpg.InterfaceError,
    asyncpg.InternalClientError,  # a FATAL from a terminated backend that arrived between two queries
    asyncpg.AdminShutdownError,
    asyncpg.CannotConnectNowError,
    ConnectionError,
    OSError,
)
