"""The connection type the statement functions of fabricd.store.postgres take.

A statement function runs on whatever connection its caller holds: a pooled one (`pool.acquire()` hands a
PoolConnectionProxy, which forwards every call to its Connection) or a bare one (a dump's, a migration's).
asyncpg's stubs do not make the proxy a Connection, so the functions name both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    from asyncpg import Connection, Record
    from asyncpg.pool import PoolConnectionProxy

Conn: TypeAlias = "Connection[Record] | PoolConnectionProxy[Record]"
