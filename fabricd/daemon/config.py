"""The daemon's configuration: one frozen value, built once from flags and environment."""

from __future__ import annotations

from dataclasses import dataclass, field

from fabricd.core.limits import Limits
from fabricd.core.outbox import RetryPolicy


@dataclass(frozen=True, slots=True)
class Config:
    data_dir: str
    """The folder holding the LMDB environment and the lock file."""
    listen: tuple[str, ...]
    """Addresses to serve on: unix:PATH or HOST:PORT."""
    map_size: int = 32 << 30
    """The LMDB map size in bytes: the most the store may hold. Sparse: costs no disk until used."""
    sync: bool = True
    """fsync every commit. Off (--no-sync) only for benchmarks: a crash may lose acknowledged writes."""
    limits: Limits = field(default_factory=Limits)
    ticket_retention_s: float = 24 * 3600.0
    """How long answered and aborted rendezvous tickets are kept for a late AwaitReply."""
    outbox_retry: RetryPolicy = field(default_factory=RetryPolicy)
    """Back-off and attempts of the outbox's delivery loop."""
    outbox_loop: bool = True
    """Run the outbox delivery loop. Off only for tests that drive it with DrainOutbox."""
    max_causal_depth: int = 8
    """The agent directory refuses admissions whose causal depth is above this (agents triggering agents)."""
    grace_s: float = 10.0
    """How long shutdown waits for in-flight RPCs before cancelling them."""
    keepalive_s: float = 15.0
    """How often an idle stream sends an empty response, so clients can tell it is alive."""
    log_level: str = "INFO"
