"""Mailboxes: send (idempotent on a client id), peek, drain, subscribe with acks."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import replace

from fabricd.core import validate
from fabricd.core.directory import mark_changed, resolve_name, unknown_recipient
from fabricd.core.errors import AlreadyExists, FabricError, InvalidArgument, ResourceExhausted
from fabricd.core.ids import IdMint, message_digest
from fabricd.core.limits import Limits
from fabricd.core.model import Address, Change, Envelope, IdRecord, MailboxEntry, Message, Sent
from fabricd.core.notify import ChangeNotifier
from fabricd.core.ports import Service, Store, Tx


def digest_of(msg: Message) -> bytes:
    """What a client sent, minus the recipient's name: a resend may name the agent another way."""
    return message_digest(
        (msg.sender.agent_id, msg.sender.session_id),
        ("", msg.recipient.session_id),
        tuple((a.agent_id, a.session_id) for a in msg.reply_to),
        msg.thread_id,
        msg.text,
        msg.data,
        msg.headers,
        int(msg.kind),
        msg.hops,
        msg.ticket_id,
    )


def _duplicate(msg: Message, record: IdRecord) -> Message:
    """The message as it was stored: the request plus what the server assigned then."""
    return replace(
        msg,
        recipient=Address(record.recipient, msg.recipient.session_id),
        seq=record.seq,
        send_time_ns=record.send_time_ns,
    )


def _same_recipient(tx: Tx, name: str, agent_id: str) -> bool:
    if name == agent_id:
        return True
    try:
        entry = resolve_name(tx, name)
    except FabricError:
        return False
    return entry is not None and entry.agent_id == agent_id


class Mailboxes(Service):
    """The mailbox contract over a Store."""

    def __init__(self, store: Store, notifier: ChangeNotifier, limits: Limits, clock: Callable[[], int],
                 keepalive_s: float = 15.0) -> None:
        super().__init__(store, notifier, limits, clock, keepalive_s)
        self._mint = IdMint()
        self.stored = 0
        """Messages stored since start (for metrics; counts a write whose commit later fails)."""

    # -- the rule of one send, inside the writer's transaction

    def store_in(self, tx: Tx, msg: Message, digest: bytes, create: bool = True) -> Sent:
        """Store one validated message in `tx`; the caller notifies after commit.

        A recipient that is neither an agent nor a mailbox gets a new mailbox only
        with `create` (system deliveries: tasks, outbox replies); otherwise the send
        is refused as UNKNOWN_RECIPIENT, so a typo never makes a mailbox nobody reads.
        """
        name = msg.recipient.agent_id
        if msg.id:
            record = tx.get_id(msg.id)
            if record is not None:
                if record.digest != digest or not _same_recipient(tx, name, record.recipient):
                    raise AlreadyExists(
                        f"message id {msg.id!r} was already used for a different message",
                        reason="MESSAGE_ID_REUSED",
                        message_id=msg.id,
                    )
                return Sent(_duplicate(msg, record), duplicate=True)
        entry = resolve_name(tx, name)
        now = self._clock()
        change: Change | None = None
        if entry is None:
            if not create:
                raise unknown_recipient(tx, name)
            entry = MailboxEntry(agent_id=name)
            change = Change.CREATED
        limits = self.limits
        if limits.max_unread and entry.unread_count >= limits.max_unread:
            raise ResourceExhausted(
                f"mailbox {entry.agent_id!r} holds {entry.unread_count} unread messages, its quota; "
                "retry once the agent has read some",
                reason="MAILBOX_FULL",
                agent_id=entry.agent_id,
                limit=limits.max_unread,
            )
        if not msg.id:
            msg.id = self._mint.mint(now)
        entry.last_seq += 1
        entry.unread_count += 1  # mail arriving is not the recipient's activity: presence stays as it was
        msg.seq = entry.last_seq
        msg.send_time_ns = now
        if entry.agent_id != name:
            msg.recipient = Address(entry.agent_id, msg.recipient.session_id)
        if change is not None:
            mark_changed(tx, entry, change, self._notifier)
        else:
            tx.put_entry(entry, None)
        encoded = tx.put_message(msg, digest)
        self.stored += 1
        sender = msg.sender.agent_id
        if sender and sender != entry.agent_id:
            sender_entry = tx.get_entry(sender)
            if sender_entry is not None:
                sender_entry.last_activity_ns = now
                tx.put_entry(sender_entry, None)
        tx.after_commit(self._notifier.notify, entry.agent_id)
        return Sent(msg, encoded=encoded)

    @staticmethod
    def consume_in(tx: Tx, agent_id: str, message_id: str) -> bool:
        """Mark one message of `agent_id` read in `tx`; False if it was not unread."""
        record = tx.get_id(message_id)
        if record is None or record.recipient != agent_id or not tx.delete_message(agent_id, record.seq):
            return False
        entry = tx.get_entry(agent_id)
        if entry is not None:
            entry.unread_count -= 1
            tx.put_entry(entry, None)
        return True

    @staticmethod
    def purge_in(tx: Tx, agent_id: str) -> int:
        """Delete every unread message of `agent_id` with its id; the count deleted."""
        deleted = tx.purge_unread(agent_id)
        entry = tx.get_entry(agent_id)
        if entry is not None:
            entry.unread_count = 0
            tx.put_entry(entry, None)
        return deleted

    # -- the contract

    async def send(self, msg: Message, create_mailbox: bool = False) -> Sent:
        validate.message(msg, self.limits)
        digest = digest_of(msg) if msg.id else b""
        return await self._store.write(lambda tx: self.store_in(tx, msg, digest, create_mailbox))

    async def send_many(self, messages: Sequence[Message], atomic: bool,
                        create_mailbox: bool = False) -> list[Sent | FabricError]:
        """Store a batch in one transaction; each message gets its result or its error.

        With `atomic`, the first invalid message fails the whole call and nothing is stored.
        """
        if not messages or len(messages) > self.limits.max_batch:
            raise InvalidArgument(
                f"send 1 to {self.limits.max_batch} messages per call, not {len(messages)}",
                reason="BATCH_SIZE",
                field="messages",
                limit=self.limits.max_batch,
            )
        checked: list[tuple[Message, bytes] | FabricError] = []
        for i, msg in enumerate(messages):
            try:
                validate.message(msg, self.limits)
                checked.append((msg, digest_of(msg) if msg.id else b""))
            except FabricError as exc:
                if atomic:  # nothing is stored; the error keeps its class and names the message
                    raise type(exc)(f"messages[{i}]: {exc.message}", reason=exc.reason, index=i, **exc.metadata) from exc
                checked.append(exc)

        def apply(tx: Tx) -> list[Sent | FabricError]:
            out: list[Sent | FabricError] = []
            for i, item in enumerate(checked):
                if isinstance(item, FabricError):
                    out.append(item)
                    continue
                try:
                    out.append(self.store_in(tx, *item, create_mailbox))
                except FabricError as exc:
                    if atomic:
                        raise type(exc)(f"messages[{i}]: {exc.message}", reason=exc.reason, index=i, **exc.metadata)
                    out.append(exc)
            return out

        return await self._store.write(apply)

    def peek(self, agent_id: str, limit: int) -> tuple[list[Envelope], int]:
        validate.agent_id(agent_id, self.limits)
        limit = validate.limit(limit, self.limits)

        def read(tx: Tx) -> tuple[list[Envelope], int]:
            entry = tx.get_entry(agent_id)
            if entry is None or entry.unread_count == 0:
                return [], 0
            return tx.unread(agent_id, 0, limit, self.limits.max_response_bytes), entry.unread_count

        return self._store.read(read)

    async def drain(self, agent_id: str, limit: int) -> tuple[list[Envelope], int]:
        validate.agent_id(agent_id, self.limits)
        limit = validate.limit(limit, self.limits)

        def apply(tx: Tx) -> tuple[list[Envelope], int]:
            entry = tx.get_entry(agent_id)
            if entry is None or entry.unread_count == 0:
                return [], 0
            messages = tx.unread(agent_id, 0, limit, self.limits.max_response_bytes)
            for m in messages:
                tx.delete_message(agent_id, m.seq)
            entry.unread_count -= len(messages)
            entry.last_activity_ns = self._clock()  # the agent reading its mail is its activity
            tx.put_entry(entry, None)
            return messages, entry.unread_count

        return await self._store.write(apply)

    async def ack(self, agent_id: str, message_ids: Sequence[str]) -> int:
        limits = self.limits
        validate.agent_id(agent_id, limits)
        if not message_ids or len(message_ids) > limits.max_batch:
            raise InvalidArgument(
                f"ack 1 to {limits.max_batch} message ids per call, not {len(message_ids)}",
                reason="BATCH_SIZE",
                field="message_ids",
                limit=limits.max_batch,
            )
        for i, mid in enumerate(message_ids):
            validate.text_field(mid, f"message_ids[{i}]", limits, required=True)

        def apply(tx: Tx) -> int:
            entry = tx.get_entry(agent_id)
            if entry is None:
                return 0
            entry.last_activity_ns = self._clock()  # acknowledging its mail is the agent's activity
            tx.put_entry(entry, None)
            return sum(self.consume_in(tx, agent_id, mid) for mid in message_ids)

        return await self._store.write(apply)

    async def forget_old_ids(self, window_s: float, scan: int = 5000) -> int:
        """Forget the ids of consumed messages older than the dedupe window; one pass over the id table.

        Unread messages keep their ids (acks need them). A resend of a forgotten id is stored anew.
        """
        horizon = self._clock() - int(window_s * 1e9)
        cursor, forgotten = b"", 0
        while True:
            pruned, cursor = await self._store.write(
                lambda tx, cursor=cursor: tx.forget_consumed_ids(horizon, cursor, scan))
            forgotten += pruned
            if not cursor:
                return forgotten

    async def subscribe(self, agent_id: str, batch: int = 512) -> AsyncIterator[list[Envelope]]:
        """Unread messages oldest first, then new ones as they commit; [] is a keepalive.

        Each stream keeps its own cursor, so every subscriber sees every unread
        message; nothing is consumed until acked.
        """
        validate.agent_id(agent_id, self.limits)
        notifier = self._notifier
        cursor = 0
        while True:
            seen = notifier.version(agent_id)
            messages = self._store.read(lambda tx: tx.unread(agent_id, cursor, batch, self.limits.max_response_bytes))
            if messages:
                cursor = messages[-1].seq
                yield messages
                continue
            woke = await notifier.wait(agent_id, seen, self._keepalive_s)
            if notifier.closed:
                return
            if not woke:
                yield []
