"""The leases' part of a transaction (a mixin of LmdbTx): one meta record per lease, live or ended.

    meta  b"lease/" H(lease_id)   lease JSON (fabricd.core.model_leases.encode: it holds the id)

No index: a grant judges every live lease against what it asks, so it reads them all (in key order).
"""

from __future__ import annotations

from typing import Any

from fabricd.core import model_leases
from fabricd.core.model_leases import Lease
from fabricd.store.lmdb import keys
from fabricd.store.lmdb.tx_directory import rows_under


class LeaseRecords:
    __slots__ = ()
    _txn: Any
    _dbs: Any

    def get_lease(self, lease_id: str) -> Lease | None:
        raw = self._txn.get(keys.lease(lease_id), db=self._dbs.meta)
        return model_leases.decode(raw) if raw is not None else None

    def put_lease(self, lease: Lease) -> None:
        self._txn.put(keys.lease(lease.lease_id), model_leases.encode(lease), db=self._dbs.meta)

    def delete_lease(self, lease_id: str) -> None:
        self._txn.delete(keys.lease(lease_id), db=self._dbs.meta)

    def leases(self) -> list[Lease]:
        return [model_leases.decode(raw) for _, raw in rows_under(self._txn, self._dbs.meta, keys.LEASES, b"")]
