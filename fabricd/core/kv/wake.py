"""Transaction scripts of wake hooks: set and remove them, arm on arrival, fire due hooks, claim and settle
wake rows (the rules are fabricd.core.wake's)."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace

from fabricd.core import directory as directory_rules
from fabricd.core import outbox as outbox_rules
from fabricd.core import wake as rules
from fabricd.core.errors import FabricError
from fabricd.core.kv.tx import RecordTx
from fabricd.core.model import Address, OutboxRow, Presence, RowState, presence
from fabricd.core.wake import WAKE, WakeHook

SENDER = Address("fabricd", "wake")
"""The `sender` of wake rows as `fabric outbox ls` shows them."""


def set_hook(tx: RecordTx, hook: WakeHook) -> WakeHook:
    """Store a new hook for an existing agent or mailbox (firing state starts afresh); NAME_NOT_FOUND else."""
    if tx.get_entry(hook.agent_id) is None:
        raise directory_rules.name_not_found(hook.agent_id)
    tx.put_wake_hook(hook)
    tx.wake(WAKE)
    return hook


def delete_hook(tx: RecordTx, agent_id: str) -> bool:
    if tx.get_wake_hook(agent_id) is None:
        return False
    tx.delete_wake_hook(agent_id)
    tx.wake(WAKE)
    return True


def note(tx: RecordTx, now: int, agent_id: str, message_id: str, ticket_id: str) -> None:
    """Mail (or a ticket's task) arrived for `agent_id`: arm its hook, if it has one and is not armed yet."""
    hook = tx.get_wake_hook(agent_id)
    armed = rules.arming(hook, now, message_id, ticket_id) if hook is not None else None
    if armed is None:
        return  # no hook, or armed already with nothing new to say: a burst costs one read per message
    tx.put_wake_hook(armed)
    tx.wake(WAKE)


def _disarm(hook: WakeHook) -> None:
    hook.armed_ns, hook.reason, hook.first_message_id, hook.ticket_id = 0, "", "", ""


def armed(tx: RecordTx) -> list[tuple[str, int]]:
    """(agent id, when due) of every armed hook."""
    return [(hook.agent_id, hook.due_ns()) for hook in tx.wake_hooks() if hook.armed]


def fire(tx: RecordTx, now: int, agent_id: str, streaming: Callable[[str], bool], live_window_ns: int) -> bool:
    """Fire the agent's hook if it is armed and due, or disarm it (see fabricd.core.wake); whether a wake row
    was made. The entry is read before the hook, as a send does, so the two never wait on each other."""
    entry = tx.get_entry(agent_id)
    hook = tx.get_wake_hook(agent_id)
    if hook is None or not hook.armed or hook.due_ns() > now:
        return False
    queued = tx.queue_length(agent_id)
    unread = entry.unread_count if entry is not None else 0
    busy = entry is not None and presence(entry, now, live_window_ns) == Presence.BUSY
    idle = not (busy or streaming(agent_id))
    made = bool(unread or queued) and (idle or not hook.only_when_idle)
    if made:
        n = tx.next_sequence("wake")
        body = rules.payload(hook, entry.session_name if entry is not None else "", unread, queued)
        tx.put_outbox_row(OutboxRow(key=rules.row_key(agent_id, n), state=RowState.PENDING,
                                    recipient=Address(agent_id), sender=SENDER, job_id="wake", content=body,
                                    next_attempt_ns=now, create_ns=now))
        tx.wake(outbox_rules.OUTBOX)
        hook.last_fire_ns, hook.fires = now, hook.fires + 1
    _disarm(hook)
    tx.put_wake_hook(hook)
    return made


def drop_rows(tx: RecordTx, now: int, agent_id: str) -> int:
    """The mailbox of `agent_id` is removed: its pending wakes announce mail that is gone, and a hook an agent
    made again under that id sets is not theirs to fire. Each becomes a receipt saying so; how many."""
    prefix = rules.row_key(agent_id, 0)[:-12]  # `wake:<agent>:`, then 12 digits (row_key)
    doomed = []
    for _, row in tx.outbox_from(prefix):
        if not row.key.startswith(prefix):
            break
        if (row.state == RowState.PENDING and row.sender.agent_id == SENDER.agent_id
                and row.recipient.agent_id == agent_id):
            doomed.append(row)
    for row in doomed:
        tx.put_outbox_row(replace(outbox_rules.delivered(row, now, 0),
                                  last_error="not sent: the mailbox was removed"))
    return len(doomed)


def claim(tx: RecordTx, now: int, row: OutboxRow, lease_ns: int) -> tuple[OutboxRow, WakeHook] | None:
    """Take a due wake row for its sender: hold it for `lease_ns` and return it with the hook to fire.

    A row whose hook was removed since is settled here, as a receipt saying so."""
    hook = tx.get_wake_hook(row.recipient.agent_id)
    if hook is None:
        tx.put_outbox_row(replace(outbox_rules.delivered(row, now, 0), last_error="not sent: the hook was removed"))
        return None
    held = replace(row, next_attempt_ns=now + lease_ns)
    tx.put_outbox_row(held)
    return held, hook


def settle(tx: RecordTx, now: int, key: str, error: FabricError | None, policy: outbox_rules.RetryPolicy,
           rng: random.Random) -> bool:
    """Record a sender's answer: the receipt, or a retry with back-off (a dead letter at max_attempts)."""
    row = tx.get_outbox_row(SENDER.agent_id, key)
    if row is None or row.state != RowState.PENDING:
        return False
    if error is None:
        tx.put_outbox_row(outbox_rules.delivered(row, now, 0))
        return True
    tx.put_outbox_row(outbox_rules.failed(row, error, now, policy, rng))
    tx.wake(outbox_rules.OUTBOX)
    return False
