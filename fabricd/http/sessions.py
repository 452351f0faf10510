"""Sign-in for the overseer page: a token exchanged once for a session cookie, and the CSRF secret beside it.

Invariants:
- A token is read only from the sign-in request's JSON body, never from a URL, a header that is logged, or a
  cookie; the session cookie holds a fresh random id (HttpOnly, SameSite=Strict, Secure over HTTPS), and the
  token itself is not kept: only its identity and public token_id.
- A session acts as one fabric identity: an agent token's own agent, or (admin token, or a trusted caller when
  auth.tokens is off) the named human agent `human:NAME` it chose at sign-in.
- Revoking its token ends the session at once (Tokens.on_revoke), as it ends the token's gRPC calls.
- Sessions live in this daemon's memory, at most MAX_SESSIONS (the least recently used one goes first), and
  expire after IDLE_S without a request; a daemon restart signs everyone out.
"""

from __future__ import annotations

import hmac
import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass, field

from fabricd.core.errors import InvalidArgument, PermissionDenied, Unauthenticated
from fabricd.core.model_tokens import Token
from fabricd.core.tokens import Tokens
from fabricd.rpc.auth import LOCAL, Identity

COOKIE = "fabricd_session"
CSRF_HEADER = "X-Fabricd-Csrf"
HUMAN_PREFIX = "human:"
IDLE_S = 12 * 3600.0
MAX_SESSIONS = 10_000
REFRESH_S = 1.0


@dataclass(slots=True)
class Session:
    identity: Identity
    acting_as: str
    """The agent id the page reads and acts as ("" for an admin that only watches)."""
    csrf: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    seen: float = field(default_factory=time.monotonic)

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


class Sessions:
    """The open sessions of one daemon (see the module docstring)."""

    def __init__(self, tokens: Tokens, mode: str) -> None:
        self._tokens = tokens
        self._mode = mode
        self._open: OrderedDict[str, Session] = OrderedDict()
        self._refreshed = -REFRESH_S
        tokens.on_revoke.append(self.end_token)

    def __len__(self) -> int:
        return len(self._open)

    async def _verify(self, secret: str) -> Token | None:
        """The live token for `secret`; an unknown one after re-reading the tokens (at most once a
        REFRESH_S): another node may have issued it a moment ago, before this node's wake-up reload."""
        token = self._tokens.verify(secret)
        if token is None and time.monotonic() - self._refreshed >= REFRESH_S:
            self._refreshed = time.monotonic()
            await self._tokens.refresh()
            token = self._tokens.verify(secret)
        return token

    async def sign_in(self, secret: str, act_as: str) -> tuple[str, Session]:
        """A new session for `secret` (empty: only when auth.tokens is off); returns (cookie value, session)."""
        secret = secret.strip().removeprefix("Bearer ").strip()
        if secret:
            token = await self._verify(secret)
            if token is None:
                raise Unauthenticated("the token is unknown or revoked", reason="BAD_TOKEN")
            identity = Identity(token.scope, token.agent_id, token.token_id, token.session_names)
        elif self._mode == "off":
            identity = LOCAL
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
        key = secrets.token_urlsafe(32)
        session = self._open[key] = Session(identity, acting_as)
        while len(self._open) > MAX_SESSIONS:
            self._open.popitem(last=False)
        return key, session

    def get(self, key: str) -> Session | None:
        session = self._open.get(key) if key else None
        if session is None:
            return None
        now = time.monotonic()
        if now - session.seen > IDLE_S:
            del self._open[key]
            return None
        session.seen = now
        self._open.move_to_end(key)
        return session

    def sign_out(self, key: str) -> None:
        self._open.pop(key, None)

    def end_token(self, token_id: str) -> None:
        for key in [k for k, s in self._open.items() if s.identity.token_id == token_id]:
            del self._open[key]

    @staticmethod
    def csrf_ok(session: Session, sent: str) -> bool:
        return bool(sent) and hmac.compare_digest(session.csrf.encode(), sent.encode())
