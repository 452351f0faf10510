"""A due wake row's claim, decided: the row and its hook in, what to store (and whether to send it now) out.

Every backend runs this: the record scripts (fabricd.core.kv.wake.claim: LMDB, memory) and PostgreSQL's
delivery page (store/postgres/hot_outbox.py), which reads the hooks of a page's wake rows locked and writes
the decisions. No I/O; the inputs are left alone. The rules are fabricd.core.wake's: one send per hook at a
time, held by a lease; a hook that backs off holds its rows until then; a removed or disabled hook's rows
become receipts saying so.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from fabricd.core import outbox as outbox_rules
from fabricd.core.model import OutboxRow
from fabricd.core.wake import WakeHook


@dataclass(frozen=True, slots=True)
class WakeClaim:
    """What a claim stores: `row` (held by its lease, put off, or its receipt) and `hook` (None: unchanged);
    `send`: the row is taken for sending now, with `hook`."""

    row: OutboxRow
    hook: WakeHook | None
    send: bool


def unsent(row: OutboxRow, now: int, why: str) -> OutboxRow:
    """The receipt of a wake row that will never be sent, saying why."""
    return replace(outbox_rules.delivered(row, now, 0), last_error=f"not sent: {why}")


def claim(row: OutboxRow, hook: WakeHook | None, now: int, lease_ns: int) -> WakeClaim:
    """Take a due wake row of the hook `hook` (None: removed) for its sender, for `lease_ns`."""
    if hook is None or hook.disabled:
        settled = unsent(row, now, "the hook was removed" if hook is None else "the hook is disabled")
        freed = replace(hook, queued_key="") if hook is not None and hook.queued_key == row.key else None
        return WakeClaim(settled, freed, False)
    other = hook.sending_key not in ("", row.key) and hook.sending_until_ns > now
    wait = max(hook.retry_ns, hook.sending_until_ns if other else 0)
    if wait > now:
        return WakeClaim(replace(row, next_attempt_ns=wait), None, False)
    held = replace(hook, queued_key="" if hook.queued_key == row.key else hook.queued_key, sending_key=row.key,
                   sending_until_ns=now + lease_ns)
    return WakeClaim(replace(row, next_attempt_ns=now + lease_ns), held, True)
