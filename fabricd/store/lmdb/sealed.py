"""Record checksums: every value of the store's record databases ends with a CRC-32 of the rest (schema 3).

`SealedTxn` wraps an lmdb.Transaction: a put seals the value (appends the
checksum), a get, a pop and a cursor unseal it (check and strip it). A value
whose checksum does not match is never handed out: the read reports it
(`on_corrupt(database name, key)`) and serves the record as missing, so one
flipped byte costs one record, not a mailbox or a stream. The engine then
moves the record aside (fabricd.store.lmdb.quarantine): into the `quarantine` database, under
the database's name and the key, and a message's mailbox no longer counts it
as unread. `fabricd check` verifies every value of a store offline.

Only `meta` (the schema version and counters, small fixed records) is not
sealed, except its wake hooks (`wake/...`, JSON of any length an agent sets):
each is sealed in place behind a version byte (`seal_meta`), so a hook stored
before, which is JSON and starts with `{`, still reads (and is sealed at the
next start, `seal_old_meta`) without a schema change. zlib's CRC-32 runs at several GB/s (see scripts/bench-checksums) and
catches every flipped byte and every burst up to 32 bits; it is a guard
against the disk and the filesystem, not against someone who can write the file.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterator
from typing import Any, TypeAlias

import lmdb

UNSEALED = ("meta", "quarantine")
"""Databases whose values carry no checksum."""
_TAIL = 4

OnCorrupt = Callable[[str, bytes], None]


def seal(value: bytes) -> bytes:
    return value + zlib.crc32(value).to_bytes(_TAIL, "big")


def unseal(raw: bytes) -> bytes | None:
    """The value without its checksum; None when the checksum does not match (or there is none)."""
    if len(raw) < _TAIL:
        return None
    body = raw[:-_TAIL]
    return body if zlib.crc32(body).to_bytes(_TAIL, "big") == raw[-_TAIL:] else None


SEALED_META = (b"wake/",)
"""Prefixes of the meta records sealed in place (fabricd.store.lmdb.keys.WAKE_HOOKS)."""
_META_VERSION = b"\x01"
_OLD_META = b"{"


def seal_meta(value: bytes) -> bytes:
    """A meta record sealed in place: a version byte, the value, its checksum."""
    return _META_VERSION + seal(value)


def unseal_meta(raw: bytes) -> bytes | None:
    """A meta record's value: checked and stripped when sealed, as it is when stored before sealing (its JSON
    starts with `{`); None when corrupt. A flipped version byte is caught too: read as old JSON, it no longer
    parses (the caller reports it)."""
    if raw[:1] == _OLD_META:
        return bytes(raw)
    return unseal(raw[1:]) if raw[:1] == _META_VERSION else None


def meta_records(txn: lmdb.Transaction[bytes], meta: Any) -> list[tuple[bytes, bytes]]:
    """(key, stored value) of every meta record sealed in place (a few: one wake hook per agent that set one)."""
    out = []
    for prefix in SEALED_META:
        with txn.cursor(db=meta) as cur:
            found = cur.set_range(prefix)
            while found and cur.key().startswith(prefix):
                out.append((bytes(cur.key()), bytes(cur.value())))
                found = cur.next()
    return out


def seal_old_meta(txn: lmdb.Transaction[bytes], meta: Any) -> int:
    """Seal the meta records stored before they were sealed (at start, in a write transaction); how many."""
    old = [(key, value) for key, value in meta_records(txn, meta) if value[:1] == _OLD_META]
    for key, value in old:
        txn.put(key, seal_meta(value), db=meta)
    return len(old)


def quarantine_key(name: str, key: bytes) -> bytes:
    return name.encode() + b"\0" + bytes(key)


class SealedCursor:
    """An lmdb.Cursor of a sealed database whose values come out unsealed; corrupt ones are skipped."""

    __slots__ = ("_cur", "_name", "_report")

    def __init__(self, cur: lmdb.Cursor[bytes], name: str, report: OnCorrupt) -> None:
        self._cur = cur
        self._name = name
        self._report = report

    def __enter__(self) -> SealedCursor:
        return self

    def __exit__(self, *exc: object) -> None:
        self._cur.close()

    def __getattr__(self, attr: str) -> Any:  # set_range, first, next, key, delete, close: as they are
        return getattr(self._cur, attr)

    def _open(self, key: bytes, raw: bytes) -> bytes | None:
        value = unseal(raw)
        if value is None:
            self._report(self._name, bytes(key))
        return value

    def value(self) -> bytes | None:
        return self._open(self._cur.key(), self._cur.value())

    def item(self) -> tuple[bytes, bytes | None]:
        """(key, value); the value is None when it is corrupt."""
        key, raw = self._cur.item()
        return key, (self._open(key, raw) if key else raw)

    def __iter__(self) -> Iterator[tuple[bytes, bytes]]:
        return self.iternext()

    def iternext(self, keys: bool = True, values: bool = True) -> Iterator[Any]:
        if not values:
            yield from self._cur.iternext(keys=True, values=False)
            return
        for key, raw in self._cur.iternext(keys=True, values=True):
            value = self._open(key, raw)
            if value is None:
                continue
            yield (key, value) if keys else value


class SealedTxn:
    """An lmdb.Transaction whose sealed databases' values are sealed on put and checked on read."""

    __slots__ = ("raw", "_sealed", "report")

    def __init__(self, txn: lmdb.Transaction[bytes], sealed: dict[Any, str], on_corrupt: OnCorrupt | None) -> None:
        self.raw = txn
        self._sealed = sealed
        self.report: OnCorrupt = on_corrupt or _ignore
        """Told (database name, key) of each corrupt value a read meets (also by readers outside `get` and
        `cursor`: a sealed meta record, an LMDB transaction's in-place reads)."""

    def __getattr__(self, attr: str) -> Any:  # delete, stat, commit, abort: as they are
        return getattr(self.raw, attr)

    def get(self, key: bytes, default: Any = None, db: Any = None) -> Any:
        raw = self.raw.get(key, db=db)
        if raw is None:
            return default
        name = self._sealed.get(db)
        if name is None:
            return raw
        value = unseal(raw)
        if value is None:
            self.report(name, bytes(key))
            return default
        return value

    def put(self, key: bytes, value: bytes, db: Any = None, **options: Any) -> bool:
        if db in self._sealed:
            value = seal(value)
        return self.raw.put(key, value, db=db, **options)

    def pop(self, key: bytes, db: Any = None) -> bytes | None:
        """Delete and return a record; a corrupt one is left for the quarantine and not returned."""
        value: bytes | None = self.get(key, db=db)
        if value is not None:
            self.raw.delete(key, db=db)
        return value

    def cursor(self, db: Any = None) -> Any:
        cur = self.raw.cursor(db=db)
        name = self._sealed.get(db)
        return cur if name is None else SealedCursor(cur, name, self.report)


Txn: TypeAlias = "lmdb.Transaction[bytes] | SealedTxn"
"""A transaction the record code reads and writes: LMDB's own (opened with buffers=False: values are bytes) or
one that checks the sealed databases' values."""


def _ignore(name: str, key: bytes) -> None:
    return None


def scan(txn: lmdb.Transaction[bytes], dbs: Any, names: tuple[str, ...]) -> Iterator[tuple[str, bytes]]:
    """(database name, key) of every corrupt value of the sealed databases `names` (a full read)."""
    for name in names:
        with txn.cursor(db=getattr(dbs, name)) as cur:
            for key, raw in cur.iternext(keys=True, values=True):
                if unseal(raw) is None:
                    yield name, bytes(key)
