"""What the backends share to keep the quota counters of fabricd.core.quota in step with their records."""

from __future__ import annotations

from fabricd.v1 import types_pb2 as pb


def sender_of(encoded: bytes) -> str:
    """The sender's agent id of a stored fabricd.v1.Message encoding (charged for its unread bytes)."""
    return pb.Message.FromString(encoded).sender.agent_id


def counter_name(quota: str, agent_id: str) -> str:
    """The name of an agent's usage counter among a backend's named counters."""
    return f"usage/{quota}/{agent_id}"
