"""Limits every request is checked against. One frozen value, passed down from the config.

The fields made with `setting` are the daemon's `[limits]` table: their
defaults, help and bounds are defined here and nowhere else.
"""

from __future__ import annotations

from dataclasses import dataclass

from fabricd.core.quota import Quotas
from fabricd.core.schema import setting


@dataclass(frozen=True, slots=True)
class Limits:
    max_id_chars: int = 256
    """Agent ids, session ids, session names and client message ids: 1 to this many characters."""
    max_message_bytes: int = setting(1 << 20, "bytes of one message: text, data and headers", kind="size",
                                     at_least=1, at_most=256 << 20, reloadable=True)
    max_response_bytes: int = 16 << 20
    """Peek and drain return at most this many bytes of messages (always at least one) when the caller asks for
    more, well inside gRPC's frame limit; a drain never consumes what it cannot return. Subscribe batches use
    stream_buffer_bytes."""
    default_response_bytes: int = (4 << 20) - (64 << 10)
    """What peek and drain return when the caller names no max_bytes: under the 4 MiB a gRPC client with default
    options accepts, with room for each message's framing and the response's other fields."""
    max_intake_bytes: int = 256 << 20
    """Requests of agent tokens and certificates being read and not yet admitted, in bytes, each counted at the
    frame limit until read (one identity at most a quarter): what callers whose calls are not yet decided can
    make the daemon hold (see fabricd.rpc.intake). Callers without a valid token are not read at all."""
    max_batch: int = 1000
    """Messages in one SendMessages call, ids in one AckMessages call."""
    default_limit: int = 100
    """What `limit = 0` means for peek and drain."""
    max_limit: int = 1000
    """The largest `limit` peek and drain accept."""
    max_capabilities: int = 64
    max_metadata_bytes: int = 64 << 10
    """Keys and values of a mailbox's metadata, in bytes."""
    max_entry_bytes: int = 64 << 10
    """A whole directory entry as Register stores it (capabilities, metadata, cwd), in bytes."""
    max_headers: int = 100
    """Headers of one message (their bytes count toward max_message_bytes): each is stored and copied on every
    read, so their number is bounded, not only their bytes (60,000 tiny headers fit in 1 MiB and held the writer
    for seconds)."""
    max_unread: int = setting(0, "unread messages per mailbox before sends get RESOURCE_EXHAUSTED; 0 is no quota",
                              at_least=0, reloadable=True)
    live_window_s: float = setting(15 * 60.0, "seconds after its last activity an agent counts as live",
                                   key="live_window", at_least=0, reloadable=True)
    dedupe_window_s: float = setting(7 * 24 * 3600.0, "seconds a consumed message's id is remembered: "
                                     "a resend by its sender within it is a duplicate", key="dedupe_window",
                                     at_least=0, reloadable=True)
    stream_buffer_bytes: int = setting(1 << 20, "bytes of messages in one Subscribe batch, the most a stream has "
                                       "in flight (a larger message goes alone)", kind="size", at_least=1,
                                       at_most=256 << 20, reloadable=True)
    stream_buffer_total_bytes: int = setting(64 << 20, "bytes in flight over all streams of the daemon; a "
                                             "stream waits for room before its next batch", kind="size",
                                             at_least=1, reloadable=True)
    stream_stall_timeout_s: float = setting(60.0, "seconds a stream may leave a batch untaken before it is "
                                            "ended with STREAM_STALLED", key="stream_stall_timeout",
                                            at_least=0.01, reloadable=True)
    max_streams_per_token: int = setting(64, "open streams per token or mTLS identity (local callers without "
                                         "a token are not counted); 0 is no limit", at_least=0, reloadable=True)
    quota_mailboxes: int = setting(10_000, "mailboxes an agent token's mail may create that no agent has "
                                   "registered yet; 0 is no quota", at_least=0, reloadable=True)
    quota_unread_bytes: int = setting(1 << 30, "bytes of an agent token's messages (mail and asked tasks) still "
                                      "unread, wherever they wait; 0 is no quota", kind="size", at_least=0,
                                      reloadable=True)
    quota_unread_messages: int = setting(100_000, "messages of an agent token (mail and asked tasks) still "
                                         "unread, wherever they wait; 0 is no quota", at_least=0, reloadable=True)
    quota_queued_tickets: int = setting(10_000, "tickets an agent token asked that are still queued; 0 is no "
                                        "quota", at_least=0, reloadable=True)
    quota_outbox_rows: int = setting(10_000, "reply rows of an agent token's FanOut calls not yet delivered "
                                     "(pending or dead-lettered); 0 is no quota", at_least=0, reloadable=True)
    quota_channels: int = setting(100, "channels an agent token created that exist; 0 is no quota", at_least=0,
                                  reloadable=True)
    quota_posts: int = setting(1_000_000, "posts of an agent token still retained in channels' logs; 0 is no "
                               "quota", at_least=0, reloadable=True)
    quota_leases: int = setting(1000, "live leases an agent token's agent may hold; 0 is no quota", at_least=0,
                                reloadable=True)
    lease_default_ttl_s: float = setting(15 * 60.0, "seconds a lease lasts without a renewal when Acquire names "
                                         "no ttl", key="lease_default_ttl", at_least=0.001, reloadable=True)
    lease_max_ttl_s: float = setting(24 * 3600.0, "the longest ttl Acquire and Renew accept, in seconds",
                                     key="lease_max_ttl", at_least=0.001, reloadable=True)
    lease_offline_grace_s: float = setting(60.0, "seconds a lease outlives its agent going offline (no activity "
                                           "for live_window, or a goodbye)", key="lease_offline_grace",
                                           at_least=0, reloadable=True)
    lease_waiter_ttl_s: float = setting(15.0, "seconds a waiting Acquire's place in line outlives its last try "
                                        "(a waiting call tries at least every third of it): how long the waiters "
                                        "of a node that died stand in others' way", key="lease_waiter_ttl",
                                        at_least=0.01, reloadable=True)
    quota_all_callers: bool = setting(False, "hold admin tokens and local callers to the quotas too (charged to "
                                      "the sender they name); off: only agent tokens", reloadable=True)

    def quotas_for(self, agent_token: bool) -> Quotas | None:
        """The quotas a caller is held to: None for admin tokens and local callers unless quota_all_callers."""
        if not (agent_token or self.quota_all_callers):
            return None
        return Quotas(self.quota_mailboxes, self.quota_unread_bytes, self.quota_queued_tickets,
                      self.quota_outbox_rows, self.quota_unread_messages, self.quota_channels, self.quota_posts)
