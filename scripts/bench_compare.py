"""`scripts/bench --compare REV`: this tree against REV, interleaved in one run, as ratios with their spread.

REV (and, with `--after REV2`, REV2 in place of this working tree) is checked
out into a temporary git worktree. Every measurement is its own
process running this tree's workload code against one arm's client library and
daemon (both from that arm's tree), on a fresh daemon. Per round, each workload
runs once per arm, back to back, the order alternating between rounds (A B,
B A, ...), so drift in the machine's load falls on both arms alike; the ratio
after/before is taken per round, and the median and the spread of those ratios
are printed. Nothing here imports fabricd or grpc: each arm's programs set up
gRPC themselves, as they would in use.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

from bench_common import LOWER_IS_BETTER, derive, precise

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def git(*args: str) -> str:
    return subprocess.run(["git", "-C", ROOT, *args], check=True, capture_output=True, text=True).stdout.strip()


def checkout(rev: str) -> tuple[str, str]:
    """A detached worktree of `rev` in a temporary folder: (folder, full commit id)."""
    try:
        commit = git("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    except subprocess.CalledProcessError:
        raise SystemExit(f"bench --compare: {rev!r} is not a commit in {ROOT}") from None
    folder = os.path.join(tempfile.mkdtemp(prefix="fabricd-bench-"), "tree")
    git("worktree", "add", "--detach", "--quiet", folder, commit)
    return folder, commit


def remove(folder: str) -> None:
    """Remove the worktree `checkout` made, and its temporary parent folder."""
    removed = subprocess.run(["git", "-C", ROOT, "worktree", "remove", "--force", folder], capture_output=True)
    shutil.rmtree(os.path.dirname(folder), ignore_errors=True)
    if removed.returncode != 0:  # already gone, say: forget its registration too
        subprocess.run(["git", "-C", ROOT, "worktree", "prune"], capture_output=True)


def measure(tree: str, workload: str, quick: bool, store: str = "") -> dict[str, float]:
    """One workload against `tree`'s daemon and client (on `store` when given: a postgresql:// URL or pg), in a
    process of its own."""
    command = [sys.executable, os.path.join(HERE, "bench"), "--tree", tree, "--only", workload,
               *(["--quick"] if quick else []), *(["--store", store] if store else [])]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"bench --compare: {workload} failed against {tree}:\n{result.stderr[-3000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


MIN_ROUNDS = 3
"""Fewer rounds give no verdict: one or two rounds agree by chance too often."""


def verdict(figure: str, ratios: list[float]) -> str:
    """"better" or "worse" when every one of at least MIN_ROUNDS rounds moved the same way."""
    if len(ratios) < MIN_ROUNDS:
        return f"(no verdict under {MIN_ROUNDS} rounds)"
    if all(r > 1 for r in ratios) or all(r < 1 for r in ratios):
        return "better" if (ratios[0] < 1) == figure.endswith(LOWER_IS_BETTER) else "worse"
    return "within noise"


def summary(before: list[dict[str, float]], after: list[dict[str, float]]) -> dict[str, dict[str, object]]:
    """Per figure: each arm's median, and the median, min and max of the per-round ratios after/before."""
    rows: dict[str, dict[str, object]] = {}
    for figure in before[0]:
        pairs = [(b[figure], a[figure]) for b, a in zip(before, after, strict=True) if b.get(figure) and a.get(figure)]
        if not pairs:
            continue
        ratios = [a / b for b, a in pairs]
        digits = 3 if precise(figure) else 0
        rows[figure] = {"before": round(statistics.median(b for b, _ in pairs), digits),
                        "after": round(statistics.median(a for _, a in pairs), digits),
                        "ratio": round(statistics.median(ratios), 3), "min": round(min(ratios), 3),
                        "max": round(max(ratios), 3), "rounds": len(ratios), "verdict": verdict(figure, ratios)}
    return rows


def table(rows: dict[str, dict[str, object]], before: str, after: str = "this working tree") -> str:
    lines = [f"before = {before}, after = {after}; ratio = after/before per round: median [min, max]",
             f"{'figure':24}{'before':>12}{'after':>12}{'ratio':>8}  {'spread':16}  verdict"]
    for name, r in rows.items():
        spec = ",.3f" if precise(name) else ",.0f"
        spread = f"[{r['min']:.3f}, {r['max']:.3f}]"
        lines.append(f"{name:24}{r['before']:>12{spec}}{r['after']:>12{spec}}{r['ratio']:>8.3f}  "
                     f"{spread:16}  {r['verdict']}")
    lines.append("*_ms figures are times: lower is better; all others: higher is better")
    return "\n".join(lines)


def compare(rev: str, workloads: list[str], rounds: int, quick: bool, after: str | None = None,
            store: str = "") -> dict[str, object]:
    """Run `workloads` for both arms, `rounds` times, interleaved; print the table, return the figures.

    The after arm is this working tree, or the commit `after` (checked out like `rev`).
    """
    folder, commit = checkout(rev)
    trees = {"before": folder, "after": ROOT}
    after_name = "this working tree"
    if after is not None:
        try:
            trees["after"], after_commit = checkout(after)
        except BaseException:
            remove(folder)
            raise
        after_name = f"{after} ({after_commit[:10]})"
    runs: dict[str, list[dict[str, float]]] = {"before": [], "after": []}
    try:
        for n in range(rounds):
            figures: dict[str, dict[str, float]] = {"before": {}, "after": {}}
            for workload in workloads:
                for arm in ("before", "after") if n % 2 == 0 else ("after", "before"):
                    got = measure(trees[arm], workload, quick, store)
                    figures[arm].update(got)
                    print(f"round {n + 1}/{rounds} {arm:6} {json.dumps(got)}", file=sys.stderr, flush=True)
            for arm, figs in figures.items():
                runs[arm].append(derive(figs))
    finally:
        for tree in {folder, trees["after"]} - {ROOT}:
            remove(tree)
    rows = summary(runs["before"], runs["after"])
    print(table(rows, f"{rev} ({commit[:10]})", after_name), flush=True)
    return {"before": commit, "after": after_commit if after is not None else "working tree", "rounds": rounds, "store": store or "lmdb",
            "quick": quick, "figures": rows}
