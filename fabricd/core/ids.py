"""Server-minted ids that sort by arrival, and digests for idempotency."""

from __future__ import annotations

import hashlib
import os
import threading

_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


class IdMint:
    """Mints 26-character ULID-style ids: 48 bits of milliseconds, 80 bits that only grow.

    Ids minted by one mint sort in minting order even within one millisecond,
    and ids from a restarted daemon sort after the old ones while the clock does.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._last_ms = 0
        self._last_rand = 0

    def mint(self, now_ns: int) -> str:
        ms = now_ns // 1_000_000
        with self._lock:
            if ms <= self._last_ms:
                ms = self._last_ms
                rand = self._last_rand + 1
            else:
                rand = int.from_bytes(os.urandom(10), "big") >> 1  # room to grow within the ms
            self._last_ms, self._last_rand = ms, rand
        value = (ms << 80) | (rand & ((1 << 80) - 1))
        chars = []
        for _ in range(26):
            chars.append(_CROCKFORD[value & 31])
            value >>= 5
        return "".join(reversed(chars))


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
