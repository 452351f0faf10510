"""The LMDB look-alike indexes: each agent's entry (fabricd.core.lookalike.is_agent) under the look-alike keys
of its id and session name (database looks, fabricd.core.lookalike.entry_keys), and each channel and each
agent directory agent under its name's (database name_looks, fabricd.core.lookalike.keys), so a new name's
look-alikes are found without reading every entry, channel or agent.

Keys (see keys.py): looks H(look-alike key) H(agent_id) -> b""; name_looks kind H(look-alike key) H(holder)
-> holder (a channel's name, an agent's id). LmdbTx keeps them in step with each record it writes or
deletes; a store written before an index, or indexed with other confusables data (a newer Unicode), gets it
built when opened (`build`, `build_names`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fabricd import wire
from fabricd.core import agentdir, lookalike
from fabricd.core.model import MailboxEntry
from fabricd.store.lmdb import keys, records, records_channels
from fabricd.v1 import agent_directory_service_pb2 as ad_pb

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


def move_name(txn: Txn, dbs: Any, kind: bytes, holder: str, before: frozenset[str], after: frozenset[str]) -> None:
    """Index the holder (a channel's name, an agent's id) of a name of `kind` under `after` instead of
    `before` (name_looks)."""
    for key in before - after:
        txn.delete(keys.name_look(kind, key, holder), db=dbs.name_looks)
    value = holder.encode("utf-8", "surrogatepass")
    for key in after - before:
        txn.put(keys.name_look(kind, key, holder), value, db=dbs.name_looks)


def holders(txn: Txn, dbs: Any, kind: bytes, looks: frozenset[str]) -> list[str]:
    """The holders of the names of `kind` indexed under any of `looks`."""
    if dbs.name_looks is None:  # a store from before the index, opened read-only: read every record
        return [holder for holder, name in _named(txn, dbs, kind) if not looks.isdisjoint(lookalike.keys(name))]
    found: list[str] = []
    with txn.cursor(db=dbs.name_looks) as cur:
        for key in sorted(looks):
            prefix = keys.name_look_prefix(kind, key)
            if not cur.set_range(prefix):
                continue
            for k, v in cur.iternext(keys=True, values=True):
                if not bytes(k).startswith(prefix):
                    break
                found.append(bytes(v).decode("utf-8", "surrogatepass"))
    return list(dict.fromkeys(found))


def _named(txn: Txn, dbs: Any, kind: bytes) -> list[tuple[str, str]]:
    """(holder, name) of every channel or agent (`kind`)."""
    if kind == keys.CHANNEL_LOOKS:
        if dbs.channels is None:
            return []
        return [(c.name, c.name) for c in (records_channels.decode_channel(bytes(raw)) for raw in
                                             txn.cursor(db=dbs.channels).iternext(keys=False, values=True))]
    agents = (wire.from_pb(ad_pb.Agent.FromString(bytes(raw)), agentdir.Agent)
              for raw in txn.cursor(db=dbs.ad_agents).iternext(keys=False, values=True))
    return [(a.agent_id, a.name) for a in agents]


def build_names(txn: Txn, dbs: Any) -> int:
    """Index every channel's and agent's name (a store written before name_looks existed, or indexed with other
    confusables data: meta NAME_LOOKS_BUILT holds lookalike.data_version()); the number indexed."""
    version = keys.u64(lookalike.data_version())
    if txn.get(keys.NAME_LOOKS_BUILT, db=dbs.meta) == version:
        return 0
    txn.drop(dbs.name_looks, delete=False)
    count = 0
    for kind in (keys.CHANNEL_LOOKS, keys.AGENT_NAME_LOOKS):
        for holder, name in _named(txn, dbs, kind):
            move_name(txn, dbs, kind, holder, frozenset(), lookalike.keys(name))
            count += 1
    txn.put(keys.NAME_LOOKS_BUILT, version, db=dbs.meta)
    return count
