"""`fabricd copy` on LMDB: every record of a data folder from one read snapshot, and a load in one transaction.

The source is opened read-only in this process, as `fabricd backup` does: LMDB
serves readers of other processes beside the daemon's writer, and one read
transaction is one consistent snapshot whatever the daemon writes meanwhile
(it pins the pages it reads, so the file may grow a little during the copy).

Keys that hold a digest of a name (keys.py) cannot give the name back, so the
dump takes every name from its record: message ids from the id record (or the
unread message), repair keys from the request they admitted, request keys from
their record. Records written before fabricd kept those texts, whose text is
nowhere else, are counted as not copied.

Records are checksummed (schema 3, fabricd.store.lmdb.sealed): the dump reads
them unsealed (a record failing its checksum is counted as not copied, like the
records already in quarantine, which are never copied: they are what a check
found corrupt), and the load writes them sealed into a store of this fabricd's
schema. The quota usage counters (fabricd.core.quota) are derived from the
records, so they are not records: the load counts them again from the messages,
mailboxes and tickets it writes, as the daemon would have.
"""

from __future__ import annotations

import dataclasses
import heapq
import os
from collections import Counter
from collections.abc import AsyncGenerator, Iterator
from typing import Any

import lmdb

from fabricd import wire
from fabricd.core import agentdir, model_leases, quota
from fabricd.core.model import Ticket
from fabricd.store.errors import StoreError
from fabricd.store.lmdb import folder, keys, looks, records, recount, sealed
from fabricd.store.lmdb import records_channels as rec_channels
from fabricd.store.lmdb.engine import LmdbEngine
from fabricd.store.lmdb.schema import MAX_DBS, NAMES, check_schema, open_databases
from fabricd.store.lmdb.tx import Databases, LmdbTx
from fabricd.store.lmdb.tx_directory import rows_under
from fabricd.store.records import BATCH, Kind, Record
from fabricd.v1 import agent_directory_service_pb2 as ad_pb

INDEX = ()
"""A sub-database that only indexes records of other ones: the load rebuilds it."""

COVERS: dict[str, tuple[Kind, ...]] = {
    "meta": (Kind.COUNTER, Kind.DIRECTORY, Kind.WAKE_HOOK, Kind.LEASE),  # and per-target queued-ticket counts, rebuilt with the tickets
    "entries": (Kind.MAILBOX,),
    "names": INDEX,
    "revisions": (Kind.REMOVAL,),  # and the revision index of live entries, rebuilt with them
    "messages": (Kind.MESSAGE,),
    "ids": (Kind.MESSAGE_ID,),
    "by_id": INDEX,  # rebuilt with the ids
    "tickets": (Kind.TICKET,),
    "queues": INDEX,
    "finished": INDEX,
    "ticket_index": INDEX,  # rebuilt with the tickets
    "outbox": (Kind.OUTBOX,),
    "due": INDEX,
    "ad_history": (Kind.HISTORY,),
    "ad_agents": (Kind.AGENT,),
    "ad_names": INDEX,
    "ad_threads": (Kind.THREAD,),
    "ad_by_agent": (Kind.THREAD,),  # the threads' ordinals
    "ad_requests": (Kind.REQUEST,),
    "ad_lists": INDEX,
    "ad_repairs": (Kind.REPAIR, Kind.REQUEST_KEY),
    "tokens": (Kind.TOKEN,),
    "looks": INDEX,  # rebuilt with the entries
    "quarantine": (),  # deliberately not copied: records that failed their checksum (counted as not copied)
    "channels": (Kind.CHANNEL,),
    "chan_members": (Kind.CHANNEL_MEMBER,),
    "chan_log": (Kind.CHANNEL_POST,),
    "chan_ids": INDEX,  # rebuilt with the posts
}
"""What each sub-database of a store holds, as records of `fabricd copy` (tests check every one is here)."""

_SEQ = b"seq/"
_DERIVED = (b"queued/", b"usage/", keys.TICKET_INDEX_BUILT, keys.LEASE_AT, keys.LEASE_OF, keys.LEASE_REV,
            keys.LOOKS_BUILT, keys.LEASE_WAIT)
"""Meta records the load makes again: queued-ticket counts and quota usage (with the records they count),
the ticket index's built flag (with the tickets), the leases' indexes (with the leases) and the look-alike
index's built flag (with the entries); and the lease waiters, not copied at all: each is a call waiting on
the daemon that wrote it, and a copy has no calls."""
CORRUPT = "records that failed their checksum (see `fabricd check`)"
QUARANTINED = "records in quarantine (found corrupt earlier; never copied)"
OLD_IDS = "message ids of consumed messages written before fabricd kept their text (a resend is no longer a duplicate)"
OLD_KEYS = "request keys written before fabricd kept their text (a retry creates anew)"
LOST_REPAIRS = "repair keys whose request is gone"


def _decode(raw: bytes, cls: type) -> object:
    """An agent-directory record (DirectoryData, Agent, Thread: each stored as its fabricd.v1 message)."""
    return wire.from_pb(getattr(ad_pb, cls.__name__).FromString(raw), cls)


class LmdbSource:
    """Implements fabricd.store.records.Source on a data folder (the daemon may be serving it)."""

    def __init__(self, path: str) -> None:
        backup = os.path.isfile(path)  # a file `fabricd backup` or `fabric backup` wrote: no other process has it
        if not backup and not os.path.isfile(os.path.join(path, "data.mdb")):
            raise StoreError(f"{path} holds no fabricd store (no data.mdb); pass a data folder, a backup file or "
                             "a postgresql:// URL")
        if not backup:
            folder.check_owner(path)  # even a read-only open writes lock.mdb
        self.path = path
        self.skipped: Counter[str] = Counter()
        try:
            self._env = lmdb.open(path, map_size=0, max_dbs=MAX_DBS, readonly=True, create=False, max_readers=1024,
                                  subdir=not backup, lock=not backup)
        except lmdb.Error as exc:
            raise StoreError(f"{path} is not a fabricd store: {exc}" if backup else folder.explain(path, exc)) from exc

    async def close(self) -> None:
        self._env.close()

    async def records(self) -> AsyncGenerator[list[Record]]:
        with self._env.begin(buffers=False) as raw:
            dbs = open_databases(self._env, raw, create=False)
            txn: sealed.Txn = raw
            if check_schema(self.path, raw, dbs, create=False) >= 3:  # schema 2 wrote no checksums
                txn = sealed.SealedTxn(raw, dbs.sealed, self._corrupt)
                if dbs.quarantine is not None:
                    quarantined = raw.stat(dbs.quarantine)["entries"]
                    if quarantined:
                        self.skipped[QUARANTINED] += quarantined
            batch: list[Record] = []
            for record in self._all(txn, dbs):
                batch.append(record)
                if len(batch) >= BATCH:
                    yield batch
                    batch = []
            if batch:
                yield batch

    def _corrupt(self, name: str, key: bytes) -> None:
        self.skipped[CORRUPT] += 1

    def _all(self, txn: sealed.Txn, dbs: Databases) -> Iterator[Record]:
        def rows(name: str) -> Iterator[tuple[bytes, bytes]]:
            with txn.cursor(db=getattr(dbs, name)) as cur:
                yield from cur

        for key, raw in rows("meta"):
            if key == keys.REVISION:
                yield Kind.COUNTER, ("revision", keys.read_u64(raw))
            elif key.startswith(_SEQ):
                yield Kind.COUNTER, (key[len(_SEQ):].decode(), keys.read_u64(raw))
            elif key == keys.DIRECTORY_DATA:
                data = _decode(raw, agentdir.DirectoryData)
                if data != agentdir.DirectoryData():
                    yield Kind.DIRECTORY, data
            elif key.startswith(keys.WAKE_HOOKS):
                hook = records.decode_wake_hook(raw)
                if hook is None:
                    self.skipped[CORRUPT] += 1
                else:
                    yield Kind.WAKE_HOOK, hook
            elif key.startswith(keys.LEASES):
                yield Kind.LEASE, model_leases.decode(raw)
            elif key != keys.SCHEMA and not key.startswith(_DERIVED):
                raise StoreError(f"{self.path} holds a meta record this fabricd does not know ({key!r}); "
                                 "copy it with the fabricd that wrote it")
        for _, raw in rows("entries"):
            yield Kind.MAILBOX, records.decode_entry(raw)
        for key, raw in rows("revisions"):
            if raw.startswith(keys.TOMBSTONE):
                yield Kind.REMOVAL, (keys.read_u64(key), raw[len(keys.TOMBSTONE):].decode("utf-8", "surrogatepass"))
        for key, raw in rows("messages"):
            message = records.decode_message(raw)
            message.seq = keys.message_seq(key)
            yield Kind.MESSAGE, message
        for key, raw in rows("ids"):
            found = self._message_id(txn, dbs, key, raw)
            if found is None:
                self.skipped[OLD_IDS] += 1
            else:
                yield Kind.MESSAGE_ID, (*found, records.decode_id(raw))
        for _, raw in rows("tickets"):
            yield Kind.TICKET, records.decode_ticket(raw)
        for _, raw in rows("outbox"):
            yield Kind.OUTBOX, records.decode_row(raw)
        for _, raw in rows("ad_history"):
            yield Kind.HISTORY, _decode(raw, agentdir.DirectoryData)
        for _, raw in rows("ad_agents"):
            yield Kind.AGENT, _decode(raw, agentdir.Agent)
        ordinals = {key[-keys.DIGEST:]: keys.read_u64(key, keys.DIGEST) for key, _ in rows("ad_by_agent")}
        for key, raw in rows("ad_threads"):
            yield Kind.THREAD, (ordinals.get(key, 0), _decode(raw, agentdir.Thread))
        for _, raw in rows("ad_requests"):
            yield Kind.REQUEST, records.decode_request(raw)
        yield from self._repairs(txn, dbs, rows("ad_repairs"))
        for key, raw in rows("tokens"):
            yield Kind.TOKEN, (key, records.decode_token(raw))
        if dbs.channels is not None:  # a store from before channels has none
            yield from self._channels(txn, dbs, rows("channels"))

    @staticmethod
    def _channels(txn: sealed.Txn, dbs: Databases, rows: Iterator[tuple[bytes, bytes]]) -> Iterator[Record]:
        for _, raw in rows:
            channel = rec_channels.decode_channel(raw)
            yield Kind.CHANNEL, channel
            prefix = keys.h(channel.name)
            for _, member in rows_under(txn, dbs.chan_members, prefix, b""):
                yield Kind.CHANNEL_MEMBER, rec_channels.decode_member(channel.name, member)
            for key, post in rows_under(txn, dbs.chan_log, prefix, b""):
                yield Kind.CHANNEL_POST, rec_channels.decode_post(channel.name, keys.read_u64(key, keys.DIGEST), post)

    @staticmethod
    def _message_id(txn: sealed.Txn, dbs: Databases, key: bytes, raw: bytes) -> tuple[str, str, bool] | None:
        """(id, sender, minted) of an id record; None when its text is lost."""
        if key[:1] == b"\x01":
            return key[1:].decode(), records.id_texts(raw)[1] or "", True
        text, sender = records.id_texts(raw)
        if key[:1] == b"\x00":
            sender = ""
        if text is None or sender is None:  # an older record: an unread message still holds its id
            record = records.decode_id(raw)
            unread = txn.get(keys.message(keys.entry(record.recipient), record.seq), db=dbs.messages)
            if unread is not None:
                message = records.decode_message(unread)
                text, sender = message.id, message.sender.agent_id if sender is None else sender
        if text is None or sender is None or keys.chosen_id(sender, text) != key:
            return None
        return text, sender, False

    def _repairs(self, txn: sealed.Txn, dbs: Databases, rows: Iterator[tuple[bytes, bytes]]) -> Iterator[Record]:
        for key, raw in rows:
            if len(key) == keys.DIGEST:  # a repair: its key is in the request it admitted
                generation, request_id = keys.read_u64(raw), raw[8:].decode()
                found = txn.get(keys.h(request_id), db=dbs.ad_requests)
                repair = records.decode_request(found).repair if found is not None else None
                if repair is None or keys.h(repair.key) != key:
                    self.skipped[LOST_REPAIRS] += 1
                    continue
                yield Kind.REPAIR, (repair.key, generation, request_id)
            else:
                digest, created_id, where = records.decode_request_key(raw)
                if where is None:
                    self.skipped[OLD_KEYS] += 1
                    continue
                yield Kind.REQUEST_KEY, (*where, digest, created_id)


class LmdbTarget:
    """Implements fabricd.store.records.Target on a data folder no daemon serves, holding no fabric."""

    def __init__(self, path: str, *, map_size: int, group: str = "") -> None:
        self.path = path
        self._map_size = map_size
        self._group = group
        self._engine: LmdbEngine | None = None
        self._txn: lmdb.Transaction[bytes] | None = None
        self._tickets: list[Ticket] = []

    async def begin(self) -> None:
        pid = folder.holder(self.path)
        if pid is not None:
            raise StoreError(f"a fabricd (pid {pid or 'unknown'}) is serving {self.path}: copy into a folder no "
                             "daemon serves")
        if os.path.isfile(os.path.join(self.path, "data.mdb")):
            held = await _held(self.path)
            if held:
                raise StoreError(f"{self.path} already holds a fabric ({held}); copy into a new folder")
        elif os.path.isdir(self.path) and os.listdir(self.path):
            raise StoreError(f"{self.path} is not empty and holds no store; copy into a new folder")
        self._engine = LmdbEngine(self.path, map_size=self._map_size, group=self._group)
        self._txn = self._engine._env.begin(write=True)  # the writer thread is not running
        self._dbs = self._engine._dbs
        self._tx = LmdbTx(self._txn, self._dbs)
        self._sealed = sealed.SealedTxn(self._txn, self._dbs.sealed, None)  # every put below is sealed

    async def load(self, batch: list[Record]) -> None:
        try:
            for kind, value in batch:
                self._put(kind, value)
        except lmdb.MapFullError as exc:
            raise self._too_big() from exc

    def _put(self, kind: Kind, value: Any) -> None:  # one branch per kind, flat
        # `value`: the payload fabricd.store.records.Kind names for `kind` (a Record's payload is not typed per kind)
        txn, dbs, tx = self._sealed, self._dbs, self._tx
        if kind is Kind.COUNTER:
            name, n = value
            txn.put(keys.REVISION if name == "revision" else keys.sequence(name), keys.u64(n), db=dbs.meta)
        elif kind is Kind.MAILBOX:
            txn.put(keys.entry(value.agent_id), records.encode_entry(value), db=dbs.entries)
            tx.count_usage(*recount.mailbox_charge(value))
            if value.session_name:
                txn.put(keys.name(value.session_name, value.agent_id), b"", db=dbs.names)
            looks.add(txn, dbs, value)
            if value.revision:
                txn.put(keys.revision(value.revision), keys.entry(value.agent_id), db=dbs.revisions)
        elif kind is Kind.REMOVAL:
            revision, agent_id = value
            txn.put(keys.revision(revision), keys.TOMBSTONE + agent_id.encode("utf-8", "surrogatepass"),
                    db=dbs.revisions)
        elif kind is Kind.MESSAGE:
            encoded = records.encode_message(value)
            txn.put(keys.message(keys.entry(value.recipient.agent_id), value.seq), encoded, db=dbs.messages)
            for move in recount.message_charges(encoded):  # as LmdbTx.put_message
                tx.count_usage(*move)
        elif kind is Kind.MESSAGE_ID:
            message_id, sender, minted, r = value
            if minted:
                txn.put(keys.minted_id(message_id), records.encode_id(r.recipient, r.seq, r.send_time_ns, r.digest,
                                                                      sender=sender), db=dbs.ids)
            else:
                txn.put(keys.chosen_id(sender, message_id), records.encode_id(
                    r.recipient, r.seq, r.send_time_ns, r.digest, message_id, sender), db=dbs.ids)
                if txn.get(keys.message(keys.entry(r.recipient), r.seq), db=dbs.messages) is not None:
                    txn.put(keys.by_id(r.recipient, message_id, r.seq), b"", db=dbs.by_id)  # unread ones only
        elif kind is Kind.TICKET:
            self._tickets.append(value)  # numbered store-wide at the commit
        elif kind is Kind.OUTBOX:
            tx.put_outbox_row(value)
        elif kind is Kind.DIRECTORY:
            tx.put_directory_data(value, keep_history=0)
        elif kind is Kind.HISTORY:
            txn.put(keys.u64(value.sequence), wire.to_pb(value, ad_pb.DirectoryData).SerializeToString(),
                    db=dbs.ad_history)
        elif kind is Kind.AGENT:
            tx.put_agent(value)
        elif kind is Kind.THREAD:
            ordinal, thread = value
            txn.put(keys.agent_thread(thread.agent_id, ordinal, thread.thread_id), b"", db=dbs.ad_by_agent)
            txn.put(keys.h(thread.thread_id), wire.to_pb(thread, ad_pb.Thread).SerializeToString(), db=dbs.ad_threads)
        elif kind is Kind.REQUEST:
            tx.put_request(value)
        elif kind is Kind.REPAIR:
            tx.put_repair(*value)
        elif kind is Kind.REQUEST_KEY:
            tx.put_request_key(*value)
        elif kind is Kind.TOKEN:
            tx.put_token(*value)
        elif kind is Kind.WAKE_HOOK:
            tx.put_wake_hook(value)
        elif kind is Kind.CHANNEL:
            tx.put_channel(value)
            tx.count_usage(value.creator, quota.CHANNELS, 1)  # usage is derived: counted again, as the daemon does
        elif kind is Kind.CHANNEL_MEMBER:
            tx.put_member(value)
        elif kind is Kind.CHANNEL_POST:
            tx.put_post(value)
            tx.count_usage(value.message.sender.agent_id, quota.POSTS, 1)
        elif kind is Kind.LEASE:
            tx.put_lease(value)
        else:
            raise StoreError(f"cannot load a {kind.value} record into LMDB")

    def _too_big(self) -> StoreError:
        return StoreError(f"the fabric does not fit in {self.path}'s map size ({self._map_size} bytes); "
                          "pass a larger --map-size")

    async def commit(self) -> None:
        try:
            self._put_tickets()
            self._tx.flush()  # the usage counters the load recounted
        except lmdb.MapFullError as exc:
            raise self._too_big() from exc
        self._begun().commit()
        self._txn = None
        await self.abort()

    def _put_tickets(self) -> None:
        """Number the tickets store-wide, as LMDB keeps them (PostgreSQL numbers them per target).

        Each target's tickets keep their order; targets interleave by enqueue time. New tickets
        come after every copied one: the "ticket" counter is moved past them.
        """
        per_target: dict[str, list[Ticket]] = {}
        for t in sorted(self._tickets, key=lambda t: t.seq):
            per_target.setdefault(t.target, []).append(t)
        heads = [(queue[0].enqueue_ns, target, 0) for target, queue in per_target.items()]
        heapq.heapify(heads)
        counter = keys.sequence("ticket")
        txn = self._begun()
        raw = txn.get(counter, db=self._dbs.meta)
        seq = 0
        while heads:
            _, target, i = heapq.heappop(heads)
            seq += 1
            self._tx.put_ticket(dataclasses.replace(per_target[target][i], seq=seq))
            if i + 1 < len(per_target[target]):
                heapq.heappush(heads, (per_target[target][i + 1].enqueue_ns, target, i + 1))
        if seq > (keys.read_u64(raw) if raw is not None else 0):
            txn.put(counter, keys.u64(seq), db=self._dbs.meta)

    def _begun(self) -> lmdb.Transaction[bytes]:
        """The write transaction `begin` opened (a load or commit before it is the caller's bug)."""
        if self._txn is None:
            raise RuntimeError("LmdbTarget used before begin() or after commit() or abort()")
        return self._txn

    async def abort(self) -> None:
        if self._txn is not None:
            self._txn.abort()
            self._txn = None
        if self._engine is not None:
            await self._engine.close()
            self._engine = None


async def _held(path: str) -> str:
    """What the store in `path` holds, in words ("" when no fabric: a store a daemon created and left empty)."""
    source = LmdbSource(path)
    kinds: Counter[str] = Counter()
    async for batch in source.records():
        kinds.update(kind.value for kind, _ in batch)
    await source.close()
    return ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items()))


def sub_databases(path: str) -> list[str]:
    """The names of every sub-database in the store in `path` (for the tests that check COVERS)."""
    env = lmdb.open(path, map_size=0, max_dbs=MAX_DBS, readonly=True, create=False, max_readers=1024)
    try:
        with env.begin() as txn, txn.cursor() as cur:
            return sorted(bytes(key).decode() for key in cur.iternext(keys=True, values=False))
    finally:
        env.close()


assert set(COVERS) == set(NAMES), "every LMDB sub-database must say what `fabricd copy` carries of it"
