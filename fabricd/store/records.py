"""The records a fabric is copied as: one Kind per thing a fabric keeps; the Source and Target every dump implements.

fabricd.store.lmdb.dump and fabricd.store.postgres.dump implement Source and Target over these records;
fabricd.store.transfer picks them by location and runs the copy. A record's payload is the core's own type
(named beside each kind), so both backends read and write the same values.
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import AsyncGenerator
from typing import Any, Protocol

BATCH = 1000
"""Records handed to a load at a time: bounded memory whatever the size of the fabric."""


class Kind(enum.StrEnum):
    """A kind of record, and what its payload is."""

    COUNTER = "counter"  # (name, value): named counters, 'revision' (mailbox directory) included
    MAILBOX = "mailbox"  # MailboxEntry: presence, session name, capabilities, revision, seq counter, unread count
    REMOVAL = "removal"  # (revision, agent_id): an unregistered mailbox, for watchers resuming before it
    MESSAGE = "message"  # Message (unread, seq set)
    MESSAGE_ID = "message_id"  # (message id, sender, minted, IdRecord): every id still remembered (unread or in the
    # dedupe window), its sender's idempotency key ("" for a consumed id from before schema 4 / migration 5);
    # `minted`: the store minted it (LMDB keys those alone, in time order)
    TICKET = "ticket"  # Ticket: queued (FIFO by seq), answered or aborted (until pruned)
    OUTBOX = "outbox"  # OutboxRow: pending (with its due time), dead letter, or receipt
    DIRECTORY = "directory"  # agentdir.DirectoryData: the agent directory's data and sequence
    HISTORY = "history"  # agentdir.DirectoryData: the data as of a recent sequence
    AGENT = "agent"  # agentdir.Agent
    THREAD = "thread"  # (ordinal, agentdir.Thread): ordinal = its place in its agent's list
    REQUEST = "request"  # agentdir.WorkRequest (seq = admission order)
    REPAIR = "repair"  # (key, generation, request_id)
    REQUEST_KEY = "request_key"  # (scope, key, digest, created_id): idempotency keys of Admit and CreateThread
    TOKEN = "token"  # (SHA-256 digest, Token): the token itself is never stored
    WAKE_HOOK = "wake_hook"  # core.wake.WakeHook: an agent's hook (URL or command, secret) and its firing state
    CHANNEL = "channel"  # model_channels.Channel: its settings and counters (seq, first retained, count, bytes)
    CHANNEL_MEMBER = "channel_member"  # model_channels.Member
    CHANNEL_POST = "channel_post"  # model_channels.Post: a retained post of a channel's log (its id index rebuilt)


Record = tuple[Kind, Any]


class Source(Protocol):
    """One consistent snapshot of a fabric."""

    skipped: Counter[str]
    """Records the dump could not carry, by what they were (say why in the key)."""

    def records(self) -> AsyncGenerator[list[Record]]:
        """Every record of the fabric, in batches of at most BATCH."""

    async def close(self) -> None: ...


class Target(Protocol):
    """A store being filled: nothing is visible until `commit`."""

    async def begin(self) -> None:
        """Open the load; StoreError (nothing written) when the store already holds a fabric."""

    async def load(self, batch: list[Record]) -> None: ...

    async def commit(self) -> None: ...

    async def abort(self) -> None: ...
