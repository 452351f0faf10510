"""The ack rule: which unread messages an ack by ids consumes, decided from facts the backend gathered.

    wanted(message_ids)   -> {id: k}   each id and how many times it is named (the facts to gather)
    ack(wanted, facts)    -> Ack       the seqs to consume, the unread count after, whether it is activity

An id is found among the unread messages of the acking agent's own mailbox only (never another's), whoever
sent them: two senders may have chosen one id, another sender may have chosen a minted one, and a ticket's
task carries its ticket id. An id named k times takes its k oldest unread copies (so an in-order consumer
acking each message after handling it never acks one it has not seen); an id not found (unknown, consumed,
another mailbox's) is passed over. An ack is its agent's activity when it has a mailbox, even if it takes
nothing. No storage library, no SQL, no I/O: fabricd.core.kv.mailbox (LMDB, memory) and
fabricd.store.postgres.hot gather the facts and apply the Ack.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from operator import attrgetter

from fabricd.core.model import Envelope

_SEQ = attrgetter("seq")


@dataclass(frozen=True, slots=True)
class AckFacts:
    """What an ack reads in its write transaction."""

    unread: int | None
    """The mailbox's unread count; None when the agent has no mailbox."""
    copies: Mapping[str, Sequence[Envelope]]
    """For each wanted id, the mailbox's unread messages carrying it, each once (in any order; `encoded` may be
    b"" for a backend that needs no encoding back): all of them, or at least its k oldest for an id named k times (a
    backend may stop reading there). Absent: none."""


@dataclass(frozen=True, slots=True)
class Ack:
    """What an ack writes: consume `taken` (oldest first, as the facts gave them), leave `unread` unread, and,
    when `active`, record the ack as the agent's activity. Nothing at all when not `active` (no mailbox)."""

    taken: tuple[Envelope, ...]
    unread: int
    active: bool


def wanted(message_ids: Sequence[str]) -> dict[str, int]:
    """Each distinct id of an ack and how many times it is named, in the order first named."""
    out: dict[str, int] = {}
    for mid in message_ids:
        out[mid] = out.get(mid, 0) + 1
    return out


def ack(want: Mapping[str, int], facts: AckFacts) -> Ack:
    """Decide one ack: for each id named k times, its k oldest unread copies.

    Whenever no id has more copies than it is named, this takes every copy found: a backend may apply that
    decision without reading the seqs first, guarded by that condition (fabricd.store.postgres.hot).
    """
    if facts.unread is None:
        return Ack((), 0, False)
    taken: list[Envelope] = []
    copies = facts.copies
    for mid, k in want.items():
        found = copies.get(mid)
        if not found:
            continue
        if len(found) == 1:  # the usual case: one copy of each id
            taken.append(found[0])
        else:
            taken += sorted(found, key=_SEQ)[:k]
    taken.sort(key=_SEQ)  # a message carries one id: the ids' copies are disjoint
    return Ack(tuple(taken), facts.unread - len(taken), True)


def takes_every_copy(want: Mapping[str, int], counts: Mapping[str, int]) -> bool:
    """Whether `ack` takes every copy found, given how many copies of each id were found: no id has more
    copies than it is named (the guard of a write that consumes every copy without reading their seqs)."""
    return all(counts.get(mid, 0) <= k for mid, k in want.items())
