"""Sign-in for the overseer page: a token exchanged once for a signed session cookie, and a CSRF secret beside it.

Invariants:
- A token is read only from the sign-in request's JSON body, never from a URL, a header that is logged, or a
  cookie. The cookie names the token only by its public token_id and is signed (HMAC-SHA-256) with the token's
  stored digest, which no API shows: whoever lacks the token cannot make or alter a cookie, and the token itself
  cannot be read back from one. HttpOnly, SameSite=Strict, Secure over HTTPS.
- Nothing of a session is kept by the daemon: any node of a PostgreSQL fabric serves a cookie another node
  signed (they share the tokens), and a restart signs nobody out.
- A session acts as one fabric identity: an agent token's own agent, or (admin token, or a trusted caller when
  auth.tokens is off) the named human agent `human:NAME` it chose at sign-in.
- Revoking its token ends every session of the token, on every node, at once (the cookie's token is looked up
  on each request; Tokens.on_revoke ends open event streams).
- A session lasts IDLE_S without a request: the cookie carries the time of its last renewal and is signed
  again (renewed) at most every RENEW_S. Signing out forgets the cookie in the browser and on this node; to end
  a session everywhere, revoke its token.
- With auth.tokens off there is no token to sign with: cookies are signed with a key made at start, so they
  hold only on the daemon that signed them, until it restarts.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass

from fabricd.core.errors import InvalidArgument, PermissionDenied, Unauthenticated
from fabricd.core.model_tokens import Token
from fabricd.core.tokens import Tokens
from fabricd.rpc.auth import LOCAL, Identity

COOKIE = "fabricd_session"
CSRF_HEADER = "X-Fabricd-Csrf"
HUMAN_PREFIX = "human:"
IDLE_S = 12 * 3600
RENEW_S = 300
REFRESH_S = 1.0
MAX_SIGNED_OUT = 10_000
_LOCAL_ID = "-"
"""The token_id part of a cookie signed with auth.tokens off (no token)."""


@dataclass(slots=True)
class Session:
    identity: Identity
    acting_as: str
    """The agent id the page reads and acts as ("" for an admin that only watches)."""
    csrf: str
    renewed: str = ""
    """A fresh cookie value when this request should renew the cookie (its last renewal is RENEW_S old)."""

    @property
    def human(self) -> bool:
        return self.acting_as.startswith(HUMAN_PREFIX) and self.identity.kind != "agent"

    def public(self) -> dict[str, object]:
        return {"signed_in": True, "identity": str(self.identity), "kind": self.identity.kind, "acting_as": self.acting_as,
                "human": self.human, "csrf": self.csrf}


def human_id(name: str) -> str:
    """`alice` or `human:alice` as the agent id `human:alice`."""
    name = name.strip()
    bare = name.removeprefix(HUMAN_PREFIX)
    if not bare:
        raise InvalidArgument("act_as names the person: alice acts as the agent human:alice",
                              reason="MISSING_FIELD", field="act_as")
    return HUMAN_PREFIX + bare


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _mac(key: bytes, *parts: str) -> str:
    return _b64(hmac.new(key, "\x00".join(("fabricd overseer", *parts)).encode("utf-8", "surrogatepass"),
                         hashlib.sha256).digest())


class Sessions:
    """Signs and reads the page's session cookies (see the module docstring)."""

    def __init__(self, tokens: Tokens, mode: str) -> None:
        self._tokens = tokens
        self._mode = mode
        self._local_key = secrets.token_bytes(32)
        self._refreshed = -REFRESH_S
        self._pending: asyncio.Future[None] | None = None
        self._signed_out: OrderedDict[str, int] = OrderedDict()
        """Sign-ins (token_id.acting_as.started) signed out on this node, until their cookies would expire."""

    async def _token(self, secret: str = "", token_id: str = "") -> tuple[bytes, Token] | None:
        """The token for `secret` (or with public id `token_id`) as (digest, token); an unknown one after
        re-reading the tokens once: another node may have issued it a moment ago."""
        for attempt in range(2):
            if secret:
                token = self._tokens.verify(secret)
                found = self._tokens.find(token.token_id) if token is not None else None
            else:
                found = self._tokens.find(token_id)
            if found is not None or attempt:
                return found
            await self._refresh()
        return None

    async def _refresh(self) -> None:
        """Re-read the tokens, at most once a REFRESH_S for all callers: those that come meanwhile wait for the
        next read and share it (so a stream of unknown tokens costs one read a second)."""
        if self._pending is None:
            self._pending = asyncio.ensure_future(self._read_tokens())
        await asyncio.shield(self._pending)

    async def _read_tokens(self) -> None:
        try:
            delay = self._refreshed + REFRESH_S - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            self._refreshed = time.monotonic()
            await self._tokens.refresh()
        finally:
            self._pending = None

    def _cookie(self, key: bytes, token_id: str, acting_as: str, started: int, now: int) -> str:
        fields = (token_id, _b64(acting_as.encode("utf-8", "surrogatepass")), str(started), str(now))
        return ".".join((*fields, _mac(key, "cookie", *fields)))

    async def sign_in(self, secret: str, act_as: str) -> tuple[str, Session]:
        """A new session for `secret` (empty: only when auth.tokens is off); returns (cookie value, session)."""
        secret = secret.strip().removeprefix("Bearer ").strip()
        if secret:
            found = await self._token(secret=secret)
            if found is None or found[1].revoke_ns:
                raise Unauthenticated("the token is unknown or revoked", reason="BAD_TOKEN")
            key, token = found
            identity = Identity(token.scope, token.agent_id, token.token_id, token.session_names)
            token_id = token.token_id
        elif self._mode == "off":
            key, identity, token_id = self._local_key, LOCAL, _LOCAL_ID
        else:
            raise Unauthenticated("sign in with a token: an agent token acts as its agent, an admin token as the "
                                  "person named in act_as (issue one with `fabric token issue`)",
                                  reason="MISSING_TOKEN")
        if identity.kind == "agent":
            if act_as and act_as != identity.agent_id:
                raise PermissionDenied(f"an agent token acts as its own agent {identity.agent_id!r}, not {act_as!r};"
                                       " to act as a person, sign in with an admin token", reason="OUT_OF_SCOPE",
                                       identity=str(identity))
            acting_as = identity.agent_id
        else:
            acting_as = human_id(act_as) if act_as.strip() else ""
        now = int(time.time())
        cookie = self._cookie(key, token_id, acting_as, now, now)
        return cookie, Session(identity, acting_as, _mac(key, "csrf", token_id, acting_as, str(now)))

    async def get(self, cookie: str) -> Session | None:
        """The session a cookie stands for, or None (malformed, forged, expired, signed out, token revoked)."""
        parts = cookie.split(".") if cookie else []
        if len(parts) != 5 or not all(parts):
            return None
        token_id, acting_b64, started_s, seen_s, mac = parts
        if token_id == _LOCAL_ID:
            if self._mode != "off":
                return None
            key, identity = self._local_key, LOCAL
        else:
            found = await self._token(token_id=token_id)
            if found is None or found[1].revoke_ns:
                return None
            key, token = found
            identity = Identity(token.scope, token.agent_id, token.token_id, token.session_names)
        if not hmac.compare_digest(mac.encode(), _mac(key, "cookie", *parts[:4]).encode()):
            return None
        try:
            acting_as = _unb64(acting_b64).decode("utf-8", "surrogatepass")
            started, seen = int(started_s), int(seen_s)
        except ValueError:
            return None
        now = int(time.time())
        if now - seen > IDLE_S or ".".join(parts[:3]) in self._signed_out:
            return None
        if identity.kind == "agent" and acting_as != identity.agent_id:
            return None
        session = Session(identity, acting_as, _mac(key, "csrf", token_id, acting_as, str(started)))
        if now - seen >= RENEW_S:
            session.renewed = self._cookie(key, token_id, acting_as, started, now)
        return session

    async def alive(self, cookie: str) -> bool:
        return await self.get(cookie) is not None

    def sign_out(self, cookie: str) -> None:
        """Forget the sign-in `cookie` (a valid one: the caller checked) came from, renewed cookies included."""
        parts = cookie.split(".")
        if len(parts) == 5 and parts[3].isdigit():
            self._signed_out[".".join(parts[:3])] = int(parts[3]) + IDLE_S
            now = int(time.time())
            while self._signed_out and (len(self._signed_out) > MAX_SIGNED_OUT
                                        or next(iter(self._signed_out.values())) < now):
                self._signed_out.popitem(last=False)

    @staticmethod
    def csrf_ok(session: Session, sent: str) -> bool:
        return bool(sent) and hmac.compare_digest(session.csrf.encode(), sent.encode())
