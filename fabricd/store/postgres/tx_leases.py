"""The leases' part of PgTx (a mixin): one row per lease, its body the core's JSON.

A write reads leases locked (`FOR UPDATE`); grants are serialised before they read by the lease counter's row
(fabricd.core.kv.leases takes the counter first), so two nodes never both grant overlapping leases.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import TYPE_CHECKING, Any

from fabricd.core import model_leases
from fabricd.core.lease_patterns import ANYWHERE
from fabricd.core.model_leases import Lease, Waiter

if TYPE_CHECKING:
    from asyncpg import Record


class PgLeaseRecords:
    """Mixed into PgTx, which provides the queries and `_lock` (FOR UPDATE in a write)."""

    _fetch: Callable[..., list[Record]]
    _val: Callable[..., Any]
    _exec: Callable[..., str]
    _lock: str

    def get_lease(self, lease_id: str) -> Lease | None:
        body = self._val(f"SELECT body FROM leases WHERE lease_id = $1{self._lock}", lease_id)
        return model_leases.decode(body) if body is not None else None

    def put_lease(self, lease: Lease) -> None:
        self._exec(UPSERT, *row(lease))

    def delete_lease(self, lease_id: str) -> None:
        self._exec("DELETE FROM leases WHERE lease_id = $1", lease_id)

    def leases(self) -> list[Lease]:
        return [model_leases.decode(r["body"])
                for r in self._fetch(f"SELECT body FROM leases ORDER BY lease_id{self._lock}")]

    def leases_near(self, anchors: Collection[str] | None) -> list[Lease]:
        if anchors is None:
            rows = self._fetch(f"SELECT body FROM leases WHERE anchors <> '{{}}' ORDER BY lease_id{self._lock}")
        else:
            rows = self._fetch(f"SELECT body FROM leases WHERE anchors && $1::text[] ORDER BY lease_id{self._lock}",
                               sorted({*anchors, ANYWHERE}))
        return [model_leases.decode(r["body"]) for r in rows]

    def leases_of(self, agent_id: str) -> list[Lease]:
        rows = self._fetch(f"SELECT body FROM leases WHERE agent_id = $1 AND anchors <> '{{}}' ORDER BY lease_id"
                           f"{self._lock}", agent_id)
        return [model_leases.decode(r["body"]) for r in rows]

    def leases_since(self, revision: int, limit: int) -> list[Lease]:
        rows = self._fetch("SELECT body FROM leases WHERE revision > $1 ORDER BY revision, lease_id LIMIT $2",
                           revision, limit)
        return [model_leases.decode(r["body"]) for r in rows]

    def get_waiter(self, waiter_id: str) -> Waiter | None:
        body = self._val(f"SELECT body FROM lease_waiters WHERE waiter_id = $1{self._lock}", waiter_id)
        return model_leases.decode_waiter(body) if body is not None else None

    def put_waiter(self, waiter: Waiter) -> None:
        self._exec("INSERT INTO lease_waiters (waiter_id, ord, expire_ns, body) VALUES ($1, $2, $3, $4) "
                   "ON CONFLICT (waiter_id) DO UPDATE SET ord = EXCLUDED.ord, expire_ns = EXCLUDED.expire_ns, "
                   "body = EXCLUDED.body", waiter.waiter_id, waiter.order, waiter.expire_ns,
                   model_leases.encode_waiter(waiter).decode())

    def delete_waiter(self, waiter_id: str) -> None:
        self._exec("DELETE FROM lease_waiters WHERE waiter_id = $1", waiter_id)

    def waiters(self) -> list[Waiter]:
        return [model_leases.decode_waiter(r["body"])
                for r in self._fetch(f"SELECT body FROM lease_waiters ORDER BY ord{self._lock}")]


UPSERT = """INSERT INTO leases (lease_id, agent_id, anchors, revision, body) VALUES ($1, $2, $3, $4, $5)
ON CONFLICT (lease_id) DO UPDATE SET agent_id = EXCLUDED.agent_id, anchors = EXCLUDED.anchors,
    revision = EXCLUDED.revision, body = EXCLUDED.body"""
COLUMNS = ("lease_id", "agent_id", "anchors", "revision", "body")


def row(lease: Lease) -> tuple[str, str, list[str], int, str]:
    """A lease's row: `anchors` (its live index, empty once ended) is what leases_near searches, `revision`
    what leases_since does."""
    return (lease.lease_id, lease.agent_id, list(model_leases.anchors(lease)), lease.revision,
            model_leases.encode(lease).decode())
