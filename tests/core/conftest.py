"""The core's services on the in-memory backend, with a clock the test moves: no daemon, no disk."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

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


def build(limits: Limits | None = None, policy: RetryPolicy | None = None) -> Fabric:
    limits = limits or Limits()
    clock = Clock()
    wakeups = LocalWakeups()
    store = open_store("memory:", wakeups=wakeups, clock=clock)
    return Fabric(store, wakeups, clock, Mailboxes(store, limits, clock, keepalive_s=0.05),
                  Directory(store, limits, clock, keepalive_s=0.05), Rendezvous(store, limits, clock, keepalive_s=0.05),
                  Outbox(store, limits, clock, policy or RetryPolicy(jitter=0)),
                  AgentDirectory(store, limits, clock, keepalive_s=0.05), Tokens(store, limits, clock))


@pytest.fixture
async def fabric() -> AsyncIterator[Fabric]:
    f = build()
    await f.store.start()
    yield f
    f.wakeups.close()
    await f.store.close()


def mail(to: str, text: str = "hi", *, id: str = "", sender: str = "") -> Message:  # noqa: A002
    return Message(id=id, sender=Address(sender), recipient=Address(to), text=text)


def texts(envelopes: list[Envelope]) -> list[str]:
    return [pb.Message.FromString(e.encoded).text for e in envelopes]


def decoded(envelopes: list[Envelope]) -> list[Message]:
    return [wire.message_in(pb.Message.FromString(e.encoded)) for e in envelopes]
