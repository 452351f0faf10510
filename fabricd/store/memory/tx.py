"""MemoryTx: the core's RecordTx over copy-on-write dicts (see fabricd.store.memory.engine)."""

from __future__ import annotations

import copy
from collections.abc import Collection, Iterator, Mapping, Sequence
from typing import Any

from fabricd import wire
from fabricd.core import lookalike, model_leases, quota, wake
from fabricd.core.agentdir import (
    FILTER_ALL,
    FILTER_NOTIFICATIONS,
    FILTER_PENDING,
    PENDING,
    Agent,
    DirectoryData,
    Thread,
    WorkRequest,
)
from fabricd.core.lease_patterns import ANYWHERE
from fabricd.core.model import (
    Change,
    Envelope,
    IdRecord,
    MailboxEntry,
    Message,
    OutboxRow,
    RowState,
    Ticket,
    TicketState,
)
from fabricd.core.model_leases import Lease, Waiter
from fabricd.core.outbox import row_cursor, split_cursor
from fabricd.core.tokens import Token
from fabricd.core.wake import WakeHook
from fabricd.store.memory.tx_channels import CHANNEL_TABLES, MemoryChannelRecords
from fabricd.store.usage import counter_name, sender_of
from fabricd.v1 import types_pb2

TABLES = ("meta", "entries", "revisions", "messages", "ids", "tickets", "outbox", "history", "agents", "threads",
          "requests", "repairs", "tokens", "request_keys", "wake_hooks", "leases", "lease_waiters",
          *CHANNEL_TABLES)


def new_tables() -> dict[str, dict[Any, Any]]:
    return {name: {} for name in TABLES}


class MemoryTx(MemoryChannelRecords):
    """One transaction; `tables` holds the new state once the script is done and `flush` ran."""

    def __init__(self, tables: dict[str, dict[Any, Any]], *, write: bool) -> None:
        self.tables = dict(tables)
        self._write = write
        self._copied: set[str] = set()
        self._entries: dict[str, MailboxEntry | None] = {}
        self._dirty: dict[str, MailboxEntry] = {}
        self.woken: dict[str, None] = {}
        self.stored_messages = 0

    def _t(self, name: str) -> dict[Any, Any]:
        return self.tables[name]

    def _w(self, name: str) -> dict[Any, Any]:
        assert self._write, "a write in a read transaction"
        if name not in self._copied:
            self.tables[name] = dict(self.tables[name])
            self._copied.add(name)
        return self.tables[name]

    def _meta(self, key: str, default: int = 0) -> int:
        return int(self._t("meta").get(key, default))

    # -- directory

    def get_entry(self, agent_id: str) -> MailboxEntry | None:
        if agent_id not in self._entries:
            stored = self._t("entries").get(agent_id)
            self._entries[agent_id] = copy.deepcopy(stored)
        return self._entries[agent_id]

    def put_entry(self, entry: MailboxEntry, change: Change | None) -> None:
        if change is not None:
            rev = self.revision() + 1
            revisions = self._w("revisions")
            revisions.pop(entry.revision, None)
            entry.revision, entry.change = rev, change
            revisions[rev] = entry.agent_id
            self._w("meta")["revision"] = rev
        self._entries[entry.agent_id] = entry
        self._dirty[entry.agent_id] = entry

    def entries(self) -> Iterator[MailboxEntry]:
        ids = set(self._t("entries")) | {a for a, e in self._entries.items() if e is not None}
        for agent_id in sorted(ids):
            entry = self.get_entry(agent_id)
            if entry is not None:
                yield entry

    def entries_named(self, session_name: str) -> list[MailboxEntry]:
        return [e for e in self.entries() if e.session_name == session_name]

    def entries_looking_like(self, looks: frozenset[str]) -> list[MailboxEntry]:
        return [e for e in self.entries()
                if not looks.isdisjoint(lookalike.keys_of(e))]

    def entries_from(self, after: str) -> Iterator[tuple[str, MailboxEntry]]:
        start = bytes.fromhex(after).decode("utf-8", "surrogatepass")  # cursors are hex, as in LMDB
        for agent_id in sorted(a for a in self._t("entries") if a > start):
            entry = self.get_entry(agent_id)
            if entry is not None:
                yield agent_id.encode("utf-8", "surrogatepass").hex(), entry

    def entries_since(self, revision: int, limit: int) -> list[MailboxEntry]:
        out = []
        for rev in sorted(r for r in self._t("revisions") if r > revision):
            ref = self._t("revisions")[rev]
            if isinstance(ref, tuple):  # a removal
                out.append(MailboxEntry(ref[1], revision=rev, change=Change.UNREGISTERED))
            else:
                entry = self.get_entry(ref)
                if entry is not None:
                    out.append(entry)
            if len(out) >= limit:
                break
        return out

    def delete_entry(self, agent_id: str) -> None:
        entry = self.get_entry(agent_id)
        if entry is None:
            return
        revisions = self._w("revisions")
        revisions.pop(entry.revision, None)
        rev = self.revision() + 1
        revisions[rev] = ("removed", agent_id)
        self._w("meta")["revision"] = rev
        meta = self._w("meta")
        meta["seq/seq-floor/" + agent_id] = max(self._meta("seq/seq-floor/" + agent_id), entry.last_seq)
        self._w("entries").pop(agent_id, None)
        self._dirty.pop(agent_id, None)
        self._entries[agent_id] = None

    def revision(self) -> int:
        return self._meta("revision")

    def removed_since(self, agent_id: str, revision: int) -> bool:
        return any(rev > revision and ref == ("removed", agent_id) for rev, ref in self._t("revisions").items())

    def seq_floor(self, agent_id: str) -> int:
        return self._meta("seq/seq-floor/" + agent_id)

    def mailbox_count(self) -> int:
        return sum(1 for _ in self.entries())

    # -- messages

    # `ids` is keyed (sender agent id, id), minted or chosen: a minted id is its sender's too (as on PostgreSQL
    # and LMDB), so that sender resending it is refused while another sender may choose it

    def get_id(self, sender: str, message_id: str) -> IdRecord | None:
        return self._t("ids").get((sender, message_id))

    def put_message(self, message: Message, digest: bytes, chosen: bool) -> bytes:
        encoded = wire.message_out(message).SerializeToString()
        agent_id = message.recipient.agent_id
        self._w("messages")[(agent_id, message.seq)] = (encoded, message.id)
        self._w("ids")[(message.sender.agent_id, message.id)] = IdRecord(agent_id, message.seq, message.send_time_ns, digest)
        self.stored_messages += 1
        self._move(message.sender.agent_id, len(encoded), 1)
        return encoded

    def _move(self, sender: str, size: int, sign: int) -> None:
        for agent_id, name, delta in quota.message_moves(sender, size, sign):
            self.count_usage(agent_id, name, delta)

    def unread_copies(self, agent_id: str, wanted: Mapping[str, int]) -> dict[str, list[Envelope]]:
        out: dict[str, list[Envelope]] = {}
        messages = self._t("messages")
        for key in self._unread_keys(agent_id):
            encoded, message_id = messages[key]
            if message_id in wanted:
                out.setdefault(message_id, []).append(Envelope(key[1], encoded))
        return out

    def _unread_keys(self, agent_id: str, after_seq: int = 0) -> list[tuple[str, int]]:
        return sorted(k for k in self._t("messages") if k[0] == agent_id and k[1] > after_seq)

    def unread(self, agent_id: str, after_seq: int, limit: int, max_bytes: int = 0) -> list[Envelope]:
        out: list[Envelope] = []
        size = 0
        for key in self._unread_keys(agent_id, after_seq)[:limit]:
            encoded = self._t("messages")[key][0]
            size += len(encoded)
            if max_bytes and out and size > max_bytes:
                break
            out.append(Envelope(key[1], encoded))
        return out

    def delete_message(self, agent_id: str, seq: int, encoded: bytes | None = None) -> bool:
        if (agent_id, seq) not in self._t("messages"):
            return False
        encoded, _ = self._w("messages").pop((agent_id, seq))
        self._move(sender_of(encoded), len(encoded), -1)
        return True

    def delete_messages(self, agent_id: str, taken: Sequence[Envelope]) -> int:
        return sum(1 for e in taken if self.delete_message(agent_id, e.seq, e.encoded or None))

    def restore_message(self, agent_id: str, seq: int, encoded: bytes) -> bool:
        if (agent_id, seq) in self._t("messages"):
            return False
        self._w("messages")[(agent_id, seq)] = (encoded, types_pb2.Message.FromString(encoded).id)
        self._move(sender_of(encoded), len(encoded), 1)
        return True

    def purge_unread(self, agent_id: str) -> int:
        keys = self._unread_keys(agent_id)
        for key in keys:
            encoded, message_id = self._w("messages").pop(key)
            ids = self._w("ids")
            record = ids.get((sender_of(encoded), message_id))
            if record is not None and (record.recipient, record.seq) == key:
                del ids[(sender_of(encoded), message_id)]
            self._move(sender_of(encoded), len(encoded), -1)
        return len(keys)

    def forget_id(self, sender: str, message_id: str) -> bool:
        record = self._t("ids").get((sender, message_id))
        if record is None or (record.recipient, record.seq) in self._t("messages"):
            return False
        del self._w("ids")[(sender, message_id)]
        return True

    def forget_consumed_ids(self, sent_before_ns: int, cursor: bytes, limit: int) -> tuple[int, bytes]:
        forgotten = 0
        for message_id, record in list(self._t("ids").items()):
            if record.send_time_ns < sent_before_ns and (record.recipient, record.seq) not in self._t("messages"):
                del self._w("ids")[message_id]
                forgotten += 1
        return forgotten, b""

    # -- rendezvous tickets

    def next_sequence(self, name: str) -> int:
        value = self._meta("seq/" + name) + 1
        self._w("meta")["seq/" + name] = value
        return value

    def get_ticket(self, ticket_id: str) -> Ticket | None:
        return copy.deepcopy(self._t("tickets").get(ticket_id))

    def put_ticket(self, ticket: Ticket) -> None:
        before = self._t("tickets").get(ticket.ticket_id)
        was = before is not None and before.state == TicketState.QUEUED
        self._count_queued(ticket.target, int(ticket.state == TicketState.QUEUED) - int(was))
        held = quota.queued_holder(before.state, before.source_agent) if before is not None else ""
        holder = quota.queued_holder(ticket.state, ticket.source_agent)
        if held != holder:
            self.count_usage(held, quota.QUEUED, -1)
            self.count_usage(holder, quota.QUEUED, 1)
        self._w("tickets")[ticket.ticket_id] = copy.deepcopy(ticket)

    def _count_queued(self, target: str, delta: int) -> None:
        if delta:
            self._w("meta")["queued/" + target] = self._meta("queued/" + target) + delta

    def queue_length(self, target: str) -> int:
        return self._meta("queued/" + target)

    def usage(self, agent_id: str) -> quota.Usage:
        return quota.Usage(*(self._meta(counter_name(q, agent_id)) for q in (quota.MAILBOXES, quota.UNREAD_BYTES,
                                                                            quota.QUEUED, quota.OUTBOX_ROWS,
                                                                            quota.UNREAD_MESSAGES)))

    def count_usage(self, agent_id: str, name: str, delta: int) -> None:
        if agent_id and delta:
            key = counter_name(name, agent_id)
            self._w("meta")[key] = max(0, self._meta(key) + delta)

    def queue(self, target: str, limit: int) -> list[Ticket]:
        queued = sorted((t for t in self._t("tickets").values() if t.target == target and t.state == TicketState.QUEUED),
                        key=lambda t: t.seq)
        return [copy.deepcopy(t) for t in queued[:limit]]

    def queue_from(self, target: str, after_seq: int) -> Iterator[tuple[int, Ticket]]:
        queued = sorted((t for t in self._t("tickets").values()
                         if t.target == target and t.state == TicketState.QUEUED and t.seq > after_seq),
                        key=lambda t: t.seq)
        for ticket in queued:
            yield ticket.seq, copy.deepcopy(ticket)

    def queued_tickets(self) -> int:
        return sum(1 for t in self._t("tickets").values() if t.state == TicketState.QUEUED)

    def tickets_before(self, target: str, source_agent: str, before_seq: int) -> Iterator[Ticket]:
        found = sorted((t for t in self._t("tickets").values() if t.target == target
                        and (not source_agent or t.source_agent == source_agent)
                        and (not before_seq or t.seq < before_seq)), key=lambda t: -t.seq)
        for ticket in found:
            yield copy.deepcopy(ticket)

    def finished_before(self, finish_ns: int, limit: int) -> list[str]:
        done = sorted((t.finish_ns, t.ticket_id) for t in self._t("tickets").values()
                      if t.state != TicketState.QUEUED and t.finish_ns < finish_ns)
        return [ticket_id for _, ticket_id in done[:limit]]

    def delete_ticket(self, ticket_id: str) -> None:
        gone = self._w("tickets").pop(ticket_id, None)
        if gone is not None:
            if gone.state == TicketState.QUEUED:
                self._count_queued(gone.target, -1)
            self.count_usage(quota.queued_holder(gone.state, gone.source_agent), quota.QUEUED, -1)

    # -- outbox

    # `outbox` is keyed (key, settling agent id): listed by key, as on LMDB

    def get_outbox_row(self, agent_id: str, key: str) -> OutboxRow | None:
        return copy.deepcopy(self._t("outbox").get((key, agent_id)))

    def put_outbox_row(self, row: OutboxRow) -> None:
        self._count_row(self._t("outbox").get((row.key, row.sender.agent_id)), -1)
        self._count_row(row, 1)
        self._w("outbox")[(row.key, row.sender.agent_id)] = copy.deepcopy(row)

    def add_outbox_row(self, row: OutboxRow) -> bool:
        if (row.key, row.sender.agent_id) in self._t("outbox"):
            return False
        self.put_outbox_row(row)
        return True

    def outbox_rows_keyed(self, key: str) -> list[OutboxRow]:
        return [copy.deepcopy(r) for k, r in sorted(self._t("outbox").items()) if k[0] == key]

    def _after(self, after_key: str) -> list[tuple[str, str]]:
        key, agent = split_cursor(after_key)
        return sorted(k for k in self._t("outbox") if (k > (key, agent) if agent is not None else k[0] > key))

    def _count_row(self, row: OutboxRow | None, delta: int) -> None:
        if row is not None:
            self.count_usage(quota.outbox_holder(row.key, row.state, row.sender.agent_id), quota.OUTBOX_ROWS, delta)

    def due_outbox_rows(self, now_ns: int, limit: int) -> list[OutboxRow]:
        due = sorted((r for r in self._t("outbox").values() if r.state == RowState.PENDING and r.next_attempt_ns <= now_ns),
                     key=lambda r: (r.next_attempt_ns, r.key))
        return [copy.deepcopy(r) for r in due[:limit]]

    def next_outbox_due(self) -> int | None:
        return min((r.next_attempt_ns for r in self._t("outbox").values() if r.state == RowState.PENDING), default=None)

    def outbox_rows(self, after_key: str, limit: int, state: RowState) -> list[OutboxRow]:
        table = self._t("outbox")
        rows = [table[k] for k in self._after(after_key) if state == RowState.UNSPECIFIED or table[k].state == state]
        return [copy.deepcopy(r) for r in rows[:limit]]

    def outbox_from(self, after_key: str) -> Iterator[tuple[str, OutboxRow]]:
        for key in self._after(after_key):
            row = copy.deepcopy(self._t("outbox")[key])
            yield row_cursor(row), row

    def outbox_counts(self) -> tuple[int, int]:
        rows = self._t("outbox").values()
        return sum(1 for r in rows if r.state == RowState.PENDING), len(rows)

    def delete_outbox_row(self, agent_id: str, key: str) -> None:
        self._count_row(self._w("outbox").pop((key, agent_id), None), -1)

    # -- agent directory

    def get_directory_data(self) -> DirectoryData:
        return copy.deepcopy(self._t("meta").get("directory") or DirectoryData())

    def put_directory_data(self, data: DirectoryData, keep_history: int) -> None:
        self._w("meta")["directory"] = copy.deepcopy(data)
        if keep_history:
            history = self._w("history")
            history[data.sequence] = copy.deepcopy(data)
            history.pop(data.sequence - keep_history, None)

    def directory_history(self, after_sequence: int, limit: int) -> list[DirectoryData]:
        kept = self._t("history")
        return [copy.deepcopy(kept[s]) for s in sorted(s for s in kept if s > after_sequence)[:limit]]

    def get_agent(self, agent_id: str) -> Agent | None:
        return copy.deepcopy(self._t("agents").get(agent_id))

    def agent_named(self, name: str) -> Agent | None:
        return next((copy.deepcopy(a) for a in self._t("agents").values() if a.name == name), None)

    def put_agent(self, agent: Agent) -> None:
        before = self._t("agents").get(agent.agent_id)
        if before is None or before.name != agent.name:
            self.index_name("agent", agent.agent_id, lookalike.keys(before.name) if before is not None else frozenset(),
                            lookalike.keys(agent.name))
        self._w("agents")[agent.agent_id] = copy.deepcopy(agent)

    def agents_looking_like(self, looks: frozenset[str]) -> list[Agent]:
        return [copy.deepcopy(self._t("agents")[a]) for a in self.named_like("agent", looks)]

    def agents(self) -> list[Agent]:
        return [copy.deepcopy(a) for a in self._t("agents").values()]

    def agents_from(self, after: str) -> Iterator[tuple[str, Agent]]:
        start = bytes.fromhex(after).decode("utf-8", "surrogatepass")
        for agent_id in sorted(a for a in self._t("agents") if a > start):
            yield agent_id.encode("utf-8", "surrogatepass").hex(), copy.deepcopy(self._t("agents")[agent_id])

    def get_thread(self, thread_id: str) -> Thread | None:
        found = self._t("threads").get(thread_id)
        return copy.deepcopy(found[1]) if found is not None else None

    def put_thread(self, thread: Thread) -> None:
        found = self._t("threads").get(thread.thread_id)
        seq = found[0] if found is not None else self.next_sequence("thread")
        self._w("threads")[thread.thread_id] = (seq, copy.deepcopy(thread))

    def threads_of(self, agent_id: str) -> list[Thread]:
        mine = sorted(((s, t) for s, t in self._t("threads").values() if t.agent_id == agent_id), key=lambda p: p[0])
        return [copy.deepcopy(t) for _, t in mine]

    def threads_from(self, agent_id: str, after_seq: int) -> Iterator[tuple[int, Thread]]:
        mine = sorted((s, t) for s, t in self._t("threads").values() if t.agent_id == agent_id and s > after_seq)
        for seq, thread in mine:
            yield seq, copy.deepcopy(thread)

    def get_request(self, request_id: str) -> WorkRequest | None:
        return copy.deepcopy(self._t("requests").get(request_id))

    def put_request(self, request: WorkRequest) -> None:
        self._w("requests")[request.request_id] = copy.deepcopy(request)

    def requests(self, which: int, after_seq: int, limit: int) -> list[WorkRequest]:
        def listed(r: WorkRequest) -> bool:
            return (which == FILTER_ALL or (which == FILTER_PENDING and r.state == PENDING)
                    or (which == FILTER_NOTIFICATIONS and r.owes_notification))

        found = sorted((r for r in self._t("requests").values() if r.seq > after_seq and listed(r)), key=lambda r: r.seq)
        return [copy.deepcopy(r) for r in found[:limit]]

    def requests_from(self, which: int, after_seq: int) -> Iterator[tuple[int, WorkRequest]]:
        while True:
            page = self.requests(which, after_seq, 100)
            for request in page:
                yield request.seq, request
            if len(page) < 100:
                return
            after_seq = page[-1].seq

    def get_repair(self, key: str) -> tuple[int, str] | None:
        return self._t("repairs").get(key)

    def get_request_key(self, scope: str, key: str) -> tuple[bytes, str] | None:
        return self._t("request_keys").get((scope, key))

    def put_request_key(self, scope: str, key: str, digest: bytes, created_id: str) -> None:
        self._w("request_keys")[(scope, key)] = (digest, created_id)

    def put_repair(self, key: str, generation: int, request_id: str) -> None:
        self._w("repairs")[key] = (generation, request_id)

    # -- access tokens

    def put_token(self, key: bytes, token: Token) -> None:
        self._w("tokens")[key] = copy.copy(token)

    def get_token(self, key: bytes) -> Token | None:
        return copy.copy(self._t("tokens").get(key))

    def token_by_id(self, token_id: str) -> tuple[bytes, Token] | None:
        return next(((k, copy.copy(t)) for k, t in self._t("tokens").items() if t.token_id == token_id), None)

    def tokens(self) -> list[tuple[bytes, Token]]:
        return [(k, copy.copy(t)) for k, t in self._t("tokens").items()]

    def tokens_from(self, after: str) -> Iterator[tuple[str, Token]]:
        start = bytes.fromhex(after)  # ValueError for a cursor this backend did not hand out
        for key in sorted(k for k in self._t("tokens") if k > start):
            yield key.hex(), copy.copy(self._t("tokens")[key])

    # -- wake hooks (stored encoded, so no caller holds a live record)

    def get_wake_hook(self, agent_id: str) -> WakeHook | None:
        raw = self._t("wake_hooks").get(agent_id)
        return wake.decode(raw) if raw is not None else None

    def put_wake_hook(self, hook: WakeHook) -> None:
        self._w("wake_hooks")[hook.agent_id] = wake.encode(hook)

    def delete_wake_hook(self, agent_id: str) -> None:
        self._w("wake_hooks").pop(agent_id, None)

    def wake_hooks(self) -> list[WakeHook]:
        return [wake.decode(raw) for _, raw in sorted(self._t("wake_hooks").items())]

    # -- leases (frozen records: stored as they are)

    def get_lease(self, lease_id: str) -> Lease | None:
        found: Lease | None = self._t("leases").get(lease_id)
        return found

    def put_lease(self, lease: Lease) -> None:
        self._w("leases")[lease.lease_id] = lease

    def delete_lease(self, lease_id: str) -> None:
        self._w("leases").pop(lease_id, None)

    def leases(self) -> list[Lease]:
        return [lease for _, lease in sorted(self._t("leases").items())]

    def leases_near(self, anchors: Collection[str] | None) -> list[Lease]:
        wanted = None if anchors is None else {*anchors, ANYWHERE}
        return [lease for lease in self.leases()
                if lease.live and (wanted is None or wanted & set(model_leases.anchors(lease)))]

    def leases_of(self, agent_id: str) -> list[Lease]:
        return [lease for lease in self.leases() if lease.live and lease.agent_id == agent_id]

    def leases_since(self, revision: int, limit: int) -> list[Lease]:
        return sorted((lease for lease in self.leases() if lease.revision > revision),
                      key=lambda lease: lease.revision)[:limit]

    def get_waiter(self, waiter_id: str) -> Waiter | None:
        found: Waiter | None = self._t("lease_waiters").get(waiter_id)
        return found

    def put_waiter(self, waiter: Waiter) -> None:
        self._w("lease_waiters")[waiter.waiter_id] = waiter

    def delete_waiter(self, waiter_id: str) -> None:
        self._w("lease_waiters").pop(waiter_id, None)

    def waiters(self) -> list[Waiter]:
        return sorted(self._t("lease_waiters").values(), key=lambda w: w.order)

    # -- effects

    def wake(self, key: str) -> None:
        self.woken[key] = None

    def flush(self) -> None:
        """Write the dirty entries (copies: the script's objects stay its own)."""
        if self._dirty:
            entries = self._w("entries")
            for agent_id, entry in self._dirty.items():
                entries[agent_id] = copy.deepcopy(entry)
            self._dirty.clear()
