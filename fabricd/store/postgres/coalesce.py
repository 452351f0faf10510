"""Group commit for single sends on PostgreSQL: concurrent SendMessage calls share one batch.

    store.mailboxes = GroupedMailboxes(engine, clock, mint)     # store.py: PgStore does this

Every single send takes its recipient's row lock (`last_seq = last_seq + 1`), so many
producers sending to one mailbox queue on that lock, one statement and one commit each.
Here, as LMDB's writer does with its transactions, a node runs at most `LANES` single
sends at once; a send that arrives while every lane is busy waits, and when a lane frees,
every send waiting with the same limits (up to `MAX_GROUP`) goes as one batch: hot.py's
batch path, not atomic, so one lock, one statement and one commit for the lot.
Nothing sleeps to gather: a send that finds a lane free runs at once, alone, as before
(one statement), so a lone caller's latency is unchanged.

Each caller gets its own outcome, as if the group's sends had run one after another in
arrival order (they were concurrent, so any order is one they could have had):
- the batch is not atomic: a refusal the hot path names (a full mailbox, a reused id)
  is that item's alone; items are counted in order, so a mailbox fills, a quota is
  used and a duplicate id is found exactly as by sends one after another;
- what the group's facts do not settle (a name to resolve, a mailbox to make) the decider
  asks for, and the group reads it in its own transaction (hot_append.py);
- a group that fails as a whole for another reason than an unreachable database (a
  statement the database rejects: nothing was committed) is run again call by call, at
  once, so a failure caused by one caller's send stays that caller's.
A caller that leaves while it waits sends nothing; one that leaves once its group has
started is as a lone caller that leaves mid-statement: its send may be stored.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

from fabricd.core import quota as quotas
from fabricd.core.errors import FabricError, Unavailable
from fabricd.core.model import Message, Sent
from fabricd.store.postgres.engine import PgEngine
from fabricd.store.postgres.hot import PgMailboxes

LANES = 1
"""Single sends (alone or grouped) a node runs at once; the others wait for a lane. One, as LMDB's single
writer: beside 2 and 4 it spent the least CPU per message, in the node and in the database, at no cost in
rate (the figures are in the commit that says why one lane)."""
MAX_GROUP = 256
"""Sends run as one batch at most."""

Result = list[Sent | FabricError]
_Key = tuple[bool, int, quotas.Quotas | None]


class _Waiting:
    __slots__ = ("key", "item", "done")

    def __init__(self, key: _Key, item: tuple[Message, bytes], done: asyncio.Future[Result]) -> None:
        self.key = key
        self.item = item
        self.done = done


class GroupedMailboxes(PgMailboxes):
    """PgMailboxes whose single, non-atomic sends run as one batch while others are in flight."""

    __slots__ = ("_busy", "_waiting", "_groups")

    def __init__(self, engine: PgEngine, clock: Callable[[], int], mint: Callable[[int], str]) -> None:
        super().__init__(engine, clock, mint)
        self._busy = 0
        """Lanes in use: single sends or groups of them in flight."""
        self._waiting: list[_Waiting] = []
        self._groups: set[asyncio.Task[None]] = set()

    async def append(self, items: Sequence[tuple[Message, bytes]], *, create: bool, atomic: bool,
                     max_unread: int, quota: quotas.Quotas | None = None) -> Result:
        if len(items) != 1 or atomic:
            return await super().append(items, create=create, atomic=atomic, max_unread=max_unread, quota=quota)
        if self._busy < LANES:
            self._busy += 1
            try:
                return await super().append(items, create=create, atomic=False, max_unread=max_unread, quota=quota)
            finally:
                self._free()
        done: asyncio.Future[Result] = asyncio.get_running_loop().create_future()
        self._waiting.append(_Waiting((create, max_unread, quota), items[0], done))
        return await done  # a caller that leaves before its group starts sends nothing

    def _free(self) -> None:
        """A lane is free: the sends waiting with the oldest one's limits take it, as one group."""
        self._busy -= 1
        self._waiting = [w for w in self._waiting if not w.done.done()]
        if not self._waiting:
            return
        key = self._waiting[0].key
        group = [w for w in self._waiting if w.key == key][:MAX_GROUP]
        taken = set(map(id, group))
        self._waiting = [w for w in self._waiting if id(w) not in taken]
        self._busy += 1
        task = asyncio.get_running_loop().create_task(self._run(key, group))
        self._groups.add(task)
        task.add_done_callback(self._groups.discard)

    async def _run(self, key: _Key, group: list[_Waiting]) -> None:
        create, max_unread, quota = key
        try:
            try:
                out = await super().append([w.item for w in group], create=create, atomic=False,
                                           max_unread=max_unread, quota=quota)
            except Unavailable as exc:  # the database, not a send: every caller hears it (its own copy)
                for w in group:
                    _fail(w.done, _copy(exc))
                return
            except Exception:  # whatever it was, each call runs again on its own to get its own
                await asyncio.gather(*(self._alone(key, w) for w in group))
                return
            for w, result in zip(group, out, strict=True):
                _settle(w.done, [result])
        except BaseException as exc:  # cancelled (shutdown): nobody is left waiting forever
            for w in group:
                _fail(w.done, exc if isinstance(exc, Exception) else Unavailable(
                    "the daemon is shutting down", reason="SHUTTING_DOWN"))
            raise
        finally:
            self._free()

    async def _alone(self, key: _Key, w: _Waiting) -> None:
        create, max_unread, quota = key
        try:
            _settle(w.done, await PgMailboxes.append(self, [w.item], create=create, atomic=False,
                                                      max_unread=max_unread, quota=quota))
        except Exception as exc:  # handed to its caller
            _fail(w.done, exc)


def _copy(exc: Unavailable) -> Unavailable:
    out = type(exc)(exc.message, reason=exc.reason, **exc.metadata)
    out.__cause__ = exc.__cause__
    return out


def _settle(done: asyncio.Future[Result], result: Result) -> None:
    """Hand a waiting caller its outcome (nothing when it left)."""
    if not done.done():
        done.set_result(result)


def _fail(done: asyncio.Future[Result], exc: BaseException) -> None:
    """Hand a waiting caller its exception (nothing when it left)."""
    if not done.done():
        done.set_exception(exc)
