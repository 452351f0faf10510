"""The agent directory's types: agents, threads, submissions and admitted work requests, and the directory's data.

Plain values shared by the service (fabricd.core.agentdir), the port (fabricd.core.ports) and the backends;
no rule lives here. A WorkRequest is PENDING until settled; `seq` is its admission order, the store's.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class Agent:
    agent_id: str
    name: str
    description: str = ""
    instructions: str = ""
    settings: str = ""
    create_ns: int = 0


@dataclass(slots=True)
class Thread:
    thread_id: str
    agent_id: str
    title: str = ""
    kind: str = ""
    create_ns: int = 0
    contexts: tuple[str, ...] = ()


@dataclass(slots=True)
class Submission:
    text: str = ""
    data: str | None = None
    profile: str | None = None
    response: str | None = None
    source_kind: str = ""
    source_label: str = ""
    publication: str | None = None
    create_ns: int = 0
    contexts: tuple[str, ...] = ()
    related: str | None = None
    retry_of: str | None = None
    root: str | None = None
    causal_depth: int = 0


@dataclass(slots=True)
class RepairInfo:
    key: str
    generation: int = 0
    attempt: int = 0
    configuration: str = ""
    confirm_ns: int = 0
    start_ns: int = 0


PENDING, SETTLED = 1, 2


@dataclass(slots=True)
class WorkRequest:
    request_id: str
    agent_id: str
    thread_id: str
    submission: Submission
    state: int = PENDING
    admit_ns: int = 0
    settle_ns: int = 0
    interactive: bool = False
    notify: bool = False
    notification_sent: bool = False
    repair: RepairInfo | None = None
    seq: int = 0
    """Admission order (store-only)."""

    @property
    def owes_notification(self) -> bool:
        return self.state == SETTLED and self.notify and not self.notification_sent


@dataclass(slots=True)
class DirectoryData:
    sequence: int = 0
    pending: int = 0
    ordinary_pending: int = 0
    notification_pending: int = 0
    profiles: str = ""
    availability: str = ""
    default_agent: Agent | None = None
    initial_thread: Thread | None = None
    notifications: int = 0


@dataclass(frozen=True, slots=True)
class Admission:
    accepted: bool
    reason: str = ""
    thread_id: str = ""
    request_id: str = ""
