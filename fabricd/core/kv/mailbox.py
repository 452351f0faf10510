"""Transaction scripts of the mailboxes: append (idempotent on the id), peek, drain, ack, purge, forget ids."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from fabricd.core import mailbox as rules
from fabricd.core import mailbox_acks as acks
from fabricd.core import mailbox_writes as writes
from fabricd.core import quota as quotas
from fabricd.core.errors import FabricError
from fabricd.core.kv import wake
from fabricd.core.kv.directory import mark_changed, resolve_name, similar_names
from fabricd.core.kv.tx import RecordTx
from fabricd.core.model import Change, Envelope, MailboxEntry, Message, Sent

key = rules.mailbox_key


def _box(tx: RecordTx, name: str) -> MailboxEntry | FabricError | None:
    try:
        return resolve_name(tx, name)
    except FabricError as exc:
        return exc


def _facts(tx: RecordTx, msg: Message, more: writes.More, facts: writes.AppendFacts) -> writes.AppendFacts:
    """The facts the decider asked for (`more`), read in the write transaction."""
    name, sender = msg.recipient.agent_id, msg.sender.agent_id
    box, resolved = facts.box, facts.resolved
    if more.names:
        box, resolved = _box(tx, name), True
    return replace(facts, box=box, resolved=resolved, usage=tx.usage(sender) if more.usage else facts.usage,
                   seq_floor=tx.seq_floor(name) if more.seq_floor else facts.seq_floor,
                   similar=tuple(similar_names(tx, name)) if more.similar else facts.similar)


def store(tx: RecordTx, now: int, mint: Callable[[int], str], msg: Message, digest: bytes, create: bool,
          max_unread: int, quota: quotas.Quotas | None = None, renew: bool = False) -> Sent:
    """Store one validated message as fabricd.core.mailbox_writes.append decides (it raises the refusal,
    before anything is written); `msg` is left alone (the stored one is a new object).

    With `renew`, the id names a new message whatever it named before (a ticket's task): the record of a
    consumed one is forgotten first.
    """
    sender = msg.sender.agent_id
    prior = None
    if msg.id:  # its idempotency key is (sender, id), so no one else can take it (a minted id counts too)
        prior = tx.get_id(sender, msg.id)
        if prior is not None and renew and tx.forget_id(sender, msg.id):
            prior = None
    if prior is None:  # the name is resolved at once (one record read when it is an agent id)
        try:
            box: MailboxEntry | FabricError | None = resolve_name(tx, msg.recipient.agent_id)
        except FabricError as exc:
            box = exc
        facts = writes.AppendFacts(None, box, resolved=True)
    else:
        facts = writes.AppendFacts(prior)
    message_id = msg.id or mint(now)
    while True:
        decided = writes.append(msg, digest, message_id, now, facts, create=create, max_unread=max_unread,
                                quota=quota)
        if type(decided) is not writes.More:
            break
        facts = _facts(tx, msg, decided, facts)
    if type(decided) is writes.Append:
        read = facts.box  # read by get_entry under the recipient's own id: the entry to update, not read again
        return _apply(tx, now, decided, digest, bool(msg.id),
                      read if type(read) is MailboxEntry and read.agent_id == msg.recipient.agent_id else None)
    if isinstance(decided, FabricError):
        raise decided
    assert isinstance(decided, Sent)
    return decided


def _apply(tx: RecordTx, now: int, write: writes.Append, digest: bytes, chosen: bool,
           read: MailboxEntry | None = None) -> Sent:
    """Apply an Append; `read`: the recipient's entry as tx.get_entry gave it in this transaction, if it did."""
    stored = write.message
    agent_id = stored.recipient.agent_id
    if write.created:
        entry = MailboxEntry(agent_id=agent_id)
        if write.creator:
            entry.metadata = {quotas.CREATED_BY: write.creator}  # charged to it until registered or removed
            tx.count_usage(write.creator, quotas.MAILBOXES, 1)
    elif read is not None:
        entry = read
    else:
        found = tx.get_entry(agent_id)
        assert found is not None
        entry = found
    entry.last_seq, entry.unread_count = stored.seq, write.unread  # mail arriving is not the recipient's activity
    if write.created:
        mark_changed(tx, entry, Change.CREATED)
    else:
        tx.put_entry(entry, None)
    encoded = tx.put_message(stored, digest, chosen)
    wake.note(tx, now, agent_id, stored.id, stored.ticket_id)
    if write.active:
        sender_entry = tx.get_entry(write.active)
        if sender_entry is not None:
            sender_entry.last_activity_ns = now
            tx.put_entry(sender_entry, None)
    tx.wake(key(agent_id))
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
    """Consume the message of `agent_id` carrying `message_id` as an ack of that id alone would
    (fabricd.core.mailbox_acks), without recording activity (a ticket answered or withdrawn takes its task);
    False if none was unread."""
    entry = tx.get_entry(agent_id)
    return _consume(tx, agent_id, [message_id], entry) is not None


def _consume(tx: RecordTx, agent_id: str, message_ids: Sequence[str], entry: MailboxEntry | None) -> int | None:
    """Apply fabricd.core.mailbox_acks.ack to the facts read here: the count consumed, None when nothing was
    (`entry` is left for the caller to put when it changes more of it)."""
    want = acks.wanted(message_ids)
    decided = acks.ack(want, acks.AckFacts(entry.unread_count if entry is not None else None,
                                           tx.unread_copies(agent_id, want) if entry is not None else {}))
    if not decided.active:
        return None
    consumed = tx.delete_messages(agent_id, decided.taken)
    if not consumed:
        return None
    assert entry is not None
    entry.unread_count -= consumed
    tx.put_entry(entry, None)
    return consumed


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
    if entry is None or not entry.unread_count:
        return [], 0, 0
    if not writes.drains(entry.unread_count, deliverable is None or deliverable()):
        return [], entry.unread_count, entry.revision
    messages = tx.unread(agent_id, 0, limit, max_bytes)  # reads no more than the budget holds
    messages = messages[:writes.take([len(m.encoded) for m in messages], max_bytes)]
    tx.delete_messages(agent_id, messages)
    entry.unread_count -= len(messages)
    entry.last_activity_ns = now  # the agent reading its mail is its activity
    tx.put_entry(entry, None)  # no change: the revision stays the drained mailbox's mark
    return messages, entry.unread_count, entry.revision


def put_back(tx: RecordTx, agent_id: str, envelopes: Sequence[Envelope], revision: int) -> int:
    """Make drained messages unread again at their seq (their id records were kept by the drain), as
    fabricd.core.mailbox_writes.put_back decides."""
    entry = tx.get_entry(agent_id)
    now = entry.revision if entry is not None else None
    decided = writes.put_back(now, revision, None)
    if isinstance(decided, writes.More):
        decided = writes.put_back(now, revision, tx.removed_since(agent_id, revision))
    if not decided or entry is None:
        return 0
    restored = sum(tx.restore_message(agent_id, e.seq, e.encoded) for e in envelopes)
    if restored:
        entry.unread_count += restored
        tx.put_entry(entry, None)
        tx.wake(key(agent_id))
    return restored


def ack(tx: RecordTx, now: int, agent_id: str, message_ids: Sequence[str]) -> int:
    """Consume what fabricd.core.mailbox_acks.ack takes; the agent's activity when it has a mailbox."""
    entry = tx.get_entry(agent_id)
    if entry is None:
        return 0
    acked = _consume(tx, agent_id, message_ids, entry) or 0
    entry.last_activity_ns = now  # acknowledging its mail is the agent's activity
    tx.put_entry(entry, None)
    return acked


def unread_counts(tx: RecordTx) -> list[tuple[str, int]]:
    return [(e.agent_id, e.unread_count) for e in tx.entries() if e.unread_count]
