"""The agent directory: agents, threads, admitted requests, settlements and notifications.

Every change increments `DirectoryData.sequence` exactly once, in the same
transaction as the change, and records the data as of that sequence in a
bounded history, so a watcher sees every sequence value in order.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, replace

from fabricd.core import validate
from fabricd.core.errors import AlreadyExists, FailedPrecondition, InvalidArgument, NotFound
from fabricd.core.ids import IdMint
from fabricd.core.limits import Limits
from fabricd.core.model import Address
from fabricd.core.outbox import Outbox
from fabricd.core.notify import ChangeNotifier
from fabricd.core.ports import Service, Store, Tx

AGENT_DIRECTORY = ("agent-directory",)
NOTIFICATION = "notification"
DEFAULT_AGENT_NAME = "default"
MAX_TEXT = 1 << 20


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
    """Work admitted to an agent (fabricd.v1.Request): pending until settled, then maybe a notification owed."""

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


FILTER_PENDING, FILTER_NOTIFICATIONS, FILTER_ALL = 1, 2, 3


@dataclass(frozen=True, slots=True)
class WatchUpdate:
    data: DirectoryData | None
    gap: bool = False


def host_unavailable(availability: str) -> bool:
    """Whether advertised availability says the host is unavailable or busy.

    Availability is opaque: a JSON object whose "status", "state" or
    "availability" is "unavailable" or "busy", or such a bare word, counts.
    """
    text = availability.strip()
    if not text:
        return False
    try:
        value = json.loads(text)
    except ValueError:
        value = text
    if isinstance(value, dict):
        value = next((value[k] for k in ("status", "state", "availability") if isinstance(value.get(k), str)), "")
    return isinstance(value, str) and value.strip().lower() in {"unavailable", "busy"}


class AgentDirectory(Service):
    """The agent-directory contract over a Store."""

    def __init__(self, store: Store, notifier: ChangeNotifier, limits: Limits, clock: Callable[[], int],
                 outbox: Outbox, *, max_causal_depth: int = 8, keepalive_s: float = 15.0, history: int = 1024) -> None:
        super().__init__(store, notifier, limits, clock, keepalive_s)
        self._outbox = outbox
        self._mint = IdMint()
        self.max_causal_depth = max_causal_depth  # reloadable
        self._history = history

    # -- helpers inside a transaction

    def _changed(self, tx: Tx, data: DirectoryData) -> DirectoryData:
        """The one place the sequence moves: once per change, with the change."""
        data.sequence += 1
        tx.put_directory_data(data, keep_history=self._history)
        tx.after_commit(self._notifier.notify, AGENT_DIRECTORY)
        return data

    def _new_id(self, prefix: str) -> str:
        return f"{prefix}-{self._mint.mint(self._clock()).lower()}"

    def _new_thread(self, tx: Tx, agent_id: str, title: str, kind: str, create_ns: int,
                    contexts: tuple[str, ...]) -> Thread:
        thread = Thread(self._new_id("thread"), agent_id, title, kind, create_ns or self._clock(), contexts)
        tx.put_thread(thread)
        return thread

    def _text(self, value: str, name: str, limit: int = MAX_TEXT) -> None:
        if len(value) > limit:
            raise InvalidArgument(f"{name} is longer than {limit} characters", reason="FIELD_TOO_LONG", field=name,
                                  limit=limit)

    # -- agents and threads

    async def initialize(self, instructions: str, settings: str) -> tuple[Agent, Thread]:
        self._text(instructions, "instructions")
        self._text(settings, "settings")

        def apply(tx: Tx) -> tuple[Agent, Thread]:
            data = tx.get_directory_data()
            if data.default_agent is not None and data.initial_thread is not None:
                agent = tx.get_agent(data.default_agent.agent_id) or data.default_agent
                if (agent.instructions, agent.settings) == (instructions, settings):
                    return agent, data.initial_thread  # idempotent: nothing changes
                agent = replace(agent, instructions=instructions, settings=settings)
                tx.put_agent(agent)
                data.default_agent = agent
                self._changed(tx, data)
                return agent, data.initial_thread
            if tx.agent_named(DEFAULT_AGENT_NAME) is not None:
                raise FailedPrecondition(f"an agent named {DEFAULT_AGENT_NAME!r} already exists and is not the "
                                         "default agent", reason="NAME_TAKEN", name=DEFAULT_AGENT_NAME)
            agent = Agent(self._new_id("agent"), DEFAULT_AGENT_NAME, "the host's default agent", instructions, settings,
                          self._clock())
            tx.put_agent(agent)
            thread = self._new_thread(tx, agent.agent_id, "Initial thread", "initial", 0, ())
            data.default_agent, data.initial_thread = agent, thread
            self._changed(tx, data)
            return agent, thread

        return await self._store.write(apply)

    async def create_agent(self, name: str, description: str, instructions: str, settings: str) -> Agent:
        validate.text_field(name, "name", self.limits, required=True)
        for value, field_name in ((description, "description"), (instructions, "instructions"), (settings, "settings")):
            self._text(value, field_name)

        def apply(tx: Tx) -> Agent:
            if tx.agent_named(name) is not None:
                raise AlreadyExists(f"an agent named {name!r} already exists", reason="AGENT_NAME_TAKEN", name=name)
            agent = Agent(self._new_id("agent"), name, description, instructions, settings, self._clock())
            tx.put_agent(agent)
            self._changed(tx, tx.get_directory_data())
            return agent

        return await self._store.write(apply)

    def _agent(self, tx: Tx, agent_id: str) -> Agent:
        agent = tx.get_agent(agent_id)
        if agent is None:
            raise NotFound(f"no agent {agent_id!r}", reason="AGENT_NOT_FOUND", agent_id=agent_id)
        return agent

    def get_agent(self, agent_id: str) -> Agent:
        validate.agent_id(agent_id, self.limits)
        return self._store.read(lambda tx: self._agent(tx, agent_id))

    def list_agents(self) -> list[Agent]:
        return self._store.read(lambda tx: sorted(tx.agents(), key=lambda a: (a.create_ns, a.agent_id)))

    async def create_thread(self, agent_id: str, title: str, kind: str, create_ns: int,
                            contexts: tuple[str, ...]) -> Thread:
        validate.agent_id(agent_id, self.limits)
        self._text(title, "title", 4096)
        self._text(kind, "kind", 256)

        def apply(tx: Tx) -> Thread:
            self._agent(tx, agent_id)
            thread = self._new_thread(tx, agent_id, title, kind, create_ns, contexts)
            self._changed(tx, tx.get_directory_data())
            return thread

        return await self._store.write(apply)

    def list_threads(self, agent_id: str) -> list[Thread]:
        validate.agent_id(agent_id, self.limits)

        def read(tx: Tx) -> list[Thread]:
            self._agent(tx, agent_id)
            return tx.threads_of(agent_id)

        return self._store.read(read)

    # -- requests

    def _refusal(self, tx: Tx, agent_id: str, thread_id: str, submission: Submission, optional_work: bool,
                 data: DirectoryData) -> str:
        if tx.get_agent(agent_id) is None:
            return f"no agent {agent_id!r} is registered in this directory"
        if thread_id:
            thread = tx.get_thread(thread_id)
            if thread is None or thread.agent_id != agent_id:
                return f"agent {agent_id!r} has no thread {thread_id!r}"
        if optional_work and host_unavailable(data.availability):
            return "the host is unavailable or busy, and this work is optional"
        if submission.causal_depth > self.max_causal_depth:
            return (f"causal depth {submission.causal_depth} is over the limit of {self.max_causal_depth}: "
                    "agents may not keep triggering each other")
        for name in ("retry_of", "related", "root"):
            ref = getattr(submission, name)
            if ref is not None and tx.get_request(ref) is None:
                return f"{name} names request {ref!r}, which is not known"
        return ""

    def _admit_in(self, tx: Tx, data: DirectoryData, agent_id: str, thread_id: str, submission: Submission,
                  repair: RepairInfo | None = None) -> WorkRequest:
        if not thread_id:
            title = " ".join(submission.text.split())[:80] or "New thread"
            thread_id = self._new_thread(tx, agent_id, title, "conversation", 0, submission.contexts).thread_id
        now = self._clock()
        if not submission.create_ns:
            submission = replace(submission, create_ns=now)
        request = WorkRequest(self._new_id("req"), agent_id, thread_id, submission, PENDING, admit_ns=now,
                              repair=repair, seq=tx.next_sequence("agent-request"))
        tx.put_request(request)
        data.pending += 1
        if submission.source_kind == NOTIFICATION:
            data.notification_pending += 1
        else:
            data.ordinary_pending += 1
        self._changed(tx, data)
        return request

    def _check_submission(self, submission: Submission) -> None:
        self._text(submission.text, "submission.text")
        for name in ("data", "profile", "publication"):
            value = getattr(submission, name)
            if value is not None:
                self._text(value, f"submission.{name}")
        for name in ("response", "related", "retry_of", "root"):
            value = getattr(submission, name)
            if value is not None:
                validate.text_field(value, f"submission.{name}", self.limits, required=True)
        validate.text_field(submission.source_kind, "submission.source_kind", self.limits, required=False)
        validate.text_field(submission.source_label, "submission.source_label", self.limits, required=False)

    async def admit(self, agent_id: str, thread_id: str, submission: Submission, optional_work: bool) -> Admission:
        validate.agent_id(agent_id, self.limits)
        self._check_submission(submission)

        def apply(tx: Tx) -> Admission:
            data = tx.get_directory_data()
            reason = self._refusal(tx, agent_id, thread_id, submission, optional_work, data)
            if reason:
                return Admission(False, reason)
            request = self._admit_in(tx, data, agent_id, thread_id, submission)
            return Admission(True, "", request.thread_id, request.request_id)

        return await self._store.write(apply)

    def _settle_in(self, tx: Tx, request: WorkRequest, interactive: bool, notify: bool, data: DirectoryData) -> None:
        request.state = SETTLED
        request.settle_ns = self._clock()
        request.interactive = interactive
        request.notify = notify
        tx.put_request(request)
        data.pending -= 1
        if request.submission.source_kind == NOTIFICATION:
            data.notification_pending -= 1
        else:
            data.ordinary_pending -= 1
        if notify:
            data.notifications += 1
        response = request.submission.response
        if response:
            self._deliver_settlement(tx, request, response)

    def _deliver_settlement(self, tx: Tx, request: WorkRequest, response: str) -> None:
        """Leave the settlement in the `response` agent's mailbox, through the outbox (retried, exactly once)."""
        text = (f"---\nrequestId: {request.request_id}\nagentId: {request.agent_id}\nthreadId: {request.thread_id}\n"
                f"state: settled\n---\n\n{request.submission.text}")
        self._outbox.enqueue_in(tx, f"outbox:{request.request_id}:settlement:0", Address(response),
                                Address(request.agent_id), request.request_id, text)

    async def settle(self, request_id: str, thread_id: str, interactive: bool, notify: bool) -> WorkRequest:
        validate.text_field(request_id, "request_id", self.limits, required=True)

        def apply(tx: Tx) -> WorkRequest:
            request = self._request(tx, request_id)
            if thread_id and request.thread_id != thread_id:
                raise FailedPrecondition(f"thread {thread_id!r} does not hold request {request_id!r} "
                                         f"(it is in {request.thread_id!r})", reason="WRONG_THREAD",
                                         request_id=request_id)
            if request.state == SETTLED:
                return request  # settling twice changes nothing
            data = tx.get_directory_data()
            self._settle_in(tx, request, interactive, notify, data)
            self._changed(tx, data)
            return request

        return await self._store.write(apply)

    def _request(self, tx: Tx, request_id: str) -> WorkRequest:
        request = tx.get_request(request_id)
        if request is None:
            raise NotFound(f"no request {request_id!r}", reason="REQUEST_NOT_FOUND", request_id=request_id)
        return request

    async def notification_sent(self, request_id: str) -> None:
        validate.text_field(request_id, "request_id", self.limits, required=True)

        def apply(tx: Tx) -> None:
            request = self._request(tx, request_id)
            if not request.owes_notification:
                return
            request.notification_sent = True
            tx.put_request(request)
            data = tx.get_directory_data()
            data.notifications -= 1
            self._changed(tx, data)

        await self._store.write(apply)

    def list_requests(self, which: int, page_size: int, page_token: str) -> tuple[list[WorkRequest], str]:
        if which not in (0, FILTER_PENDING, FILTER_NOTIFICATIONS, FILTER_ALL):
            raise InvalidArgument(f"filter {which} is unknown", reason="INVALID_FIELD", field="filter")
        size = validate.limit(page_size, self.limits)
        after = 0
        if page_token:
            if not page_token.startswith("r") or not page_token[1:].isdigit():
                raise InvalidArgument("page_token is not one this daemon issued", reason="INVALID_PAGE_TOKEN",
                                      field="page_token")
            after = int(page_token[1:])
        requests = self._store.read(lambda tx: tx.requests(which or FILTER_ALL, after, size + 1))
        more = len(requests) > size
        requests = requests[:size]
        return requests, f"r{requests[-1].seq}" if more else ""

    # -- host data

    async def advertise(self, profiles: str, availability: str) -> None:
        self._text(profiles, "profiles")
        self._text(availability, "availability")

        def apply(tx: Tx) -> None:
            data = tx.get_directory_data()
            if (data.profiles, data.availability) == (profiles, availability):
                return
            data.profiles, data.availability = profiles, availability
            self._changed(tx, data)

        await self._store.write(apply)

    async def reconcile_repair(self, repair: RepairInfo, text: str, publication: str, create_ns: int) -> str:
        validate.text_field(repair.key, "key", self.limits, required=True)
        self._text(text, "text")
        self._text(repair.configuration, "configuration")

        def apply(tx: Tx) -> str:
            data = tx.get_directory_data()
            if data.default_agent is None or data.initial_thread is None:
                raise FailedPrecondition("call Initialize first: repairs go to the default agent's initial thread",
                                         reason="NOT_INITIALIZED")
            known = tx.get_repair(repair.key)
            if known is not None:
                generation, request_id = known
                if repair.generation == generation:
                    return request_id
                if repair.generation < generation:
                    raise FailedPrecondition(
                        f"repair {repair.key!r} is at generation {generation}; generation {repair.generation} is stale",
                        reason="STALE_GENERATION", key=repair.key, generation=generation)
                older = tx.get_request(request_id)
                if older is not None and older.state == PENDING:
                    self._settle_in(tx, older, False, False, data)  # counted in the one change below
            submission = Submission(text=text, source_kind="repair", source_label=repair.key,
                                    publication=publication or None, create_ns=create_ns,
                                    data=repair.configuration or None)
            request = self._admit_in(tx, data, data.default_agent.agent_id, data.initial_thread.thread_id,
                                     submission, repair)
            tx.put_repair(repair.key, repair.generation, request.request_id)
            return request.request_id

        return await self._store.write(apply)

    def data(self) -> DirectoryData:
        return self._store.read(lambda tx: tx.get_directory_data())

    async def watch(self) -> AsyncIterator[WatchUpdate]:
        """The data now, then each sequence value in order; WatchUpdate(None) is a keepalive."""
        notifier = self._notifier
        current = self._store.read(lambda tx: tx.get_directory_data())
        yield WatchUpdate(current)
        last = current.sequence
        while True:
            seen = notifier.version(AGENT_DIRECTORY)
            history, now = self._store.read(lambda tx: (tx.directory_history(last, 256), tx.get_directory_data()))
            if now.sequence > last:
                if history and history[0].sequence == last + 1:
                    for data in history:
                        yield WatchUpdate(data)
                    last = history[-1].sequence
                else:  # fell behind the kept history
                    yield WatchUpdate(now, gap=True)
                    last = now.sequence
                continue
            woke = await notifier.wait(AGENT_DIRECTORY, seen, self._keepalive_s)
            if notifier.closed:
                return
            if not woke:
                yield WatchUpdate(None)
