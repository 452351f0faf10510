"""The rendezvous tickets on PostgreSQL: the enqueue's facts and its write, a ticket's row, a FIFO, pruning.

An enqueue is one short transaction: ENQUEUE_FACTS reads and locks what fabricd.core.tickets.enqueue decides
on (the target's and the asker's mailbox rows in agent id order, then the ticket, then the target's wake
hook), and one of the two write statements applies the decision. A write re-checks, by equality only, the
facts that a row lock does not pin (the asker's usage counters and the hook as read): when another
transaction moved them meanwhile it writes nothing and the facts are read again.

A ticket's FIFO place is its task message's seq, taken under the target's mailbox row lock, so FIFO order
is commit order on every node.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from fabricd.core import turns
from fabricd.core.model import Ticket, TicketOutcome, TicketState
from fabricd.store.postgres.usage_sql import MESSAGES_UNREAD, QUEUED, UNREAD, charge, moved

if TYPE_CHECKING:
    from asyncpg import Record

    from fabricd.store.postgres.conn import Conn

TICKET_COLUMNS = ("ticket_id, target, queue_seq, state, source_kind, source_agent, requester, conversation_id, "
                   "task, enqueue_ns, finish_ns, result, reason, outcome, data, headers, result_data, result_headers, "
                   "earlier, reattached")


def usage_names(asker: str) -> list[str]:
    """The counters an asker held to its quotas is checked against: its unread bytes, its queued tickets, its
    unread messages."""
    return [UNREAD + asker, QUEUED + asker, MESSAGES_UNREAD + asker] if asker else []


_USED = ("ARRAY(SELECT coalesce(c.value, 0) FROM unnest({names}::text[]) WITH ORDINALITY AS u(n, o) "
         "LEFT JOIN counters c ON c.name = u.n ORDER BY u.o)")

ENQUEUE_FACTS = f"""
WITH box AS (
    SELECT agent_id, unread_count FROM mailboxes WHERE agent_id = ANY($1::text[]) ORDER BY agent_id FOR UPDATE
), t AS (
    SELECT {TICKET_COLUMNS} FROM tickets WHERE ticket_id = $3 AND EXISTS (SELECT 1 FROM box WHERE agent_id = $2)
    FOR UPDATE
), hook AS (
    SELECT w.body FROM wake_hooks w JOIN box b ON b.agent_id = w.agent_id WHERE w.agent_id = $2 FOR UPDATE OF w
)
SELECT b.unread_count AS unread, (SELECT body FROM hook) AS hook, {_USED.format(names="$4")} AS used,
       (SELECT count(*) FROM tickets q JOIN t ON q.target = t.target
        WHERE t.state = 1 AND q.state = 1 AND q.queue_seq < t.queue_seq) AS ahead, t.*
FROM (SELECT 1) AS one LEFT JOIN box b ON b.agent_id = $2 LEFT JOIN t ON true
"""
"""Facts of an enqueue to agent $2 (NULL unread: no mailbox has that id) asked by $1's other agent, of ticket
$3, with the usage counters $4; `ahead`: the tickets before the stored one in its FIFO."""

_WRITE = f"""
WITH ok AS (
    SELECT 1 WHERE (SELECT body FROM wake_hooks WHERE agent_id = $2) IS NOT DISTINCT FROM $15::bytea
               AND {_USED.format(names="$16")} = $17::bigint[]
), box AS (
    UPDATE mailboxes SET last_seq = last_seq + 1, unread_count = unread_count + 1
    WHERE agent_id = $2 AND EXISTS (SELECT 1 FROM ok) RETURNING last_seq
), msg AS (
    INSERT INTO messages (agent_id, seq, id, body, sender) SELECT $2, last_seq, $10, $3, $6 FROM box
), ids AS (  -- the task's id names a new message: a consumed one's record (a pruned ticket's) is renewed
    INSERT INTO message_ids (id, sender, agent_id, seq, send_ns) SELECT $10, $6, $2, last_seq, $4 FROM box
    ON CONFLICT (id, sender) DO UPDATE SET agent_id = EXCLUDED.agent_id, seq = EXCLUDED.seq,
        send_ns = EXCLUDED.send_ns, digest = NULL
), ticket AS (
    {{ticket}}
), active AS (
    UPDATE mailboxes SET last_activity = $4 WHERE agent_id = $6 AND $6 <> $2 AND EXISTS (SELECT 1 FROM box)
), charged AS (
    {charge(moved("SELECT $6::text, octet_length($3::bytea) FROM box")
            + f" UNION ALL SELECT '{QUEUED}' || $6, 1::bigint FROM box WHERE $6 <> ''")}
), armed AS (
    UPDATE wake_hooks SET body = $14 WHERE agent_id = $2 AND $14::bytea IS NOT NULL AND EXISTS (SELECT 1 FROM box)
)
SELECT last_seq, (SELECT count(*) FROM tickets WHERE target = $2 AND state = 1) AS position FROM box
"""

ENQUEUE_NEW = _WRITE.format(ticket="""INSERT INTO tickets (ticket_id, target, queue_seq, state, source_kind, source_agent,
        requester, conversation_id, task, enqueue_ns, data, headers, earlier)
    SELECT $1, $2, last_seq, 1, $5, $6, $7, $8, $9, $4, $11, $12, $13 FROM box""")
"""Store a new ticket of id $1 for agent $2 with its task message ($10, body $3) and the decided hook ($14, NULL:
untouched), if the hook is still $15 and the usage counters $16 still $17; no row when they moved."""

ENQUEUE_FOLLOW_UP = _WRITE.format(ticket="""UPDATE tickets k SET queue_seq = box.last_seq, state = 1, task = $9,
        source_kind = $5, requester = $7, conversation_id = $8, enqueue_ns = $4, data = $11, headers = $12, earlier = $13, finish_ns = 0, result = '', reason = '',
        outcome = 0, result_data = '', result_headers = '{}' FROM box WHERE k.ticket_id = $1""")
"""ENQUEUE_NEW for a ticket queued again with its next turn (its row moves to the new seq)."""

def ticket_message_id(t: str) -> str:
    """SQL for the id of ticket row `t`'s current task message, as fabricd.core.model.Ticket.message_id."""
    return (f"CASE WHEN {t}.earlier = '[]' THEN {t}.ticket_id "
            f"ELSE {t}.ticket_id || '/' || (json_array_length({t}.earlier::json) + 1) END")


def ticket_of(row: Record) -> Ticket:
    return Ticket(ticket_id=row["ticket_id"], target=row["target"], task=row["task"], source_kind=row["source_kind"],
                  source_agent=row["source_agent"], requester=row["requester"],
                  conversation_id=row["conversation_id"], seq=row["queue_seq"], enqueue_ns=row["enqueue_ns"],
                  state=TicketState(row["state"]), result=row["result"], reason=row["reason"],
                  finish_ns=row["finish_ns"], outcome=TicketOutcome(row["outcome"]), data=bytes(row["data"]),
                  headers=json.loads(row["headers"]), result_data=bytes(row["result_data"]),
                  result_headers=json.loads(row["result_headers"]), earlier=turns.decode(row["earlier"]),
                  reattached=row["reattached"])


async def get_ticket(conn: Conn, ticket_id: str) -> Ticket | None:
    row = await conn.fetchrow(f"SELECT {TICKET_COLUMNS} FROM tickets WHERE ticket_id = $1", ticket_id)
    return ticket_of(row) if row is not None else None


async def queue(conn: Conn, target: str, limit: int) -> list[Ticket]:
    """The FIFO of `target`, head first."""
    rows = await conn.fetch(f"SELECT {TICKET_COLUMNS} FROM tickets WHERE target = $1 AND state = 1 "
                            "ORDER BY queue_seq LIMIT $2", target, limit)
    return [ticket_of(r) for r in rows]


async def prune_tickets(conn: Conn, finished_before_ns: int, limit: int) -> int:
    """Delete up to `limit` answered or aborted tickets that finished before `finished_before_ns`."""
    pruned: int = await conn.fetchval("""
        WITH old AS (SELECT ticket_id FROM tickets WHERE state <> 1 AND finish_ns < $1 ORDER BY finish_ns LIMIT $2),
             gone AS (DELETE FROM tickets t USING old WHERE t.ticket_id = old.ticket_id RETURNING 1)
        SELECT count(*) FROM gone""", finished_before_ns, limit)
    return pruned

