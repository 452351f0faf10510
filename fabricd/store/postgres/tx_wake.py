"""The wake hooks' part of PgTx (a mixin): one row per hooked agent, its body the core's JSON."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from fabricd.core import wake
from fabricd.core.wake import WakeHook

if TYPE_CHECKING:
    from asyncpg import Record


class WakeRecords:
    """Mixed into PgTx, which provides the queries, `_lock` (FOR UPDATE in a write) and `_hooked`."""

    _fetch: Callable[..., list[Record]]
    _val: Callable[..., Any]
    _exec: Callable[..., str]
    _lock: str
    _hooked: set[str] | None
    """Agent ids with a wake hook, read at the transaction's first hook lookup (see get_wake_hook)."""

    def get_wake_hook(self, agent_id: str) -> WakeHook | None:
        # Every stored message asks for its recipient's hook: the ids that have one are read once per
        # transaction (a batch of 1,000 sends costs one query, not 1,000), and only those are read and locked.
        if self._hooked is None:
            self._hooked = {r["agent_id"] for r in self._fetch("SELECT agent_id FROM wake_hooks")}
        if agent_id not in self._hooked:
            return None
        body = self._val(f"SELECT body FROM wake_hooks WHERE agent_id = $1{self._lock}", agent_id)
        return wake.decode(body) if body is not None else None

    def put_wake_hook(self, hook: WakeHook) -> None:
        self._exec("INSERT INTO wake_hooks (agent_id, body) VALUES ($1, $2) ON CONFLICT (agent_id) DO UPDATE "
                   "SET body = EXCLUDED.body", hook.agent_id, wake.encode(hook))
        if self._hooked is not None:
            self._hooked.add(hook.agent_id)

    def delete_wake_hook(self, agent_id: str) -> None:
        self._exec("DELETE FROM wake_hooks WHERE agent_id = $1", agent_id)
        if self._hooked is not None:
            self._hooked.discard(agent_id)

    def wake_hooks(self) -> list[WakeHook]:
        # A listing, never locked: a script that changes a hook reads it again with get_wake_hook.
        return [wake.decode(r["body"]) for r in self._fetch("SELECT body FROM wake_hooks ORDER BY agent_id")]
