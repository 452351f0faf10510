"""The LMDB look-alike index (database looks): each agent's entry (fabricd.core.lookalike.is_agent) under the look-alike keys of its id and
session name (fabricd.core.lookalike.entry_keys), so a new name's look-alikes are found without reading every
entry.

Keys (see keys.py): H(look-alike key) H(agent_id), value b"". LmdbTx keeps it in step with each entry it writes
or deletes; a store written before the index, or indexed with other confusables data (a newer Unicode), gets
it built when opened (`build`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fabricd.core import lookalike
from fabricd.core.model import MailboxEntry
from fabricd.store.lmdb import keys, records

if TYPE_CHECKING:
    from fabricd.store.lmdb.sealed import Txn


def move(txn: Txn, dbs: Any, agent_id: str, before: frozenset[str], after: frozenset[str]) -> None:
    """Index `agent_id` under `after` instead of `before`."""
    for key in before - after:
        txn.delete(keys.look(key, agent_id), db=dbs.looks)
    for key in after - before:
        txn.put(keys.look(key, agent_id), b"", db=dbs.looks)


def add(txn: Txn, dbs: Any, entry: MailboxEntry) -> None:
    move(txn, dbs, entry.agent_id, frozenset(), lookalike.keys_of(entry))


def agent_keys(txn: Txn, dbs: Any, looks: frozenset[str]) -> list[bytes]:
    """The entry keys (H(agent_id)) indexed under any of `looks`."""
    found: list[bytes] = []
    if dbs.looks is None:  # a store from before the index opened without creating it (fabricd token issue)
        for raw in txn.cursor(db=dbs.entries).iternext(keys=False, values=True):
            entry = records.decode_entry(bytes(raw))
            if not looks.isdisjoint(lookalike.keys_of(entry)):
                found.append(keys.entry(entry.agent_id))
        return found
    with txn.cursor(db=dbs.looks) as cur:
        for key in sorted(looks):
            prefix = keys.look_prefix(key)
            if cur.set_range(prefix):
                for k in cur.iternext(keys=True, values=False):
                    key_bytes = bytes(k)
                    if not key_bytes.startswith(prefix):
                        break
                    found.append(key_bytes[len(prefix):])
    return list(dict.fromkeys(found))


def build(txn: Txn, dbs: Any) -> int:
    """Index every agent's entry (a store written before the index existed, or indexed with other
    confusables data: meta LOOKS_BUILT holds lookalike.data_version()); the number indexed."""
    version = keys.u64(lookalike.data_version())
    if txn.get(keys.LOOKS_BUILT, db=dbs.meta) == version:
        return 0
    txn.drop(dbs.looks, delete=False)
    count = 0
    for raw in txn.cursor(db=dbs.entries).iternext(keys=False, values=True):
        entry = records.decode_entry(bytes(raw))
        if lookalike.is_agent(entry):
            add(txn, dbs, entry)
            count += 1
    txn.put(keys.LOOKS_BUILT, version, db=dbs.meta)
    return count
