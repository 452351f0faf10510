"""Wake hooks armed inside the hot paths' statements (fabricd.core.kv.wake.note's rule, in SQL)."""

from __future__ import annotations


def arm(arrivals: str, now: str) -> str:
    """A CTE body arming the wake hooks of `arrivals` (rows a, mid, tid: agent id, message id, ticket id),
    the rule of fabricd.core.kv.wake.note in SQL on the hook's JSON body.

    Only agents with a wake_hooks row are touched (a primary-key probe for the rest, so a send to an
    unhooked agent costs no extra round trip), and only hooks with something new to say are written:
    an unarmed hook is armed by the first message; a ticket names itself on a hook armed without one.
    The mailbox rows are locked before (the order the record scripts lock in: entry, then hook).
    """
    j = "convert_from(w.body, 'UTF8')::jsonb"  # read from the locked row itself (a re-check after a wait sees it)
    return f"""
    UPDATE wake_hooks w SET body = convert_to(({j}
        || CASE WHEN ({j}->>'armed_ns')::bigint > 0 THEN '{{}}'::jsonb
                ELSE jsonb_build_object('armed_ns', {now}::bigint, 'reason', 'mail', 'first_message_id', v.mid) END
        || CASE WHEN v.tid <> '' THEN jsonb_build_object('reason', 'ticket', 'ticket_id', v.tid)
                ELSE '{{}}'::jsonb END)::text, 'UTF8')
    FROM (SELECT a, (array_agg(mid ORDER BY n))[1] AS mid,
                 coalesce((array_agg(tid ORDER BY n) FILTER (WHERE tid <> ''))[1], '') AS tid
          FROM ({arrivals}) AS x GROUP BY a) AS v
    WHERE w.agent_id = v.a
      AND (({j}->>'armed_ns')::bigint = 0 OR (v.tid <> '' AND coalesce({j}->>'ticket_id', '') = ''))
    RETURNING w.agent_id"""
