"""The leases' part of PgTx (a mixin): one row per lease, its body the core's JSON.

A write reads leases locked (`FOR UPDATE`); grants are serialised before they read by the lease counter's row
(fabricd.core.kv.leases takes the counter first), so two nodes never both grant overlapping leases.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fabricd.core import model_leases
from fabricd.core.model_leases import Lease


class PgLeaseRecords:
    """Mixed into PgTx, which provides the queries and `_lock` (FOR UPDATE in a write)."""

    _fetch: Callable[..., list[Any]]
    _val: Callable[..., Any]
    _exec: Callable[..., str]
    _lock: str

    def get_lease(self, lease_id: str) -> Lease | None:
        body = self._val(f"SELECT body FROM leases WHERE lease_id = $1{self._lock}", lease_id)
        return model_leases.decode(body) if body is not None else None

    def put_lease(self, lease: Lease) -> None:
        self._exec("INSERT INTO leases (lease_id, body) VALUES ($1, $2) ON CONFLICT (lease_id) DO UPDATE "
                   "SET body = EXCLUDED.body", lease.lease_id, model_leases.encode(lease).decode())

    def delete_lease(self, lease_id: str) -> None:
        self._exec("DELETE FROM leases WHERE lease_id = $1", lease_id)

    def leases(self) -> list[Lease]:
        return [model_leases.decode(r["body"])
                for r in self._fetch(f"SELECT body FROM leases ORDER BY lease_id{self._lock}")]
