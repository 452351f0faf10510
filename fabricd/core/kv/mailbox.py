"""Transaction scripts of the mailboxes: append (idempotent on the id), peek, drain, ack, purge, forget ids."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from fabricd.core import directory as directory_rules
from fabricd.core import mailbox as rules
from fabricd.core import quota as quotas
from fabricd.core.paging import approx_size
from fabricd.core.errors import FabricError
from fabricd.core.kv import wake
from fabricd.core.kv.directory import mark_changed, resolve_name, similar_names
from fabricd.core.kv.tx import RecordTx
from fabricd.core.model import Address, Change, Envelope, MailboxEntry, Message, Sent


key = rules.mailbox_key


def _same_recipient(tx: RecordTx, name: str, agent_id: str) -> bool:
    if name == agent_id:
        return True
    try:
        entry = resolve_name(tx, name)
    except FabricError:
        return False
    return entry is not None and entry.agent_id == agent_id


def store(tx: RecordTx, now: int, mint: Callable[[int], str], msg: Message, digest: bytes, create: bool,
          max_unread: int, quota: quotas.Quotas | None = None, renew: bool = False) -> Sent:
    """Store one validated message; `msg` is left alone (the stored one is a new object).

    A recipient that is neither an agent nor a mailbox gets a new mailbox only
    with `create` (system deliveries: tasks, outbox replies); otherwise the send
    is refused as UNKNOWN_RECIPIENT, so a typo never makes a mailbox nobody reads.
    Every refusal is raised before anything is written. With a `quota`, the
    sender is held to it (fabricd.core.quota): the mailbox it would create and
    the message's bytes count against the sender's usage. With `renew`, the id names a new message
    whatever it named before (a ticket's task): the record of a consumed one is forgotten first.
    """
    name = msg.recipient.agent_id
    if msg.id:  # its idempotency key is (sender, id), so no one else can take it (a minted id counts too)
        record = tx.get_id(msg.sender.agent_id, msg.id)
        if record is not None and renew and tx.forget_id(msg.sender.agent_id, msg.id):
            record = None
        if record is not None:
            if record.digest != digest or not _same_recipient(tx, name, record.recipient):
                raise rules.message_id_reused(msg.id)
            return Sent(rules.as_stored(msg, record), duplicate=True)
    entry = resolve_name(tx, name)
    change: Change | None = None
    if entry is None:
        if not create:
            raise directory_rules.unknown_recipient(name, similar_names(tx, name))
        entry = MailboxEntry(agent_id=name, last_seq=tx.seq_floor())
        change = Change.CREATED
    if max_unread and entry.unread_count >= max_unread:
        raise rules.mailbox_full(entry.agent_id, entry.unread_count, max_unread)
    sender = msg.sender.agent_id
    if quota is not None and sender:
        usage = tx.usage(sender)
        if change is not None:
            quotas.check(quotas.MAILBOXES, sender, quota.mailboxes, usage.mailboxes, 1)
        # approx_size bounds the stored size from above: the check never lets a message pass that the
        # backend will then count over the limit
        quotas.check_unread(sender, quota, usage, approx_size(msg))
    if change is not None and sender and sender != name:
        entry.metadata = {quotas.CREATED_BY: sender}  # charged to the sender until registered or removed
        tx.count_usage(sender, quotas.MAILBOXES, 1)
    entry.last_seq += 1
    entry.unread_count += 1  # mail arriving is not the recipient's activity: presence stays as it was
    recipient = msg.recipient if entry.agent_id == name else Address(entry.agent_id, msg.recipient.session_id)
    stored = Message(msg.id or mint(now), msg.sender, recipient, msg.reply_to, msg.thread_id, msg.text, msg.data,
                     msg.headers, msg.kind, msg.hops, now, entry.last_seq, msg.ticket_id)
    if change is not None:
        mark_changed(tx, entry, change)
    else:
        tx.put_entry(entry, None)
    encoded = tx.put_message(stored, digest, bool(msg.id))
    wake.note(tx, now, entry.agent_id, stored.id, stored.ticket_id)
    if sender and sender != entry.agent_id:
        sender_entry = tx.get_entry(sender)
        if sender_entry is not None:
            sender_entry.last_activity_ns = now
            tx.put_entry(sender_entry, None)
    tx.wake(key(entry.agent_id))
    return Sent(stored, encoded=encoded)


def append(tx: RecordTx, now: int, mint: Callable[[int], str], items: Sequence[tuple[Message, bytes]],
           create: bool, atomic: bool, max_unread: int,
           quota: quotas.Quotas | None = None) -> list[Sent | FabricError]:
    out: list[Sent | FabricError] = []
    for i, (msg, digest) in enumerate(items):
        try:
            out.append(store(tx, now, mint, msg, digest, create, max_unread, quota))
        except FabricError as exc:
            if atomic:
                raise rules.at_index(exc, i) from None
            out.append(exc)
    return out


def consume(tx: RecordTx, agent_id: str, message_id: str) -> bool:
    """Mark the oldest unread message of `agent_id` carrying `message_id` read; False if none was unread.

    Two senders may choose the same id for one recipient: the oldest goes first, so a consumer acking each
    message after handling it, in order, never acks one it has not seen."""
    if not tx.consume_id(agent_id, message_id):
        return False
    entry = tx.get_entry(agent_id)
    if entry is not None:
        entry.unread_count -= 1
        tx.put_entry(entry, None)
    return True


def consume_each(tx: RecordTx, agent_id: str, message_ids: Sequence[str]) -> int:
    """RecordTx.consume_ids through consume_id: for backends with nothing faster."""
    return sum(1 for mid in message_ids if tx.consume_id(agent_id, mid))


def release_creator(tx: RecordTx, entry: MailboxEntry) -> None:
    """A mailbox created by mail is registered or removed: its creator no longer pays for it."""
    creator = entry.metadata.get(quotas.CREATED_BY, "")
    if creator and not entry.registered:  # only mail sets metadata on an unregistered mailbox
        tx.count_usage(creator, quotas.MAILBOXES, -1)


def purge(tx: RecordTx, agent_id: str) -> int:
    """Delete every unread message of `agent_id` with its id; the count deleted."""
    deleted = tx.purge_unread(agent_id)
    entry = tx.get_entry(agent_id)
    if entry is not None:
        entry.unread_count = 0
        tx.put_entry(entry, None)
    return deleted


def peek(tx: RecordTx, agent_id: str, limit: int, max_bytes: int) -> tuple[list[Envelope], int]:
    entry = tx.get_entry(agent_id)
    if entry is None or entry.unread_count == 0:
        return [], 0
    return tx.unread(agent_id, 0, limit, max_bytes), entry.unread_count


def drain(tx: RecordTx, now: int, agent_id: str, limit: int, max_bytes: int,
          deliverable: Callable[[], bool] | None = None) -> tuple[list[Envelope], int, int]:
    entry = tx.get_entry(agent_id)
    if entry is None or entry.unread_count == 0:
        return [], 0, 0
    if deliverable is not None and not deliverable():  # the caller is gone or out of time: take nothing
        return [], entry.unread_count, entry.revision
    messages = tx.unread(agent_id, 0, limit, max_bytes)
    for m in messages:
        tx.delete_message(agent_id, m.seq, m.encoded)
    entry.unread_count -= len(messages)
    entry.last_activity_ns = now  # the agent reading its mail is its activity
    tx.put_entry(entry, None)  # no change: the revision stays the drained mailbox's mark
    return messages, entry.unread_count, entry.revision


def put_back(tx: RecordTx, agent_id: str, envelopes: Sequence[Envelope], revision: int) -> int:
    """Make drained messages unread again at their seq (their id records were kept by the drain), unless
    their mailbox was removed since the drain (`revision`, the drain's): a mailbox made again under that id
    numbers its mail above them, so they would sit below its first seq, behind its subscribers' cursors."""
    entry = tx.get_entry(agent_id)
    if entry is None or (entry.revision != revision and tx.removed_since(agent_id, revision)):
        return 0
    restored = sum(tx.restore_message(agent_id, e.seq, e.encoded) for e in envelopes)
    if restored:
        entry.unread_count += restored
        tx.put_entry(entry, None)
        tx.wake(key(agent_id))
    return restored


def ack(tx: RecordTx, now: int, agent_id: str, message_ids: Sequence[str]) -> int:
    entry = tx.get_entry(agent_id)
    if entry is None:
        return 0
    acked = tx.consume_ids(agent_id, message_ids)  # consume() of each, with the entry written once
    entry.unread_count -= acked
    entry.last_activity_ns = now  # acknowledging its mail is the agent's activity
    tx.put_entry(entry, None)
    return acked


def unread_counts(tx: RecordTx) -> list[tuple[str, int]]:
    return [(e.agent_id, e.unread_count) for e in tx.entries() if e.unread_count]
