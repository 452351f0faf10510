"""Transaction scripts of wake hooks: set and remove them, arm on arrival, fire due hooks, claim and settle
wake rows (the rules are fabricd.core.wake's)."""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from dataclasses import replace

from fabricd.core import directory as directory_rules
from fabricd.core import outbox as outbox_rules
from fabricd.core import wake as rules
from fabricd.core import wake_claims as claims
from fabricd.core.errors import FabricError
from fabricd.core.kv.directory import similar_names
from fabricd.core.kv.tx import RecordTx
from fabricd.core.model import Address, Message, MessageKind, OutboxRow, Presence, RowState, presence
from fabricd.core.wake import WAKE, WakeHook

log = logging.getLogger("fabricd.wake")

SENDER = Address("fabricd", "wake")
"""The `sender` of wake rows as `fabric outbox ls` shows them."""


def set_hook(tx: RecordTx, hook: WakeHook) -> WakeHook:
    """Store a new hook for an existing agent or mailbox (firing state starts afresh); NAME_NOT_FOUND else."""
    if tx.get_entry(hook.agent_id) is None:
        raise directory_rules.name_not_found(hook.agent_id, similar_names(tx, hook.agent_id))
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
    made = bool(unread or queued) and (idle or not hook.only_when_idle) and not hook.disabled
    if made:
        body = rules.payload(hook, entry.session_name if entry is not None else "", unread, queued)
        waiting = tx.get_outbox_row(SENDER.agent_id, hook.queued_key) if hook.queued_key else None
        if waiting is not None and waiting.state == RowState.PENDING:
            tx.put_outbox_row(replace(waiting, content=body))  # one row waits per hook: it says the latest
        else:
            n = tx.next_sequence("wake")
            hook.queued_key = rules.row_key(agent_id, n)
            tx.put_outbox_row(OutboxRow(key=hook.queued_key, state=RowState.PENDING, recipient=Address(agent_id),
                                        sender=SENDER, job_id="wake", content=body,
                                        next_attempt_ns=max(now, hook.retry_ns), create_ns=now))
            tx.wake(outbox_rules.OUTBOX)
            hook.fires += 1
        hook.last_fire_ns = now
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
        tx.put_outbox_row(claims.unsent(row, now, "the mailbox was removed"))
    return len(doomed)


def claim(tx: RecordTx, now: int, row: OutboxRow, lease_ns: int) -> tuple[OutboxRow, WakeHook] | None:
    """Take a due wake row for its sender (fabricd.core.wake_claims.claim decides): the row held for `lease_ns`
    with its hook, or None (settled as a receipt, or put off while its hook backs off or sends another)."""
    decided = claims.claim(row, tx.get_wake_hook(row.recipient.agent_id), now, lease_ns)
    tx.put_outbox_row(decided.row)
    if decided.hook is not None:
        tx.put_wake_hook(decided.hook)
    return (decided.row, decided.hook) if decided.send and decided.hook is not None else None


def settle(tx: RecordTx, now: int, key: str, error: FabricError | None, policy: outbox_rules.RetryPolicy,
           rng: random.Random) -> tuple[bool, Message | None]:
    """Record a sender's answer: the receipt, or a failure that backs the hook off (its waiting row, or this
    one, retried when the back-off ends; a dead letter at max_attempts) and, the `policy.disable_after`-th in
    a row, disables it (fabricd.core.wake). Whether the row was delivered, and the message that tells the
    hook's owner it was disabled (the caller stores it in this transaction)."""
    row = tx.get_outbox_row(SENDER.agent_id, key)
    if row is None or row.state != RowState.PENDING:
        return False, None
    hook = tx.get_wake_hook(row.recipient.agent_id)
    if hook is None or hook.sending_key != key:  # the hook was set again meanwhile: this row is no longer its
        tx.put_outbox_row(outbox_rules.delivered(row, now, 0) if error is None
                          else outbox_rules.failed(row, error, now, policy, rng))
        tx.wake(outbox_rules.OUTBOX)
        return error is None, None
    hook.sending_key, hook.sending_until_ns = "", 0
    waiting = tx.get_outbox_row(SENDER.agent_id, hook.queued_key) if hook.queued_key else None
    if waiting is not None and waiting.state != RowState.PENDING:
        waiting, hook.queued_key = None, ""
    if error is None:
        hook.failures, hook.retry_ns, hook.last_error = 0, 0, ""
        tx.put_outbox_row(outbox_rules.delivered(row, now, 0))
        if waiting is not None:  # it waited for this send, not for a back-off
            tx.put_outbox_row(replace(waiting, next_attempt_ns=now))
            tx.wake(outbox_rules.OUTBOX)
        tx.put_wake_hook(hook)
        return True, None
    hook.failures += 1
    hook.last_error = f"{error.reason}: {error.message}"[:500]
    if policy.disable_after and hook.failures >= policy.disable_after:
        return False, _disable(tx, now, hook, row, waiting)
    hook.retry_ns = now + int(policy.delay_s(hook.failures, rng) * 1e9)
    if waiting is not None:  # a newer wake waits: it says what this one said, and more
        tx.put_outbox_row(claims.unsent(row, now, f"{waiting.key} came after it ({hook.last_error})"))
        tx.put_outbox_row(replace(waiting, next_attempt_ns=hook.retry_ns))
    else:
        retried = outbox_rules.failed(row, error, now, policy, rng)
        if retried.state == RowState.PENDING:
            retried = replace(retried, next_attempt_ns=hook.retry_ns)
            hook.queued_key = row.key  # the next fire rewrites it
        tx.put_outbox_row(retried)
    tx.put_wake_hook(hook)
    tx.wake(outbox_rules.OUTBOX)
    return False, None


def _disable(tx: RecordTx, now: int, hook: WakeHook, row: OutboxRow, waiting: OutboxRow | None) -> Message:
    """The hook failed `failures` sends in a row: disable it, settle its rows, and say so in its owner's mailbox."""
    hook.disabled_ns, hook.retry_ns, hook.queued_key = now, 0, ""
    _disarm(hook)
    why = f"the hook was disabled after {hook.failures} failed sends in a row ({hook.last_error})"
    for unsent in (row, waiting):
        if unsent is not None:
            tx.put_outbox_row(claims.unsent(unsent, now, why))
    tx.put_wake_hook(hook)
    target = f"POST {hook.url}" if hook.url else f"the command {hook.command[0]}"
    log.warning("wake hook of %s disabled after %d failed sends in a row: %s", hook.agent_id, hook.failures,
                hook.last_error)
    return Message(sender=SENDER, recipient=Address(hook.agent_id), kind=MessageKind.AGENT,
                   headers={"fabricd-wake": "disabled"},
                   text=f"Your wake hook ({target}) failed {hook.failures} times in a row and is disabled: it "
                        f"wakes you no more. Last error: {hook.last_error}. Fix it, then set the hook again "
                        "(SetWakeHook, `fabric wake set`).")
