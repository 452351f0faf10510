"""Pages of every list (AIP-158): page sizes, a byte budget per page, and opaque page tokens.

A list is read through the store port as a cursor read: the items after a
cursor, in the store's order (key order, or sequence order), at most
`page_size` of them and no more than `max_page_bytes` of their estimated wire
size (always at least one). The store hands back the cursor of the last item
it read; the core wraps it in a page token:

    token = base64url( check[8] || JSON [version, list, scope, cursor, offset] )

`list` names the list ("mailboxes", "queue", ...), `scope` the filter the
first page was asked with (an agent id, a state), so a token is refused
(INVALID_ARGUMENT, INVALID_PAGE_TOKEN) by any other list or filter. `check` is
a keyed BLAKE2b of the rest: it catches edited and truncated tokens. It is not
a secret: a forged cursor only moves where a list starts; what a caller may
see is still checked on every call. `offset` counts the items of the earlier
pages (queue positions continue across pages).
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import hashlib
import json
from collections.abc import Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from fabricd.core.errors import InvalidArgument

T = TypeVar("T")
C = TypeVar("C")

VERSION = 1
DEFAULT_PAGE_SIZE = 100
"""What page_size = 0 means."""
MAX_PAGE_SIZE = 1000
"""A larger page_size is read as this (AIP-158: coerced, not refused)."""
MAX_PAGE_BYTES = 4 << 20
"""A whole list response stays within this (gRPC's default receive limit in most languages' stubs): its items
stop before their estimated wire size passes `budget()`, always at least one item."""
_CHECK_KEY = b"fabricd.v1 page token"


@dataclass(frozen=True, slots=True)
class Page(Generic[T]):
    """Items of one page and the store's cursor after the last one ("" when the list ended)."""

    items: list[T]
    next_cursor: str = ""


@dataclass(frozen=True, slots=True)
class PageRequest:
    """A checked request for one page: its size, where it starts, and the items before it."""

    size: int
    cursor: str = ""
    offset: int = 0


@dataclass(frozen=True, slots=True)
class Listed(Generic[T]):
    """What a list call answers: one page, the token of the next ("" at the end), and the items before it."""

    items: list[T]
    next_page_token: str = ""
    offset: int = 0
    next_cursor: str = ""
    """The store's cursor inside next_page_token (the outbox's older `next_after_key` is this cursor)."""


async def read(list_name: str, scope: str, size: int, token: str,
               fetch: Callable[[str, int, int], Awaitable[Page[T]]]) -> Listed[T]:
    """Check page_size and page_token, read one page through the store port, and hand out the next token."""
    asked = request(list_name, scope, size, token)
    page = await fetch(asked.cursor, asked.size, budget())
    return Listed(page.items, next_token(list_name, scope, asked, page), asked.offset, page.next_cursor)


def budget(max_page_bytes: int = MAX_PAGE_BYTES) -> int:
    """The byte budget of a page's items: the page limit less room for the response's own fields."""
    return max(1, max_page_bytes - (16 << 10))


def page_size(value: int, field: str = "page_size") -> int:
    """0 is the default (100); over the maximum (1000) is the maximum; negative is INVALID_ARGUMENT."""
    if value < 0:
        raise InvalidArgument(f"{field} may not be negative, got {value}", reason="LIMIT_OUT_OF_RANGE", field=field,
                              limit=MAX_PAGE_SIZE)
    if value == 0:
        return DEFAULT_PAGE_SIZE
    return min(value, MAX_PAGE_SIZE)


def _check(payload: bytes) -> bytes:
    return hashlib.blake2b(payload, key=_CHECK_KEY, digest_size=8).digest()


def bad_token(why: str) -> InvalidArgument:
    return InvalidArgument(f"page_token {why}: start again without one", reason="INVALID_PAGE_TOKEN",
                           field="page_token")


def encode(list_name: str, scope: str, cursor: str, offset: int) -> str:
    payload = json.dumps([VERSION, list_name, scope, cursor, offset], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(_check(payload) + payload).rstrip(b"=").decode()


def decode(token: str, list_name: str, scope: str) -> tuple[str, int]:
    """(cursor, offset) of a token this list handed out for this scope; INVALID_PAGE_TOKEN otherwise."""
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    except (binascii.Error, ValueError):
        raise bad_token("is not one this daemon handed out") from None
    check, payload = raw[:8], raw[8:]
    if len(check) < 8 or _check(payload) != check:
        raise bad_token("is not one this daemon handed out (or was changed)")
    try:
        version, name, token_scope, cursor, offset = json.loads(payload)
    except (ValueError, TypeError):
        raise bad_token("is not one this daemon handed out") from None
    if version != VERSION:
        raise bad_token(f"is of version {version}; this daemon reads version {VERSION}")
    if name != list_name:
        raise bad_token(f"belongs to another list ({name}), not {list_name}")
    if token_scope != scope:
        raise bad_token("was handed out for another filter or agent: pass the same one as for the first page")
    if not isinstance(cursor, str) or not isinstance(offset, int) or offset < 0:
        raise bad_token("is not one this daemon handed out")
    return cursor, offset


def request(list_name: str, scope: str, size: int, token: str) -> PageRequest:
    """Check page_size and page_token of a list call."""
    n = page_size(size)
    if not token:
        return PageRequest(n)
    cursor, offset = decode(token, list_name, scope)
    return PageRequest(n, cursor, offset)


def next_token(list_name: str, scope: str, asked: PageRequest, page: Page[Any]) -> str:
    if not page.next_cursor:
        return ""
    return encode(list_name, scope, page.next_cursor, asked.offset + len(page.items))


# -- taking a page from a cursor read


def take(rows: Iterable[tuple[C, T | None]], limit: int, max_bytes: int, *, scan: int = 0,
         size: Callable[[Any], int] | None = None) -> tuple[list[T], C | None]:
    """Items from (cursor, item) rows until `limit` items or `max_bytes`; the cursor to go on from, or None.

    A row whose item is None was read but filtered out (it still moves the
    cursor); with `scan`, at most that many rows are read, so a filter that
    matches little cannot make one call read a whole table.
    """
    measure = size or approx_size
    out: list[T] = []
    used = 0
    last: C | None = None
    read = 0
    for cursor, item in rows:
        if len(out) >= limit or (scan and read >= scan):
            return out, last
        read += 1
        if item is not None:
            n = measure(item)
            if out and used + n > max_bytes:
                return out, last
            out.append(item)
            used += n
        last = cursor
    return out, None


def batches(items: Iterable[T], limit: int, max_bytes: int) -> Iterator[list[T]]:
    """`items` cut into lists of at most `limit` items and `max_bytes` of estimated size (at least one each)."""
    batch: list[T] = []
    used = 0
    for item in items:
        n = approx_size(item)
        if batch and (len(batch) >= limit or used + n > max_bytes):
            yield batch
            batch, used = [], 0
        batch.append(item)
        used += n
    if batch:
        yield batch


def approx_size(value: object) -> int:
    """An upper bound of a value's protobuf size (strings in UTF-8 bytes, generous per-field overheads)."""
    if isinstance(value, str):
        return 6 + (len(value) if value.isascii() else len(value.encode("utf-8", "surrogatepass")))
    if isinstance(value, (bytes, bytearray, memoryview)):
        return 6 + len(value)
    if isinstance(value, (bool, int, float)) or value is None:
        return 16  # a varint, or a Timestamp made from an int of nanoseconds
    if isinstance(value, dict):
        return 6 + sum(8 + approx_size(k) + approx_size(v) for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return 6 + sum(approx_size(v) for v in value)
    if dataclasses.is_dataclass(value):
        return 32 + sum(approx_size(getattr(value, f.name)) for f in dataclasses.fields(value))
    return 64
