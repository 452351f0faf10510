"""The rendezvous tickets' part of a transaction (a mixin of LmdbTx): tickets, their FIFOs and indexes.

A queued ticket holds a slot in its target's FIFO (`queues`, by seq) and counts in the target's queue
length and its asker's QUEUED usage; a finished one is listed by finish time (`finished`) for pruning.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fabricd.core import quota
from fabricd.core.model import Ticket, TicketState
from fabricd.store.lmdb import keys, records, ticket_index
from fabricd.store.lmdb.tx_directory import rows_under


class TicketRecords:
    __slots__ = ()
    _txn: Any
    _dbs: Any

    def count_usage(self, agent_id: str, name: str, delta: int) -> None:
        raise NotImplementedError

    def get_ticket(self, ticket_id: str) -> Ticket | None:
        raw = self._txn.get(keys.ticket(ticket_id), db=self._dbs.tickets)
        return records.decode_ticket(raw) if raw is not None else None

    def put_ticket(self, ticket: Ticket) -> None:
        txn, dbs = self._txn, self._dbs
        tkey = keys.ticket(ticket.ticket_id)
        slot = keys.queue_slot(ticket.target, ticket.seq)
        # The queue slot records that the ticket was QUEUED (its asker then held one, quota.queued_holder).
        if ticket.state == TicketState.QUEUED:
            if txn.put(slot, tkey, db=dbs.queues, overwrite=False):
                self._count_queued(ticket.target, 1)
                self.count_usage(quota.queued_holder(ticket.state, ticket.source_agent), quota.QUEUED, 1)
        else:
            if txn.delete(slot, db=dbs.queues):
                self._count_queued(ticket.target, -1)
                self.count_usage(quota.queued_holder(TicketState.QUEUED, ticket.source_agent), quota.QUEUED, -1)
            txn.put(keys.finished(ticket.finish_ns, ticket.ticket_id), b"", db=dbs.finished)
        txn.put(tkey, records.encode_ticket(ticket), db=dbs.tickets)
        ticket_index.add(txn, dbs, ticket)

    def _count_queued(self, target: str, delta: int) -> None:
        """Move the queued-ticket counter of `target` (after its slot changed)."""
        key = keys.queue_length(target)
        raw = self._txn.get(key, db=self._dbs.meta)
        # A store written before the counter existed has none: count the FIFO once (it includes this change).
        value = keys.read_u64(raw) + delta if raw is not None else self._count_slots(target)
        self._txn.put(key, keys.u64(value), db=self._dbs.meta)

    def _count_slots(self, target: str) -> int:
        prefix, count = keys.entry(target), 0
        with self._txn.cursor(db=self._dbs.queues) as cur:
            if cur.set_range(prefix):
                for key in cur.iternext(keys=True, values=False):
                    if not key.startswith(prefix):
                        break
                    count += 1
        return count

    def queue_length(self, target: str) -> int:
        raw = self._txn.get(keys.queue_length(target), db=self._dbs.meta)
        return keys.read_u64(raw) if raw is not None else self._count_slots(target)

    def queue(self, target: str, limit: int) -> list[Ticket]:
        prefix = keys.entry(target)
        out: list[Ticket] = []
        with self._txn.cursor(db=self._dbs.queues) as cur:
            if cur.set_range(prefix):
                for key, tkey in cur:
                    if not key.startswith(prefix) or len(out) >= limit:
                        break
                    raw = self._txn.get(tkey, db=self._dbs.tickets)
                    if raw is not None:
                        out.append(records.decode_ticket(raw))
        return out

    def queue_from(self, target: str, after_seq: int) -> Iterator[tuple[int, Ticket]]:
        start = keys.u64(after_seq + 1) if after_seq else b""
        for key, tkey in rows_under(self._txn, self._dbs.queues, keys.entry(target), start):
            raw = self._txn.get(tkey, db=self._dbs.tickets)
            if raw is not None:
                yield keys.read_u64(key, keys.DIGEST), records.decode_ticket(raw)

    def finished_before(self, finish_ns: int, limit: int) -> list[str]:
        out: list[str] = []
        with self._txn.cursor(db=self._dbs.finished) as cur:
            for key in cur.iternext(keys=True, values=False):
                if keys.read_u64(key) >= finish_ns or len(out) >= limit:
                    break
                raw = self._txn.get(key[8:], db=self._dbs.tickets)
                if raw is not None:
                    out.append(records.decode_ticket(raw).ticket_id)
                else:
                    self._txn.delete(key, db=self._dbs.finished)
        return out

    def delete_ticket(self, ticket_id: str) -> None:
        ticket = self.get_ticket(ticket_id)
        if ticket is None:
            return
        txn, dbs = self._txn, self._dbs
        if txn.delete(keys.queue_slot(ticket.target, ticket.seq), db=dbs.queues):
            self._count_queued(ticket.target, -1)
            self.count_usage(quota.queued_holder(TicketState.QUEUED, ticket.source_agent), quota.QUEUED, -1)
        if ticket.finish_ns:
            txn.delete(keys.finished(ticket.finish_ns, ticket_id), db=dbs.finished)
        ticket_index.remove(txn, dbs, ticket)
        txn.delete(keys.ticket(ticket_id), db=dbs.tickets)

    def tickets_before(self, target: str, source_agent: str, before_seq: int) -> Iterator[Ticket]:
        return ticket_index.newest_first(self._txn, self._dbs, target, source_agent, before_seq)

    def queued_tickets(self) -> int:
        return int(self._txn.stat(self._dbs.queues)["entries"])
