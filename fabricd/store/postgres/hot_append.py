"""Appends on PostgreSQL: the facts of a group of sends in one statement, fabricd.core.mailbox_writes.append
deciding each send, the writes in one statement (append_sql.py).

    lone send:       facts (no transaction) -> decide -> guarded write        2 statements (1 for a refusal)
    batch, group:    BEGIN, facts FOR UPDATE -> decide -> write, COMMIT      4 round trips
A lone send whose guard fails (another writer moved its mailbox meanwhile), or whose decider asks for more
facts, runs as a batch of one. When the decider asks for more (`More`: a name to resolve beyond agent ids,
the seq floor of a mailbox to make, names close to an unknown one), they are read in the same transaction,
locked, and every send of the group is decided again from the start (decisions depend on those before).

Ids are minted once, before the first run, so a run again after a lost connection finds its own record:
a minted id found under its sender is that earlier run's message, answered as stored.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from fabricd.core import mailbox as rules
from fabricd.core import mailbox_writes as writes
from fabricd.core import quota as quotas
from fabricd.core import wake as wake_rules
from fabricd.core.errors import FabricError, Unavailable
from fabricd.core.kv.directory import DIRECTORY
from fabricd.core.model import IdRecord, Message, Sent
from fabricd.store.postgres import append_sql as sql
from fabricd.store.postgres import statements as s
from fabricd.store.postgres.engine import Attempt, PgEngine

if TYPE_CHECKING:
    from fabricd.store.postgres.conn import Conn

Result = list[Sent | FabricError]
GUARD_ATTEMPTS = 8
"""Reads of a group's facts in one transaction before it gives up (each failed guard means another writer
made progress)."""


class Group:
    """One append call's sends and the facts gathered for them so far."""

    __slots__ = ("items", "ids", "now", "create", "atomic", "max_unread", "quota", "facts", "resolved",
                 "floors", "similar", "bodies", "drafts", "made_any")

    def __init__(self, items: Sequence[tuple[Message, bytes]], ids: list[str], now: int, create: bool,
                 atomic: bool, max_unread: int, quota: quotas.Quotas | None) -> None:
        self.items, self.ids, self.now = items, ids, now
        self.drafts = [s.encode(Message(i, m.sender, m.recipient, m.reply_to, m.thread_id, m.text, m.data,
                                        m.headers, m.kind, m.hops, now, 0, m.ticket_id))
                       for (m, _), i in zip(items, ids, strict=True)]
        """Each send's stored body should it be stored under the name it gives (the usual case), encoded
        before any row is locked: a group's rows stay locked only while it decides and writes."""
        self.create, self.atomic, self.max_unread, self.quota = create, atomic, max_unread, quota
        self.facts = sql.Facts()
        self.resolved: dict[str, str | FabricError | None] = {}
        """Names resolved beyond agent ids: the agent id each names (None: none, or an ambiguous name)."""
        self.floors: dict[str, int] | None = None
        self.similar: dict[str, tuple[str, ...]] = {}
        self.bodies: list[bytes] = []
        """The stored body of each send decided Append (the others: b"")."""
        self.made_any = False

    async def gather(self, conn: Conn, lock: bool) -> None:
        """Read the facts of every send (locked: in the caller's transaction), forgetting any read before."""
        self.resolved.clear()
        self.floors = None
        self.similar.clear()
        senders = sorted({msg.sender.agent_id for msg, _ in self.items})
        names = sorted({msg.recipient.agent_id for msg, _ in self.items} | set(senders) - {""})
        counters = []
        if self.quota is not None:
            counters = sorted(c for sender in senders if sender for c in sql.usage_counters(sender))
        self.facts = await sql.facts(conn, self.ids, senders, names, counters, lock)

    async def gather_more(self, conn: Conn, more: writes.More) -> None:
        """Read what the decider asked for, locked, in the caller's transaction."""
        if more.names:
            wanted = sorted({n for msg, _ in self.items if msg.recipient.agent_id not in self.resolved
                             for n in writes.sessions_of(msg.recipient.agent_id)})
            entries = await sql.named(conn, wanted)
            for e in entries:
                self.facts.boxes.setdefault(e.agent_id, (e.last_seq, e.unread_count))
            for msg, _ in self.items:
                name = msg.recipient.agent_id
                if name not in self.resolved:
                    try:
                        found = writes.resolve(name, [e for e in entries if e.agent_id == name
                                                      or e.session_name in writes.sessions_of(name)])
                        self.resolved[name] = found.agent_id if found is not None else None
                    except FabricError as exc:
                        self.resolved[name] = exc
            reached = sorted({a for a in self.resolved.values() if isinstance(a, str)} - self.facts.probed)
            if reached:  # the hooks of agents reached by a session name: their arrivals may arm them
                self.facts.hooks.update(await sql.hooks(conn, reached))
                self.facts.probed.update(reached)
        if more.seq_floor and self.floors is None:
            self.floors = await sql.seq_floors(conn, sorted({msg.recipient.agent_id for msg, _ in self.items}))
        if more.similar:
            known = await sql.registered(conn)
            for msg, _ in self.items:
                self.similar.setdefault(msg.recipient.agent_id, writes.close_names(msg.recipient.agent_id, known))
        if more.usage:  # usage is read with the facts whenever a quota holds: never asked for
            raise AssertionError("an append's usage is gathered with its facts")

    def decide(self) -> tuple[list[Sent | FabricError | writes.Append], writes.More | None]:
        """Each send's decision, in order, each seeing the moves of those before; or, when a decider asked for
        more, what to read (the decisions are then incomplete: the group is decided again once it is read)."""
        priors = self.facts.priors
        # the id records of the sends decided Append so far: an IdRecord is made only when a later send asks
        here: dict[tuple[str, str], tuple[str, int, int, bytes]] = {}
        boxes: dict[str, writes.Box] = {}
        counters = self.facts.counters
        used: dict[str, quotas.Usage] = {}
        made: dict[str, str] = {}
        out: list[Sent | FabricError | writes.Append] = []
        bodies = self.bodies
        bodies.clear()
        need = writes.More()
        for (msg, digest), message_id, draft in zip(self.items, self.ids, self.drafts, strict=True):
            name, sender = msg.recipient.agent_id, msg.sender.agent_id
            prior = priors.get((message_id, sender))
            if prior is None and here:
                fresh = here.get((message_id, sender))
                prior = IdRecord(*fresh) if fresh is not None else None
            if prior is not None and not msg.id:  # a minted id: an earlier run of this very call committed it
                out.append(Sent(replace(rules.as_stored(msg, prior), id=message_id)))
                bodies.append(b"")
                continue
            target = made.get(name, self.resolved.get(name, name))
            box: writes.Box | FabricError | None
            if isinstance(target, str):
                box = boxes.get(target)
                if box is None and target in self.facts.boxes:
                    last_seq, unread = self.facts.boxes[target]
                    box = boxes[target] = writes.Box(target, unread, last_seq)
            else:
                box = target
            usage = None
            if self.quota is not None and sender:
                usage = used.get(sender) or sql.usage_of(counters, sender)
            facts = writes.AppendFacts(prior, box, resolved=name in self.resolved or name in made, usage=usage,
                                       seq_floor=None if self.floors is None else self.floors.get(name, 0), similar=self.similar.get(name))
            decided = writes.append(msg, digest, message_id, self.now, facts, create=self.create,
                                    max_unread=self.max_unread, quota=self.quota)
            if isinstance(decided, writes.More):  # the others are decided too, to ask for all that is missing
                need = writes.More(need.names or decided.names, need.seq_floor or decided.seq_floor,
                                   need.usage or decided.usage, need.similar or decided.similar)
                continue
            body = b""
            if isinstance(decided, writes.Append):
                stored = decided.message
                agent_id = stored.recipient.agent_id
                # the draft holds all but the recipient, which a name resolved to another agent changes
                body = draft if stored.recipient is msg.recipient else s.encode(stored)
                boxes[agent_id] = decided.box
                if decided.created:
                    made[name] = agent_id
                here[(message_id, sender)] = (agent_id, stored.seq, stored.send_time_ns, digest)
                if usage is not None:
                    used[sender] = quotas.Usage(usage.mailboxes + decided.created, usage.unread_bytes + len(body),
                                                unread_messages=usage.unread_messages + 1)
            bodies.append(body)
            out.append(decided)
        return out, need if need != writes.More() else None

    def plan(self, decided: list[Sent | FabricError | writes.Append]) -> tuple[sql.Write, Result]:
        """The write statement's columns, and each caller's outcome once it commits."""
        w = sql.Write()
        out: Result = []
        moved: dict[str, list[int]] = {}  # agent id -> [last seq after, added]
        made: dict[str, list[Any]] = {}  # agent id -> [last seq, unread, creator]
        active: set[str] = set()
        for (_msg, digest), d, body in zip(self.items, decided, self.bodies, strict=True):
            if not isinstance(d, writes.Append):
                out.append(d)
                continue
            stored = d.message
            agent_id = stored.recipient.agent_id
            w.agent_ids.append(agent_id)
            w.seqs.append(stored.seq)
            w.ids.append(stored.id)
            w.bodies.append(body)
            w.digests.append(digest)
            w.senders.append(stored.sender.agent_id)
            if d.created or agent_id in made:
                box = made.setdefault(agent_id, [0, 0, d.creator])
                box[0], box[1] = stored.seq, d.unread
                if d.creator:
                    w.creators.append(d.creator)
            else:
                box = moved.setdefault(agent_id, [0, 0])
                box[0], box[1] = stored.seq, box[1] + 1
            if d.active:
                active.add(d.active)
            out.append(Sent(stored, encoded=s.enveloped(stored.seq, body)))
        for agent_id in sorted(moved.keys() | (active - made.keys())):
            seen = self.facts.boxes.get(agent_id)
            if agent_id not in moved and seen is None:
                continue  # an active sender without a mailbox
            w.moved.append(agent_id)
            w.seen_seq.append(seen[0] if seen is not None and agent_id in moved else None)
            w.seen_unread.append(seen[1] if seen is not None and agent_id in moved else None)
            last_seq, added = moved.get(agent_id, (None, 0))
            w.last_seq.append(last_seq)
            w.added.append(added)
            w.active.append(agent_id in active)
        for agent_id in sorted(made):
            last_seq, unread, creator = made[agent_id]
            w.made.append(agent_id)
            w.made_seq.append(last_seq)
            w.made_unread.append(unread)
            w.made_metadata.append(w.metadata(creator))
            w.made_active.append(agent_id in active)
        self.made_any = bool(made)
        arrivals = [(d.message.recipient.agent_id, d.message.id, d.message.ticket_id)
                    for d in decided if isinstance(d, writes.Append)]
        hook_bodies = {recipient: self.facts.hooks.get(recipient) for recipient, _, _ in arrivals}
        for recipient in sorted(hook_bodies):
            w.hooked.append(recipient)
            w.hooks_seen.append(hook_bodies[recipient])
        hooks = {recipient: wake_rules.decode(body) for recipient, body in hook_bodies.items() if body is not None}
        for recipient, hook in sorted(wake_rules.arm_all(hooks, arrivals, self.now).items()):
            w.armed.append(recipient)
            w.armed_bodies.append(wake_rules.encode(hook))
        if self.quota is not None:
            for name, value in self.facts.counters.items():
                w.guarded.append(name)
                w.guarded_values.append(value)
            for sender in {m.sender.agent_id for m, _ in self.items} - {""}:
                for name in sql.usage_counters(sender):
                    if name not in self.facts.counters:  # read as absent: 0
                        w.guarded.append(name)
                        w.guarded_values.append(0)
        return w, out


class GroupAppended:
    """What an append in a caller's transaction did: each send's outcome, and the wake-up keys of its commit."""

    __slots__ = ("results", "woken")

    def __init__(self, results: Result, woken: dict[str, None]) -> None:
        self.results = results
        self.woken = woken
        """Every mailbox that got mail, the wake loop's key when a hook was armed, the directory's when a
        mailbox was made: hand them to PgEngine.committed once the transaction commits."""


def prepare(items: Sequence[tuple[Message, bytes]], mint: Callable[[int], str], now: int, *, create: bool,
            atomic: bool, max_unread: int, quota: quotas.Quotas | None) -> Group:
    """A group of sends to append, their ids minted once (before the first run: a run again finds them)."""
    return Group(items, [msg.id or mint(now) for msg, _ in items], now, create, atomic, max_unread, quota)


def _settle(group: Group, decided: list[Sent | FabricError | writes.Append]) -> tuple[sql.Write, Result]:
    if group.atomic:
        for i, d in enumerate(decided):
            if isinstance(d, FabricError):
                raise rules.at_index(d, i)  # nothing is written (a transaction is rolled back)
    return group.plan(decided)


def _appended(group: Group, out: Result, woke: list[str]) -> GroupAppended:
    keys = {rules.mailbox_key(r.message.recipient.agent_id): None for r in out if isinstance(r, Sent) and r.encoded}
    if woke:
        keys[wake_rules.WAKE] = None
    if group.made_any:
        keys[DIRECTORY] = None
    return GroupAppended(out, keys)


async def append_in(conn: Conn, group: Group) -> GroupAppended:
    """Append `group` inside the caller's transaction: its facts read FOR UPDATE, more read when the decider
    asks, its writes in one statement. Raises the refusal of an atomic group (the caller rolls back).

    A usage counter absent from the facts cannot be locked: when another writer makes it meanwhile, the
    guard fails, nothing is written, and the group is read and decided again (its rows still locked)."""
    for _ in range(GUARD_ATTEMPTS):
        await group.gather(conn, lock=True)
        decided, more = group.decide()
        while more is not None:
            await group.gather_more(conn, more)
            decided, more = group.decide()
        w, out = _settle(group, decided)
        if not w.agent_ids:
            return _appended(group, out, [])
        ok, woke = await sql.write(conn, w, group.now)
        if ok:
            return _appended(group, out, woke)
    raise Unavailable("an append's facts kept changing under it; retry", reason="STORE_IO_ERROR")


async def append(engine: PgEngine, clock: Callable[[], int], mint: Callable[[int], str],
                 items: Sequence[tuple[Message, bytes]], *, create: bool, atomic: bool, max_unread: int,
                 quota: quotas.Quotas | None) -> Result:
    """The Mailboxes port's append on PostgreSQL (see the module docstring)."""
    group = prepare(items, mint, clock(), create=create, atomic=atomic, max_unread=max_unread, quota=quota)

    async def alone(conn: Conn, attempt: Attempt) -> GroupAppended | None:
        await group.gather(conn, lock=False)
        decided, more = group.decide()
        if more is not None:
            return None
        w, out = _settle(group, decided)
        woke: list[str] = []
        if w.agent_ids:
            attempt.committing = True
            ok, woke = await sql.write(conn, w, group.now)
            if not ok:
                return None  # another writer moved a mailbox since the facts: decide again, locked
        return _appended(group, out, woke)

    async def locked(conn: Conn, attempt: Attempt) -> GroupAppended:
        async with conn.transaction():
            done = await append_in(conn, group)
            attempt.committing = True
        return done

    done = await engine.op(alone, rerun_safe=True) if len(items) == 1 else None
    if done is None:
        done = await engine.op(locked, rerun_safe=True)
    if done.woken:
        engine.committed(done.woken, sum(1 for r in done.results if isinstance(r, Sent) and r.encoded))
    return done.results
