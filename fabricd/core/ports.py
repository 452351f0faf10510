"""What the core needs from storage and from wake-ups: one narrow, typed port per contract.

A backend implements `Store`: eight per-contract ports (like nats-server's
StreamStore/ConsumerStore or etcd's Backend) and its lifecycle. Every method is
async; a write returns once it is durable. Each write is an OPERATION, run
atomically by the backend (LMDB: one function handed to its single writer and
group-committed; PostgreSQL: one statement or one short transaction). An
operation may be re-run after a serialization failure or a lost connection, so
implementations never mutate the caller's objects or the services' counters:
they return what they stored.

The rules an operation applies (who may be refused and why, the exactly-once
argument of the outbox) are the core's: the embedded backends run the same
transaction scripts (`fabricd.core.kv`), any other backend must keep them, and
the unit tests in tests/core pin them against the in-memory backend.

Wake-ups have their own port (`Wakeups`): the backend calls `notify` after a
commit; streams and waiters read a version, read storage, then wait. A wake-up
is a hint: waiters always re-read storage, so a lost one delays, never loses.

Lists are cursor reads (`page`, `queue_page`, ...): the items after a cursor
in the store's order, at most `limit` of them and at most `max_bytes` of their
estimated size (fabricd.core.paging.approx_size; always one, if any), with the
cursor to go on from ("" at the end). Cursors are the backend's own strings
(a key, a sequence number), stable while the list changes; a cursor the
backend cannot read is InvalidArgument (INVALID_PAGE_TOKEN). No page reads
more than it returns (plus one item): SQL does it with
`WHERE key > $cursor ORDER BY key LIMIT $limit + 1`.

Ids: sequences (mailbox seq, ticket order, directory revisions and sequences)
are the store's; minted message and agent-directory ids carry the store's
`node_id` (see fabricd.core.ids), so nodes sharing a database never mint the
same id.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable, Sequence
from dataclasses import dataclass
from typing import Protocol

from fabricd.core.errors import FabricError
from fabricd.core.leases import Clocks, Line, Queued
from fabricd.core.limits import Limits
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
from fabricd.core.model_agentdir import Admission, Agent, DirectoryData, RepairInfo, Submission, Thread, WorkRequest
from fabricd.core.model_leases import AcquireRequest, Holder, Lease, LeaseMode, Waiter
from fabricd.core.model_outbox import DrainResult, RetryPolicy
from fabricd.core.model_rendezvous import Answer, TicketQuery, TicketRequest, TicketView
from fabricd.core.model_tokens import Token
from fabricd.core.model_wake import WakeHook
from fabricd.core.paging import Page
from fabricd.core.ports_channels import ChannelPort
from fabricd.core.quota import Quotas, Usage

WakeKey = str
CLOSING: WakeKey = "\x00closing"
"""A wake key no write moves: waited on to learn that the wake-ups closed (Service.closing)."""
"""A wake-up key: "mailbox/<agent id>", "ticket/<id>", "queue/<agent id>", "directory", "outbox", "agent-directory"."""


class Wakeups(Protocol):
    """Per-key change versions with waiters (in process: fabricd.core.notify.LocalWakeups)."""

    @property
    def closed(self) -> bool: ...

    def version(self, key: WakeKey) -> int: ...

    def notify(self, key: WakeKey) -> None:
        """Move the version of `key` and wake its waiters (the store calls it after a commit)."""

    async def wait(self, key: WakeKey, seen: int, timeout: float | None) -> bool:
        """Wait until the version of `key` differs from `seen`; False on timeout or close."""

    def wake_all(self) -> None:
        """Wake every local waiter of every key (a lost LISTEN connection calls it: wake-ups may be lost)."""

    def waiter_count(self, excluding: Collection[Hashable] = ()) -> int: ...

    def close(self) -> None: ...


# -- per-contract ports


class DirectoryPort(Protocol):
    async def get(self, agent_id: str) -> MailboxEntry | None: ...

    async def resolve(self, name: str) -> MailboxEntry | None:
        """An agent id, a session name, or `session/segment` (fabricd.core.kv.directory.resolve_name rules)."""

    async def similar(self, name: str) -> list[str]:
        """Registered agent ids and session names closest to `name`, best first (for "did you mean")."""

    async def look_alike(self, name: str) -> tuple[str, str, str] | None:
        """(other name, holder agent id, what the name is to it) of another agent's id or session name (or a
        live agent token's) that `name` only looks like (fabricd.core.lookalike); None when none."""

    async def entries(self) -> list[MailboxEntry]:
        """Every entry, by agent id."""

    async def page(self, after: str, limit: int, max_bytes: int) -> Page[MailboxEntry]:
        """Entries in the store's key order after a cursor."""

    async def snapshot(self) -> tuple[int, list[MailboxEntry]]:
        """The directory revision and every entry as of it, by agent id."""

    async def changes_since(self, revision: int, limit: int) -> list[MailboxEntry]:
        """Entries changed after `revision`, in revision order; a removal is a bare entry with change UNREGISTERED."""

    async def register(self, agent_id: str, session_name: str, capabilities: tuple[Capability, ...], cwd: str,
                       metadata: dict[str, str], exclusive: bool = False,
                       live_window_ns: int = 0) -> tuple[MailboxEntry, list[MailboxEntry]]:
        """Create or update an entry; returns it and the other entries under its session name.

        With `exclusive`, a name another agent live within `live_window_ns` holds is refused (NAME_HELD)
        and offline holders lose it (fabricd.core.kv.directory.register)."""

    async def touch(self, agent_id: str, busy: bool, offline: bool) -> tuple[MailboxEntry, bool, list[str]]:
        """A heartbeat; returns the entry, whether it was created, and (if so) similar known names."""

    async def unregister(self, name: str, purge: bool) -> tuple[int, int]:
        """Remove a mailbox (refused while it holds mail or tickets unless `purge`): (messages, tickets) deleted."""


class MailboxPort(Protocol):
    async def append(self, items: Sequence[tuple[Message, bytes]], *, create: bool, atomic: bool,
                     max_unread: int, quota: Quotas | None = None) -> list[Sent | FabricError]:
        """Store validated messages with their digests (b"" for none), each idempotent on its id.

        With a `quota`, each message's sender is held to it (fabricd.core.quota).

        One result per item: the stored message (a new object: the caller's is
        left alone), the earlier one it duplicates, or its refusal. With
        `atomic`, the first refusal is raised (naming its index) and nothing is stored.
        """

    async def unread(self, agent_id: str, after_seq: int, limit: int, max_bytes: int) -> list[Envelope]: ...

    async def peek(self, agent_id: str, limit: int, max_bytes: int) -> tuple[list[Envelope], int]:
        """The oldest unread messages and the unread count."""

    async def drain(self, agent_id: str, limit: int, max_bytes: int,
                    deliverable: Callable[[], bool] | None = None) -> tuple[list[Envelope], int, int]:
        """Consume the oldest unread messages; returns them, how many remain, and the mailbox's directory
        revision as it was drained (what put_back takes to know the mailbox again).

        `deliverable` is asked inside the operation, just before consuming (on any thread: it must be
        thread-safe): when False, nothing is consumed and ([], unread, revision) is returned."""

    async def put_back(self, agent_id: str, envelopes: Sequence[Envelope], revision: int) -> int:
        """Make drained messages unread again, in their places (a drain whose caller was gone); the number
        put back. `revision`: the drain's. Nothing is put back into a mailbox removed since the drain,
        even one made again under that id (the messages were of the removed one); a message unread
        already is skipped."""

    async def ack(self, agent_id: str, message_ids: Sequence[str]) -> int:
        """Consume messages by id; the number that were unread (acking twice counts once)."""

    async def forget_ids(self, sent_before_ns: int, cursor: bytes, limit: int) -> tuple[int, bytes]:
        """Forget ids of consumed messages sent before `sent_before_ns`; b"" once the whole table is done."""

    async def unread_counts(self) -> list[tuple[str, int]]:
        """(agent id, unread) of every mailbox holding mail."""

    async def usage(self, agent_id: str) -> Usage:
        """What an agent holds against its quotas, as the store counts it."""


class RendezvousPort(Protocol):
    async def enqueue(self, request: TicketRequest, max_unread: int,
                      quota: Quotas | None = None) -> tuple[Ticket, int]:
        """Queue a ticket (and its task message) for the resolved target; returns it and its position.
        With a `quota`, the asking agent is held to it."""

    async def get(self, ticket_id: str) -> Ticket | None: ...

    async def queue_head(self, agent_id: str, limit: int, max_bytes: int) -> tuple[list[Ticket], int]:
        """The first tickets of a FIFO (at most `limit`, about `max_bytes` of them, always one if any) and
        how many it holds."""

    async def target(self, name: str) -> str:
        """The agent a queue name means (an agent id, or an unambiguous session name)."""

    async def queue(self, agent_id: str) -> list[Ticket]:
        """The FIFO of an agent id, head first."""

    async def queue_page(self, name: str, after: str, limit: int, max_bytes: int) -> tuple[str, Page[Ticket]]:
        """The agent a queue name means (as `target`), and its FIFO after a cursor, head first."""

    async def answer(self, agent_id: str, answer: Answer, ticket_id: str) -> str:
        """Answer the named ticket, or the head when `ticket_id` is empty; returns the ticket answered."""

    async def retire(self, ticket_id: str, reason: str, reattached: int | None = None) -> bool:
        """Abort a queued ticket; False when it was no longer queued, or (given `reattached`) when its
        `Ticket.reattached` moved from that: a resent Ask waits on it."""

    async def cancel_head(self, agent_id: str, ticket_id: str) -> bool: ...

    async def close_queue(self, agent_id: str, reason: str) -> int: ...

    async def prune(self, finished_before_ns: int, limit: int) -> int:
        """Forget answered and aborted tickets that finished before the given time."""

    async def queued_count(self) -> int: ...

    async def view(self, ticket_id: str) -> TicketView | None:
        """A ticket and its position in its target's FIFO (-1 once finished); None if unknown or pruned."""

    async def cancel(self, ticket_id: str, reason: str) -> tuple[Ticket, bool] | None:
        """Withdraw a queued ticket wherever it stands (ABORTED, `reason`); a finished one comes back unchanged.
        The flag: whether this call withdrew it."""

    async def list(self, target: str, query: TicketQuery) -> list[Ticket]:
        """A target's tickets (any state), newest first, filtered and paged by `query`."""


class OutboxPort(Protocol):
    async def add(self, rows: Sequence[OutboxRow], quota: Quotas | None = None) -> int:
        """Queue PENDING rows whose key is new (a replay adds nothing); the number added. With a `quota`,
        refuses (QUOTA_OUTBOX_ROWS, nothing written) rows that take a sender over its outbox-rows quota. A row
        whose key names a reply to another recipient refuses them all (OUTBOX_KEY_REUSED, nothing written)."""

    async def deliver_due(self, limit: int, policy: RetryPolicy, max_unread: int) -> DrainResult:
        """Claim up to `limit` due rows and post each, message and receipt in one transaction."""

    async def next_due(self) -> int | None: ...

    async def rows(self, after_key: str, limit: int, state: RowState) -> list[OutboxRow]: ...

    async def page(self, after_key: str, limit: int, state: RowState, max_bytes: int) -> Page[OutboxRow]:
        """Rows of one state (UNSPECIFIED: all) in key order after a key; a filtered page may come back short
        (with a cursor) so that one call never reads the whole table."""

    async def retry_dead_letters(self, keys: Sequence[str]) -> int:
        """Make dead-lettered rows due now (all of them when `keys` is empty)."""

    async def prune_receipts(self, delivered_before_ns: int) -> int: ...

    async def counts(self) -> tuple[int, int, int]:
        """(pending rows, all rows with receipts, dead letters)."""

    async def settle_wake(self, key: str, error: FabricError | None, policy: RetryPolicy) -> bool:
        """Record what the sender of a claimed wake row answered: its receipt (True), or a retry or dead
        letter (fabricd.core.kv.wake.settle)."""


class WakePort(Protocol):
    """Wake hooks and their firing (the rules: fabricd.core.wake)."""

    async def set(self, hook: WakeHook) -> WakeHook:
        """Store a hook for an existing agent or mailbox, its firing state fresh; NAME_NOT_FOUND else."""

    async def delete(self, agent_id: str) -> bool: ...

    async def get(self, agent_id: str) -> WakeHook | None: ...

    async def armed(self) -> list[tuple[str, int]]:
        """(agent id, when due) of every armed hook (a read: the loop writes only for a due one)."""

    async def fire(self, agent_id: str, streaming: Callable[[str], bool], live_window_ns: int) -> bool:
        """Fire the agent's hook if it is armed and due, or disarm it (fabricd.core.kv.wake.fire), in one
        transaction per agent; whether a wake row was made."""


class AgentDirectoryPort(Protocol):
    """Each write moves DirectoryData.sequence once and keeps the data in a bounded history."""

    async def data(self) -> DirectoryData: ...

    async def history(self, after_sequence: int, limit: int) -> tuple[list[DirectoryData], DirectoryData]:
        """The kept data after a sequence, and the data now, from one snapshot."""

    async def initialize(self, instructions: str, settings: str) -> tuple[Agent, Thread]: ...

    async def create_agent(self, name: str, description: str, instructions: str, settings: str) -> Agent: ...

    async def get_agent(self, agent_id: str) -> Agent | None: ...

    async def agents(self) -> list[Agent]: ...

    async def agents_page(self, after: str, limit: int, max_bytes: int) -> Page[Agent]: ...

    async def create_thread(self, agent_id: str, title: str, kind: str, create_ns: int,
                            contexts: tuple[str, ...], request_key: str = "") -> Thread:
        """A new thread; a non-empty `request_key` seen before returns that call's thread (see admit)."""

    async def threads_of(self, agent_id: str) -> list[Thread] | None:
        """None when the agent is unknown."""

    async def threads_page(self, agent_id: str, after: str, limit: int, max_bytes: int) -> Page[Thread] | None:
        """An agent's threads in creation order after a cursor; None when the agent is unknown."""

    async def admit(self, agent_id: str, thread_id: str, submission: Submission, optional_work: bool,
                    max_causal_depth: int, request_key: str = "") -> Admission:
        """Admit or refuse. A non-empty `request_key` already used by an accepted admission of the same
        request returns that answer and writes nothing; of a different request, REQUEST_KEY_REUSED."""

    async def settle(self, request_id: str, thread_id: str, interactive: bool, notify: bool) -> WorkRequest: ...

    async def notification_sent(self, request_id: str) -> None: ...

    async def requests(self, which: int, after_seq: int, limit: int) -> list[WorkRequest]: ...

    async def requests_page(self, which: int, after: str, limit: int, max_bytes: int) -> Page[WorkRequest]:
        """Requests of a filter in admission order after a cursor."""

    async def advertise(self, profiles: str, availability: str) -> None: ...

    async def reconcile_repair(self, repair: RepairInfo, text: str, publication: str, create_ns: int) -> str: ...


class LeasePort(Protocol):
    """fabricd.core.kv.leases.KvLeases is the one implementation (PostgreSQL runs its scripts too)."""

    async def acquire(self, request: AcquireRequest, lease_id: str, clocks: Clocks, quota: int) -> Lease: ...

    async def wait_turn(self, request: AcquireRequest, lease_id: str, clocks: Clocks, quota: int,
                        line: Line) -> Lease | Queued:
        """A waiting call's try: the grant, or its place in line (stored, its expiry moved)."""

    async def leave(self, waiter_id: str) -> bool:
        """Delete a waiting call's record (it ended ungranted); whether there was one."""

    async def waiters(self) -> list[Waiter]:
        """The live waiter records, oldest place first."""

    async def renew(self, lease_id: str, ttl_ns: int, clocks: Clocks, as_agent: str) -> Lease: ...

    async def release(self, lease_id: str, agent_id: str, as_agent: str, clocks: Clocks) -> list[Lease]: ...

    async def live(self, clocks: Clocks) -> list[Lease]: ...

    async def check(self, agent_id: str, paths: Sequence[str], mode: LeaseMode, clocks: Clocks) -> list[Holder]: ...

    async def since(self, after: int, limit: int) -> list[Lease]: ...

    async def sweep(self, clocks: Clocks, prune: bool = False) -> tuple[list[Lease], int]: ...


class TokenPort(Protocol):
    async def add(self, key: bytes, token: Token) -> None: ...

    async def get(self, key: bytes) -> Token | None: ...

    async def revoke(self, token_id: str, now_ns: int) -> tuple[bytes, Token] | None:
        """Mark a live token revoked; returns it, or None when unknown or revoked already."""

    async def all(self) -> list[tuple[bytes, Token]]: ...

    async def page(self, after: str, limit: int, max_bytes: int) -> Page[Token]:
        """Tokens in the store's key order after a cursor."""


# -- the store


@dataclass(frozen=True, slots=True)
class StoreStats:
    """What GetStatus and the metrics report of a store (sizes are 0 where a backend has none)."""

    location: str
    commits: int
    writes: int
    """Writes that succeeded (a refused or failed write does not count)."""
    last_batch: int
    messages_stored: int = 0
    """Messages committed since the store opened."""
    size_bytes: int = 0
    used_bytes: int = 0
    free_bytes: int = 0
    quarantined: int = 0
    """Corrupt records moved aside since the store opened (a backend that checks record checksums)."""


class Store(Protocol):
    """A backend: the seven ports, and its lifecycle."""

    # Read-only (properties): a backend's own port classes satisfy them; a plain attribute would require
    # exactly the port type (attributes of a protocol are invariant).
    @property
    def directory(self) -> DirectoryPort: ...
    @property
    def mailboxes(self) -> MailboxPort: ...
    @property
    def rendezvous(self) -> RendezvousPort: ...
    @property
    def outbox(self) -> OutboxPort: ...
    @property
    def agent_directory(self) -> AgentDirectoryPort: ...
    @property
    def tokens(self) -> TokenPort: ...
    @property
    def wake(self) -> WakePort: ...

    @property
    def leases(self) -> LeasePort: ...
    @property
    def channels(self) -> ChannelPort: ...
    @property
    def wakeups(self) -> Wakeups: ...
    @property
    def node_id(self) -> int:
        """Tells this node's minted ids apart from other nodes' (0 for a store one process owns)."""
        ...
    on_commit: Callable[[int, float], None] | None
    """Called with (writes in the batch, seconds) after each commit (for metrics)."""
    quiet: Callable[[], bool] | None
    """Set by the daemon: True while it serves no call but the one writing. A backend may then commit that
    write without handing it to another thread (LMDB does); it changes no guarantee, only who does the work."""
    backup_to: Callable[[int], None] | None
    """Write a consistent copy of the store to a file descriptor (blocking: run it in a thread); None when
    the backend has its own tools for that (a database)."""

    async def start(self) -> None:
        """Start serving writes (the writer thread, the pool, the LISTEN connection)."""

    async def close(self) -> None:
        """Commit every queued write, then release the backend."""

    def stats(self) -> StoreStats: ...

    async def counts(self) -> tuple[int, int]:
        """(mailboxes, queued tickets), for GetStatus."""

    async def postgres_info(self) -> PostgresInfo | None:
        """The PostgreSQL server and pool behind the store; None for a store that is no database."""

    # Synchronous reads for the access guard, which checks calls without awaiting today. A backend
    # without quick synchronous reads answers None; the guard must become async before such a backend
    # can serve tokens issued elsewhere or ticket checks.

    def ticket_now(self, ticket_id: str) -> Ticket | None: ...

    def token_now(self, key: bytes) -> Token | None: ...

    def making_progress(self, stall_s: float) -> bool:
        """False when a write has waited on the backend for longer than `stall_s` (the watchdog asks)."""


class Service:
    """What every contract of the core holds: the store, the wake-ups, the limits and a clock.

    `limits` is public so that a reload (SIGHUP) can swap it in place.
    """

    def __init__(self, store: Store, limits: Limits, clock: Callable[[], int], keepalive_s: float = 15.0) -> None:
        self._store = store
        self._wakeups = store.wakeups
        self.limits = limits
        self._clock = clock
        self._keepalive_s = keepalive_s

    async def closing(self) -> None:
        """Return once the daemon shuts down (its wake-ups close): a stream that waits on its caller's frames,
        not on a wake-up, ends then instead of holding the shutdown for its grace."""
        wakeups = self._wakeups
        while not wakeups.closed:
            await wakeups.wait(CLOSING, wakeups.version(CLOSING), None)  # a key nothing moves: woken by close
