"""`KvStore`: the core's Store port over a key-value Engine, by running this package's scripts.

Reads run the engine's short read transactions; writes hand one script to its
writer, so each operation is one transaction (LMDB batches concurrent ones
into one commit). Scripts get the clock and the node's id mint from here.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from fabricd.core.errors import FabricError
from fabricd.core.ids import IdMint
from fabricd.core.kv import directory, lifecycle, mailbox, outbox, paging, rendezvous, wake
from fabricd.core.kv.agentdir import Scripts
from fabricd.core.kv.channel_port import KvChannels, SearchIndex
from fabricd.core.kv.leases import KvLeases
from fabricd.core.kv.tx import Engine
from fabricd.core.model import (
    Capability,
    Envelope,
    MailboxEntry,
    Message,
    OutboxRow,
    PostgresInfo,
    RowState,
    Sent,
    Ticket,
)
from fabricd.core.paging import Page
from fabricd.core.ports import MailboxPort, StoreStats, Wakeups
from fabricd.core.quota import Quotas, Usage

if TYPE_CHECKING:
    from fabricd.core.kv.tx import RecordTx
    from fabricd.core.model_agentdir import Admission, Agent, DirectoryData, RepairInfo, Submission, Thread, WorkRequest
    from fabricd.core.model_outbox import DrainResult, RetryPolicy
    from fabricd.core.model_rendezvous import Answer, TicketQuery, TicketRequest, TicketView
    from fabricd.core.model_tokens import Token
    from fabricd.core.model_wake import WakeHook


class _Part:
    __slots__ = ("_e", "_clock", "_mint")

    def __init__(self, engine: Engine, clock: Callable[[], int], mint: Callable[[int], str]) -> None:
        self._e = engine
        self._clock = clock
        self._mint = mint


class KvDirectory(_Part):
    __slots__ = ()

    async def get(self, agent_id: str) -> MailboxEntry | None:
        return await self._e.read(lambda tx: tx.get_entry(agent_id))

    async def resolve(self, name: str) -> MailboxEntry | None:
        return await self._e.read(lambda tx: directory.resolve_name(tx, name))

    async def similar(self, name: str) -> list[str]:
        return await self._e.read(lambda tx: directory.similar_names(tx, name))

    async def look_alike(self, name: str) -> tuple[str, str, str] | None:
        return await self._e.read(lambda tx: directory.look_alike(tx, name))

    async def entries(self) -> list[MailboxEntry]:
        return await self._e.read(lambda tx: sorted(tx.entries(), key=lambda e: e.agent_id))

    async def page(self, after: str, limit: int, max_bytes: int) -> Page[MailboxEntry]:
        return await self._e.read(lambda tx: paging.mailboxes(tx, after, limit, max_bytes))

    async def snapshot(self) -> tuple[int, list[MailboxEntry]]:
        return await self._e.read(lambda tx: (tx.revision(), sorted(tx.entries(), key=lambda e: e.agent_id)))

    async def changes_since(self, revision: int, limit: int) -> list[MailboxEntry]:
        return await self._e.read(lambda tx: tx.entries_since(revision, limit))

    async def register(self, agent_id: str, session_name: str, capabilities: tuple[Capability, ...], cwd: str,
                       metadata: dict[str, str], exclusive: bool = False,
                       live_window_ns: int = 0) -> tuple[MailboxEntry, list[MailboxEntry]]:
        return await self._e.write(lambda tx: lifecycle.register(tx, self._clock(), agent_id, session_name,
                                                                 capabilities, cwd, metadata, exclusive,
                                                                 live_window_ns))

    async def touch(self, agent_id: str, busy: bool, offline: bool) -> tuple[MailboxEntry, bool, list[str]]:
        return await self._e.write(lambda tx: directory.touch(tx, self._clock(), agent_id, busy, offline))

    async def unregister(self, name: str, purge: bool) -> tuple[int, int]:
        return await self._e.write(lambda tx: lifecycle.unregister(tx, self._clock(), name, purge))


class KvMailboxes(_Part):
    __slots__ = ()

    async def append(self, items: Sequence[tuple[Message, bytes]], *, create: bool, atomic: bool,
                     max_unread: int, quota: Quotas | None = None) -> list[Sent | FabricError]:
        return await self._e.write(lambda tx: mailbox.append(tx, self._clock(), self._mint, items, create, atomic,
                                                             max_unread, quota), weight=len(items))

    async def unread(self, agent_id: str, after_seq: int, limit: int, max_bytes: int) -> list[Envelope]:
        return await self._e.read(lambda tx: tx.unread(agent_id, after_seq, limit, max_bytes))

    async def peek(self, agent_id: str, limit: int, max_bytes: int) -> tuple[list[Envelope], int]:
        return await self._e.read(lambda tx: mailbox.peek(tx, agent_id, limit, max_bytes))

    async def drain(self, agent_id: str, limit: int, max_bytes: int,
                    deliverable: Callable[[], bool] | None = None) -> tuple[list[Envelope], int, int]:
        return await self._e.write(lambda tx: mailbox.drain(tx, self._clock(), agent_id, limit, max_bytes,
                                                            deliverable), weight=limit)

    async def put_back(self, agent_id: str, envelopes: Sequence[Envelope], revision: int) -> int:
        return await self._e.write(lambda tx: mailbox.put_back(tx, agent_id, envelopes, revision),
                                   weight=len(envelopes))

    async def ack(self, agent_id: str, message_ids: Sequence[str]) -> int:
        return await self._e.write(lambda tx: mailbox.ack(tx, self._clock(), agent_id, message_ids))

    async def forget_ids(self, sent_before_ns: int, cursor: bytes, limit: int) -> tuple[int, bytes]:
        return await self._e.write(lambda tx: tx.forget_consumed_ids(sent_before_ns, cursor, limit))

    async def unread_counts(self) -> list[tuple[str, int]]:
        return await self._e.read(mailbox.unread_counts)

    async def usage(self, agent_id: str) -> Usage:
        return await self._e.read(lambda tx: tx.usage(agent_id))


class KvRendezvous(_Part):
    __slots__ = ()

    async def enqueue(self, request: TicketRequest, max_unread: int,
                      quota: Quotas | None = None) -> tuple[Ticket, int]:
        return await self._e.write(lambda tx: rendezvous.enqueue(tx, self._clock(), self._mint, request, max_unread,
                                                                 quota))

    async def get(self, ticket_id: str) -> Ticket | None:
        return await self._e.read(lambda tx: tx.get_ticket(ticket_id))

    async def target(self, name: str) -> str:
        return await self._e.read(lambda tx: rendezvous.target(tx, name))

    async def queue(self, agent_id: str) -> list[Ticket]:
        return await self._e.read(lambda tx: rendezvous.queued(tx, agent_id))

    async def queue_head(self, agent_id: str, limit: int, max_bytes: int) -> tuple[list[Ticket], int]:
        def read(tx: RecordTx) -> tuple[list[Ticket], int]:
            return paging.queue(tx, agent_id, "", limit, max_bytes)[1].items, tx.queue_length(agent_id)

        return await self._e.read(read)

    async def queue_page(self, name: str, after: str, limit: int, max_bytes: int) -> tuple[str, Page[Ticket]]:
        return await self._e.read(lambda tx: paging.queue(tx, name, after, limit, max_bytes))

    async def answer(self, agent_id: str, answer: Answer, ticket_id: str) -> str:
        return await self._e.write(lambda tx: rendezvous.answer(tx, self._clock(), agent_id, answer, ticket_id))

    async def retire(self, ticket_id: str, reason: str, reattached: int | None = None) -> bool:
        return await self._e.write(lambda tx: rendezvous.retire(tx, self._clock(), ticket_id, reason, reattached))

    async def cancel_head(self, agent_id: str, ticket_id: str) -> bool:
        return await self._e.write(lambda tx: rendezvous.cancel_head(tx, self._clock(), agent_id, ticket_id))

    async def close_queue(self, agent_id: str, reason: str) -> int:
        return await self._e.write(lambda tx: rendezvous.close_queue(tx, self._clock(), agent_id, reason))

    async def prune(self, finished_before_ns: int, limit: int) -> int:
        if not await self._e.read(lambda tx: tx.finished_before(finished_before_ns, 1)):
            return 0  # nothing to forget: no write
        return await self._e.write(lambda tx: rendezvous.prune(tx, finished_before_ns, limit))

    async def queued_count(self) -> int:
        return await self._e.read(lambda tx: tx.queued_tickets())

    async def view(self, ticket_id: str) -> TicketView | None:
        return await self._e.read(lambda tx: rendezvous.view(tx, ticket_id))

    async def cancel(self, ticket_id: str, reason: str) -> tuple[Ticket, bool] | None:
        return await self._e.write(lambda tx: rendezvous.cancel(tx, self._clock(), ticket_id, reason))

    async def list(self, target: str, query: TicketQuery) -> list[Ticket]:
        return await self._e.read(lambda tx: rendezvous.listed(tx, target, query))


class KvOutbox(_Part):
    __slots__ = ("_rng",)

    def __init__(self, engine: Engine, clock: Callable[[], int], mint: Callable[[int], str]) -> None:
        super().__init__(engine, clock, mint)
        self._rng = random.Random()

    async def add(self, rows: Sequence[OutboxRow], quota: Quotas | None = None) -> int:
        return await self._e.write(lambda tx: outbox.add_all(tx, rows, quota))

    async def deliver_due(self, limit: int, policy: RetryPolicy, max_unread: int) -> DrainResult:
        from fabricd.core.outbox import DrainResult

        due = await self.next_due()
        if due is None or due > self._clock():
            return DrainResult(0, 0, more=False)  # nothing due: no write, no fsync
        return await self._e.write(lambda tx: outbox.deliver_due(tx, self._clock(), self._mint, limit, policy,
                                                                 self._rng, max_unread))

    async def next_due(self) -> int | None:
        return await self._e.read(lambda tx: tx.next_outbox_due())

    async def rows(self, after_key: str, limit: int, state: RowState) -> list[OutboxRow]:
        return await self._e.read(lambda tx: tx.outbox_rows(after_key, limit, state))

    async def page(self, after_key: str, limit: int, state: RowState, max_bytes: int) -> Page[OutboxRow]:
        return await self._e.read(lambda tx: paging.outbox(tx, after_key, limit, state, max_bytes))

    async def retry_dead_letters(self, keys: Sequence[str]) -> int:
        return await self._e.write(lambda tx: outbox.retry_dead_letters(tx, self._clock(), keys))

    async def prune_receipts(self, delivered_before_ns: int) -> int:
        return await self._e.write(lambda tx: outbox.prune_receipts(tx, delivered_before_ns))

    async def counts(self) -> tuple[int, int, int]:
        return await self._e.read(outbox.counts)

    async def settle_wake(self, key: str, error: FabricError | None, policy: RetryPolicy) -> bool:
        return await self._e.write(lambda tx: outbox.settle_wake(tx, self._clock(), self._mint, key, error, policy,
                                                                 self._rng))


class KvWake(_Part):
    __slots__ = ()

    async def set(self, hook: WakeHook) -> WakeHook:
        return await self._e.write(lambda tx: wake.set_hook(tx, hook))

    async def delete(self, agent_id: str) -> bool:
        return await self._e.write(lambda tx: wake.delete_hook(tx, agent_id))

    async def get(self, agent_id: str) -> WakeHook | None:
        return await self._e.read(lambda tx: tx.get_wake_hook(agent_id))

    async def armed(self) -> list[tuple[str, int]]:
        return await self._e.read(wake.armed)

    async def fire(self, agent_id: str, streaming: Callable[[str], bool], live_window_ns: int) -> bool:
        return await self._e.write(lambda tx: wake.fire(tx, self._clock(), agent_id, streaming, live_window_ns))


class KvAgentDirectory(_Part):
    __slots__ = ("_s",)

    def __init__(self, engine: Engine, clock: Callable[[], int], mint: Callable[[int], str]) -> None:
        super().__init__(engine, clock, mint)
        self._s = Scripts(clock, mint)

    async def data(self) -> DirectoryData:
        return await self._e.read(lambda tx: tx.get_directory_data())

    async def history(self, after_sequence: int, limit: int) -> tuple[list[DirectoryData], DirectoryData]:
        return await self._e.read(lambda tx: (tx.directory_history(after_sequence, limit), tx.get_directory_data()))

    async def initialize(self, instructions: str, settings: str) -> tuple[Agent, Thread]:
        return await self._e.write(lambda tx: self._s.initialize(tx, instructions, settings))

    async def create_agent(self, name: str, description: str, instructions: str, settings: str) -> Agent:
        return await self._e.write(lambda tx: self._s.create_agent(tx, name, description, instructions, settings))

    async def get_agent(self, agent_id: str) -> Agent | None:
        return await self._e.read(lambda tx: tx.get_agent(agent_id))

    async def agents(self) -> list[Agent]:
        return await self._e.read(lambda tx: tx.agents())

    async def agents_page(self, after: str, limit: int, max_bytes: int) -> Page[Agent]:
        return await self._e.read(lambda tx: paging.agents(tx, after, limit, max_bytes))

    async def create_thread(self, agent_id: str, title: str, kind: str, create_ns: int,
                            contexts: tuple[str, ...], request_key: str = "") -> Thread:
        return await self._e.write(lambda tx: self._s.create_thread(tx, agent_id, title, kind, create_ns, contexts,
                                                                    request_key))

    async def threads_of(self, agent_id: str) -> list[Thread] | None:
        return await self._e.read(lambda tx: self._s.threads_of(tx, agent_id))

    async def threads_page(self, agent_id: str, after: str, limit: int, max_bytes: int) -> Page[Thread] | None:
        return await self._e.read(lambda tx: paging.threads(tx, agent_id, after, limit, max_bytes))

    async def admit(self, agent_id: str, thread_id: str, submission: Submission, optional_work: bool,
                    max_causal_depth: int, request_key: str = "") -> Admission:
        return await self._e.write(lambda tx: self._s.admit(tx, agent_id, thread_id, submission, optional_work,
                                                            max_causal_depth, request_key))

    async def settle(self, request_id: str, thread_id: str, interactive: bool, notify: bool) -> WorkRequest:
        return await self._e.write(lambda tx: self._s.settle(tx, request_id, thread_id, interactive, notify))

    async def notification_sent(self, request_id: str) -> None:
        await self._e.write(lambda tx: self._s.notification_sent(tx, request_id))

    async def requests(self, which: int, after_seq: int, limit: int) -> list[WorkRequest]:
        return await self._e.read(lambda tx: tx.requests(which, after_seq, limit))

    async def requests_page(self, which: int, after: str, limit: int, max_bytes: int) -> Page[WorkRequest]:
        return await self._e.read(lambda tx: paging.requests(tx, which, after, limit, max_bytes))

    async def advertise(self, profiles: str, availability: str) -> None:
        await self._e.write(lambda tx: self._s.advertise(tx, profiles, availability))

    async def reconcile_repair(self, repair: RepairInfo, text: str, publication: str, create_ns: int) -> str:
        return await self._e.write(lambda tx: self._s.reconcile_repair(tx, repair, text, publication, create_ns))


class KvTokens(_Part):
    __slots__ = ()

    async def add(self, key: bytes, token: Token) -> None:
        def apply(tx: RecordTx) -> None:
            directory.check_token(tx, token.agent_id, token.session_names)
            tx.put_token(key, token)

        await self._e.write(apply)

    async def get(self, key: bytes) -> Token | None:
        return await self._e.read(lambda tx: tx.get_token(key))

    async def revoke(self, token_id: str, now_ns: int) -> tuple[bytes, Token] | None:
        def apply(tx: RecordTx) -> tuple[bytes, Token] | None:
            found = tx.token_by_id(token_id)
            if found is None or found[1].revoke_ns:
                return None
            key, token = found
            token.revoke_ns = now_ns  # a record read in this transaction, not the caller's
            tx.put_token(key, token)
            return key, token

        return await self._e.write(apply)

    async def all(self) -> list[tuple[bytes, Token]]:
        return await self._e.read(lambda tx: tx.tokens())

    async def page(self, after: str, limit: int, max_bytes: int) -> Page[Token]:
        return await self._e.read(lambda tx: paging.tokens(tx, after, limit, max_bytes))


class KvStore:
    """Implements fabricd.core.ports.Store over an Engine (which also provides the lifecycle)."""

    def __init__(self, engine: Engine, wakeups: Wakeups, clock: Callable[[], int], node_id: int = 0,
                 search_index: SearchIndex | None = None) -> None:
        self.engine = engine
        self.wakeups = wakeups
        self.backup_to: Callable[[int], None] | None = getattr(engine, "copy_to", None)
        self.use_node_id(node_id)
        mint = self._mint_id  # through the store: a database hands the node its id only when it starts
        self.directory = KvDirectory(engine, clock, mint)
        self.mailboxes: MailboxPort = KvMailboxes(engine, clock, mint)
        self.rendezvous = KvRendezvous(engine, clock, mint)
        self.outbox = KvOutbox(engine, clock, mint)
        self.agent_directory = KvAgentDirectory(engine, clock, mint)
        self.tokens = KvTokens(engine, clock, mint)
        self.wake = KvWake(engine, clock, mint)
        self.channels = KvChannels(engine, clock, mint, search_index)
        self._search_index = search_index
        self.leases = KvLeases(engine, clock)

    def use_node_id(self, node_id: int) -> None:
        """Mint ids with `node_id` from now on."""
        self.node_id = node_id
        self._mint = IdMint(node_id)

    def _mint_id(self, now_ns: int) -> str:
        return self._mint.mint(now_ns)

    @property
    def on_commit(self) -> Callable[[int, float], None] | None:
        return self.engine.on_commit

    @on_commit.setter
    def on_commit(self, hook: Callable[[int, float], None] | None) -> None:
        self.engine.on_commit = hook

    @property
    def quiet(self) -> Callable[[], bool] | None:
        return getattr(self.engine, "quiet", None)

    @quiet.setter
    def quiet(self, test: Callable[[], bool] | None) -> None:
        if hasattr(self.engine, "quiet"):  # LMDB's; the others have no use for it
            self.engine.quiet = test

    async def start(self) -> None:
        await self.engine.start()

    async def close(self) -> None:
        await self.engine.close()
        if self._search_index is not None:
            self._search_index.close()

    def stats(self) -> StoreStats:
        return self.engine.stats()

    async def postgres_info(self) -> PostgresInfo | None:
        return None

    def making_progress(self, stall_s: float) -> bool:
        return self.engine.making_progress(stall_s)

    async def counts(self) -> tuple[int, int]:
        return await self.engine.read(lambda tx: (tx.mailbox_count(), tx.queued_tickets()))

    def ticket_now(self, ticket_id: str) -> Ticket | None:
        return self.engine.read_now(lambda tx: tx.get_ticket(ticket_id))

    def token_now(self, key: bytes) -> Token | None:
        return self.engine.read_now(lambda tx: tx.get_token(key))
