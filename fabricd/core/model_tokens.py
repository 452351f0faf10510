"""An access token as stored: only its SHA-256 digest is kept (the digest's first 16 hex digits are `token_id`).

The rules (minting, verifying, revoking) are in fabricd.core.tokens.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True, eq=False)
class Token:
    token_id: str
    """A public handle: the first 16 hex digits of the hash. Safe to log and show."""
    scope: str
    agent_id: str = ""
    label: str = ""
    create_ns: int = 0
    revoke_ns: int = 0
    session_names: tuple[str, ...] = ()
    """Session names an agent token may register under, bound when it was issued (none: no session name)."""
