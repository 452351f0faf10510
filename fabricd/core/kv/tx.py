"""The record-level transaction the embedded backends (LMDB, memory) offer the shared transaction scripts.

This is not the core's port (that is fabricd.core.ports): it is how the
scripts in this package, which implement the port's operations once for every
key-value backend, read and write records. Entries handed out by `get_entry`
are cached for the transaction: a script mutates them and calls `put_entry`,
and the backend writes each dirty entry once when the script is done. A
script's changes are thrown away when it raises, so it may be run again.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Protocol, TypeVar

from fabricd.core.model import Change, Envelope, IdRecord, MailboxEntry, Message, OutboxRow, RowState, Ticket
from fabricd.core.model_leases import Lease, Waiter
from fabricd.core.ports import StoreStats
from fabricd.core.quota import Usage

if TYPE_CHECKING:
    from fabricd.core.agentdir import Agent, DirectoryData, Thread, WorkRequest
    from fabricd.core.model_channels import Channel, Member, Post
    from fabricd.core.tokens import Token
    from fabricd.core.wake import WakeHook

T = TypeVar("T")


class RecordTx(Protocol):
    # -- directory
    def get_entry(self, agent_id: str) -> MailboxEntry | None: ...

    def put_entry(self, entry: MailboxEntry, change: Change | None) -> None:
        """Store an entry. With a `change`, the entry gets the next directory revision."""

    def entries(self) -> Iterator[MailboxEntry]: ...

    def entries_named(self, session_name: str) -> list[MailboxEntry]: ...

    def entries_looking_like(self, looks: frozenset[str]) -> list[MailboxEntry]:
        """Agents' entries (registered or heard from: fabricd.core.lookalike.is_agent) whose id or session name
        has one of these look-alike keys (lookalike.keys_of): read through an index, never every entry."""

    def entries_from(self, after: str) -> Iterator[tuple[str, MailboxEntry]]:
        """(cursor, entry) in the store's key order, after the cursor `after` ("" from the first).

        Cursors of every `*_from` read are the backend's own strings; a cursor it
        cannot read raises ValueError. Readers stop early: the iterator is closed.
        """

    def entries_since(self, revision: int, limit: int) -> list[MailboxEntry]:
        """Entries whose revision is above `revision`, in revision order; a deleted entry
        comes back as a bare MailboxEntry with change UNREGISTERED."""

    def delete_entry(self, agent_id: str) -> None:
        """Remove an entry (its messages must be gone) and record its removal as the next revision; raise
        the id's `seq_floor` (and the store-wide floor older stores kept) to its last seq."""

    def removed_since(self, agent_id: str, revision: int) -> bool:
        """Whether a mailbox of `agent_id` was removed at a directory revision above `revision` (a rare
        question: it may read every revision since)."""

    def seq_floor(self, agent_id: str) -> int:
        """No removed mailbox of `agent_id` used a seq above this: a new mailbox of that id starts here (its
        first message gets the next seq), so a mailbox removed and made again never numbers two messages
        alike, and every cursor, id record and ack naming (mailbox, seq) stays true. 0 for an id no mailbox
        ever had (its first message is #1). Each removal records its id's floor; an id removed before
        stores kept one per id (its tombstone, no floor of its own) starts above the store-wide floor."""

    def revision(self) -> int: ...

    def mailbox_count(self) -> int: ...

    # -- messages
    def get_id(self, sender: str, message_id: str) -> IdRecord | None:
        """The record of an id in its sender's scope ("" is a scope of its own), chosen or minted."""

    def put_message(self, message: Message, digest: bytes, chosen: bool) -> bytes:
        """Store an unread message; return its stored encoding. `chosen`: its id was not minted by the store
        (a client's, a ticket's, an outbox row's): keyed by (sender agent id, id), and findable by its
        recipient and id for acks. A minted id is unique store-wide (a backend may key it alone) but is its
        sender's too: get_id(sender, id) finds it, so that sender resending it is refused."""

    def unread_copies(self, agent_id: str, wanted: Mapping[str, int]) -> dict[str, list[Envelope]]:
        """The facts of an ack (fabricd.core.mailbox_acks.AckFacts.copies): for each wanted id, the unread
        messages of `agent_id` carrying it, at least the `wanted[id]` oldest of them (or all); ids found
        nowhere are left out. Reads only: a backend may tidy its own indexes, never consume."""

    def unread(self, agent_id: str, after_seq: int, limit: int, max_bytes: int = 0) -> list[Envelope]:
        """Unread messages with seq above `after_seq`, oldest first: at most `limit`, and no more than
        `max_bytes` of them (but always one, if any) when max_bytes is set."""

    def delete_message(self, agent_id: str, seq: int, encoded: bytes | None = None) -> bool:
        """Consume one unread message; False when it was not unread.

        `encoded`: its stored encoding, when this transaction read it already (from `unread`): the backend
        need not read (and check) it again to credit its sender."""

    def delete_messages(self, agent_id: str, taken: Sequence[Envelope]) -> int:
        """`delete_message` of each (an `encoded` of b"": not read yet), in one go; the count consumed."""

    def restore_message(self, agent_id: str, seq: int, encoded: bytes) -> bool:
        """Make a consumed message unread again from its stored encoding; False when it is unread already."""

    def purge_unread(self, agent_id: str) -> int:
        """Delete every unread message of a mailbox and forget its id; the number deleted."""

    def forget_id(self, sender: str, message_id: str) -> bool:
        """Forget the record of a chosen id whose message was consumed; False (nothing done) when there is
        none or its message is unread."""

    def forget_consumed_ids(self, sent_before_ns: int, cursor: bytes, limit: int) -> tuple[int, bytes]:
        """Forget the ids of consumed messages sent before `sent_before_ns`, `limit` records a call."""

    # -- rendezvous tickets
    def next_sequence(self, name: str) -> int:
        """The next value of a named store-wide counter (1, 2, ...)."""

    def get_ticket(self, ticket_id: str) -> Ticket | None: ...

    def put_ticket(self, ticket: Ticket) -> None:
        """Store a ticket; a QUEUED one is in its target's FIFO, any other is not."""

    def queue(self, target: str, limit: int) -> list[Ticket]:
        """The FIFO of `target`, head first (reads only the first `limit` tickets)."""

    def queue_length(self, target: str) -> int:
        """How many tickets are QUEUED for `target`: a counter kept in step by put_ticket and delete_ticket,
        so reading it costs one record however long the queue is."""

    def queue_from(self, target: str, after_seq: int) -> Iterator[tuple[int, Ticket]]:
        """(seq, ticket) of the FIFO of `target` after ticket seq `after_seq`, head first."""

    def queued_tickets(self) -> int: ...

    # -- quota usage (fabricd.core.quota): the backend moves what quota.MESSAGE_MOVES names (message_moves) in
    # put_message, delete_message, restore_message and purge_unread, by the message's sender and stored size,
    # and QUEUED in put_ticket and delete_ticket, by the ticket's source agent; the scripts move MAILBOXES
    def usage(self, agent_id: str) -> Usage:
        """What `agent_id` holds against its quotas (zeros for an agent never counted)."""

    def count_usage(self, agent_id: str, quota: str, delta: int) -> None:
        """Move one of an agent's usage counters (never below zero); nothing for an empty agent id."""

    def tickets_before(self, target: str, source_agent: str, before_seq: int) -> Iterator[Ticket]:
        """Stored tickets of `target` in any state, newest (highest seq) first, below `before_seq` (0: all);
        only those `source_agent` asked when it is set. Read through an index of the target's (or the
        asker's) tickets, so it never reads other targets' tickets; readers stop early."""

    def finished_before(self, finish_ns: int, limit: int) -> list[str]:
        """Ids of answered or aborted tickets that finished before `finish_ns`, oldest first."""

    def delete_ticket(self, ticket_id: str) -> None: ...

    # -- outbox
    def get_outbox_row(self, agent_id: str, key: str) -> OutboxRow | None:
        """The row `key` of the settling agent `agent_id` (its sender): rows are keyed by both, so no agent
        can take another's mail keys."""

    def put_outbox_row(self, row: OutboxRow) -> None:
        """Store a row under (its sender's agent id, its key); a PENDING row is due at its next_attempt_ns."""

    def add_outbox_row(self, row: OutboxRow) -> bool:
        """Store a new row as put_outbox_row does; False, writing nothing, when a row with its sender and key
        exists (on PostgreSQL also one another transaction committed since this one looked)."""

    def outbox_rows_keyed(self, key: str) -> list[OutboxRow]:
        """Every row with this key, whichever agent settled it (an operator names rows by key)."""

    def due_outbox_rows(self, now_ns: int, limit: int) -> list[OutboxRow]:
        """PENDING rows due by `now_ns`, earliest first."""

    def next_outbox_due(self) -> int | None:
        """When the earliest PENDING row is due; None when none is."""

    def outbox_rows(self, after_key: str, limit: int, state: RowState) -> list[OutboxRow]:
        """Rows in key order after `after_key`, of one state (UNSPECIFIED: all). `after_key` is a key
        (after every row with it) or a row's cursor (`row_cursor`)."""

    def outbox_from(self, after_key: str) -> Iterator[tuple[str, OutboxRow]]:
        """(cursor, row) in key order after `after_key` (as in outbox_rows), every state; the cursor is
        fabricd.core.outbox.row_cursor(row)."""

    def outbox_counts(self) -> tuple[int, int]:
        """(pending rows, all rows including receipts)."""

    def delete_outbox_row(self, agent_id: str, key: str) -> None: ...

    # -- agent directory
    def get_directory_data(self) -> DirectoryData: ...

    def put_directory_data(self, data: DirectoryData, keep_history: int) -> None:
        """Store the data and remember it as of its sequence (the last `keep_history` sequences are kept)."""

    def directory_history(self, after_sequence: int, limit: int) -> list[DirectoryData]: ...

    def get_agent(self, agent_id: str) -> Agent | None: ...

    def agent_named(self, name: str) -> Agent | None: ...

    def put_agent(self, agent: Agent) -> None: ...

    def agents(self) -> list[Agent]: ...

    def agents_looking_like(self, looks: frozenset[str]) -> list[Agent]:
        """The agent directory's agents whose name has one of these look-alike keys (fabricd.core.lookalike.keys):
        read through an index kept with each agent's record, never every agent."""

    def agents_from(self, after: str) -> Iterator[tuple[str, Agent]]:
        """(cursor, agent) in the store's key order after the cursor `after`."""

    def get_thread(self, thread_id: str) -> Thread | None: ...

    def put_thread(self, thread: Thread) -> None: ...

    def threads_of(self, agent_id: str) -> list[Thread]: ...

    def threads_from(self, agent_id: str, after_seq: int) -> Iterator[tuple[int, Thread]]:
        """(seq, thread) of an agent's threads in creation order after `after_seq`."""

    def get_request(self, request_id: str) -> WorkRequest | None: ...

    def put_request(self, request: WorkRequest) -> None:
        """Store a request; its state and notification flags decide the lists it is in."""

    def requests(self, which: int, after_seq: int, limit: int) -> list[WorkRequest]:
        """Requests of a filter (pending, notifications, all) in admission order after `after_seq`."""

    def requests_from(self, which: int, after_seq: int) -> Iterator[tuple[int, WorkRequest]]:
        """(seq, request) of a filter in admission order after `after_seq`."""

    def get_repair(self, key: str) -> tuple[int, str] | None: ...

    def get_request_key(self, scope: str, key: str) -> tuple[bytes, str] | None:
        """An idempotency key of a creating call: (the digest of what it asked, the id it created)."""

    def put_request_key(self, scope: str, key: str, digest: bytes, created_id: str) -> None: ...

    def put_repair(self, key: str, generation: int, request_id: str) -> None: ...

    # -- access tokens
    def put_token(self, key: bytes, token: Token) -> None: ...

    def get_token(self, key: bytes) -> Token | None: ...

    def token_by_id(self, token_id: str) -> tuple[bytes, Token] | None: ...

    def tokens(self) -> list[tuple[bytes, Token]]: ...

    def tokens_from(self, after: str) -> Iterator[tuple[str, Token]]:
        """(cursor, token) in the store's key order after the cursor `after`."""

    # -- wake hooks
    def get_wake_hook(self, agent_id: str) -> WakeHook | None: ...

    def put_wake_hook(self, hook: WakeHook) -> None: ...

    def delete_wake_hook(self, agent_id: str) -> None: ...

    def wake_hooks(self) -> list[WakeHook]:
        """Every hook (the wake loop reads them all): a listing; a script that changes one reads it again
        with get_wake_hook (which a database backend locks)."""

    # -- channels (fabricd.core.channels): a record per channel, its members, its log of posts
    def get_channel(self, name: str) -> Channel | None:
        """A channel's record (a database backend locks it in a write: publishes to one channel take turns)."""

    def put_channel(self, channel: Channel) -> None: ...

    def delete_channel(self, name: str) -> None:
        """Remove a channel's record, its members and every post left in its log."""

    def channels_from(self, after: str) -> Iterator[tuple[str, Channel]]:
        """(cursor, channel) by name after the cursor `after` ("" from the first)."""

    def hold_looks(self, space: str, looks: frozenset[str]) -> None:
        """Before a write transaction reads the names of `space` ("channel", "agent-name") a new name may look
        like: until it ends, another one making a name of that space with any of these look-alike keys
        (fabricd.core.lookalike.keys) waits, then reads this one's. Nothing to do where write transactions run
        one at a time (LMDB, memory)."""

    def channels_looking_like(self, looks: frozenset[str]) -> list[str]:
        """Names of the channels whose name has one of these look-alike keys (fabricd.core.lookalike.keys):
        read through an index kept with each channel's record, never every channel."""

    def get_member(self, channel: str, agent_id: str) -> Member | None: ...

    def put_member(self, member: Member) -> None: ...

    def delete_member(self, channel: str, agent_id: str) -> None: ...

    def members_from(self, channel: str, after: str) -> Iterator[tuple[str, Member]]:
        """(cursor, member) of a channel by agent id after the cursor `after`."""

    def put_post(self, post: Post) -> None:
        """Append a post to its channel's log, findable by (channel, sender, message id) and by search."""

    def posts(self, channel: str, after_seq: int, limit: int) -> list[Post]:
        """Posts of a channel's log with seq above `after_seq`, oldest first, at most `limit`."""

    def post_by_id(self, channel: str, sender: str, message_id: str) -> Post | None: ...

    def delete_posts(self, channel: str, posts: Sequence[Post]) -> None:
        """Drop posts from a channel's log (and from its id and search indexes)."""

    def usage_of(self, agent_id: str, quota: str) -> int:
        """One of an agent's usage counters (count_usage moves it)."""
    # -- leases (fabricd.core.leases decides; ended records stay until pruned)
    def get_lease(self, lease_id: str) -> Lease | None: ...

    def put_lease(self, lease: Lease) -> None: ...

    def delete_lease(self, lease_id: str) -> None: ...

    def leases(self) -> list[Lease]:
        """Every lease record, live or ended (a database backend locks them in a write)."""

    def leases_near(self, anchors: Collection[str] | None) -> list[Lease]:
        """The live leases with an anchor (fabricd.core.model_leases.anchors) in `anchors` or at
        lease_patterns.ANYWHERE; every live lease when None. Read through an index: never the ended ones, nor
        those of other anchors."""

    def leases_of(self, agent_id: str) -> list[Lease]:
        """The live leases of one agent, through an index."""

    def leases_since(self, revision: int, limit: int) -> list[Lease]:
        """Records (live or ended) whose revision is above `revision`, in revision order, at most `limit`:
        through an index by revision, so a watcher reads what changed, not every lease."""

    def get_waiter(self, waiter_id: str) -> Waiter | None:
        """A waiting Acquire's record (fabricd.core.leases.Line); a database backend locks it in a write."""

    def put_waiter(self, waiter: Waiter) -> None: ...

    def delete_waiter(self, waiter_id: str) -> None: ...

    def waiters(self) -> list[Waiter]:
        """Every waiter record, live or dead, in line order (a database backend locks them in a write): few,
        one per waiting call, so they are read whole."""

    # -- effects
    def wake(self, key: str) -> None:
        """Wake the waiters of `key` once this work is durable (never if it fails); once per key per commit."""


class Engine(Protocol):
    """How a key-value backend runs the scripts (one writer, short reads), and its lifecycle."""

    on_commit: Callable[[int, float], None] | None

    async def start(self) -> None: ...

    async def close(self) -> None: ...

    def stats(self) -> StoreStats: ...

    def making_progress(self, stall_s: float) -> bool: ...

    def read_now(self, fn: Callable[[RecordTx], T]) -> T:
        """A read on the calling thread, for the few callers that cannot await yet."""

    async def write(self, fn: Callable[[RecordTx], T], weight: int = 1) -> T:
        """Run `fn` in the writer's next transaction; return once it is durable, after its wake-ups.

        `weight` is the work `fn` does, about one unit per record it stores: a
        writer that groups writes into one commit stops gathering at a budget of
        work, so one caller's heavy writes hold it up only for a bounded time."""

    async def read(self, fn: Callable[[RecordTx], T]) -> T:
        """Run `fn` in a short read transaction (never held across an await)."""
