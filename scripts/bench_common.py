"""What scripts/bench shares before it may import fabricd: the workloads' names, what the figures mean,
and how to run one source tree's fabricd (stdlib only).

    python scripts/bench_common.py TREE serve ...    `fabricd serve ...` of that tree's code
"""

from __future__ import annotations

import os
import runpy
import sys

WORKLOADS = ("send_1", "send_64", "batch_100", "client_64", "subscribe", "latency", "ask_1x1", "ask_16x4",
             "a2a_1x1", "a2a_16x4", "outbox_wide", "outbox_many", "send_64_nosync", "flood", "publish_1", "publish_10",
             "publish_100", "search_100k", "lease_rt", "lease_check_10k", "unary")
"""The workloads of bench_workloads.WORKLOADS, in the order a full run takes them."""
LOWER_IS_BETTER = ("_ms", "_per_1k")
"""Figures ending so are times or costs (CPU seconds per 1,000 messages); every other figure is a rate or a
ratio where higher is better."""


def derive(figures: dict[str, float]) -> dict[str, float]:
    """Add the figures computed from others measured in the same run."""
    if figures.get("send_64_callers") and figures.get("send_64_callers_nosync"):
        figures["durable_vs_nosync"] = figures["send_64_callers"] / figures["send_64_callers_nosync"]
    for shape in ("1x1", "16x4"):  # issue 12's goal: A2A round trips cost at most 20% over Ask (ratio >= 0.83)
        if figures.get(f"ask_{shape}") and figures.get(f"a2a_{shape}"):
            figures[f"a2a_vs_ask_{shape}"] = figures[f"a2a_{shape}"] / figures[f"ask_{shape}"]
    return figures


def precise(name: str) -> bool:
    """Times and ratios keep three decimals; rates are whole numbers."""
    return name.endswith((*LOWER_IS_BETTER, "nosync", "_vs_bare")) or name.startswith(("durable", "a2a_vs_"))


def rounded(figures: dict[str, float]) -> dict[str, float]:
    return {k: round(v, 3 if precise(k) else 0) for k, v in figures.items()}


def use_tree(root: str) -> None:
    """Import fabricd (daemon, stubs, client) from the tree `root`, before anything imports it or grpc.

    The editable install's finder comes after sys.path, so the tree found first wins; the stubs,
    the client and the CLI live in the tree's clients/python/fabricd (setuptools package-dir mapping).
    """
    sys.path.insert(0, root)
    import fabricd

    if not fabricd.__file__ or not fabricd.__file__.startswith(os.path.join(root, "")):
        raise SystemExit(f"fabricd was already imported from {fabricd.__file__}, not from {root}")
    fabricd.__path__.append(os.path.join(root, "clients", "python", "fabricd"))


def daemon_main() -> None:
    """`python -m fabricd.daemon.main ARGS` of the tree given as first argument."""
    root = os.path.abspath(sys.argv.pop(1))
    use_tree(root)
    runpy.run_module("fabricd.daemon.main", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    daemon_main()


class Spread:
    """Several nodes' clients as one: each attribute read takes the next node's, so producers spread."""

    def __init__(self, clients: list) -> None:  # fabricd.client.Client of the tree measured
        self._clients = clients
        self._next = 0

    def __getattr__(self, name: str) -> object:
        client = self._clients[self._next % len(self._clients)]
        self._next += 1
        return getattr(client, name)

    async def wait_ready(self) -> None:
        for client in self._clients:
            await client.wait_ready()

    async def close(self) -> None:
        for client in self._clients:
            await client.close()
