"""Prometheus metrics: calls by method and status, latencies, the writer, the store and the queues.

Counts that live in the daemon (messages stored, unread, outbox, map use) are
read at scrape time through one snapshot function, so nothing on a hot path
pays for metrics it does not need.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from prometheus_client import CollectorRegistry, Counter, Histogram, start_http_server
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

if TYPE_CHECKING:
    from wsgiref.simple_server import WSGIServer

    from prometheus_client.metrics_core import Metric

UNREAD_TOP = 20
"""Mailboxes reported by name in fabricd_unread_messages (bounded cardinality); the rest are summed."""


@dataclass(frozen=True, slots=True)
class Snapshot:
    messages_stored: int
    unread: list[tuple[str, int]]
    open_streams: int
    outbox_pending: int
    outbox_dead_letters: int
    map_used_bytes: int
    map_size_bytes: int
    queued_tickets: int
    map_free_bytes: int = 0
    flow_streams: int = 0
    """Server streams open under flow control (fabricd.rpc.streams), local callers' included."""
    stream_bytes_in_flight: int = 0
    streams_stalled: int = 0
    """Streams ended STREAM_STALLED since the start."""
    quarantined_records: int = 0
    """Corrupt records moved aside since the start (LMDB checksums)."""
    extra: dict[str, int] = field(default_factory=dict)


class _SnapshotCollector(Collector):
    def __init__(self, snapshot: Callable[[], Snapshot]) -> None:
        self._snapshot = snapshot

    def collect(self) -> Iterator[Metric]:
        s = self._snapshot()
        yield CounterMetricFamily("fabricd_messages_stored", "Messages stored since the daemon started",
                                  value=s.messages_stored)
        yield CounterMetricFamily("fabricd_streams_stalled", "Streams ended STREAM_STALLED (their client stopped "
                                  "reading) since the daemon started", value=s.streams_stalled)
        yield CounterMetricFamily("fabricd_quarantined_records", "Corrupt records (bad checksum) moved aside "
                                  "since the daemon started; `fabricd check` lists them", value=s.quarantined_records)
        unread = GaugeMetricFamily("fabricd_unread_messages",
                                   f"Unread messages: the {UNREAD_TOP} fullest mailboxes by name, the rest as 'other'",
                                   labels=["mailbox"])
        top = sorted(s.unread, key=lambda x: -x[1])
        for name, count in top[:UNREAD_TOP]:
            unread.add_metric([name], count)
        unread.add_metric(["other"], sum(count for _, count in top[UNREAD_TOP:]))
        yield unread
        for name, help_text, value in (
            ("fabricd_open_streams", "Open Subscribe and Watch streams (subscribers)", s.open_streams),
            ("fabricd_outbox_pending", "Outbox rows waiting for delivery", s.outbox_pending),
            ("fabricd_outbox_dead_letters", "Outbox rows dead-lettered", s.outbox_dead_letters),
            ("fabricd_map_used_bytes", "LMDB map in use", s.map_used_bytes),
            ("fabricd_map_size_bytes", "LMDB map size", s.map_size_bytes),
            ("fabricd_map_free_bytes", "Bytes of the used map no data holds (reused by writes; "
             "`fabricd compact` returns them to the disk)", s.map_free_bytes),
            ("fabricd_queued_tickets", "Rendezvous tickets queued", s.queued_tickets),
            ("fabricd_flow_streams", "Server streams open under flow control (every caller's)", s.flow_streams),
            ("fabricd_stream_bytes_in_flight", "Bytes of stream responses handed to gRPC and not yet taken "
             "by the transport (bounded by limits.stream_buffer_total_bytes)", s.stream_bytes_in_flight),
        ):
            yield GaugeMetricFamily(name, help_text, value=value)


class Metrics:
    """The daemon's metrics in their own registry, served over HTTP when a listener is configured."""

    def __init__(self, snapshot: Callable[[], Snapshot]) -> None:
        self.registry = CollectorRegistry()
        self.calls = Counter("fabricd_rpc", "Calls by method and status code", ["method", "code"],
                             registry=self.registry)
        self.latency = Histogram("fabricd_rpc_duration_seconds", "Call latency by method", ["method"],
                                 registry=self.registry,
                                 buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5, 30))
        self.batch = Histogram("fabricd_write_batch_size", "Writes committed together (group commit)",
                               registry=self.registry, buckets=(1, 2, 4, 8, 16, 32, 64, 128, 256, 1024, 4096))
        self.commit = Histogram("fabricd_commit_seconds", "Time to apply and commit one batch, fsync included",
                                registry=self.registry,
                                buckets=(0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.05, 0.25, 1))
        self.registry.register(_SnapshotCollector(snapshot))
        self._server: WSGIServer | None = None

    def observe_call(self, method: str, code: str, seconds: float) -> None:
        self.calls.labels(method, code).inc()
        self.latency.labels(method).observe(seconds)

    def observe_commit(self, batch: int, seconds: float) -> None:
        self.batch.observe(batch)
        self.commit.observe(seconds)

    def serve(self, address: str) -> str:
        """Serve /metrics on HOST:PORT (port 0 picks one); returns the address bound."""
        host, _, port = address.rpartition(":")
        server, _thread = start_http_server(int(port), addr=host or "127.0.0.1", registry=self.registry)
        self._server = server
        return f"{host or '127.0.0.1'}:{server.server_address[1]}"

    def close(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
