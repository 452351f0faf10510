"""Transaction scripts of the outbox: add rows, deliver due rows with their receipts, operators' work."""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Sequence

from fabricd.core import outbox as rules
from fabricd.core import quota as quotas
from fabricd.core import wake as wake_rules
from fabricd.core.errors import FabricError
from fabricd.core.kv import mailbox, wake
from fabricd.core.kv.tx import RecordTx
from fabricd.core.model import OutboxRow, RowState

log = logging.getLogger("fabricd.outbox")

OUTBOX = rules.OUTBOX


def add(tx: RecordTx, row: OutboxRow) -> bool:
    """Queue one PENDING row; False when its settling agent has a row with its key (a replay: pending,
    dead-lettered or delivered). Another agent's row with the same key is another row."""
    if not tx.add_outbox_row(row):  # one check-and-insert: on PostgreSQL another node may have added it since
        return False
    tx.wake(OUTBOX)
    return True


def add_all(tx: RecordTx, rows: Sequence[OutboxRow], quota: quotas.Quotas | None = None) -> int:
    """Queue the rows whose keys are new; with a `quota`, each sender is held to its outbox-rows quota first.
    A row whose key already names a reply to another recipient refuses the lot (OUTBOX_KEY_REUSED)."""
    new = []
    for row in rows:
        was = tx.get_outbox_row(row.sender.agent_id, row.key)
        if was is None:
            new.append(row)
        elif was.recipient != row.recipient:
            raise rules.key_reused(row, was)
    if quota is not None and quota.outbox_rows:
        adding: dict[str, int] = {}
        for row in new:
            sender = quotas.outbox_holder(row.key, row.state, row.sender.agent_id)
            adding[sender] = adding.get(sender, 0) + 1
        for sender, n in adding.items():
            if sender:
                quotas.check(quotas.OUTBOX_ROWS, sender, quota.outbox_rows, tx.usage(sender).outbox_rows, n)
    return sum(add(tx, row) for row in rows)


def post(tx: RecordTx, now: int, mint: Callable[[int], str], row: OutboxRow, policy: rules.RetryPolicy,
         rng: random.Random, max_unread: int) -> bool:
    """Post one row: its message and its receipt, or (refused) its retry; whether it was delivered."""
    try:
        sent = mailbox.store(tx, now, mint, rules.message_of(row), b"", True, max_unread)
    except FabricError as exc:  # raised before anything is written: the row alone changes
        tx.put_outbox_row(rules.failed(row, exc, now, policy, rng))
        return False
    tx.put_outbox_row(rules.delivered(row, now, sent.message.seq))  # the receipt replaces the row
    return True


def deliver_due(tx: RecordTx, now: int, mint: Callable[[int], str], limit: int, policy: rules.RetryPolicy,
                rng: random.Random, max_unread: int) -> rules.DrainResult:
    rows = tx.due_outbox_rows(now, limit + 1)
    posted = failed = 0
    claimed = []
    for row in rows[:limit]:
        if wake_rules.is_wake_row(row.key):  # sent outside the transaction: claimed here, settled later
            taken = wake.claim(tx, now, row, int(policy.lease_s * 1e9))
            if taken is not None:
                claimed.append(taken)
        elif post(tx, now, mint, row, policy, rng, max_unread):
            posted += 1
        else:
            failed += 1
    return rules.DrainResult(posted, failed, more=len(rows) > limit, claimed=tuple(claimed))


def settle_wake(tx: RecordTx, now: int, mint: Callable[[int], str], key: str, error: FabricError | None,
                policy: rules.RetryPolicy, rng: random.Random) -> bool:
    """A wake row's send answered (fabricd.core.kv.wake.settle); a hook it disabled tells its owner by mail."""
    delivered, notice = wake.settle(tx, now, key, error, policy, rng)
    if notice is not None:
        try:
            mailbox.store(tx, now, mint, notice, b"", False, 0)
        except FabricError as exc:  # the mailbox is gone: GetWakeHook still shows the hook disabled
            log.warning("the owner of %s's disabled wake hook was not told: %s", notice.recipient.agent_id,
                        exc.message)
    return delivered


def _all(tx: RecordTx, state: RowState) -> list[OutboxRow]:
    rows: list[OutboxRow] = []
    after = ""
    while True:
        page = tx.outbox_rows(after, 1000, state)
        rows.extend(page)
        if len(page) < 1000:
            return rows
        after = rules.row_cursor(page[-1])


def retry_dead_letters(tx: RecordTx, now: int, keys: Sequence[str]) -> int:
    if keys:
        rows = [row for k in dict.fromkeys(keys) for row in tx.outbox_rows_keyed(k)]
    else:
        rows = _all(tx, RowState.DEAD_LETTER)
    retried = 0
    for listed in rows:
        # Read again (in a write on PostgreSQL: locked, and as committed since): another node may have retried
        # and delivered it meanwhile; put back as read, its receipt would go out again.
        row = listed if keys else tx.get_outbox_row(listed.sender.agent_id, listed.key)
        if row is None or row.state != RowState.DEAD_LETTER:
            continue
        row.state = RowState.PENDING
        row.attempts = 0
        row.next_attempt_ns = now
        tx.put_outbox_row(row)
        retried += 1
    if retried:
        tx.wake(OUTBOX)
    return retried


def prune_receipts(tx: RecordTx, before_ns: int) -> int:
    pruned = 0
    for listed in _all(tx, RowState.DELIVERED):
        if listed.deliver_ns >= before_ns:
            continue
        # Read again, locked on PostgreSQL: another node may have pruned it (or a replay written it again) since.
        row = tx.get_outbox_row(listed.sender.agent_id, listed.key)
        if row is not None and row.state == RowState.DELIVERED and row.deliver_ns < before_ns:
            tx.delete_outbox_row(row.sender.agent_id, row.key)
            pruned += 1
    return pruned


def counts(tx: RecordTx) -> tuple[int, int, int]:
    pending, rows = tx.outbox_counts()
    return pending, rows, len(tx.outbox_rows("", 1_000_000, RowState.DEAD_LETTER))
