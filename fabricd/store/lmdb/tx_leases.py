"""The leases' part of a transaction (a mixin of LmdbTx): one meta record per lease, live or ended, and two
indexes of the live ones.

    meta  b"lease/" H(lease_id)                lease JSON (fabricd.core.model_leases.encode: it holds the id)
    meta  b"lease-at/" H(anchor) H(lease_id)   b""  a live lease under each anchor of its resources
    meta  b"lease-of/" H(agent_id) H(lease_id) b""  a live lease under its agent
    meta  b"lease-rev/" u64 revision H(id)     b""  every record under its last change (for watchers)
    meta  b"lease-wait/" H(waiter_id)          waiter JSON (model_leases.encode_waiter): a waiting Acquire

A lease's resources and agent never change, so its anchor and agent slots follow from the record alone: a
live one has them, an ended one none. Its revision slot moves with each change (the stored record says where
it was).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from fabricd.core import model_leases
from fabricd.core.lease_patterns import ANYWHERE, anchor
from fabricd.core.model_leases import Lease, Waiter
from fabricd.store.lmdb import keys
from fabricd.store.lmdb.tx_directory import rows_under


def forget_waiters(txn: Any, dbs: Any) -> int:
    """Delete every waiter record (at open: the daemon holds the folder's lock, so each was a call of a process
    that is gone, and would stand in others' way until it expired); the number deleted."""
    found = [key for key, _ in rows_under(txn, dbs.meta, keys.LEASE_WAIT, b"")]
    for key in found:
        txn.delete(key, db=dbs.meta)
    return len(found)


class LeaseRecords:
    __slots__ = ()
    _txn: Any
    _dbs: Any

    def get_lease(self, lease_id: str) -> Lease | None:
        raw = self._txn.get(keys.lease(lease_id), db=self._dbs.meta)
        return model_leases.decode(bytes(raw)) if raw is not None else None

    def put_lease(self, lease: Lease) -> None:
        meta = self._dbs.meta
        before = self.get_lease(lease.lease_id)
        if before is not None and before.revision != lease.revision:
            self._txn.delete(keys.lease_rev(before.revision, lease.lease_id), db=meta)
        self._txn.put(keys.lease(lease.lease_id), model_leases.encode(lease), db=meta)
        self._txn.put(keys.lease_rev(lease.revision, lease.lease_id), b"", db=meta)
        slots = [keys.lease_at(a, lease.lease_id) for a in {anchor(r) for r in lease.resources}]
        slots.append(keys.lease_of(lease.agent_id, lease.lease_id))
        for slot in slots:
            if lease.live:
                self._txn.put(slot, b"", db=meta)
            else:
                self._txn.delete(slot, db=meta)

    def delete_lease(self, lease_id: str) -> None:
        found = self.get_lease(lease_id)
        if found is not None and found.live:
            self.put_lease(model_leases.ended_copy(found))  # its index slots go first
        if found is not None:
            self._txn.delete(keys.lease_rev(found.revision, lease_id), db=self._dbs.meta)
        self._txn.delete(keys.lease(lease_id), db=self._dbs.meta)

    def leases(self) -> list[Lease]:
        return [model_leases.decode(bytes(raw))
                for _, raw in rows_under(self._txn, self._dbs.meta, keys.LEASES, b"")]

    def _under(self, prefix: bytes) -> list[Lease]:
        out = []
        for slot, _ in rows_under(self._txn, self._dbs.meta, prefix, b""):
            raw = self._txn.get(keys.lease_from_slot(slot), db=self._dbs.meta)
            if raw is not None:
                out.append(model_leases.decode(bytes(raw)))
        return out

    def leases_near(self, anchors: Collection[str] | None) -> list[Lease]:
        if anchors is None:  # through the agent slots, which only live leases have: ended records are not read
            return self._under(keys.LEASE_OF)
        found: dict[str, Lease] = {}
        for a in {*anchors, ANYWHERE}:
            found.update((lease.lease_id, lease) for lease in self._under(keys.lease_at(a)))
        return list(found.values())

    def leases_of(self, agent_id: str) -> list[Lease]:
        return self._under(keys.lease_of(agent_id))

    def leases_since(self, revision: int, limit: int) -> list[Lease]:
        out = []
        for slot, _ in rows_under(self._txn, self._dbs.meta, keys.LEASE_REV, keys.U64.pack(revision + 1)):
            raw = self._txn.get(keys.lease_from_slot(slot), db=self._dbs.meta)
            if raw is not None:
                out.append(model_leases.decode(bytes(raw)))
            if len(out) >= limit:
                break
        return out

    def get_waiter(self, waiter_id: str) -> Waiter | None:
        raw = self._txn.get(keys.lease_waiter(waiter_id), db=self._dbs.meta)
        return model_leases.decode_waiter(bytes(raw)) if raw is not None else None

    def put_waiter(self, waiter: Waiter) -> None:
        self._txn.put(keys.lease_waiter(waiter.waiter_id), model_leases.encode_waiter(waiter), db=self._dbs.meta)

    def delete_waiter(self, waiter_id: str) -> None:
        self._txn.delete(keys.lease_waiter(waiter_id), db=self._dbs.meta)

    def waiters(self) -> list[Waiter]:
        found = [model_leases.decode_waiter(bytes(raw))
                 for _, raw in rows_under(self._txn, self._dbs.meta, keys.LEASE_WAIT, b"")]
        return sorted(found, key=lambda w: w.order)
