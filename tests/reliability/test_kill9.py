"""kill -9 under load: every acknowledged write survives, nothing is delivered twice, every ticket ends.

Several client processes send, drain, subscribe with acks, ask and reply, and
fan out while the daemon is killed with SIGKILL at random moments and
restarted, on LMDB and on PostgreSQL. The checker (checker.py) then compares
what the daemon acknowledged with what it kept and delivered. `pytest --soak`
runs many more kills. Several nodes, one killed at a time: tests/e2e/test_failover.py.
"""

from __future__ import annotations

import random
import signal
import time

from fabricd.client import Client
from tests.reliability import checker

BACKENDS = ["lmdb", "postgres"]


async def test_kill_9_under_load_loses_and_duplicates_nothing(daemon, tmp_path, soak) -> None:
    kills = 40 if soak else 6
    rng = random.Random(1234)
    workers = checker.start(daemon.target, tmp_path)
    for _ in range(kills):
        time.sleep(rng.uniform(0.2, 0.7))  # let the load run: the kill lands at a random moment
        daemon.stop(signal.SIGKILL)
        daemon.start()
    time.sleep(0.5)
    checker.stop(workers)
    async with Client(daemon.target) as client:
        summary = await checker.check(client, tmp_path)
    print(f"\nkill -9: kills={kills} {summary}")
