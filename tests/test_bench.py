"""scripts/bench: each arm runs its own tree's code, --compare pairs rounds into ratios, and cleans up."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPTS = os.path.join(ROOT, "scripts")
sys.path.insert(0, SCRIPTS)

import bench_common  # noqa: E402
import bench_compare  # noqa: E402

REPORT = """
import json, sys
import fabricd, fabricd.client, fabricd.v1
if __name__ == "__main__":
    print(json.dumps({"files": [fabricd.__file__, fabricd.client.__file__, fabricd.v1.__file__], "argv": sys.argv}))
"""


def fake_tree(root: str) -> None:
    """A tree laid out like this one (fabricd/ plus clients/python/fabricd/) whose daemon reports its imports."""
    for folder in ("fabricd/daemon", "clients/python/fabricd/client", "clients/python/fabricd/v1"):
        os.makedirs(os.path.join(root, folder))
    for path, text in (("fabricd/__init__.py", ""), ("fabricd/daemon/__init__.py", ""),
                       ("fabricd/daemon/main.py", REPORT), ("clients/python/fabricd/client/__init__.py", ""),
                       ("clients/python/fabricd/v1/__init__.py", "")):
        with open(os.path.join(root, path), "w") as f:
            f.write(text)


def test_an_arms_daemon_runs_that_trees_daemon_stubs_and_client_not_the_installed_ones(tmp_path) -> None:
    tree = str(tmp_path / "arm")
    fake_tree(tree)
    result = subprocess.run([sys.executable, bench_common.__file__, tree, "serve", "--data-dir", "x"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert all(path.startswith(tree + os.sep) for path in report["files"]), report
    assert report["argv"][0] == os.path.join(tree, "fabricd", "daemon", "main.py")  # as with python -m
    assert report["argv"][1:] == ["serve", "--data-dir", "x"]


def test_the_workload_names_the_cli_checks_are_the_workloads_that_exist() -> None:
    import bench_workloads

    assert list(bench_workloads.WORKLOADS) == list(bench_common.WORKLOADS)


def test_every_search_the_channel_workload_times_finds_posts() -> None:
    import bench_channels

    from fabricd.core import channel_search

    texts = [bench_channels.post_text(i) for i in range(1000)]
    assert len(set(texts)) > 100  # posts differ
    for query in bench_channels.QUERIES:  # as the reference matcher reads the query language
        terms = channel_search.parse(query.lower())
        assert any(channel_search.matches(terms, t) for t in texts), query


def test_durable_vs_nosync_is_derived_only_from_figures_of_the_same_run() -> None:
    assert bench_common.derive({"send_64_callers": 900.0, "send_64_callers_nosync": 1000.0})["durable_vs_nosync"] == 0.9
    assert "durable_vs_nosync" not in bench_common.derive({"send_64_callers": 900.0})


def test_ratios_are_paired_per_round_and_judged_by_which_way_is_better() -> None:
    before = [{"send_1_caller": 1000.0, "ask_1x1_p50_ms": 3.0, "ask_16x4": 900.0},
              {"send_1_caller": 500.0, "ask_1x1_p50_ms": 3.0, "ask_16x4": 900.0},
              {"send_1_caller": 1000.0, "ask_1x1_p50_ms": 3.0, "ask_16x4": 900.0}]
    after = [{"send_1_caller": 1100.0, "ask_1x1_p50_ms": 2.4, "ask_16x4": 950.0},
             {"send_1_caller": 600.0, "ask_1x1_p50_ms": 2.7, "ask_16x4": 850.0},
             {"send_1_caller": 1300.0, "ask_1x1_p50_ms": 2.1, "ask_16x4": 900.0}]
    rows = bench_compare.summary(before, after)
    assert rows["send_1_caller"] == {"before": 1000.0, "after": 1100.0, "ratio": 1.2, "min": 1.1, "max": 1.3,
                                     "rounds": 3, "verdict": "better"}
    assert rows["ask_1x1_p50_ms"]["ratio"] == 0.8 and rows["ask_1x1_p50_ms"]["verdict"] == "better"
    assert rows["ask_16x4"]["verdict"] == "within noise"
    assert bench_compare.verdict("latency_p50_ms", [1.1, 1.2, 1.05]) == "worse"
    assert bench_compare.verdict("send_64_callers", [0.9, 0.95, 0.97]) == "worse"
    assert bench_compare.verdict("send_64_callers", [1.5, 1.4]) == "(no verdict under 3 rounds)"
    assert "send_1_caller" in bench_compare.table(rows, "main")


def test_compare_checks_out_a_revision_in_a_temporary_worktree_and_removes_it() -> None:
    folder, commit = bench_compare.checkout("HEAD")
    try:
        assert os.path.isfile(os.path.join(folder, "fabricd", "__init__.py"))
        head = subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True, text=True).stdout
        assert commit == head.strip()
    finally:
        bench_compare.remove(folder)
    assert not os.path.exists(os.path.dirname(folder))
    listed = subprocess.run(["git", "-C", ROOT, "worktree", "list"], capture_output=True, text=True).stdout
    assert folder not in listed


@pytest.mark.parametrize("args, message", [
    (["--compare", "no-such-revision-here"], "is not a commit"),
    (["--only", "send_1,nope"], "unknown workload nope"),
    (["--after", "HEAD"], "--after goes with --compare"),
    (["--compare", "HEAD", "--after", "no-such-revision-here"], "is not a commit"),
    (["--nodes", "3"], "--nodes N (N >= 1) goes with --store"),
    (["--store", "mysql://x"], "--store takes a postgresql:// URL or pg"),
])
def test_bench_refuses_a_bad_revision_or_workload_before_measuring_anything(args, message) -> None:
    result = subprocess.run([sys.executable, os.path.join(SCRIPTS, "bench"), *args], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode != 0 and message in result.stderr, result.stderr


def test_bench_on_a_throwaway_postgresql_reports_figures_with_the_cpu_of_the_nodes_and_the_server() -> None:
    result = subprocess.run([sys.executable, os.path.join(SCRIPTS, "bench"), "--store", "pg", "--quick", "--only",
                             "send_1"], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    assert figures["send_1_caller"] > 0 and figures["send_1_p50_ms"] > 0
    assert figures["send_1_node_cpu_s_per_1k"] > 0  # the daemon's CPU per 1,000 stored messages
    assert figures["send_1_pg_cpu_s_per_1k"] > 0  # the postmaster's and its children's


def test_versus_judges_the_issues_targets_from_paired_rounds() -> None:
    import bench_pg

    lmdb = [{"send_64_callers": 1000.0, "send_batch_100": 40000.0, "send_1_p50_ms": 1.0}] * 3
    postgres = [{"send_64_callers": 750.0, "send_batch_100": 18000.0, "send_1_p50_ms": 1.4}] * 3
    judged = bench_pg.targets(lmdb, postgres)
    assert judged["send_64_callers_pg_over_lmdb"] == {"value": 0.75, "target": ">= 0.7", "met": True}
    assert judged["send_batch_100_pg_over_lmdb"]["met"] is False
    assert judged["send_1_p50_ms_pg_minus_lmdb"]["value"] == 0.4 and judged["send_1_p50_ms_pg_minus_lmdb"]["met"]


def test_cpu_figures_are_costs_where_lower_is_better() -> None:
    assert bench_compare.verdict("send_64_pg_cpu_s_per_1k", [0.8, 0.9, 0.7]) == "better"
    assert bench_common.rounded({"send_64_pg_cpu_s_per_1k": 0.1234})["send_64_pg_cpu_s_per_1k"] == 0.123


def test_peer_ratios_are_taken_within_each_round_then_their_median() -> None:
    import bench_peers

    rounds = [{"fabricd": {"send_1": 100.0}, "redis": {"send_1": 400.0}},  # a slow minute for both
              {"fabricd": {"send_1": 300.0}, "redis": {"send_1": 600.0}},
              {"fabricd": {"send_1": 200.0}, "redis": {"send_1": 1000.0}, "nats": {"send_1": 100.0}}]
    summary = bench_peers.summarize(rounds)
    assert summary["ratios_fabricd_over_peer"]["send_1_vs_redis"] == 0.25  # of 0.25, 0.5, 0.2: not 200 / 600
    assert summary["ratio_spread"]["send_1_vs_redis"] == [0.2, 0.5]
    assert summary["ratios_fabricd_over_peer"]["send_1_vs_nats"] == 2.0  # a peer in one round only
    assert summary["results"]["redis"]["send_1"] == 600.0 and summary["rounds"] == 3


async def test_the_lease_workloads_measure_round_trips_and_check_latency_and_leave_no_lease(daemon) -> None:
    """The workload code itself, at a tiny size against the test daemon (scripts/bench runs it at full size)."""
    import bench_leases

    from fabricd.client import Client

    async with Client(daemon.target) as client:
        assert bench_leases.offered(client)
        assert await bench_leases.round_trips(client, 32, callers=4) > 0
        p50, p99 = await bench_leases.check_latency(client, 200, 20)
        assert 0 < p50 <= p99
        assert await client.list_leases() == []
