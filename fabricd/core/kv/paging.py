"""Transaction scripts of the lists: one page per read, from a cursor, within a count and a byte budget.

Each script reads only the page it returns (plus one item, to know whether
the list goes on): LMDB seeks its cursor to the key after the last one read;
a SQL backend does the same with `WHERE key > $cursor ORDER BY key LIMIT n`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, TypeVar

from fabricd.core.kv.directory import resolve_name
from fabricd.core.kv.tx import RecordTx
from fabricd.core.model import MailboxEntry, OutboxRow, RowState, Ticket
from fabricd.core.paging import Page, bad_token, take

if TYPE_CHECKING:
    from fabricd.core.agentdir import Agent, Thread, WorkRequest
    from fabricd.core.model_channels import Channel, Member
    from fabricd.core.tokens import Token

T = TypeVar("T")

SCAN_FACTOR = 10
"""A filtered list reads at most this many rows per item asked for; a page may then come back short."""


def _seq(cursor: str) -> int:
    if not cursor:
        return 0
    if not cursor.isdigit():
        raise bad_token("is not one this daemon handed out")
    return int(cursor)


def _page(source: Iterator[tuple[object, T]], limit: int, max_bytes: int, scan: int = 0,
          keep: Callable[[T], bool] | None = None) -> Page[T]:
    rows = source if keep is None else ((c, item if keep(item) else None) for c, item in source)
    try:
        items, last = take(rows, limit, max_bytes, scan=scan)
    except ValueError:  # the backend could not read the cursor
        raise bad_token("is not one this daemon handed out") from None
    finally:  # closed here, inside the read, however far it was read (a backend's reads are generators)
        close = getattr(source, "close", None)
        if close is not None:
            close()
    return Page(items, "" if last is None else str(last))


def mailboxes(tx: RecordTx, after: str, limit: int, max_bytes: int) -> Page[MailboxEntry]:
    return _page(tx.entries_from(after), limit, max_bytes)


def queue(tx: RecordTx, name: str, after: str, limit: int, max_bytes: int) -> tuple[str, Page[Ticket]]:
    """The agent a queue name means, and a page of its FIFO."""
    entry = resolve_name(tx, name)
    agent_id = entry.agent_id if entry is not None else name
    return agent_id, _page(tx.queue_from(agent_id, _seq(after)), limit, max_bytes)


def outbox(tx: RecordTx, after_key: str, limit: int, state: RowState, max_bytes: int) -> Page[OutboxRow]:
    if state == RowState.UNSPECIFIED:
        return _page(tx.outbox_from(after_key), limit, max_bytes)
    return _page(tx.outbox_from(after_key), limit, max_bytes, max(limit * SCAN_FACTOR, 1000),
                 keep=lambda row: row.state == state)


def agents(tx: RecordTx, after: str, limit: int, max_bytes: int) -> Page[Agent]:
    return _page(tx.agents_from(after), limit, max_bytes)


def threads(tx: RecordTx, agent_id: str, after: str, limit: int, max_bytes: int) -> Page[Thread] | None:
    """None when the agent is unknown."""
    if tx.get_agent(agent_id) is None:
        return None
    return _page(tx.threads_from(agent_id, _seq(after)), limit, max_bytes)


def requests(tx: RecordTx, which: int, after: str, limit: int, max_bytes: int) -> Page[WorkRequest]:
    return _page(tx.requests_from(which, _seq(after)), limit, max_bytes)


def tokens(tx: RecordTx, after: str, limit: int, max_bytes: int) -> Page[Token]:
    return _page(tx.tokens_from(after), limit, max_bytes)


def channels(tx: RecordTx, after: str, limit: int, max_bytes: int) -> Page[Channel]:
    return _page(tx.channels_from(after), limit, max_bytes)


def members(tx: RecordTx, channel: str, after: str, limit: int, max_bytes: int) -> Page[Member]:
    return _page(tx.members_from(channel, after), limit, max_bytes)
