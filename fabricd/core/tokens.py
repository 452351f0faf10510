"""Access tokens: issued, verified and revoked. Only a SHA-256 of each token is stored.

A token's scope is `admin` (everything) or `agent` (act as one agent only).
Tokens are random and long, so a fast hash is enough; the plain token is shown
once, when issued, and never stored or logged.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable

from fabricd.core import paging, validate
from fabricd.core.errors import InvalidArgument
from fabricd.core.limits import Limits
from fabricd.core.model_tokens import Token as Token
from fabricd.core.paging import Listed
from fabricd.core.ports import Store

ADMIN, AGENT = "admin", "agent"
PREFIX = "fdt_"


TOKENS = "tokens"
"""The wake-up key of token changes: a backend shared by several nodes wakes it, and each reloads its cache."""


def digest(secret: str) -> bytes:
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).digest()


MAX_SESSION_NAMES = 16


def mint(scope: str, agent_id: str, label: str, limits: Limits, now_ns: int,
         session_names: tuple[str, ...] = ()) -> tuple[bytes, Token, str]:
    """A new token: (the digest it is stored under, the token, the secret shown once)."""
    if scope not in (ADMIN, AGENT):
        raise InvalidArgument(f"scope must be {ADMIN!r} or {AGENT!r}", reason="INVALID_FIELD", field="scope")
    if scope == AGENT:
        validate.agent_id(agent_id, limits)
    elif agent_id:
        raise InvalidArgument("an admin token names no agent", reason="INVALID_FIELD", field="agent_id")
    validate.text_field(label, "label", limits, required=False)
    if session_names and scope != AGENT:
        raise InvalidArgument("session names are bound to agent tokens only (an admin token may use any)",
                              reason="INVALID_FIELD", field="session_names")
    if len(session_names) > MAX_SESSION_NAMES:
        raise InvalidArgument(f"bind at most {MAX_SESSION_NAMES} session names to a token, not {len(session_names)}",
                              reason="TOO_MANY_ITEMS", field="session_names", limit=MAX_SESSION_NAMES)
    for name in session_names:
        validate.text_field(name, "session_names", limits, required=True)
        validate.session_name(name, limits)
    secret = PREFIX + secrets.token_urlsafe(32)
    key = digest(secret)
    names = tuple(dict.fromkeys(session_names))
    return key, Token(key.hex()[:16], scope, agent_id, label, now_ns, session_names=names), secret


class Tokens:
    """The token registry; verification is served from memory, kept in step with every write.

    A token unknown to memory is looked up once through `lookup` (a quick
    synchronous read, where the backend has one): `fabricd token issue` may have
    written it from another process while the daemon runs. The guard checks
    tokens synchronously today, hence the hook; `refresh` re-reads them all.
    """

    def __init__(self, store: Store, limits: Limits, clock: Callable[[], int],
                 lookup: Callable[[bytes], Token | None] | None = None) -> None:
        self._store = store
        self.limits = limits
        self._clock = clock
        self._lookup = lookup
        self._by_digest: dict[bytes, Token] = {}
        # Tokens this process issued or revoked while a refresh read the store: newer than its snapshot.
        self._written_during_refresh: dict[bytes, Token] = {}
        self.on_revoke: list[Callable[[str], None]] = []
        """Called with a token_id once its revocation is committed, here or (seen by `refresh`) by another
        node (the guard ends its calls)."""

    async def refresh(self) -> None:
        self._written_during_refresh = {}
        fresh = dict(await self._store.tokens.all())
        # An issue committed after the read began is not in `fresh`: keep it (an agent given a token a
        # moment ago was refused BAD_TOKEN when a refresh woken by the previous issue finished after it).
        fresh.update(self._written_during_refresh)
        before, self._by_digest = self._by_digest, fresh
        # Revoked by another node: end this process's calls of it too, as the revoking node ends its own.
        ended = [t.token_id for k, t in fresh.items() if t.revoke_ns and k in before and not before[k].revoke_ns]
        for token_id in ended:
            for hook in self.on_revoke:
                hook(token_id)

    def find(self, token_id: str) -> tuple[bytes, Token] | None:
        """(digest, token) of the token whose public id is `token_id`, live or revoked, from memory (a scan: a
        fabric has hundreds of tokens, not millions)."""
        for key, token in self._by_digest.items():
            if token.token_id == token_id:
                return key, token
        return None

    def verify(self, secret: str) -> Token | None:
        """The live token for `secret`, or None (unknown or revoked)."""
        key = digest(secret)
        token = self._by_digest.get(key)
        if token is None:
            token = self._lookup(key) if self._lookup is not None else None
            if token is None:
                return None
            self._by_digest[key] = token
        return token if not token.revoke_ns else None

    async def issue(self, scope: str, agent_id: str = "", label: str = "",
                    session_names: tuple[str, ...] = ()) -> tuple[Token, str]:
        key, token, secret = mint(scope, agent_id, label, self.limits, self._clock(), session_names)
        await self._store.tokens.add(key, token)
        self._by_digest[key] = self._written_during_refresh[key] = token
        return token, secret

    async def revoke(self, token_id: str) -> bool:
        validate.text_field(token_id, "token_id", self.limits, required=True)
        revoked = await self._store.tokens.revoke(token_id, self._clock())
        if revoked is None:
            return False
        key, token = revoked
        self._by_digest[key] = self._written_during_refresh[key] = token
        for hook in self.on_revoke:
            hook(token.token_id)
        return True

    async def list(self, page_size: int = 0, page_token: str = "") -> Listed[Token]:
        """One page of the tokens in the store (those issued by `fabricd token issue` included), in store order."""
        return await paging.read("tokens", "", page_size, page_token, self._store.tokens.page)
