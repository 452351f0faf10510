"""Outbox: fan a settled job's result out to every reply-to address, delivered exactly once.

Each reply is a row keyed `outbox:<mail key>:reply:<index>` within the settling
agent's rows (the job's agent, who is the reply's sender): two agents using one
mail key never meet, and the message's id, chosen by its sender, is scoped the
same way (fabricd.core.kv.mailbox.store). Posting a row
stores a message whose id is that key in the recipient's mailbox and replaces
the row with a receipt, in one transaction: a crash leaves either the row (to
post again) or the message and its receipt, never both and never neither. A
failed post is retried with exponential back-off and jitter, forever by
default; with a `max_attempts` limit configured, a row that reaches it is
dead-lettered until an operator retries it.

Every backend keeps this true: the LMDB and memory backends run
fabricd.core.kv.outbox in one transaction per page of rows; PostgreSQL claims
rows with FOR UPDATE SKIP LOCKED and posts each with its receipt in the same
transaction, so several nodes deliver each row once.

Wake rows (`wake:...`, fabricd.core.wake) are the exception: their delivery is
an HTTP POST or a command, which no transaction can hold. They are claimed with
a lease in the page's transaction, sent, then settled in a second one. Their
sends run in lanes of their own, one per hook: the delivery loop hands a
claimed wake to its hook's lane and goes on, so no hook, however slow, holds
up replies or another hook's wakes.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace

from fabricd.core import paging, validate
from fabricd.core.errors import AlreadyExists, FabricError, InvalidArgument, Unavailable
from fabricd.core.limits import Limits
from fabricd.core.model import Address, JobOutcome, Message, MessageKind, OutboxRow, RowState, SettledJob
from fabricd.core.model_outbox import DrainResult as DrainResult
from fabricd.core.model_outbox import RetryPolicy as RetryPolicy
from fabricd.core.model_wake import WakeHook
from fabricd.core.paging import Listed, Page
from fabricd.core.ports import Service, Store

log = logging.getLogger("fabricd.outbox")

OUTBOX = "outbox"
"""Wake-up key: rows became due (a fan-out, a retry)."""
PAGE = 64
MAX_KEY_BYTES = 400


def reply_key(mail_key: str, index: int) -> str:
    return f"outbox:{mail_key}:reply:{index}"


def row_cursor(row: OutboxRow) -> str:
    """Where a listing of rows goes on after `row`: its key, NUL, its settling agent (keys hold no NUL)."""
    return row.key + "\0" + row.sender.agent_id


def split_cursor(after: str) -> tuple[str, str | None]:
    """(key, agent) of a row cursor; (key, None) for a bare key, which means after every row with that key."""
    key, sep, agent = after.partition("\0")
    return (key, agent) if sep else (key, None)


def reply_content(outcome: JobOutcome, agent: Address, content: str) -> str:
    """The reply text: a small header naming the outcome and the agent, then the result."""
    word = "completed" if outcome == JobOutcome.COMPLETED else "interrupted"
    return f"---\noutcome: {word}\nagentId: {agent.agent_id}\nsessionId: {agent.session_id}\n---\n\n{content}"


def new_row(now: int, key: str, recipient: Address, sender: Address, job_id: str, content: str) -> OutboxRow:
    """A new reply row, due now."""
    return OutboxRow(key=key, state=RowState.PENDING, recipient=recipient, sender=sender, job_id=job_id,
                     content=content, next_attempt_ns=now, create_ns=now)


def key_reused(row: OutboxRow, was: OutboxRow) -> AlreadyExists:
    """A FanOut whose reply key already names a reply to someone else: not a replay of that settlement."""
    return AlreadyExists(
        f"{row.key} is already the reply to {was.recipient.agent_id!r} (session {was.recipient.session_id!r}), "
        f"not to {row.recipient.agent_id!r} (session {row.recipient.session_id!r}): a replayed settlement names "
        "the same reply_to; another request needs its own job.mail.key", reason="OUTBOX_KEY_REUSED", key=row.key)


def message_of(row: OutboxRow) -> Message:
    """The message a row posts: its id is the row's key, so a replayed post is a duplicate, never a second copy."""
    return Message(
        id=row.key,
        sender=row.sender,
        recipient=row.recipient,
        text=row.content,
        headers={"fabricd-outbox-key": row.key, "fabricd-job-id": row.job_id},
        kind=MessageKind.AGENT,
    )


def failed(row: OutboxRow, exc: FabricError, now: int, policy: RetryPolicy, rng: random.Random) -> OutboxRow:
    """The row after a refused post: retried after a back-off, or dead-lettered at `max_attempts`."""
    attempts = row.attempts + 1
    error = f"{exc.reason}: {exc.message}"
    if policy.max_attempts and attempts >= policy.max_attempts:
        log.warning("outbox row %s dead-lettered after %d attempts: %s", row.key, attempts, error)
        return replace(row, state=RowState.DEAD_LETTER, attempts=attempts, last_error=error)
    return replace(row, attempts=attempts, last_error=error,
                   next_attempt_ns=now + int(policy.delay_s(attempts, rng) * 1e9))


def delivered(row: OutboxRow, now: int, seq: int) -> OutboxRow:
    """The receipt that replaces a posted row: where the message went, without its content."""
    return replace(row, state=RowState.DELIVERED, attempts=row.attempts + 1, deliver_ns=now, seq=seq, content="",
                   last_error="")


class Outbox(Service):
    """The outbox contract over a Store, with the delivery loop the daemon runs."""

    def __init__(self, store: Store, limits: Limits, clock: Callable[[], int],
                 policy: RetryPolicy = RetryPolicy()) -> None:
        super().__init__(store, limits, clock)
        self._policy = policy
        self.send_wake: Callable[[OutboxRow, WakeHook], Awaitable[None]] | None = None
        """Sends a claimed wake row (POST or command), raising a FabricError when it failed (the daemon's:
        fabricd.daemon.wakesend)."""
        self._lanes: dict[str, asyncio.Task[None]] = {}
        """Each hook's send under way on this node (by agent id): at most one per hook."""

    # -- fan-out

    def _check(self, job: SettledJob, content: str) -> None:
        limits = self.limits
        validate.text_field(job.job_id, "job.job_id", limits, required=True)
        if job.outcome not in JobOutcome._value2member_map_ or job.outcome == JobOutcome.UNSPECIFIED:
            raise InvalidArgument(f"job.outcome {job.outcome} is not a settled outcome", reason="INVALID_FIELD",
                                  field="job.outcome")
        validate.text_field(job.agent.agent_id, "job.agent.agent_id", limits, required=True)
        validate.text_field(job.agent.session_id, "job.agent.session_id", limits, required=True)
        mail = job.mail
        if mail is None:
            return
        validate.text_field(mail.key, "job.mail.key", limits, required=True)
        if len(mail.key.encode("utf-8", "surrogatepass")) > MAX_KEY_BYTES:
            raise InvalidArgument(f"job.mail.key is over {MAX_KEY_BYTES} bytes in UTF-8", reason="FIELD_TOO_LONG",
                                  field="job.mail.key", limit=MAX_KEY_BYTES)
        if len(mail.reply_to) > limits.max_batch:
            raise InvalidArgument(f"job.mail.reply_to has {len(mail.reply_to)} addresses; the limit is "
                                  f"{limits.max_batch}", reason="TOO_MANY_ITEMS", field="job.mail.reply_to")
        for i, address in enumerate(mail.reply_to):
            validate.text_field(address.agent_id, f"job.mail.reply_to[{i}].agent_id", limits, required=True)
            validate.text_field(address.session_id, f"job.mail.reply_to[{i}].session_id", limits, required=True)
        validate.stored_text(content, "content")
        # The largest reply as a send measures it (text and headers): long ids make the header and headers
        # more than a fixed allowance, and a reply past the limit would be a message no send could store.
        if mail.reply_to:
            last = message_of(new_row(0, reply_key(mail.key, len(mail.reply_to) - 1), mail.reply_to[-1], job.agent,
                                      job.job_id, reply_content(JobOutcome(job.outcome), job.agent, content)))
            size = validate.utf8_size(last.text) + sum(validate.utf8_size(k) + validate.utf8_size(v)
                                                       for k, v in last.headers.items())
            validate.payload_size(size, "content", limits, what="the reply: content, header and headers")

    async def fan_out(self, job: SettledJob, content: str, agent_token: bool = False) -> tuple[list[str], int]:
        """Write one row per reply-to address; returns the keys and how many rows were new.

        `agent_token`: the caller is an agent token, held to its outbox-rows quota (fabricd.core.quota)."""
        self._check(job, content)
        mail = job.mail
        if job.outcome == JobOutcome.CANCELLED or mail is None or not mail.reply_to:
            return [], 0
        text = reply_content(JobOutcome(job.outcome), job.agent, content)
        keys = [reply_key(mail.key, i) for i in range(len(mail.reply_to))]
        now = self._clock()
        rows = [new_row(now, key, address, job.agent, job.job_id, text)
                for key, address in zip(keys, mail.reply_to, strict=True)]
        return keys, await self._store.outbox.add(rows, self.limits.quotas_for(agent_token))

    # -- delivery

    async def drain_once(self, wait_wakes: bool = True) -> DrainResult:
        """Post every due row of one page (up to 64) and hand the wake rows among them to their hooks' lanes;
        with `wait_wakes` (an operator's DrainOutbox), return once those sends are settled."""
        result = await self._store.outbox.deliver_due(PAGE, self._policy, self.limits.max_unread)
        started = [task for row, hook in result.claimed if (task := self._lane(row, hook)) is not None]
        if wait_wakes and started:
            await asyncio.wait(started)
        return result

    def _lane(self, row: OutboxRow, hook: WakeHook) -> asyncio.Task[None] | None:
        """Send `row` in its hook's lane; None when the hook is sending already (its lease ended early, say):
        the row is held by its lease and claimed again when it ends."""
        agent = row.recipient.agent_id
        if agent in self._lanes:
            return None
        task = asyncio.create_task(self._send_wake(row, hook), name=f"wake {row.key}")
        self._lanes[agent] = task
        task.add_done_callback(lambda done: self._lanes.pop(agent, None) if self._lanes.get(agent) is done else None)
        return task

    def sending(self) -> int:
        """Wake sends under way on this node."""
        return len(self._lanes)

    async def stop_sending(self) -> None:
        """End the wake sends under way (at shutdown): their rows stay leased and are sent again after."""
        tasks = list(self._lanes.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _send_wake(self, row: OutboxRow, hook: WakeHook) -> None:
        error: FabricError | None = None
        try:
            if self.send_wake is None:
                raise Unavailable("this process sends no wakes", reason="WAKE_DELIVERY_FAILED")
            await self.send_wake(row, hook)
        except FabricError as exc:
            error = exc
        except Exception as exc:  # a sender's bug is this row's failure, retried, never the loop's
            log.exception("wake sender failed on %s", row.key)
            error = FabricError(f"{type(exc).__name__}: {exc}", reason="WAKE_DELIVERY_FAILED")
        try:
            await self._store.outbox.settle_wake(row.key, error, self._policy)  # wake rows: one sender, one key
        except FabricError as exc:  # the store is full or closing: the row's lease brings it back
            log.warning("wake %s not settled: %s", row.key, exc.message)

    async def run(self, idle_s: float = 60.0) -> None:
        """The delivery loop: post due pages, then sleep until the next row is due or new rows arrive."""
        wakeups = self._wakeups
        while not wakeups.closed:
            seen = wakeups.version(OUTBOX)
            try:
                result = await self.drain_once(wait_wakes=False)
                due = None if result.more else await self._store.outbox.next_due()
            except FabricError as exc:  # the store is full or closing: try again later
                log.warning("outbox delivery paused: %s", exc.message)
                result, due = DrainResult(0, 0, more=False), None
            if result.more:
                continue
            wait = idle_s if due is None else max(0.0, (due - self._clock()) / 1e9)
            if wait > 0:
                await wakeups.wait(OUTBOX, seen, min(wait, idle_s))

    # -- operators

    async def list(self, limit: int, after_key: str, state: int, page_size: int = 0,
                   page_token: str = "") -> Listed[OutboxRow]:
        """One page of rows in key order. `page_size`/`page_token` (AIP-158) win over the older `limit`/`after_key`
        (whose next after_key is the token's cursor: `Listed.offset` is unused here)."""
        if state not in RowState._value2member_map_:
            raise InvalidArgument(f"state {state} is unknown", reason="INVALID_FIELD", field="state")
        row_state = RowState(state)
        if not page_size and limit:
            page_size = validate.limit(limit, self.limits)
        if not page_token and after_key:
            # A bare key (printable) or a row cursor (key NUL agent, as next_after_key hands out): any other NUL,
            # say, could only fail deep in a store (PostgreSQL's text refuses it).
            key, agent = split_cursor(after_key)
            limits = Limits(max_id_chars=MAX_KEY_BYTES + 32)
            if agent is None or not key:  # a bare key; a NUL with no key before it names no row: refused
                validate.text_field(after_key, "after_key", limits, required=False)
            else:
                validate.text_field(key, "after_key", limits, required=True)
                validate.text_field(agent, "after_key", self.limits, required=False)
            page_token = paging.encode("outbox", str(state), after_key, 0)

        async def fetch(after: str, n: int, max_bytes: int) -> Page[OutboxRow]:
            return await self._store.outbox.page(after, n, row_state, max_bytes)

        # next_cursor (the older next_after_key) is the last row's cursor (`row_cursor`), so a page that ends
        # between two agents' rows with one key goes on exactly; a bare key given as after_key still goes on
        # after every row with that key.
        return await paging.read("outbox", str(state), page_size, page_token, fetch)

    async def retry_dead_letters(self, keys: Sequence[str]) -> int:
        for i, key in enumerate(keys):
            validate.text_field(key, f"keys[{i}]", Limits(max_id_chars=MAX_KEY_BYTES + 32), required=True)
        return await self._store.outbox.retry_dead_letters(keys)

    async def prune_receipts(self, before_ns: int) -> int:
        return await self._store.outbox.prune_receipts(before_ns)
