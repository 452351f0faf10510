"""The LMDB ticket index (database ticket_index): every ticket under its target and under its asking agent.

Keys (see keys.py): b"t" H(target) u64 seq and b"s" H(source agent) u64 seq, each holding H(ticket_id),
so listing one agent's tickets newest first walks that agent's keys backwards and reads only its tickets.
A store written before the index gets it built once when opened (`build`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from fabricd.core.model import Ticket
from fabricd.store.lmdb import keys, records

if TYPE_CHECKING:
    from fabricd.store.lmdb.sealed import Txn


def add(txn: Txn, dbs: Any, ticket: Ticket) -> None:
    """Put a ticket under its target, and under its asking agent if an agent asked."""
    tkey = keys.ticket(ticket.ticket_id)
    txn.put(keys.by_target(ticket.target, ticket.seq), tkey, db=dbs.ticket_index)
    if ticket.source_agent:
        txn.put(keys.by_source(ticket.source_agent, ticket.seq), tkey, db=dbs.ticket_index)


def remove(txn: Txn, dbs: Any, ticket: Ticket) -> None:
    txn.delete(keys.by_target(ticket.target, ticket.seq), db=dbs.ticket_index)
    if ticket.source_agent:
        txn.delete(keys.by_source(ticket.source_agent, ticket.seq), db=dbs.ticket_index)


def newest_first(txn: Txn, dbs: Any, target: str, source_agent: str,
                 before_seq: int) -> Iterator[Ticket]:
    """The target's tickets (only those `source_agent` asked, when set) with seq below `before_seq` (0: all)."""
    prefix = keys.by_source(source_agent) if source_agent else keys.by_target(target)
    with txn.cursor(db=dbs.ticket_index) as cur:
        # Start just below `before_seq` (or past the prefix's last key) and walk back.
        start = prefix + keys.u64(before_seq) if before_seq else prefix + b"\xff" * 8
        found = cur.prev() if cur.set_range(start) else cur.last()
        while found:
            key, tkey = cur.item()
            if not key.startswith(prefix):
                return
            raw = txn.get(tkey, db=dbs.tickets) if tkey is not None else None  # None: a corrupt index value
            if raw is not None:
                ticket = records.decode_ticket(raw)
                if ticket.target == target:
                    yield ticket
            found = cur.prev()


def build(txn: Txn, dbs: Any) -> int:
    """Index every stored ticket once (a store written before ticket_index existed); the number indexed."""
    if txn.get(keys.TICKET_INDEX_BUILT, db=dbs.meta) is not None:
        return 0
    count = 0
    for raw in txn.cursor(db=dbs.tickets).iternext(keys=False, values=True):
        add(txn, dbs, records.decode_ticket(raw))
        count += 1
    txn.put(keys.TICKET_INDEX_BUILT, b"1", db=dbs.meta)
    return count
