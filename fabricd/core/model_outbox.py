"""Outbox types the port passes: the delivery loop's retry policy and a drain's result.

The rules (the exactly-once argument, retries, dead letters) are in fabricd.core.outbox.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from fabricd.core.model import OutboxRow
from fabricd.core.model_wake import WakeHook
from fabricd.core.schema import setting


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How the delivery loop retries a failed post. The settings are the daemon's `[outbox]` keys."""

    base_s: float = setting(1.0, "seconds before the first retry of a failed post; doubles each time",
                            key="backoff", at_least=0.001, at_most=86400)
    cap_s: float = setting(300.0, "the longest wait in seconds between retries (at least outbox.backoff)",
                           key="backoff_cap", at_least=0.001, at_most=7 * 86400)
    jitter: float = 0.2
    """Each wait is scaled by a random factor in [1 - jitter, 1 + jitter]."""
    lease_s: float = 75.0
    """How long a claimed wake row is held for its sender (the daemon: wake.timeout + 5 s); a sender that died
    with it (a crash) leaves it to the next claim once the lease ends."""
    max_attempts: int = setting(0, "failed posts before a row is dead-lettered; 0 retries forever with the capped "
                                   "back-off", at_least=0)
    disable_after: int = 0
    """Failed wake sends in a row that disable a hook (the daemon: wake.disable_after); 0 never disables."""

    def delay_s(self, attempts: int, rng: random.Random) -> float:
        delay = min(self.cap_s, self.base_s * 2.0 ** max(0, attempts - 1))
        return delay * rng.uniform(1 - self.jitter, 1 + self.jitter)


@dataclass(frozen=True, slots=True)
class DrainResult:
    posted: int
    failed: int
    more: bool
    claimed: tuple[tuple[OutboxRow, WakeHook], ...] = ()
    """Wake rows taken for sending (with their hooks): the caller sends each and settles it."""
