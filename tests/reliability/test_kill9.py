"""kill -9 under load: every acknowledged write survives, nothing is delivered twice, every ticket ends.

Several client processes send, drain, subscribe with acks, ask and reply, and
fan out while the daemon is killed with SIGKILL at random moments and
restarted. A checker then compares what the daemon acknowledged with what it
kept and delivered. `pytest --soak` runs many more kills.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter

from fabricd.client import Client
from fabricd.v1 import outbox_service_pb2 as ob
from tests.reliability.helpers import eventually

ROLES = ("sender", "drainer", "subscriber", "replier", "asker", "settler")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


async def drain_all(client: Client, box: str) -> list:
    out = []
    while batch := (await client.drain(box, 1000)).messages:
        out.extend(batch)
    return out


def facts(path: str) -> list[dict]:
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


async def test_kill_9_under_load_loses_and_duplicates_nothing(daemon, tmp_path, soak) -> None:  # noqa: ANN001
    kills = 40 if soak else 6
    rng = random.Random(1234)
    logs = {role: str(tmp_path / f"{role}.jsonl") for role in ROLES}
    workers = []
    for role in ROLES:
        proc = subprocess.Popen([sys.executable, "-m", "tests.reliability.workload", role, daemon.target, logs[role]],
                                stdout=subprocess.PIPE, text=True, cwd=ROOT)
        assert proc.stdout.readline().strip() == "ready"
        workers.append(proc)
    for _ in range(kills):
        time.sleep(rng.uniform(0.2, 0.7))  # let the load run: the kill lands at a random moment
        daemon.stop(signal.SIGKILL)
        daemon.start()
    time.sleep(0.5)
    for proc in workers:
        proc.send_signal(signal.SIGTERM)
    for proc in workers:
        assert proc.wait(60) == 0

    sent = [f for f in facts(logs["sender"]) if f["kind"] == "sent"]
    drained = [f["id"] for f in facts(logs["drainer"]) if f["kind"] == "drained"]
    lost_drains = sum(1 for f in facts(logs["drainer"]) if f["kind"] == "drain-lost")
    delivered = [f for f in facts(logs["subscriber"]) if f["kind"] == "delivered"]
    asked = facts(logs["asker"])
    fanned = [k for f in facts(logs["settler"]) if f["kind"] == "fanned" for k in f["keys"]]

    async with Client(daemon.target) as client:
        # box-s: followed by the subscriber, which acks; what it did not get to is still unread.
        left_s = [m for batch in [await drain_all(client, "box-s")] for m in batch]
        sent_s = {f["id"] for f in sent if f["box"] == "box-s"}
        seen_s = [d["id"] for d in delivered]
        assert len(seen_s) == len(set(seen_s)), "a subscriber saw a message twice"
        assert [d["seq"] for d in delivered] == sorted(d["seq"] for d in delivered), "subscribe out of order"
        assert sent_s <= set(seen_s) | {m.id for m in left_s}, "an acknowledged send to box-s is gone"

        # box-d: drained by the drainer; a drain in flight at a kill may consume without an answer.
        left_d = {m.id for m in await drain_all(client, "box-d")}
        sent_d = {f["id"] for f in sent if f["box"] == "box-d"}
        assert len(drained) == len(set(drained)), "a message was drained twice"
        unseen = sent_d - set(drained) - left_d
        assert len(unseen) <= 7 * lost_drains, f"{len(unseen)} drained messages unaccounted for"

        # rendezvous: every ticket is answered or aborted, each answer the right one.
        tickets = [f["ticket"] for f in asked if f["kind"] == "ticket"]
        ended = {f["ticket"]: f for f in asked if f["kind"] in ("answered", "aborted")}
        for ticket in tickets[:-1]:  # the last one may have been cut short by the stop
            assert ticket in ended, f"ticket {ticket} neither answered nor aborted"
        for f in ended.values():
            if f["kind"] == "answered":
                assert f["result"] == f"answer to {f['ticket']}"

        # outbox: every reply key delivered exactly once.
        async def delivered_all() -> bool:
            return (await client.get_status()).outbox_pending == 0

        await eventually(delivered_all, 60, "outbox drained")
        posted: Counter[str] = Counter()
        for r in [f"fan-{i}" for i in range(8)]:
            while batch := (await client.drain(r, 1000)).messages:
                posted.update(m.id for m in batch)
        assert set(fanned) <= set(posted), "an outbox reply was never delivered"
        assert max(posted.values(), default=1) == 1, "an outbox reply was delivered twice"
        receipts, after = 0, ""
        while True:
            page = await client.list_outbox(state=ob.OUTBOX_ROW_STATE_DELIVERED, limit=1000, after_key=after)
            receipts += len(page.rows)
            if not (after := page.next_after_key):
                break
        assert receipts == len(posted)

    print(f"\nkill -9: kills={kills} sends_acked={len(sent)} drained={len(drained)} "
          f"subscribed={len(seen_s)} tickets={len(tickets)} answered="
          f"{sum(1 for f in ended.values() if f['kind'] == 'answered')} aborted="
          f"{sum(1 for f in ended.values() if f['kind'] == 'aborted')} outbox_replies={len(set(fanned))} "
          f"lost=0 duplicated=0 drains_cut_by_a_kill={lost_drains} unseen_after_cut_drains={len(unseen)}")
