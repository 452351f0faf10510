"""Rendezvous's waiting machinery: AwaitReply, Ask and the watches, and retiring the tickets nobody waits for.

Waiters sleep on the wake-up keys below (the record scripts wake them when a ticket or a FIFO changes)
and read the ticket from storage when woken, and at least once a keepalive: a wake-up is a hint, storage
is the truth, so a waiter on any node sees a change made on another, and a lost wake-up costs a keepalive.

An Ask whose caller drops retires its ticket, unless the ticket has a request_key
(the clients mint one per call and re-send it when they fail over): then the ticket
waits `reattach_grace_s` for the resend, which finds it by its key, moves its
`reattached` count and waits for the answer (on any node). After the grace the
dropped Ask retires it only if that count has not moved: nobody came back for it.

The rules (requests, checks, refusals) are in fabricd.core.rendezvous, whose Rendezvous mixes this in.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Coroutine
from dataclasses import dataclass
from typing import TypeVar

from fabricd.core import paging, validate
from fabricd.core.directory import DIRECTORY
from fabricd.core.errors import Aborted, DeadlineExceeded, FabricError, NotFound, Unavailable
from fabricd.core.limits import Limits
from fabricd.core.model import Ticket, TicketState
from fabricd.core.model_rendezvous import TicketRequest, TicketView
from fabricd.core.ports import Store, Wakeups

T = TypeVar("T")


def ticket_key(ticket_id: str) -> str:
    return "ticket/" + ticket_id


def queue_key(agent_id: str) -> str:
    return "queue/" + agent_id


SERVE_WINDOW = 16
"""Tickets a Serve stream shows at a time when its opener names no window."""


def shutting_down() -> Unavailable:
    return Unavailable("the daemon is shutting down: open the stream again after the restart (or on another "
                       "node); nothing acknowledged is lost", reason="SHUTTING_DOWN")


def seconds(value: float) -> str:
    """A duration for people: `5 s` for a wait that ran 4.99998 s (a deadline's remaining time), `0.5 s`."""
    return f"{round(value, 1) if value < 10 else round(value):g} s"


@dataclass(frozen=True, slots=True)
class QueueHead:
    """A WatchQueue snapshot: the first tickets of a FIFO and how many it holds."""

    tickets: list[Ticket]
    total: int

    @property
    def truncated(self) -> bool:
        return self.total > len(self.tickets)


class RendezvousWaits:
    """The waiting half of fabricd.core.rendezvous.Rendezvous (a mixin: it sets up the state used here)."""

    _store: Store
    _wakeups: Wakeups
    _keepalive_s: float
    limits: Limits
    _reattach_grace_s: float
    open_waits: int
    """AwaitReply and Ask calls waiting now."""
    _background: set[asyncio.Task[object]]
    """Retires that outlive the call that started them."""

    async def enqueue(self, request: TicketRequest) -> tuple[Ticket, int]:
        raise NotImplementedError

    async def view(self, ticket_id: str) -> TicketView:
        raise NotImplementedError

    def _ticket_id(self, ticket_id: str) -> str:
        raise NotImplementedError

    @staticmethod
    def _timeout(timeout_s: float | None) -> float | None:
        raise NotImplementedError

    async def await_reply(self, ticket_id: str, timeout_s: float | None) -> str:
        """The ticket's result, waiting up to `timeout_s` (None: until cancelled)."""
        return (await self.await_answer(ticket_id, timeout_s)).result

    async def await_answer(self, ticket_id: str, timeout_s: float | None) -> Ticket:
        """The answered ticket (result, outcome, data), waiting up to `timeout_s` (None: until cancelled)."""
        self._ticket_id(ticket_id)
        self._timeout(timeout_s)
        loop = asyncio.get_running_loop()
        deadline = None if timeout_s is None else loop.time() + timeout_s
        key = ticket_key(ticket_id)
        wakeups = self._wakeups
        self.open_waits += 1
        try:
            while True:
                seen = wakeups.version(key)
                ticket = await self._store.rendezvous.get(ticket_id)
                if ticket is None:
                    raise NotFound(f"no ticket {ticket_id!r} (never issued, or expired)", reason="TICKET_NOT_FOUND",
                                   ticket_id=ticket_id)
                if ticket.state == TicketState.ANSWERED:
                    return ticket
                if ticket.state == TicketState.ABORTED:
                    raise Aborted(
                        f"the reply channel closed before a result was rendered: {ticket.reason}",
                        reason="TICKET_ABORTED",
                        ticket_id=ticket_id,
                    )
                remaining = None if deadline is None else deadline - loop.time()
                if remaining is not None and remaining <= 0:
                    raise DeadlineExceeded(f"no reply to ticket {ticket_id} within {seconds(timeout_s or 0)}",
                                           reason="REPLY_TIMEOUT", ticket_id=ticket_id)
                # At most a keepalive between reads: a lost wake-up (another node died between its commit and
                # its NOTIFY) delays the answer by that much, not to the deadline or for good.
                await wakeups.wait(key, seen, self._keepalive_s if remaining is None else
                                   min(remaining, self._keepalive_s))
                if wakeups.closed:
                    raise Unavailable(
                        f"the daemon is shutting down; ticket {ticket_id} is kept: AwaitReply it after the restart",
                        reason="SHUTTING_DOWN",
                        ticket_id=ticket_id,
                    )
        finally:
            self.open_waits -= 1

    async def ask(self, request: TicketRequest, timeout_s: float | None) -> tuple[str, str]:
        """Enqueue, then wait; a timeout or a dropped caller retires the ticket."""
        answered = await self.ask_answer(request, timeout_s)
        return answered.ticket_id, answered.result

    async def ask_answer(self, request: TicketRequest, timeout_s: float | None) -> Ticket:
        """As `ask`, returning the answered ticket (its outcome, data and headers too)."""
        ticket = await self.ask_queue(request, timeout_s)
        return await self.answer_of(ticket, request, timeout_s)

    async def ask_queue(self, request: TicketRequest, timeout_s: float | None) -> Ticket:
        """The queuing half of `ask_answer`: the ticket queued (or found by its key); a caller that leaves
        meanwhile abandons it once queued."""
        self._timeout(timeout_s)
        queuing = asyncio.ensure_future(self.enqueue(request))
        try:
            ticket, _ = await asyncio.shield(queuing)
        except asyncio.CancelledError:
            # The caller left while its ticket was being queued: the write goes on, and the ticket is
            # abandoned once queued (a 50 ms deadline left tickets queued for good on a loaded machine).
            self._in_background(self._abandon_when_queued(queuing, request))
            raise
        return ticket

    async def answer_of(self, ticket: Ticket, request: TicketRequest, timeout_s: float | None) -> Ticket:
        """The waiting half of `ask_answer`, for a ticket `request` queued: a timeout or a cancel retires it."""
        try:
            return await self.await_answer(ticket.ticket_id, timeout_s)
        except DeadlineExceeded:
            # Shielded: the call's own deadline follows ours closely and would cancel the retire half done.
            retiring = self._in_background(self.retire(ticket.ticket_id, "the asker stopped waiting (timeout)"))
            if not await asyncio.shield(retiring):
                # A reply landed between the timeout and the retire: it was accepted, so deliver it.
                answered = await self._store.rendezvous.get(ticket.ticket_id)
                if answered is not None and answered.state == TicketState.ANSWERED:
                    return answered
            raise
        except asyncio.CancelledError:
            self._in_background(self._abandon(ticket, request))  # the caller is gone (disconnect or deadline)
            raise

    def _in_background(self, work: Coroutine[object, object, T]) -> asyncio.Future[T]:
        """Run `work` to its end even if the caller is cancelled (its call ended)."""
        task = asyncio.ensure_future(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        return task

    async def _abandon_when_queued(self, queuing: asyncio.Future[tuple[Ticket, int]], request: TicketRequest) -> None:
        try:
            ticket, _ = await queuing
        except FabricError:
            return  # refused or failed: nothing queued
        await self._abandon(ticket, request)

    async def _abandon(self, ticket: Ticket, request: TicketRequest) -> None:
        """Retire a dropped Ask's ticket; a keyed one only after the grace, if no resend of its key came back."""
        if not (request.idempotency_key and self._reattach_grace_s > 0):
            await self.retire(ticket.ticket_id, "the asker disconnected")
            return
        await asyncio.sleep(self._reattach_grace_s)  # shutdown cancels it: the ticket stays queued, as at a restart
        await self.retire(ticket.ticket_id, f"the asker disconnected and did not come back within "
                          f"{self._reattach_grace_s:g}s", ticket.reattached)

    async def retire(self, ticket_id: str, reason: str, reattached: int | None = None) -> bool:
        """Abort a queued ticket wherever it stands; False if it was no longer queued (or, given `reattached`,
        a resend of its key re-attached to it since)."""
        try:
            return await self._store.rendezvous.retire(ticket_id, reason, reattached)
        except Unavailable:
            return False  # shutting down: the ticket stays queued, to be answered after the restart

    async def watch_queue(self, agent_id: str, max_tickets: int = 0) -> AsyncIterator[QueueHead | None]:
        """The head of the FIFO now, then after each change; None is a keepalive.

        A snapshot holds at most `max_tickets` (0: the default page) and about
        `limits.stream_buffer_bytes` of tickets, with the FIFO's length: a 5,000-ticket
        queue is not sent whole on every change. A session name is resolved again at each
        directory change, as GetQueue resolves it at each call: the watch follows the name
        to whichever agent holds it (an agent id never moves).
        """
        validate.agent_id(agent_id, self.limits)
        limit = paging.page_size(max_tickets, "max_tickets")
        rendezvous = self._store.rendezvous
        name, agent_id = agent_id, await rendezvous.target(agent_id)
        follow = agent_id != name
        wakeups = self._wakeups
        shown: tuple[list[str], int] | None = None
        first = True
        while True:
            named = wakeups.version(DIRECTORY)
            if follow and not first:
                agent_id = await rendezvous.target(name)
            first = False
            key = queue_key(agent_id)
            seen = wakeups.version(key)
            tickets, total = await rendezvous.queue_head(agent_id, limit, self.limits.stream_buffer_bytes)
            ids = ([t.ticket_id for t in tickets], total)
            if ids != shown:  # a wake-up is a hint: one that changed nothing (another node's echo) shows nothing
                shown = ids
                yield QueueHead(tickets, total)
            woke = await self._either(key, seen, named if follow else None)
            if wakeups.closed:
                return
            if not woke:
                yield None  # then read again: a lost wake-up costs a keepalive, never the change

    async def serve_queue(self, agent_id: str, window: int,
                          ) -> AsyncIterator[tuple[list[tuple[Ticket, int]], int] | None]:
        """A replier's tickets: those that entered the first `window` places of the FIFO since the last
        yield (each once per turn, head first, with its position) and the FIFO's length; None is a keepalive.

        Only the window is read and remembered, so a replier that never answers is shown `window`
        tickets and no more, and the memory held is the window's. A name is resolved once.
        """
        validate.agent_id(agent_id, self.limits)
        window = min(max(window, 0) or SERVE_WINDOW, paging.MAX_PAGE_SIZE)
        rendezvous, wakeups = self._store.rendezvous, self._wakeups
        agent_id = await rendezvous.target(agent_id)
        key = queue_key(agent_id)
        shown: set[tuple[str, int]] = set()
        while True:
            seen = wakeups.version(key)
            tickets, total = await rendezvous.queue_head(agent_id, window, self.limits.stream_buffer_bytes)
            now = {(t.ticket_id, len(t.earlier)) for t in tickets}
            fresh = [(t, i) for i, t in enumerate(tickets) if (t.ticket_id, len(t.earlier)) not in shown]
            shown = now  # a ticket that left the window is forgotten: a later turn of it comes again
            if fresh:
                yield fresh, total
            woke = await wakeups.wait(key, seen, self._keepalive_s)
            if wakeups.closed:
                raise shutting_down()
            if not woke:
                yield None  # then read again: a lost wake-up costs a keepalive, never the ticket

    async def _either(self, key: str, seen: int, named: int | None) -> bool:
        """Wait for `key` to move from `seen`, or the directory from `named` (None: the queue alone)."""
        wakeups = self._wakeups
        if named is None:
            return await wakeups.wait(key, seen, self._keepalive_s)
        waits = [asyncio.ensure_future(wakeups.wait(key, seen, self._keepalive_s)),
                 asyncio.ensure_future(wakeups.wait(DIRECTORY, named, self._keepalive_s))]
        try:
            done, _ = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for w in waits:
                w.cancel()
        return any(w.result() for w in done)

    async def watch(self, ticket_id: str) -> AsyncGenerator[TicketView | None]:
        """The ticket now, then at each change of it or of its position; ends after it finished.

        None is a keepalive. Finishing a ticket wakes its target's queue key too, so waiting on the
        queue key alone sees every change. Ends (without a final view) when the daemon shuts down.
        """
        current = await self.view(ticket_id)
        key = queue_key(current.ticket.target)
        wakeups = self._wakeups
        last: tuple[int, int] | None = None
        while True:
            seen = wakeups.version(key)
            found = await self._store.rendezvous.view(ticket_id)
            if found is None:  # pruned while watched
                return
            state = (int(found.ticket.state), found.position)
            if state != last:
                last = state
                yield found
            if found.ticket.state != TicketState.QUEUED:
                return
            woke = await wakeups.wait(key, seen, self._keepalive_s)
            if wakeups.closed:
                return
            if not woke:
                yield None  # then read again: a lost wake-up costs a keepalive, never the change
