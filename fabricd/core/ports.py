"""What the core needs from storage. The store implements these; tests may fake them.

A `Tx` is one transaction's view. Entries handed out by `get_entry` are cached
for the transaction: the core mutates them and calls `put_entry`, and the
store writes each dirty entry once when the transaction's work is done.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from fabricd.core.notify import ChangeNotifier

from fabricd.core.limits import Limits
from fabricd.core.model import Change, Envelope, IdRecord, MailboxEntry, Message, OutboxRow, RowState, Ticket

T = TypeVar("T")


class Tx(Protocol):
    # -- directory
    def get_entry(self, agent_id: str) -> MailboxEntry | None: ...

    def put_entry(self, entry: MailboxEntry, change: Change | None) -> None:
        """Store an entry. With a `change`, the entry gets the next directory revision."""

    def entries(self) -> Iterator[MailboxEntry]: ...

    def entries_named(self, session_name: str) -> list[MailboxEntry]: ...

    def entries_since(self, revision: int, limit: int) -> list[MailboxEntry]:
        """Entries whose revision is above `revision`, in revision order; a deleted entry
        comes back as a bare MailboxEntry with change UNREGISTERED."""

    def delete_entry(self, agent_id: str) -> None:
        """Remove an entry (its messages must be gone) and record its removal as the next revision."""

    def revision(self) -> int: ...

    # -- messages
    def get_id(self, message_id: str) -> IdRecord | None: ...

    def put_message(self, message: Message, digest: bytes) -> bytes:
        """Store an unread message; return its stored encoding."""

    def unread(self, agent_id: str, after_seq: int, limit: int, max_bytes: int = 0) -> list[Envelope]:
        """Unread messages with seq above `after_seq`, oldest first: at most `limit`, and no more than
        `max_bytes` of them (but always one, if any) when max_bytes is set."""

    def delete_message(self, agent_id: str, seq: int) -> bool:
        """Consume one unread message; False when it was not unread."""

    def purge_unread(self, agent_id: str) -> int:
        """Delete every unread message of a mailbox and forget its id; the number deleted."""

    def forget_consumed_ids(self, sent_before_ns: int, cursor: bytes, limit: int) -> tuple[int, bytes]:
        """Forget the ids of consumed messages sent before `sent_before_ns`, `limit` records a call."""

    # -- rendezvous tickets
    def next_sequence(self, name: str) -> int:
        """The next value of a named daemon-wide counter (1, 2, ...)."""

    def get_ticket(self, ticket_id: str) -> Ticket | None: ...

    def put_ticket(self, ticket: Ticket) -> None:
        """Store a ticket; a QUEUED one is in its target's FIFO, any other is not."""

    def queue(self, target: str, limit: int) -> list[Ticket]:
        """The FIFO of `target`, head first."""

    def finished_before(self, finish_ns: int, limit: int) -> list[str]:
        """Ids of answered or aborted tickets that finished before `finish_ns`, oldest first."""

    def delete_ticket(self, ticket_id: str) -> None: ...

    # -- outbox
    def get_outbox_row(self, key: str) -> OutboxRow | None: ...

    def put_outbox_row(self, row: OutboxRow) -> None:
        """Store a row; a PENDING row is due at its next_attempt_ns, any other is not."""

    def due_outbox_rows(self, now_ns: int, limit: int) -> list[OutboxRow]:
        """PENDING rows due by `now_ns`, earliest first."""

    def next_outbox_due(self) -> int | None:
        """When the earliest PENDING row is due; None when none is."""

    def outbox_rows(self, after_key: str, limit: int, state: RowState) -> list[OutboxRow]:
        """Rows in key order after `after_key`, of one state (UNSPECIFIED: all)."""

    def delete_outbox_row(self, key: str) -> None: ...

    # -- agent directory (types from fabricd.core.agentdir)
    def get_directory_data(self) -> Any: ...

    def put_directory_data(self, data: Any, keep_history: int) -> None:
        """Store the data and remember it as of its sequence (the last `keep_history` sequences are kept)."""

    def directory_history(self, after_sequence: int, limit: int) -> list[Any]: ...

    def get_agent(self, agent_id: str) -> Any: ...

    def agent_named(self, name: str) -> Any: ...

    def put_agent(self, agent: Any) -> None: ...

    def agents(self) -> list[Any]: ...

    def get_thread(self, thread_id: str) -> Any: ...

    def put_thread(self, thread: Any) -> None: ...

    def threads_of(self, agent_id: str) -> list[Any]: ...

    def get_request(self, request_id: str) -> Any: ...

    def put_request(self, request: Any) -> None:
        """Store a request; its state and notification flags decide the lists it is in."""

    def requests(self, which: int, after_seq: int, limit: int) -> list[Any]:
        """Requests of a filter (pending, notifications, all) in admission order after `after_seq`."""

    def get_repair(self, key: str) -> tuple[int, str] | None: ...

    def put_repair(self, key: str, generation: int, request_id: str) -> None: ...

    # -- access tokens (fabricd.core.tokens.Token)
    def put_token(self, key: bytes, token: Any) -> None: ...

    def get_token(self, key: bytes) -> Any | None: ...

    def token_by_id(self, token_id: str) -> tuple[bytes, Any] | None: ...

    def tokens(self) -> list[tuple[bytes, Any]]: ...

    # -- effects
    def after_commit(self, callback: Callable[..., None], *args: Hashable) -> None:
        """Run `callback(*args)` once this work is durable (never if it fails).

        The same callback with the same arguments runs once per transaction, so a
        batch of 100 messages to one mailbox wakes its subscribers once.
        """


class Store(Protocol):
    async def write(self, fn: Callable[[Tx], T]) -> T:
        """Run `fn` in the single writer's next transaction; return once it is durable."""

    def read(self, fn: Callable[[Tx], T]) -> T:
        """Run `fn` in a short read transaction."""


class Service:
    """What every contract of the core holds: the store, the wake-ups, the limits and a clock.

    `limits` is public so that a reload (SIGHUP) can swap it in place.
    """

    def __init__(self, store: Store, notifier: ChangeNotifier, limits: Limits, clock: Callable[[], int],
                 keepalive_s: float = 15.0) -> None:
        self._store = store
        self._notifier = notifier
        self.limits = limits
        self._clock = clock
        self._keepalive_s = keepalive_s
