"""Access tokens: issued, verified and revoked. Only a SHA-256 of each token is stored.

A token's scope is `admin` (everything) or `agent` (act as one agent only).
Tokens are random and long, so a fast hash is enough; the plain token is shown
once, when issued, and never stored or logged.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass

from fabricd.core import validate
from fabricd.core.errors import InvalidArgument
from fabricd.core.limits import Limits
from fabricd.core.ports import Store, Tx

ADMIN, AGENT = "admin", "agent"
PREFIX = "fdt_"


@dataclass(slots=True, eq=False)  # hashed by identity: it rides in after-commit callbacks
class Token:
    token_id: str
    """A public handle: the first 16 hex digits of the hash. Safe to log and show."""
    scope: str
    agent_id: str = ""
    label: str = ""
    create_ns: int = 0
    revoke_ns: int = 0


def digest(secret: str) -> bytes:
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).digest()


class Tokens:
    """The token registry; verification is served from memory, kept in step with every write."""

    def __init__(self, store: Store, limits: Limits, clock: Callable[[], int]) -> None:
        self._store = store
        self.limits = limits
        self._clock = clock
        self._by_digest: dict[bytes, Token] = {}

    def load(self) -> None:
        self._by_digest = dict(self._store.read(lambda tx: tx.tokens()))

    def verify(self, secret: str) -> Token | None:
        """The live token for `secret`, or None (unknown or revoked)."""
        token = self._by_digest.get(digest(secret))
        return token if token is not None and not token.revoke_ns else None

    async def issue(self, scope: str, agent_id: str = "", label: str = "") -> tuple[Token, str]:
        if scope not in (ADMIN, AGENT):
            raise InvalidArgument(f"scope must be {ADMIN!r} or {AGENT!r}", reason="INVALID_FIELD", field="scope")
        if scope == AGENT:
            validate.agent_id(agent_id, self.limits)
        elif agent_id:
            raise InvalidArgument("an admin token names no agent", reason="INVALID_FIELD", field="agent_id")
        validate.text_field(label, "label", self.limits, required=False)
        secret = PREFIX + secrets.token_urlsafe(32)
        key = digest(secret)
        token = Token(key.hex()[:16], scope, agent_id, label, self._clock())

        def apply(tx: Tx) -> None:
            tx.put_token(key, token)
            tx.after_commit(self._by_digest.__setitem__, key, token)

        await self._store.write(apply)
        return token, secret

    async def revoke(self, token_id: str) -> bool:
        validate.text_field(token_id, "token_id", self.limits, required=True)

        def apply(tx: Tx) -> bool:
            found = tx.token_by_id(token_id)
            if found is None or found[1].revoke_ns:
                return False
            key, token = found
            token.revoke_ns = self._clock()
            tx.put_token(key, token)
            tx.after_commit(self._by_digest.__setitem__, key, token)
            return True

        return await self._store.write(apply)

    def list(self) -> list[Token]:
        return sorted(self._by_digest.values(), key=lambda t: t.create_ns)
