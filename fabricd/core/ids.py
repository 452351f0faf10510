"""Server-minted ids that sort by arrival, and digests for idempotency."""

from __future__ import annotations

import hashlib
import os
import threading

_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUV"  # base32hex: in ASCII order, so text order is number order
MINTED_BYTES = _ALPHABET.encode()
"""The characters of a minted id, as bytes (for reading ids in stored encodings without decoding them)."""
_PAIRS = [a + b for a in _ALPHABET for b in _ALPHABET]  # 10 bits -> 2 characters


def _base32(value: int, chars: int) -> str:
    """`value` as exactly `chars` base32hex characters (`chars` even)."""
    return "".join([_PAIRS[(value >> shift) & 1023] for shift in range(5 * chars - 10, -1, -10)])


NODE_BITS = 16


class IdMint:
    """Mints 26-character ULID-style ids: 50 bits of milliseconds, 16 bits of node, then 64 bits that only grow.

    Ids minted by one mint sort in minting order, also within one millisecond and
    when the clock steps back; ids from a restarted daemon sort after the old
    ones while the clock moves forward. The node (the store's node id: 0 for a
    store one process owns, a number the database hands out to each node
    sharing it) keeps two nodes from ever minting the same id in the same
    millisecond. The first 22 characters are cached per millisecond, so a mint
    in a busy millisecond formats 4 characters.
    """

    def __init__(self, node: int = 0) -> None:
        if not 0 <= node < 1 << NODE_BITS:
            raise ValueError(f"node id {node} is not in 0..{(1 << NODE_BITS) - 1}")
        self._node = node << 44  # the top 16 of the 60 bits after the milliseconds
        self._lock = threading.Lock()
        self._last_ms = -1
        self._high = 0  # the upper 60 of the 80 growing bits
        self._low = 0  # the lower 20
        self._prefix = ""

    def mint(self, now_ns: int) -> str:
        ms = now_ns // 1_000_000
        with self._lock:
            if ms > self._last_ms:
                self._last_ms = ms
                rand = int.from_bytes(os.urandom(8), "big") >> 1  # 63 bits: room to grow within the ms
                self._high, self._low = self._node | rand >> 20, rand & 0xFFFFF
                self._prefix = _base32(ms, 10) + _base32(self._high, 12)
            else:
                self._low += 1
                if self._low > 0xFFFFF:
                    self._low = 0
                    self._high += 1
                    self._prefix = _base32(self._last_ms, 10) + _base32(self._high, 12)
            return self._prefix + _PAIRS[self._low >> 10] + _PAIRS[self._low & 1023]


def looks_minted(mid: str) -> bool:
    """Whether an id has the form of a minted one (a client may choose such an id too)."""
    return len(mid) == 26 and not mid.strip(_ALPHABET)  # every character base32hex (strip: C speed)


def message_digest(
    sender: tuple[str, str],
    recipient: tuple[str, str],
    reply_to: tuple[tuple[str, str], ...],
    thread_id: str,
    text: str,
    data: bytes,
    headers: dict[str, str],
    kind: int,
    hops: int,
    ticket_id: str,
) -> bytes:
    """A 16-byte digest of what a client sent, to tell a true resend from a reused id."""
    canonical = repr((sender, recipient, reply_to, thread_id, text, data, sorted(headers.items()), kind, hops, ticket_id))
    return hashlib.blake2b(canonical.encode("utf-8", "surrogatepass"), digest_size=16).digest()
