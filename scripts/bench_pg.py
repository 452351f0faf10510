"""The PostgreSQL arms of scripts/bench: `--store URL|pg`, `--nodes N`, and `--versus` (LMDB and PostgreSQL
interleaved, the issue's targets as ratios).

    scripts/bench --store pg --quick                  a throwaway cluster on 127.0.0.1 (tests/pg.py's Cluster)
    scripts/bench --store postgresql://u@h:5432/db    an existing database (fabricd migrates it)
    scripts/bench --store pg --nodes 3                three daemons on one database; producers spread over them
    scripts/bench --versus --store pg --rounds 5      LMDB and PostgreSQL arms interleaved: PG/LMDB ratios

Beside each workload's figures it reports CPU seconds per 1,000 messages stored,
spent by the fabricd node processes (`*_node_cpu_s_per_1k`) and by the PostgreSQL
server (`*_pg_cpu_s_per_1k`: the postmaster and its children, including children
that exited), from /proc/PID/stat utime+stime before and after the workload.
Messages stored are counted by the database (the sum of every mailbox's seq
counter), so asks and outbox deliveries count their messages too. Nodes scale
until the database's CPU saturates: on a machine with C cores for PostgreSQL the
ceiling is about C / pg_cpu_s_per_1k thousand messages per second, whatever the
number of nodes. The server's CPU is read only when it runs on this machine.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import statistics
import subprocess
import sys
from collections.abc import Iterator

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TICK = os.sysconf("SC_CLK_TCK")

TARGETS = {"send_64_callers": 0.70, "send_batch_100": 0.50}
"""PostgreSQL / LMDB at least this, same run (issue 11, section 5)."""
P50_BUDGET_MS = 0.5
"""Single-send p50 on PostgreSQL at most this much above LMDB's."""
VERSUS_WORKLOADS = ("send_1", "send_64", "batch_100")
"""What --versus runs by default: the workloads behind the targets."""


# -- CPU accounting

def _stat(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            text = f.read()
    except OSError:
        return None
    return text[text.rindex(")") + 2:].split()  # fields from 3 (state) on; the name may hold spaces


def cpu_of(pid: int, children_reaped: bool = False) -> float:
    """utime + stime of `pid` in seconds (plus its reaped children's, cutime + cstime, when asked)."""
    fields = _stat(pid)
    if fields is None:
        return 0.0
    ticks = int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15)
    if children_reaped:
        ticks += int(fields[13]) + int(fields[14])
    return ticks / TICK


def server_cpu(postmaster: int) -> float:
    """The PostgreSQL server's CPU seconds: the postmaster, its live children and the children it reaped."""
    total = cpu_of(postmaster, children_reaped=True)
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _stat(int(entry))
            if fields is not None and int(fields[1]) == postmaster:
                total += cpu_of(int(entry))
    return total


async def _database_facts(url: str) -> tuple[int | None, int]:
    """(the postmaster's pid when the server runs on this machine, else None; messages stored so far)."""
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        fields = _stat(conn.get_server_pid())  # while the backend lives: its parent is the postmaster
        stored = await conn.fetchval("SELECT coalesce(sum(last_seq), 0) FROM mailboxes") \
            if await conn.fetchval("SELECT to_regclass('mailboxes') IS NOT NULL") else 0
    finally:
        await conn.close()
    return (int(fields[1]) if fields is not None else None), int(stored)


async def run(root: str, quick: bool, only: list[str], url: str, nodes: int) -> dict[str, float]:
    """The workloads against `nodes` daemons on `url`, each with its CPU per 1,000 messages."""
    import bench_workloads
    from bench_common import derive, rounded

    tree = bench_workloads.Tree(root, quick, store=url, nodes=nodes)
    figures: dict[str, float] = {}
    try:
        for name, workload in bench_workloads.WORKLOADS.items():
            if name not in only:
                continue
            if name.endswith("_nosync"):
                print(f"bench: {name} measures LMDB's group commit without fsync: skipped with --store",
                      file=sys.stderr)
                continue
            await tree.client()  # daemons up and warm before the meters start
            postmaster, stored0 = await _database_facts(url)
            nodes0 = sum(cpu_of(p) for p in tree.pids())
            server0 = server_cpu(postmaster) if postmaster else 0.0
            figures.update(await workload(tree))
            _, stored = await _database_facts(url)
            stored -= stored0
            if stored > 0:
                figures[f"{name}_node_cpu_s_per_1k"] = (sum(cpu_of(p) for p in tree.pids()) - nodes0) * 1000 / stored
                if postmaster:
                    figures[f"{name}_pg_cpu_s_per_1k"] = (server_cpu(postmaster) - server0) * 1000 / stored
    finally:
        await tree.close()
    return rounded(derive(figures))


# -- a throwaway cluster

@contextlib.contextmanager
def store_url(store: str) -> Iterator[tuple[str, object]]:
    """`store` itself, or for "pg" a throwaway durable cluster on 127.0.0.1, removed afterwards: (URL, cluster)."""
    if store != "pg":
        yield store, None
        return
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    import pg

    if not pg.available():
        raise SystemExit("bench --store pg: PostgreSQL's server programs are not installed "
                         "(python3 scripts/dev test installs them, or apt-get install postgresql)")
    cluster = pg.Cluster.start(durable=True)
    try:
        yield cluster.create_database("bench"), cluster
    finally:
        cluster.remove()


# -- LMDB and PostgreSQL interleaved

def _arm(workload: str, quick: bool, url: str | None) -> dict[str, float]:
    command = [sys.executable, os.path.join(HERE, "bench"), "--only", workload, *(["--quick"] if quick else []),
               *(["--store", url] if url else [])]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"bench --versus: {workload} failed ({'PostgreSQL' if url else 'LMDB'}):\n"
                         f"{result.stderr[-3000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def versus(store: str, workloads: list[str], rounds: int, quick: bool) -> dict[str, object]:
    """Each round runs every workload on an LMDB daemon and on a PostgreSQL one (a fresh database each time
    when the cluster is ours), alternating which goes first; ratios PG/LMDB per figure and the targets."""
    import bench_compare

    lmdb: list[dict[str, float]] = []
    postgres: list[dict[str, float]] = []
    with store_url(store) as (url, cluster):
        for r in range(rounds):
            lmdb_round: dict[str, float] = {}
            pg_round: dict[str, float] = {}
            for w, workload in enumerate(workloads):
                db = cluster.create_database(f"bench_{r}_{w}") if cluster is not None else url  # type: ignore[attr-defined]
                for arm in ((None, db) if (r + w) % 2 == 0 else (db, None)):
                    (pg_round if arm else lmdb_round).update(_arm(workload, quick, arm))
            lmdb.append(lmdb_round)
            postgres.append(pg_round)
    rows = bench_compare.summary(lmdb, postgres)
    cpu = {k: round(statistics.median(p[k] for p in postgres if k in p), 3)
           for k in sorted({k for p in postgres for k in p if k.endswith("_per_1k")})}
    out: dict[str, object] = {"rounds": rounds, "figures": rows, "postgres_cpu": cpu,
                              "targets": targets(lmdb, postgres)}
    print(bench_compare.table(rows, "LMDB", "PostgreSQL"), file=sys.stderr)
    return out


def targets(lmdb: list[dict[str, float]], postgres: list[dict[str, float]]) -> dict[str, dict[str, object]]:
    """The issue's targets from paired rounds: medians of the per-round ratios and p50 differences."""
    out: dict[str, dict[str, object]] = {}
    for figure, floor in TARGETS.items():
        ratios = [p[figure] / m[figure] for m, p in zip(lmdb, postgres, strict=True) if m.get(figure) and p.get(figure)]
        if ratios:
            ratio = round(statistics.median(ratios), 3)
            out[f"{figure}_pg_over_lmdb"] = {"value": ratio, "target": f">= {floor}", "met": ratio >= floor}
    diffs = [p["send_1_p50_ms"] - m["send_1_p50_ms"] for m, p in zip(lmdb, postgres, strict=True)
             if "send_1_p50_ms" in m and "send_1_p50_ms" in p]
    if diffs:
        diff = round(statistics.median(diffs), 3)
        out["send_1_p50_ms_pg_minus_lmdb"] = {"value": diff, "target": f"<= +{P50_BUDGET_MS}",
                                              "met": diff <= P50_BUDGET_MS}
    return out


def main_store(root: str, quick: bool, only: list[str], store: str, nodes: int) -> dict[str, float]:
    with store_url(store) as (url, _):
        return asyncio.run(run(root, quick, only, url, nodes))


if __name__ == "__main__":
    raise SystemExit(f"run {os.path.join(HERE, 'bench')} instead")
