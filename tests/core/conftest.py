"""The core's services over each store, with a clock the test moves: no daemon, no gRPC.

Every test that takes `fabric` (or `make_fabric`, for its own limits) runs once per store, in the style of
nats-server's testAllStoreAllPermutations: one test body, one run per backend, so a rule that one backend
applies and another does not fails there. A module lists in EMBEDDED_ONLY the few tests that are about the
embedded stores alone, each with its reason. The runs are named by store: `test_x[memory]`, `test_x[lmdb]`,
`test_x[postgres]` (one throwaway cluster per session, a fresh database per test: tests/pgfixtures.py).

The fast loop while editing a rule is the memory run alone:

    .venv/bin/python -m pytest tests/core -q -k memory
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import pytest

from fabricd import wire
from fabricd.core.agentdir import AgentDirectory
from fabricd.core.directory import Directory
from fabricd.core.limits import Limits
from fabricd.core.mailbox import Mailboxes
from fabricd.core.model import Address, Envelope, Message
from fabricd.core.notify import LocalWakeups
from fabricd.core.outbox import Outbox, RetryPolicy
from fabricd.core.ports import Store
from fabricd.core.rendezvous import Rendezvous
from fabricd.core.tokens import Tokens
from fabricd.store import open_store
from fabricd.v1 import types_pb2 as pb

T0 = 1_700_000_000 * 10**9


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> int:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += int(seconds * 1e9)


@dataclass
class Fabric:
    store: Store
    wakeups: LocalWakeups
    clock: Clock
    mailboxes: Mailboxes
    directory: Directory
    rendezvous: Rendezvous
    outbox: Outbox
    agent_directory: AgentDirectory
    tokens: Tokens


STORES = ("memory", "lmdb", "postgres")


def build(location: str, limits: Limits | None = None, policy: RetryPolicy | None = None,
          keepalive_s: float = 0.05) -> Fabric:
    """The core's services over the store at `location` (not started); streams send a keepalive after
    `keepalive_s` without news."""
    limits = limits or Limits()
    clock = Clock()
    wakeups = LocalWakeups()
    store = open_store(location, wakeups=wakeups, clock=clock, sync=False)
    return Fabric(store, wakeups, clock, Mailboxes(store, limits, clock, keepalive_s=keepalive_s),
                  Directory(store, limits, clock, keepalive_s=0.05), Rendezvous(store, limits, clock, keepalive_s=0.05),
                  Outbox(store, limits, clock, policy or RetryPolicy(jitter=0)),
                  AgentDirectory(store, limits, clock, keepalive_s=0.05), Tokens(store, limits, clock))


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """One run per store; a module's EMBEDDED_ONLY ({test name: why}) keeps a test off PostgreSQL."""
    if "store_location" in metafunc.fixturenames:
        embedded_only = metafunc.function.__name__ in getattr(metafunc.module, "EMBEDDED_ONLY", {})
        stores = [s for s in STORES if not (embedded_only and s == "postgres")]
        metafunc.parametrize("store_location", stores, indirect=True)


@pytest.fixture
def store_location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where this run's store lives: `memory:`, an LMDB data folder, or a fresh PostgreSQL database."""
    if request.param == "postgres":
        return str(request.getfixturevalue("pg_url"))
    return "memory:" if request.param == "memory" else str(tmp_path / "data")


class MakeFabric(Protocol):
    def __call__(self, limits: Limits | None = None, policy: RetryPolicy | None = None,
                 keepalive_s: float = 0.05) -> Awaitable[Fabric]: ...


@pytest.fixture
async def make_fabric(store_location: str) -> AsyncIterator[MakeFabric]:
    """Opens (and at the end closes) a fabric with the given limits over this run's store."""
    opened: list[Fabric] = []

    async def make(limits: Limits | None = None, policy: RetryPolicy | None = None,
                   keepalive_s: float = 0.05) -> Fabric:
        f = build(store_location, limits, policy, keepalive_s)
        await f.store.start()
        opened.append(f)
        return f

    yield make
    for f in opened:
        f.wakeups.close()
        await f.store.close()


@pytest.fixture
async def fabric(make_fabric: MakeFabric) -> Fabric:
    return await make_fabric()


def mail(to: str, text: str = "hi", *, id: str = "", sender: str = "") -> Message:
    return Message(id=id, sender=Address(sender), recipient=Address(to), text=text)


def texts(envelopes: list[Envelope]) -> list[str]:
    return [pb.Message.FromString(e.encoded).text for e in envelopes]


def decoded(envelopes: list[Envelope]) -> list[Message]:
    return [wire.message_in(pb.Message.FromString(e.encoded)) for e in envelopes]
