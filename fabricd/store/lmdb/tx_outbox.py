"""The outbox's part of a transaction (a mixin of LmdbTx): rows keyed by (key, sender), and their due times.

A PENDING row has an entry in `due` (by next attempt time), which the deliverer scans; every row but a
wake row counts in its sender's OUTBOX_ROWS usage (fabricd.core.quota.outbox_holder).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fabricd.core import quota
from fabricd.core.model import OutboxRow, RowState
from fabricd.core.outbox import row_cursor
from fabricd.store.lmdb import keys, records
from fabricd.store.lmdb.tx_directory import rows_after, rows_under


class OutboxRecords:
    __slots__ = ()
    _txn: Any
    _dbs: Any

    def count_usage(self, agent_id: str, name: str, delta: int) -> None:
        raise NotImplementedError

    def get_outbox_row(self, agent_id: str, key: str) -> OutboxRow | None:
        raw = self._txn.get(keys.outbox_row(agent_id, key), db=self._dbs.outbox)
        return records.decode_row(raw) if raw is not None else None

    def put_outbox_row(self, row: OutboxRow) -> None:
        txn, dbs = self._txn, self._dbs
        agent_id = row.sender.agent_id
        before = self.get_outbox_row(agent_id, row.key)
        if before is not None and before.state == RowState.PENDING:
            txn.delete(keys.due(before.next_attempt_ns, agent_id, row.key), db=dbs.due)
        if row.state == RowState.PENDING:
            txn.put(keys.due(row.next_attempt_ns, agent_id, row.key), b"", db=dbs.due)
        txn.put(keys.outbox_row(agent_id, row.key), records.encode_row(row), db=dbs.outbox)
        self._count_row(before, -1)
        self._count_row(row, 1)

    def add_outbox_row(self, row: OutboxRow) -> bool:
        if self._txn.get(keys.outbox_row(row.sender.agent_id, row.key), db=self._dbs.outbox) is not None:
            return False
        self.put_outbox_row(row)
        return True

    def _count_row(self, row: OutboxRow | None, delta: int) -> None:
        if row is not None:
            self.count_usage(quota.outbox_holder(row.key, row.state, row.sender.agent_id), quota.OUTBOX_ROWS, delta)

    def outbox_rows_keyed(self, key: str) -> list[OutboxRow]:
        prefix = key.encode("utf-8", "surrogatepass") + b"\x00"
        return [records.decode_row(raw) for _, raw in rows_under(self._txn, self._dbs.outbox, prefix, b"")]

    def due_outbox_rows(self, now_ns: int, limit: int) -> list[OutboxRow]:
        out: list[OutboxRow] = []
        with self._txn.cursor(db=self._dbs.due) as cur:
            for key in cur.iternext(keys=True, values=False):
                if keys.read_u64(key) > now_ns or len(out) >= limit:
                    break
                raw = self._txn.get(key[8:], db=self._dbs.outbox)
                if raw is not None:
                    out.append(records.decode_row(raw))
        return out

    def next_outbox_due(self) -> int | None:
        with self._txn.cursor(db=self._dbs.due) as cur:
            return keys.read_u64(cur.key()) if cur.first() else None

    def outbox_rows(self, after_key: str, limit: int, state: RowState) -> list[OutboxRow]:
        out: list[OutboxRow] = []
        start = keys.outbox_after(after_key)
        with self._txn.cursor(db=self._dbs.outbox) as cur:
            if not cur.set_range(start):
                return out
            for key, raw in cur:
                if key == start and after_key:
                    continue
                row = records.decode_row(raw)
                if state == RowState.UNSPECIFIED or row.state == state:
                    out.append(row)
                    if len(out) >= limit:
                        break
        return out

    def outbox_from(self, after_key: str) -> Iterator[tuple[str, OutboxRow]]:
        for _, raw in rows_after(self._txn, self._dbs.outbox, keys.outbox_after(after_key)):
            row = records.decode_row(raw)
            yield row_cursor(row), row

    def delete_outbox_row(self, agent_id: str, key: str) -> None:
        before = self.get_outbox_row(agent_id, key)
        if before is None:
            return
        if before.state == RowState.PENDING:
            self._txn.delete(keys.due(before.next_attempt_ns, agent_id, key), db=self._dbs.due)
        self._txn.delete(keys.outbox_row(agent_id, key), db=self._dbs.outbox)
        self._count_row(before, -1)

    def outbox_counts(self) -> tuple[int, int]:
        """(pending rows, all rows including receipts)."""
        return self._txn.stat(self._dbs.due)["entries"], self._txn.stat(self._dbs.outbox)["entries"]
