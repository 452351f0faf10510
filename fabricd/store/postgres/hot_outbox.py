"""The outbox's hot path on PostgreSQL: PgOutbox.deliver_due / next_due.

One short transaction claims a page of due rows (outbox.py's SKIP LOCKED claim) and decides each as the
record scripts do (fabricd.core.kv.outbox.deliver_due):
- a reply row's message is appended with the others of the page as one group (hot_append.append_in:
  fabricd.core.mailbox_writes decides each, a name to resolve or a mailbox to make is read in this same
  transaction), and fabricd.core.outbox makes the row its receipt or its retry;
- a wake row is claimed for its sender (fabricd.core.wake_claims, on its hook read locked);
then outbox.settle writes every row's new state in one statement. Nothing is handed to the record script.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fabricd.core import outbox as outbox_rules
from fabricd.core import wake as wake_rules
from fabricd.core import wake_claims as claims
from fabricd.core.errors import FabricError
from fabricd.core.kv.store import KvOutbox
from fabricd.core.model import OutboxRow, RowState
from fabricd.core.wake import WakeHook
from fabricd.store.postgres import hot_append
from fabricd.store.postgres import outbox as o
from fabricd.store.postgres.engine import Attempt, PgEngine

if TYPE_CHECKING:
    from fabricd.store.postgres.conn import Conn


class PgOutbox(KvOutbox):
    __slots__ = ()
    _e: PgEngine

    async def next_due(self) -> int | None:
        return await self._e.op(lambda conn, _: o.next_due(conn), rerun_safe=True)

    async def deliver_due(self, limit: int, policy: outbox_rules.RetryPolicy,
                          max_unread: int) -> outbox_rules.DrainResult:
        due = await self.next_due()
        now = self._clock()
        if due is None or due > now:
            return outbox_rules.DrainResult(0, 0, more=False)  # nothing due: no write

        async def run(conn: Conn, attempt: Attempt) -> tuple[outbox_rules.DrainResult, dict[str, None], int]:
            async with conn.transaction():
                rows = await o.claim_due(conn, now, limit + 1)
                batch = rows[:limit]
                if not batch:  # another node took them
                    return outbox_rules.DrainResult(0, 0, more=False), {}, 0
                wakes = [r for r in batch if wake_rules.is_wake_row(r.key)]
                posts = [r for r in batch if not wake_rules.is_wake_row(r.key)]
                woken: dict[str, None] = {}
                settled = []
                stored = 0
                if posts:  # each reply as fabricd.core.kv.outbox.post stores it: a new name gets its mailbox
                    group = hot_append.prepare([(outbox_rules.message_of(r), b"") for r in posts], self._mint, now,
                                               create=True, atomic=False, max_unread=max_unread, quota=None)
                    done = await hot_append.append_in(conn, group)
                    for row, result in zip(posts, done.results, strict=True):
                        if isinstance(result, FabricError):
                            settled.append(outbox_rules.failed(row, result, now, policy, self._rng))
                        else:
                            settled.append(outbox_rules.delivered(row, now, result.message.seq))
                            stored += bool(result.encoded)
                    woken = done.woken
                # after the appends: mailboxes are locked before hooks, as a send (which arms them) locks them
                claimed, held = await _claim_wakes(conn, wakes, now, int(policy.lease_s * 1e9))
                await o.settle(conn, posts + wakes, settled + [c.row for c in claimed])
                attempt.committing = True
            posted = sum(r.state == RowState.DELIVERED for r in settled)
            return (outbox_rules.DrainResult(posted, len(settled) - posted, more=len(rows) > limit,
                                             claimed=tuple(held)), woken, stored)

        result, woken, stored = await self._e.op(run, rerun_safe=True)  # re-run: claimed rows are receipts by then
        self._e.committed(woken, stored)
        return result


async def _claim_wakes(conn: Conn, wakes: list[OutboxRow], now: int,
                       lease_ns: int) -> tuple[list[claims.WakeClaim], list[tuple[OutboxRow, WakeHook]]]:
    """Claim a page's wake rows for their sender (fabricd.core.wake_claims decides each, in page order, on
    its hook as the rows before left it); their hooks are read locked and written here, the rows by the
    caller. (each row's claim, the rows taken for sending now with their hooks)."""
    if not wakes:
        return [], []
    hooks = await o.lock_hooks(conn, sorted({r.recipient.agent_id for r in wakes}))
    changed: set[str] = set()
    out, held = [], []
    for row in wakes:
        agent = row.recipient.agent_id
        decided = claims.claim(row, hooks.get(agent), now, lease_ns)
        if decided.hook is not None:
            hooks[agent] = decided.hook
            changed.add(agent)
            if decided.send:
                held.append((decided.row, decided.hook))
        out.append(decided)
    await o.put_hooks(conn, [hooks[a] for a in sorted(changed)])
    return out, held
