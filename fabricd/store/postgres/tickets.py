"""The rendezvous tickets on PostgreSQL: enqueue, finish, read, list a FIFO, prune; one statement or one short
transaction each, re-run safe as statements.py's (its module docstring says how).

A ticket's FIFO place is its task message's seq, taken under the target's mailbox row lock (statements.py
`_LOCK_BOXES`), so FIFO order is commit order on every node.
"""

from __future__ import annotations

import json

from fabricd.core import turns
from fabricd.core.model import Ticket, TicketOutcome, TicketState
from fabricd.store.postgres.statements import _LOCK_BOXES
from fabricd.store.postgres.usage_sql import QUEUED, UNREAD, charge, credit, freed
from fabricd.store.postgres.wake_sql import arm

_ENQUEUE = f"""
WITH box AS (
    UPDATE mailboxes SET last_seq = last_seq + 1, unread_count = unread_count + 1
    WHERE agent_id = $2 RETURNING last_seq
), msg AS (
    INSERT INTO messages (agent_id, seq, id, body) SELECT $2, last_seq, $1, $3 FROM box
), ids AS (
    INSERT INTO message_ids (id, sender, agent_id, seq, send_ns) SELECT $1, $6, $2, last_seq, $4 FROM box
), ticket AS (
    INSERT INTO tickets (ticket_id, target, queue_seq, state, source_kind, source_agent, requester,
                         conversation_id, task, enqueue_ns)
    SELECT $1, $2, last_seq, 1, $5, $6, $7, $8, $9, $4 FROM box
), active AS (
    UPDATE mailboxes SET last_activity = $4 WHERE agent_id = $6 AND $6 <> $2
), charged AS (
    {charge(f"SELECT '{UNREAD}' || $6, octet_length($3::bytea)::bigint FROM box WHERE $6 <> '' "
            f"UNION ALL SELECT '{QUEUED}' || $6, 1::bigint FROM box WHERE $6 <> ''")}
), wake AS ({arm("SELECT $2::text AS a, $1::text AS mid, $1::text AS tid, 1 AS n FROM box", "$4")}
)
SELECT last_seq, (SELECT count(*) FROM tickets WHERE target = $2 AND state = 1) AS position,
       EXISTS (SELECT 1 FROM wake) AS woke
FROM box
"""


async def enqueue_ticket(conn, ticket: Ticket, body: bytes, max_unread: int = 0) -> tuple[int, int] | int | None:  # noqa: ANN001
    """Queue a ticket and store its message in the target's mailbox; (its queue seq, position) on success.

    None: the target has no mailbox; an int: the target's unread count at the quota.
    The ticket's FIFO order is its message's seq, taken under the target's row lock,
    so FIFO order is commit order on every node, and the position counts exactly
    the tickets ahead. Re-run safe: an existing ticket id answers its place again.
    One short transaction (the lock first, so the insert's snapshot sees the queue
    as of the lock).
    """
    async with conn.transaction():
        prior = await conn.fetchrow("SELECT queue_seq, target FROM tickets WHERE ticket_id = $1", ticket.ticket_id)
        if prior is not None:
            position = await conn.fetchval(
                "SELECT count(*) FROM tickets WHERE target = $1 AND state = 1 AND queue_seq < $2",
                prior["target"], prior["queue_seq"])
            return prior["queue_seq"], position
        names = sorted({ticket.target, ticket.source_agent} - {""})
        boxes = {r["agent_id"]: r["unread_count"] for r in await conn.fetch(_LOCK_BOXES, names)}
        if ticket.target not in boxes:
            return None
        if max_unread and boxes[ticket.target] >= max_unread:
            return boxes[ticket.target]
        row = await conn.fetchrow(_ENQUEUE, ticket.ticket_id, ticket.target, body, ticket.enqueue_ns,
                                  int(ticket.source_kind), ticket.source_agent, ticket.requester,
                                  ticket.conversation_id, ticket.task)
    return row["last_seq"], row["position"]


_FINISH = f"""
WITH t AS (
    UPDATE tickets SET state = $2, result = $3, reason = $4, finish_ns = $5
    WHERE ticket_id = $1 AND state = 1 RETURNING target, queue_seq, source_agent
), box AS (
    SELECT m.agent_id FROM mailboxes m JOIN t ON m.agent_id = t.target FOR UPDATE OF m
), gone AS (
    DELETE FROM messages m USING t, box WHERE m.agent_id = box.agent_id AND m.seq = t.queue_seq RETURNING m.body
), credited AS (
    {credit(freed("gone") + f" UNION ALL SELECT '{QUEUED}' || source_agent, 1 FROM t "
            "WHERE source_agent <> ''")}
), upd AS (
    UPDATE mailboxes m SET unread_count = m.unread_count - (SELECT count(*) FROM gone) FROM box
    WHERE m.agent_id = box.agent_id
)
SELECT target FROM t
"""


async def finish_ticket(conn, ticket_id: str, state: TicketState, result: str, reason: str,  # noqa: ANN001
                        now_ns: int) -> str | None:
    """Answer or abort a QUEUED ticket and consume its message; its target, or None if it was not queued.

    One statement; a second run finds the ticket finished and changes nothing.
    """
    return await conn.fetchval(_FINISH, ticket_id, int(state), result, reason, now_ns)


def ticket_message_id(t: str) -> str:
    """SQL for the id of ticket row `t`'s current task message, as fabricd.core.model.Ticket.message_id."""
    return (f"CASE WHEN {t}.earlier = '[]' THEN {t}.ticket_id "
            f"ELSE {t}.ticket_id || '/' || (json_array_length({t}.earlier::json) + 1) END")


_TICKET_COLUMNS = ("ticket_id, target, queue_seq, state, source_kind, source_agent, requester, conversation_id, "
                   "task, enqueue_ns, finish_ns, result, reason, outcome, data, headers, result_data, result_headers, "
                   "earlier, reattached")


def _ticket(row) -> Ticket:  # noqa: ANN001
    return Ticket(ticket_id=row["ticket_id"], target=row["target"], task=row["task"], source_kind=row["source_kind"],
                  source_agent=row["source_agent"], requester=row["requester"],
                  conversation_id=row["conversation_id"], seq=row["queue_seq"], enqueue_ns=row["enqueue_ns"],
                  state=TicketState(row["state"]), result=row["result"], reason=row["reason"],
                  finish_ns=row["finish_ns"], outcome=TicketOutcome(row["outcome"]), data=bytes(row["data"]),
                  headers=json.loads(row["headers"]), result_data=bytes(row["result_data"]),
                  result_headers=json.loads(row["result_headers"]), earlier=turns.decode(row["earlier"]),
                  reattached=row["reattached"])


async def get_ticket(conn, ticket_id: str) -> Ticket | None:  # noqa: ANN001
    row = await conn.fetchrow(f"SELECT {_TICKET_COLUMNS} FROM tickets WHERE ticket_id = $1", ticket_id)
    return _ticket(row) if row is not None else None


async def queue(conn, target: str, limit: int) -> list[Ticket]:  # noqa: ANN001
    """The FIFO of `target`, head first."""
    rows = await conn.fetch(f"SELECT {_TICKET_COLUMNS} FROM tickets WHERE target = $1 AND state = 1 "
                            "ORDER BY queue_seq LIMIT $2", target, limit)
    return [_ticket(r) for r in rows]


async def prune_tickets(conn, finished_before_ns: int, limit: int) -> int:  # noqa: ANN001
    """Delete up to `limit` answered or aborted tickets that finished before `finished_before_ns`."""
    return await conn.fetchval("""
        WITH old AS (SELECT ticket_id FROM tickets WHERE state <> 1 AND finish_ns < $1 ORDER BY finish_ns LIMIT $2),
             gone AS (DELETE FROM tickets t USING old WHERE t.ticket_id = old.ticket_id RETURNING 1)
        SELECT count(*) FROM gone""", finished_before_ns, limit)

