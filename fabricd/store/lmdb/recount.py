"""Quota usage (fabricd.core.quota) counted from an LMDB store's records, as the daemon charges them.

The counters are derived: `fabricd copy` counts them while it loads records
(`charges` of each mailbox and message, put_ticket and put_outbox_row for the
rest), and an upgrade from a schema that kept none (2) counts them with
`recount` over the whole store in its transaction, so quotas hold from the
first write after it instead of starting at zero.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import lmdb

from fabricd.core import quota as quotas
from fabricd.core.model import MailboxEntry
from fabricd.store.lmdb import keys, records, sealed
from fabricd.store.lmdb.tx_directory import rows_under
from fabricd.store.usage import sender_of

_USAGE = b"usage/"


def mailbox_charge(entry: MailboxEntry) -> tuple[str, str, int]:
    """(agent, quota, amount) a mailbox entry charges: the agent whose mail created it, until registered."""
    return entry.metadata.get(quotas.CREATED_BY, ""), quotas.MAILBOXES, 1


def message_charges(encoded: bytes) -> list[tuple[str, str, int]]:
    """(agent, quota, amount) an unread message (its stored encoding) charges: fabricd.core.quota.MESSAGE_MOVES
    of its sender, as LmdbTx.put_message moves them."""
    return quotas.message_moves(sender_of(encoded), len(encoded), 1)


def recount(txn: lmdb.Transaction[bytes], dbs: Any) -> int:
    """Replace every usage counter of the store with one counted from its records; the counters written.

    `txn` is a raw write transaction over sealed values (schema 3 on); a value failing its checksum
    counts nothing (the daemon quarantines it when it reads it, and gives back nothing for it).
    """
    counted: Counter[bytes] = Counter()

    def charge(agent: str, quota: str, amount: int) -> None:
        if agent and amount:
            counted[keys.usage(quota, agent)] += amount

    for raw in _values(txn, dbs.entries):
        charge(*mailbox_charge(records.decode_entry(raw)))
    for raw in _values(txn, dbs.messages):
        for move in message_charges(raw):
            charge(*move)
    for raw in _values(txn, dbs.tickets):
        ticket = records.decode_ticket(raw)
        charge(quotas.queued_holder(ticket.state, ticket.source_agent), quotas.QUEUED, 1)
    for raw in _values(txn, dbs.outbox):
        row = records.decode_row(raw)
        charge(quotas.outbox_holder(row.key, row.state, row.sender.agent_id), quotas.OUTBOX_ROWS, 1)
    stale = [bytes(key) for key, _ in rows_under(txn, dbs.meta, _USAGE, b"")]
    for key in stale:
        txn.delete(key, db=dbs.meta)
    for key, value in counted.items():
        txn.put(key, keys.u64(value), db=dbs.meta)
    return len(counted)


def _values(txn: lmdb.Transaction[bytes], db: Any) -> Iterator[bytes]:
    with txn.cursor(db=db) as cur:
        for _, raw in cur:
            value = sealed.unseal(raw)
            if value is not None:
                yield value
