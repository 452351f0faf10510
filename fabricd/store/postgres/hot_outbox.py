"""The outbox's hot path on PostgreSQL: PgOutbox.deliver_due / next_due.

One short transaction claims a page of due rows (outbox.py's SKIP LOCKED claim), appends
their messages as one batch (statements.py), makes the missing mailboxes they go to, and
turns the posted rows into receipts (fabricd.core.outbox decides each row's new state; outbox.settle
writes them). A page's wake rows are claimed for their sender in the same transaction
(fabricd.core.wake_claims decides, on their hooks read locked). A mailbox to make that the record
script must decide hands the page over whole (hot.py `_Handover`).
"""

from __future__ import annotations

from typing import Any

from fabricd.core import outbox as outbox_rules
from fabricd.core import wake as wake_rules
from fabricd.core import wake_claims as claims
from fabricd.core.errors import FabricError
from fabricd.core.kv import mailbox
from fabricd.core.kv.directory import DIRECTORY
from fabricd.core.kv.store import KvOutbox
from fabricd.core.model import Change, OutboxRow, RowState
from fabricd.core.wake import WakeHook
from fabricd.store.postgres import outbox as o
from fabricd.store.postgres import statements as s
from fabricd.store.postgres.engine import Attempt, PgEngine
from fabricd.store.postgres.hot import _bodies, _Handover, _outcome

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

        async def run(conn: Any, attempt: Attempt) -> tuple[outbox_rules.DrainResult, list[str]]:
            async with conn.transaction():
                rows = await o.claim_due(conn, now, limit + 1)
                batch = rows[:limit]
                if not batch:  # another node took them
                    return outbox_rules.DrainResult(0, 0, more=False), []
                wakes = [r for r in batch if wake_rules.is_wake_row(r.key)]
                posts = [r for r in batch if not wake_rules.is_wake_row(r.key)]
                claimed, held = await _claim_wakes(conn, wakes, now, int(policy.lease_s * 1e9))
                woken: list[str] = []
                settled = []
                if posts:
                    msgs = [outbox_rules.message_of(r) for r in posts]
                    prepared = _bodies([(m, b"") for m in msgs], now, self._mint)
                    items = [item for _, _, item in prepared]
                    done = await s.append_many(conn, items, now, max_unread)
                    if await _create_missing(conn, items, done, now, max_unread):
                        woken.append(DIRECTORY)
                    for row, msg, (stored, body, _), d in zip(posts, msgs, prepared, done, strict=True):
                        result = _outcome(msg, stored, body, b"", d, max_unread)
                        if isinstance(result, FabricError):
                            settled.append(outbox_rules.failed(row, result, now, policy, self._rng))
                        else:
                            settled.append(outbox_rules.delivered(row, now, result.message.seq))
                    woken += [mailbox.key(m.recipient.agent_id) for m, d in zip(msgs, done, strict=True) if d.seq]
                    if any(d.woke for d in done):
                        woken.append(wake_rules.WAKE)
                await o.settle(conn, posts + wakes, settled + [c.row for c in claimed])
                attempt.committing = True
            posted = sum(r.state == RowState.DELIVERED for r in settled)
            return outbox_rules.DrainResult(posted, len(settled) - posted, more=len(rows) > limit,
                                            claimed=tuple(held)), woken

        try:
            result, woken = await self._e.op(run, rerun_safe=True)  # re-run: claimed rows are receipts by then
        except _Handover:
            return await super().deliver_due(limit, policy, max_unread)
        self._e.committed(dict.fromkeys(woken), len(woken) - (DIRECTORY in woken) - (wake_rules.WAKE in woken))
        return result


async def _claim_wakes(conn: Any, wakes: list[OutboxRow], now: int,
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


_NAMED = """
SELECT 1 FROM mailboxes WHERE session_name <> '' AND session_name = ANY($1::text[]) LIMIT 1
"""

_NUMBER_CREATED = """
WITH rev AS (
    UPDATE counters SET value = value + cardinality($1::text[]) WHERE name = 'revision' RETURNING value
)
UPDATE mailboxes m SET revision = (SELECT value FROM rev) - cardinality($1::text[]) + v.o, change = $2
FROM unnest($1::text[]) WITH ORDINALITY AS v(a, o) WHERE m.agent_id = v.a
"""


async def _create_missing(conn: Any, items: list[s.Item], done: list[s.Appended], now: int, max_unread: int) -> bool:
    """Make the mailboxes an outbox page's replies go to but that do not exist, then store those replies
    (`done` updated in place); whether any was made. Raises _Handover when a name might resolve to an
    agent (a session name, `session/segment`): the record script decides those.

    The rows are inserted in agent id order before the directory's revision counter is taken, the order
    the record scripts lock in, and each new mailbox gets its own revision (change CREATED), as there.
    """
    waiting = [i for i, d in enumerate(done) if d.seq is None and d.prior is None and d.unread is None]
    if not waiting:
        return False
    if any(items[i].sender and items[i].sender != items[i].agent_id for i in waiting):
        raise _Handover  # a mailbox made by an agent's mail is charged to it (fabricd.core.quota): the record script
    names = sorted({items[i].agent_id for i in waiting})
    sessions = names + [n.rsplit("/", 1)[0] for n in names if "/" in n]
    if await conn.fetchval(_NAMED, sessions):
        raise _Handover
    made = [r["agent_id"] for r in await conn.fetch(
        "INSERT INTO mailboxes (agent_id) SELECT a FROM unnest($1::text[]) AS a ORDER BY a "
        "ON CONFLICT (agent_id) DO NOTHING RETURNING agent_id", names)]
    if made:
        await conn.execute(_NUMBER_CREATED, sorted(made), int(Change.CREATED))
    again = await s.append_many(conn, [items[i] for i in waiting], now, max_unread)
    for i, d in zip(waiting, again, strict=True):
        done[i] = d
    return bool(made)
