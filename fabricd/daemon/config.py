"""The daemon's configuration: one frozen value, built once from file, environment and flags."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from fabricd.core.limits import Limits
from fabricd.core.outbox import RetryPolicy


@dataclass(frozen=True, slots=True)
class TlsConfig:
    cert: str = ""
    key: str = ""
    client_ca: str = ""
    """With it, clients may present certificates signed by this CA (mutual TLS)."""
    require_client_cert: bool = False
    admin_names: tuple[str, ...] = ()
    """Client certificate names (CN) that act as admin; others act as the agent their CN names."""

    @property
    def enabled(self) -> bool:
        return bool(self.cert and self.key)


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
    housekeeping_s: float = 60.0
    """Seconds between passes that forget expired tickets and consumed message ids past the dedupe window."""
    grace_s: float = 10.0
    """How long shutdown waits for in-flight RPCs before cancelling them."""
    keepalive_s: float = 15.0
    """How often an idle stream sends an empty response, so clients can tell it is alive."""
    log_level: str = "INFO"
    log_format: str = "auto"
    metrics_listen: str = ""
    """HOST:PORT of the Prometheus metrics listener; empty: none."""
    socket_mode: int = 0o660
    socket_group: str = ""
    auth_tokens: str = "auto"
    """"on", "off", or "auto": tokens are required on TCP listeners but not on unix sockets."""
    rate_limit: float = 0.0
    """Calls per second per token (0: unlimited)."""
    rate_burst: int = 100
    tls: TlsConfig = field(default_factory=TlsConfig)
    failpoint: str = ""
    """Reliability tests only: crash before or after the commit of the first batch that stores a message."""

    @classmethod
    def from_values(cls, v: dict[str, Any]) -> Config:
        """A Config from resolved settings (fabricd.daemon.settings.resolve)."""
        return cls(
            data_dir=os.path.abspath(os.path.expanduser(v["data_dir"])),
            listen=tuple(v["listen"]),
            map_size=v["map_size"],
            sync=v["sync"],
            limits=Limits(max_message_bytes=v["limits.max_message_bytes"], max_unread=v["limits.max_unread"],
                          live_window_s=v["limits.live_window"], dedupe_window_s=v["limits.dedupe_window"]),
            housekeeping_s=v["housekeeping_interval"],
            ticket_retention_s=v["ticket_retention"],
            outbox_retry=RetryPolicy(base_s=v["outbox.backoff"], cap_s=v["outbox.backoff_cap"],
                                     max_attempts=v["outbox.max_attempts"]),
            outbox_loop=v["outbox.loop"],
            max_causal_depth=v["max_causal_depth"],
            grace_s=v["grace"],
            keepalive_s=v["keepalive"],
            log_level=v["log_level"],
            log_format=v["log_format"],
            metrics_listen=v["metrics.listen"],
            socket_mode=v["socket.mode"],
            socket_group=v["socket.group"],
            auth_tokens=v["auth.tokens"],
            rate_limit=v["auth.rate_limit"],
            rate_burst=v["auth.rate_burst"],
            tls=TlsConfig(cert=v["tls.cert"], key=v["tls.key"], client_ca=v["tls.client_ca"],
                          require_client_cert=v["tls.require_client_cert"], admin_names=v["tls.admin_names"]),
            failpoint=v["testing.failpoint"],
        )
