"""The kill -9 checker: client processes under load, then what was acknowledged against what was kept.

    workers = start(target, tmp_path)   # one process per role of workload.py, each logging its facts
    ...kill daemons...
    stop(workers)
    print(await check(client, tmp_path))

Each role logs only what a daemon acknowledged; `check` asserts that every
acknowledged send is delivered or still unread, nothing is delivered or
drained twice, every ticket ended (answered with its own answer, or aborted),
every outbox reply was posted exactly once with one receipt, every acknowledged channel post is in
the channel's log once and in each member's mailbox once, each member's copies in channel order, and no
two agents held the one exclusive lease at once, its fencing tokens growing with every grant through the kills,
and no waiting Acquire's place in line outlived the load.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
from collections import Counter

from fabricd.client import Client
from fabricd.v1 import outbox_service_pb2 as ob
from tests.reliability.helpers import eventually

ROLES = ("sender", "drainer", "subscriber", "replier", "asker", "settler", "publisher", "leaser")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def start(target: str, folder: pathlib.Path) -> list[subprocess.Popen[str]]:
    """One workload process per role, each ready (its client made) when this returns."""
    workers = []
    for role in ROLES:
        proc = subprocess.Popen([sys.executable, "-m", "tests.reliability.workload", role, target,
                                 str(folder / f"{role}.jsonl")], stdout=subprocess.PIPE, text=True, cwd=ROOT)
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        workers.append(proc)
    return workers


def stop(workers: list[subprocess.Popen[str]]) -> None:
    for proc in workers:
        proc.terminate()
    for proc in workers:
        assert proc.wait(60) == 0


def facts(path: pathlib.Path) -> list[dict]:
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


async def drain_all(client: Client, box: str) -> list:
    out = []
    while batch := (await client.drain(box, 1000)).messages:
        out.extend(batch)
    return out


async def check(client: Client, folder: pathlib.Path) -> str:
    """Assert the contracts held (see the module docstring); a one-line summary."""
    logs = {role: facts(folder / f"{role}.jsonl") for role in ROLES}
    sent = [f for f in logs["sender"] if f["kind"] == "sent"]
    drained = [f["id"] for f in logs["drainer"] if f["kind"] == "drained"]
    lost_drains = sum(1 for f in logs["drainer"] if f["kind"] == "drain-lost")
    delivered = [f for f in logs["subscriber"] if f["kind"] == "delivered"]
    asked = logs["asker"]
    fanned = [k for f in logs["settler"] if f["kind"] == "fanned" for k in f["keys"]]

    # box-s: followed by the subscriber, which acks; what it did not get to is still unread.
    left_s = await drain_all(client, "box-s")
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

    posts = await check_channel(client, [f for f in logs["publisher"] if f["kind"] == "posted"])
    # leases: one exclusive resource, three agents (one waiting in line); fencing tokens only grow, and a grant
    # to another agent comes after the previous holder's lease expired or was being released.
    grants = sorted((f for f in logs["leaser"] if f["kind"] == "granted"), key=lambda f: f["token"])
    releasing = {f["lease"] for f in logs["leaser"] if f["kind"] == "releasing"}
    assert len({g["token"] for g in grants}) == len(grants), "a fencing token was granted twice"
    for before, after in zip(grants, grants[1:], strict=False):
        assert after["acquire_ns"] >= before["acquire_ns"], "fencing tokens went backwards"
        if after["agent"] != before["agent"]:
            assert after["acquire_ns"] >= before["expire_ns"] or before["lease"] in releasing, (
                f"two agents held the exclusive lease at once: {before} and {after}")

    # the line: once the load stopped, no waiting call's place outlives it (a call cut by a kill leaves it
    # within limits.lease_waiter_ttl, 15 s; an LMDB restart forgets them), or later takes would queue forever.
    async def line_empty() -> bool:
        return not await client.lease_waiters(["kill9/shared.txt"], agent_id="kill9-checker")

    await eventually(line_empty, 60, "the lease line emptied")

    answered = sum(1 for f in ended.values() if f["kind"] == "answered")
    return (f"posts_acked={posts} sends_acked={len(sent)} drained={len(drained)} subscribed={len(seen_s)} tickets={len(tickets)} "
            f"answered={answered} aborted={len(ended) - answered} outbox_replies={len(set(fanned))} lost=0 "
            f"duplicated=0 drains_cut_by_a_kill={lost_drains} unseen_after_cut_drains={len(unseen)} "
            f"lease_grants={len(grants)}")


async def check_channel(client: Client, posted: list[dict]) -> int:
    """Every acknowledged post in the log once with its seq, and in each member's mailbox once, in order."""
    from tests.reliability.workload import CHANNEL, MEMBERS

    log: list = []
    after = 0
    while batch := (await client.read_channel(CHANNEL, after_seq=after, page_size=1000)).posts:
        log.extend(batch)
        after = batch[-1].seq
    ids = [p.message.id for p in log]
    assert len(ids) == len(set(ids)), "a post is in the channel's log twice"
    seq_of = {p.message.id: p.seq for p in log}
    for f in posted:
        assert seq_of.get(f["id"]) == f["seq"], f"acknowledged post {f['id']} is not in the log at #{f['seq']}"
    for member in MEMBERS:
        copies = [m for m in await drain_all(client, member) if m.headers.get("fabricd-channel") == CHANNEL]
        of = [m.headers["fabricd-channel-post"] for m in copies]
        assert len(of) == len(set(of)), f"{member} got a post twice"
        assert {f["id"] for f in posted} <= set(of), f"an acknowledged post never reached {member}"
        seqs = [int(m.headers["fabricd-channel-seq"]) for m in copies]
        assert seqs == sorted(seqs), f"{member}'s copies are out of channel order"
    return len(posted)

