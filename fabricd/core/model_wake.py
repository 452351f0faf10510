"""Wake-hook types: one agent's hook and its firing state, as every backend stores it.

The rules (arming, checks, encoding) are in fabricd.core.wake; this module holds the value the port passes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

DEFAULT_QUIET_NS = 30 * 10**9


@dataclass(slots=True)
class WakeHook:
    """One agent's hook (what to do) and its firing state (when it last fired, whether work waits)."""

    agent_id: str
    url: str = ""
    command: tuple[str, ...] = ()
    quiet_ns: int = DEFAULT_QUIET_NS
    only_when_idle: bool = True
    secret: str = ""
    """Hex; the HMAC key of URL hooks' signatures (its ASCII text is the key)."""
    armed_ns: int = 0
    """When work arrived that no wake has announced yet; 0 when none waits."""
    reason: str = ""
    """"mail" or "ticket": what armed the hook (a ticket wins over mail)."""
    first_message_id: str = ""
    ticket_id: str = ""
    last_fire_ns: int = 0
    fires: int = 0
    queued_key: str = ""
    """The hook's wake row waiting to be sent (a fire rewrites it rather than add another); "" when none."""
    sending_key: str = ""
    """The row being sent, held until `sending_until_ns` (its lease): no other row of the hook is claimed."""
    sending_until_ns: int = 0
    failures: int = 0
    """Sends that failed in a row (0 after one that worked)."""
    retry_ns: int = 0
    """The hook backs off: none of its rows is sent before this."""
    last_error: str = ""
    disabled_ns: int = 0
    """When `failures` reached the daemon's wake.disable_after; 0 while active. Setting the hook again clears it."""
    extra: dict[str, object] = field(default_factory=dict)
    """Fields a newer fabricd stored that this one does not know (kept as they are)."""

    @property
    def armed(self) -> bool:
        return self.armed_ns > 0

    @property
    def disabled(self) -> bool:
        return self.disabled_ns > 0

    def due_ns(self) -> int:
        """When an armed hook may fire: at arming, or a quiet period after the last fire."""
        return max(self.armed_ns, self.last_fire_ns + self.quiet_ns if self.last_fire_ns else 0)
