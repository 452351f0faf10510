"""Every LMDB key, built in one place.

Names (agent ids, message ids, session names) may be up to 256 characters,
more than LMDB's 511-byte key limit in UTF-8, so keys hold a 16-byte BLAKE2b
digest of the name; the record holds the name itself. Integers are 8-byte
big-endian so that byte order is numeric order.

    database   key                                   value
    meta       b"schema"                             u64 schema version
               b"revision"                           u64 directory revision
    entries    H(agent_id)                           entry record (records.py)
    names      H(session_name) H(agent_id)           b""
    looks      H(look-alike key) H(agent_id)         b""  (agents' entries under their id's and session name's
                                                     look-alike keys, fabricd.core.lookalike.entry_keys)
    name_looks b"c" H(look-alike key) H(channel name)  channel name UTF-8  (channels under their name's look-alike
                                                     keys, fabricd.core.lookalike.keys)
               b"a" H(look-alike key) H(agent_id)    agent_id UTF-8  (the agent directory's agents under their
                                                     name's look-alike keys)
    revisions  u64 revision                          H(agent_id), or TOMBSTONE + agent_id UTF-8 once unregistered
    messages   H(agent_id) u64 seq                   fabricd.v1.Message bytes (unread only)
    ids        0x01 minted id (26 ASCII)             id record of a server-minted id (records.py), naming its sender
                                                     (schema 4: the id is that sender's too); time order
               0x02 H(sender) H(id)                  id record of an id its sender chose (a client's, a
                                                     ticket's, an outbox reply's; the id's text follows the
                                                     recipient): the idempotency key is (sender agent id, id)
               0x00 H(id)                            the same for sender "" (and, from schema 3, consumed ids
                                                     whose sender was not known)
    by_id      H(recipient) H(id) u64 seq            b""  (chosen ids of unread messages: an ack by id takes the
                                                     oldest; an entry may outlive its message, drained or purged
                                                     by seq, until the id is forgotten: readers check the message)
    tickets    H(ticket_id)                          ticket record (records.py)
    queues     H(target) u64 ticket seq              H(ticket_id)   (QUEUED tickets only: the FIFOs)
    finished   u64 finish_ns H(ticket_id)            b""            (ANSWERED/ABORTED: for pruning)
    ticket_index b"t" H(target) u64 ticket seq       H(ticket_id)   (every ticket of a target, any state: listing)
               b"s" H(source agent) u64 ticket seq   H(ticket_id)   (every ticket an agent asked: its own list)
    meta       b"ticket-index"                       b"1" once ticket_index holds every ticket (built at open
                                                     for stores written before it)
    meta       b"looks-index"                        u64 the confusables data version looks was built with (built
                                                     at open when missing or another)
    meta       b"name-looks-index"                   u64 the confusables data version name_looks was built with
                                                     (built at open when missing or another)
    meta       b"seq/" name                          u64 counter (next_sequence)
    meta       b"seq/seq-floor/" agent_id UTF-8      u64 highest seq a removed mailbox of that id used (seq_floor_of)
    meta       b"queued/" H(target)                  u64 tickets in the target's FIFO (absent in stores written
                                                     before it: counted from `queues` at the first change)
    meta       b"usage/" quota b"/" H(agent_id)      u64 an agent's usage of a quota (fabricd.core.quota)
    outbox     reply key UTF-8 (at most ~420 bytes), 0x00, H(settling agent)   outbox row or receipt (records.py):
                                                     each agent's mail keys are its own
    due        u64 next_attempt_ns, outbox key        b""            (PENDING rows only)
    meta       b"agent-directory"                    fabricd.v1.DirectoryData
    meta       b"lease/" H(lease_id)                 lease JSON (fabricd.core.model_leases.encode), live or ended
    meta       b"lease-at/" H(anchor) H(lease_id)    b""  (live leases by anchor: fabricd.core.lease_patterns.anchor)
    meta       b"lease-of/" H(agent_id) H(lease_id)  b""  (live leases by agent)
    meta       b"lease-rev/" u64 revision H(lease_id)  b""  (every lease record by its last change)
    meta       b"lease-wait/" H(waiter_id)           a waiting Acquire's record (model_leases.encode_waiter)
    meta       b"wake/" H(agent_id)                  0x01, wake hook JSON (fabricd.core.wake.encode: it holds the id), CRC-32
                                                    (sealed in place, sealed.seal_meta; `{`: JSON stored before)
    ad_history u64 sequence                          fabricd.v1.DirectoryData as of that sequence
    ad_agents  H(agent_id)                           fabricd.v1.Agent
    ad_names   H(agent name)                         agent_id, UTF-8
    ad_threads H(thread_id)                          fabricd.v1.Thread
    ad_by_agent H(agent_id) u64 seq H(thread_id)     b""            (an agent's threads in creation order)
    ad_requests H(request_id)                        u64 admission seq, fabricd.v1.Request
    ad_lists   u8 list, u64 admission seq, H(request_id)  b""       (1 pending, 2 notifications owed, 3 all)
    ad_repairs H(repair key)                         u64 generation, request_id UTF-8
               b"k" H(scope NUL request key)         16-byte digest of the request, created id UTF-8, NUL scope NUL
                                                     request key (idempotency keys of Admit and CreateThread; 17
                                                     bytes, never a repair key)
    tokens     SHA-256(token)                        token record (records.py); the token itself is never stored
"""

from __future__ import annotations

import functools
import hashlib
import struct

from fabricd.core import ids

DIGEST = 16
U64 = struct.Struct(">Q")

SCHEMA = b"schema"
REVISION = b"revision"
TOMBSTONE = b"\x00" * (DIGEST + 1)
"""Starts a `revisions` value that records a removed entry: longer than any digest, so never one."""


def h(name: str) -> bytes:
    return hashlib.blake2b(name.encode("utf-8", "surrogatepass"), digest_size=DIGEST).digest()


@functools.lru_cache(maxsize=1 << 16)
def entry(agent_id: str) -> bytes:
    """H(agent_id), cached: every message touches its recipient's key several times."""
    return h(agent_id)


def name(session_name: str, agent_id: str) -> bytes:
    return h(session_name) + h(agent_id)


def name_prefix(session_name: str) -> bytes:
    return h(session_name)


def look(key: str, agent_id: str) -> bytes:
    return h(key) + h(agent_id)


def look_prefix(key: str) -> bytes:
    return h(key)


def name_look(kind: bytes, key: str, holder: str) -> bytes:
    """A name's slot in name_looks: `kind` (CHANNEL_LOOKS, AGENT_NAME_LOOKS), a look-alike key, its holder."""
    return kind + h(key) + h(holder)


def name_look_prefix(kind: bytes, key: str) -> bytes:
    return kind + h(key)


def revision(rev: int) -> bytes:
    return U64.pack(rev)


def message(agent_key: bytes, seq: int) -> bytes:
    return agent_key + U64.pack(seq)


def message_seq(key: bytes) -> int:
    return int(U64.unpack_from(key, DIGEST)[0])


looks_minted = ids.looks_minted


def minted_id(mid: str) -> bytes:
    """The ids key of a server-minted id (26 base32hex characters, time first).

    Kept as it is, so keys arrive in order and each commit touches the few last
    pages of the table; hashed keys would land on a random page each, and a batch
    of 800 would dirty 800 pages once the table is large.
    """
    return b"\x01" + mid.encode()


def chosen_id(sender: str, mid: str) -> bytes:
    """The ids key of an id its sender chose: (sender, id), hashed; sender "" keeps the older 0x00 H(id)."""
    return b"\x02" + entry(sender) + h(mid) if sender else b"\x00" + h(mid)


def by_id(recipient: str, mid: str, seq: int | None = None) -> bytes:
    """A chosen id's place among its recipient's unread messages (its prefix when `seq` is None)."""
    return entry(recipient) + h(mid) + (U64.pack(seq) if seq is not None else b"")


def u64(value: int) -> bytes:
    return U64.pack(value)


def read_u64(raw: bytes | memoryview, offset: int = 0) -> int:
    return int(U64.unpack_from(raw, offset)[0])


def ticket(ticket_id: str) -> bytes:
    return h(ticket_id)


def queue_slot(target: str, seq: int) -> bytes:
    return entry(target) + U64.pack(seq)


def queue_length(target: str) -> bytes:
    return b"queued/" + entry(target)


@functools.lru_cache(maxsize=1 << 16)
def usage(quota: str, agent_id: str) -> bytes:
    """Cached like `entry`: every consume credits its sender's counter."""
    return b"usage/" + quota.encode() + b"/" + entry(agent_id)


TICKET_INDEX_BUILT = b"ticket-index"
LOOKS_BUILT = b"looks-index"
NAME_LOOKS_BUILT = b"name-looks-index"
CHANNEL_LOOKS = b"c"
AGENT_NAME_LOOKS = b"a"


def by_target(target: str, seq: int | None = None) -> bytes:
    """A target's slot in ticket_index (its prefix when `seq` is None)."""
    return b"t" + entry(target) + (U64.pack(seq) if seq is not None else b"")


def by_source(source_agent: str, seq: int | None = None) -> bytes:
    """An asking agent's slot in ticket_index (its prefix when `seq` is None)."""
    return b"s" + entry(source_agent) + (U64.pack(seq) if seq is not None else b"")


def finished(finish_ns: int, ticket_id: str) -> bytes:
    return U64.pack(finish_ns) + h(ticket_id)


WAKE_HOOKS = b"wake/"


def wake_hook(agent_id: str) -> bytes:
    return WAKE_HOOKS + entry(agent_id)


LEASES = b"lease/"


def lease(lease_id: str) -> bytes:
    return LEASES + h(lease_id)


LEASE_AT = b"lease-at/"
LEASE_OF = b"lease-of/"


def lease_at(anchor: str, lease_id: str = "") -> bytes:
    """A live lease's slot under one of its anchors (the anchor's prefix when `lease_id` is empty)."""
    return LEASE_AT + h(anchor) + (h(lease_id) if lease_id else b"")


def lease_of(agent_id: str, lease_id: str = "") -> bytes:
    return LEASE_OF + entry(agent_id) + (h(lease_id) if lease_id else b"")


LEASE_REV = b"lease-rev/"


def lease_rev(revision: int, lease_id: str = "") -> bytes:
    return LEASE_REV + U64.pack(revision) + (h(lease_id) if lease_id else b"")


LEASE_WAIT = b"lease-wait/"


def lease_waiter(waiter_id: str) -> bytes:
    return LEASE_WAIT + h(waiter_id)


def lease_from_slot(slot: bytes) -> bytes:
    """The record key of the lease an index slot names (its last DIGEST bytes)."""
    return LEASES + slot[-DIGEST:]


def sequence(name: str) -> bytes:
    return b"seq/" + name.encode()


SEQ_FLOOR = sequence("seq-floor")
"""The highest seq a removed mailbox used, store-wide: a mailbox made again whose id has no floor of its own
(removed before ids got one) numbers its mail above it. A counter like the others, so copies carry it."""


def seq_floor_of(agent_id: str) -> bytes:
    """The highest seq a removed mailbox of `agent_id` used (RecordTx.seq_floor): a mailbox made again under
    that id numbers its mail above it; an id with none starts at 1. A counter, so copies carry it."""
    return b"seq/seq-floor/" + agent_id.encode("utf-8", "surrogatepass")


def outbox_row(agent_id: str, key: str) -> bytes:
    """A row's key: its reply key, then NUL and its settling agent (keys hold no NUL: rows list by key)."""
    return key.encode("utf-8", "surrogatepass") + b"\x00" + entry(agent_id)


def outbox_after(cursor: str) -> bytes:
    """Where a listing after a row cursor (key NUL agent) or a bare key (after all its rows) starts."""
    if not cursor:
        return b""
    key, sep, agent = cursor.partition("\0")
    raw = key.encode("utf-8", "surrogatepass")
    return raw + b"\x00" + entry(agent) if sep else raw + b"\x01"


def due(next_attempt_ns: int, agent_id: str, key: str) -> bytes:
    return U64.pack(next_attempt_ns) + outbox_row(agent_id, key)


DIRECTORY_DATA = b"agent-directory"


def listed(which: int, seq: int, request_id: str) -> bytes:
    return bytes((which,)) + U64.pack(seq) + h(request_id)


def request_key(scope: str, key: str) -> bytes:
    return b"k" + h(scope + "\0" + key)


def agent_thread(agent_id: str, seq: int, thread_id: str) -> bytes:
    return h(agent_id) + U64.pack(seq) + h(thread_id)
