"""Moving corrupt records aside: what the engine does when a read meets a bad checksum (fabricd.store.lmdb.sealed).

A read serves a corrupt record as missing and reports it (any thread). The
report is queued once per key, and a write of its own moves each reported
record into the `quarantine` database (under its database's name and key),
logs it once with its key and counts it. A message's mailbox stops counting it
as unread; a corrupt mailbox entry is rebuilt from the mailbox's messages.

In a write, a corrupt mailbox entry also fails the operation (UNAVAILABLE,
CORRUPT_RECORD, retryable): served as missing, the write would make a new
mailbox whose seqs restart under the old one's messages.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeAlias

from fabricd.core.errors import FabricError, Unavailable
from fabricd.core.model import MailboxEntry
from fabricd.store.lmdb import records
from fabricd.store.lmdb.sealed import SealedTxn, meta_records, quarantine_key, unseal

if TYPE_CHECKING:
    from fabricd.store.lmdb.tx import LmdbTx

log = logging.getLogger("fabricd.store")

Found: TypeAlias = tuple[str, bytes]
"""A corrupt record: its database's name, its key."""


class Quarantine:
    """The corrupt records an engine's reads reported, and the writes that move them aside."""

    def __init__(self, write: Callable[[Callable[[LmdbTx], list[Found]]], Awaitable[list[Found]]], dbs: Any) -> None:
        self._write = write
        self._dbs = dbs
        self._lock = threading.Lock()
        self._found: dict[Found, None] = {}
        self._task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.closed = False
        self.moved = 0
        """Records moved aside since the store opened."""

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    def found(self, name: str, key: bytes) -> None:
        """A read met a record whose checksum is wrong (any thread): have it moved aside."""
        with self._lock:
            if (name, key) in self._found:
                return
            self._found[(name, key)] = None
        if self._loop is not None and not self.closed:
            self._loop.call_soon_threadsafe(self._soon)

    def found_in_write(self, name: str, key: bytes) -> None:
        self.found(name, key)
        if name == "entries":
            raise Unavailable("a mailbox record of this operation is corrupt and is being moved aside and rebuilt "
                              "from its messages; retry in a moment", reason="CORRUPT_RECORD", database=name)

    def _soon(self) -> None:
        if self._task is None and not self.closed and self._loop is not None:  # scheduled on that loop by `found`
            self._task = self._loop.create_task(self._move_found())

    async def _move_found(self) -> None:
        try:
            while self._found and not self.closed:
                with self._lock:
                    found = list(self._found)

                def move_found(tx: LmdbTx, found: list[Found] = found) -> list[Found]:
                    return [f for f in found if move(tx._txn, self._dbs, *f)]

                moved = await self._write(move_found)
                self.moved += len(moved)
                for name, key in moved:
                    log.error("quarantined a corrupt record: database %s, key %s (moved to the quarantine "
                              "database; fabricd check lists it)", name, key.hex(),
                              extra={"database": name, "key": key.hex()})
                with self._lock:
                    for f in found:
                        self._found.pop(f, None)
        except FabricError as exc:
            log.warning("moving corrupt records aside failed (%s); the next read of one tries again", exc)
            with self._lock:
                self._found.clear()
        finally:
            self._task = None


def move(txn: SealedTxn, dbs: Any, name: str, key: bytes) -> bool:
    """Move a corrupt record aside (False when it is gone or sound by now, e.g. rewritten since it was found).

    A message's mailbox stops counting it as unread, so a drain's remaining count and the quotas stay true.
    A mailbox entry is rebuilt from what remains (see `_rebuild_entry`), so its mail keeps flowing.
    """
    db = getattr(dbs, name)
    raw = txn.raw.get(key, db=db)
    if raw is None or sound(name, raw):
        return False
    txn.raw.put(quarantine_key(name, key), raw, db=dbs.quarantine)
    txn.raw.delete(key, db=db)
    if name == "messages":
        entry_key = key[: len(key) - 8]  # H(agent_id) u64 seq
        body = txn.get(entry_key, db=dbs.entries)
        if body is not None:
            entry = records.decode_entry(body)
            entry.unread_count = max(0, entry.unread_count - 1)
            txn.put(entry_key, records.encode_entry(entry), db=dbs.entries)
    elif name == "entries":
        _rebuild_entry(txn, dbs, bytes(key))
    return True


def sound(name: str, raw: bytes) -> bool:
    """Whether a stored value passes its check: its checksum, or for a meta record (a wake hook, sealed in
    place) its checksum and its JSON."""
    if name == "meta":
        return records.decode_wake_hook(raw) is not None
    return unseal(raw) is not None


def scan_meta(txn: Any, meta: Any) -> Iterator[tuple[str, bytes]]:
    """("meta", key) of every corrupt meta record sealed in place (the wake hooks): a full read of them."""
    for key, raw in meta_records(txn, meta):
        if not sound("meta", raw):
            yield "meta", key


def _rebuild_entry(txn: SealedTxn, dbs: Any, entry_key: bytes) -> None:
    """A mailbox entry from its unread messages: its agent id, unread count and a last seq no lower than any
    seq its ids still name, so a new message never takes the seq of an old one (an ack of the old id would
    consume it). Registration (session name, capabilities) is lost until the agent registers again."""
    agent_id, count, last_seq = "", 0, 0
    with txn.cursor(db=dbs.messages) as cur:
        if cur.set_range(entry_key):
            for key, value in cur:
                if not key.startswith(entry_key):
                    break
                message = records.decode_message(value)
                agent_id = agent_id or message.recipient.agent_id
                count += 1
                last_seq = max(last_seq, message.seq or int.from_bytes(key[-8:], "big"))
    if not agent_id:
        return  # no mail: the mailbox is made again when the agent or its mail next arrives
    for _key, value in txn.cursor(db=dbs.ids):  # a one-off scan, on a rare repair
        record = records.decode_id(value)
        if record.recipient == agent_id:
            last_seq = max(last_seq, record.seq)
    txn.put(entry_key, records.encode_entry(MailboxEntry(agent_id=agent_id, unread_count=count, last_seq=last_seq)),
            db=dbs.entries)
