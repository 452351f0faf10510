"""The agent directory: agents, threads, admitted requests, settlements and notifications.

Every change increments `DirectoryData.sequence` exactly once, in the same
transaction as the change, and records the data as of that sequence in a
bounded history, so a watcher sees every sequence value in order (the
transaction scripts are in fabricd.core.kv.agentdir; the refusals are here).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass

from fabricd.core import lookalike, paging, validate
from fabricd.core.errors import AlreadyExists, FailedPrecondition, InvalidArgument, NotFound
from fabricd.core.limits import Limits
from fabricd.core.model_agentdir import PENDING as PENDING
from fabricd.core.model_agentdir import SETTLED as SETTLED
from fabricd.core.model_agentdir import Admission as Admission
from fabricd.core.model_agentdir import Agent as Agent
from fabricd.core.model_agentdir import DirectoryData as DirectoryData
from fabricd.core.model_agentdir import RepairInfo as RepairInfo
from fabricd.core.model_agentdir import Submission as Submission
from fabricd.core.model_agentdir import Thread as Thread
from fabricd.core.model_agentdir import WorkRequest as WorkRequest
from fabricd.core.paging import Listed, Page
from fabricd.core.ports import Service, Store

AGENT_DIRECTORY = "agent-directory"
NOTIFICATION = "notification"
DEFAULT_AGENT_NAME = "default"
MAX_TEXT = 1 << 20
"""Bytes of a text field (instructions, settings, submission text, ...)."""
MAX_CONTEXTS = 64
MAX_CONTEXTS_BYTES = 64 << 10
MAX_GENERATION = (1 << 63) - 1
"""The largest repair generation: a signed 64-bit integer, as stores keep it."""
SETTLEMENT_OVERHEAD = 4096
"""Room settlement_text needs around a submission's text (ids, state), in bytes."""


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


def request_digest(*parts: object) -> bytes:
    """What a keyed creating call asked, to tell its retry from another request under the same key."""
    return hashlib.blake2b(repr(parts).encode("utf-8", "surrogatepass"), digest_size=16).digest()


# -- the refusals (every backend refuses in these words)


def request_key_reused(request_key: str) -> AlreadyExists:
    return AlreadyExists(f"request_key {request_key!r} was already used for a different request; pick a new key, "
                         "or resend exactly the same request to get its first answer",
                         reason="REQUEST_KEY_REUSED", request_key=request_key)



def agent_not_found(agent_id: str) -> NotFound:
    return NotFound(f"no agent {agent_id!r}", reason="AGENT_NOT_FOUND", agent_id=agent_id)


def request_not_found(request_id: str) -> NotFound:
    return NotFound(f"no request {request_id!r}", reason="REQUEST_NOT_FOUND", request_id=request_id)


def default_name_taken() -> FailedPrecondition:
    return FailedPrecondition(f"an agent named {DEFAULT_AGENT_NAME!r} already exists and is not the default agent",
                              reason="NAME_TAKEN", name=DEFAULT_AGENT_NAME)


def agent_name_taken(name: str) -> AlreadyExists:
    return AlreadyExists(f"an agent named {name!r} already exists", reason="AGENT_NAME_TAKEN", name=name)


def new_agent_name(name: str, named: Agent | None, others: Iterable[tuple[str, str]]) -> None:
    """The decider of a new agent's name: AGENT_NAME_TAKEN when an agent has it; NAME_COLLISION when it only looks
    like the name of one of `others` ((name, agent id) of the agents whose names may: UTS #39 skeletons, case,
    spaces around it, as for mailbox agent ids), so two agents would read the same in listings."""
    if named is not None:
        raise agent_name_taken(name)
    twin = lookalike.look_alike(name, ((other, agent_id, "the agent name") for other, agent_id in others))
    if twin is not None:
        raise AlreadyExists(
            f"name {lookalike.shown(name)} looks like the agent name {lookalike.shown(twin[0])} of agent "
            f"{lookalike.shown(twin[1])}: the two would read the same in listings, so a person could take one "
            "agent for the other; choose a name that differs in more than look-alike letters, case or spaces",
            reason="NAME_COLLISION", name=name, held_by=twin[1], looks_like=twin[0])


def wrong_thread(request_id: str, thread_id: str, holder: str) -> FailedPrecondition:
    return FailedPrecondition(f"thread {thread_id!r} does not hold request {request_id!r} (it is in {holder!r})",
                              reason="WRONG_THREAD", request_id=request_id)


def not_initialized() -> FailedPrecondition:
    return FailedPrecondition("call Initialize first: repairs go to the default agent's initial thread",
                              reason="NOT_INITIALIZED")


def stale_generation(repair: RepairInfo, generation: int) -> FailedPrecondition:
    return FailedPrecondition(
        f"repair {repair.key!r} is at generation {generation}; generation {repair.generation} is stale",
        reason="STALE_GENERATION", key=repair.key, generation=generation)


def refusal(agent_known: bool, agent_id: str, thread_id: str, thread: Thread | None, submission: Submission,
            optional_work: bool, data: DirectoryData, max_causal_depth: int, refs: dict[str, str | None],
            known_refs: set[str]) -> str:
    """Why a submission is not admitted ("" when it is), from what the store read for it."""
    if not agent_known:
        return f"no agent {agent_id!r} is registered in this directory"
    if thread_id and (thread is None or thread.agent_id != agent_id):
        return f"agent {agent_id!r} has no thread {thread_id!r}"
    if optional_work and host_unavailable(data.availability):
        return "the host is unavailable or busy, and this work is optional"
    if submission.causal_depth > max_causal_depth:
        return (f"causal depth {submission.causal_depth} is over the limit of {max_causal_depth}: "
                "agents may not keep triggering each other")
    for name, ref in refs.items():
        if ref is not None and ref not in known_refs:
            return f"{name} names request {ref!r}, which is not known"
    return ""


def settlement_text(request: WorkRequest) -> str:
    """What the `response` agent reads of a settled request."""
    return (f"---\nrequestId: {request.request_id}\nagentId: {request.agent_id}\nthreadId: {request.thread_id}\n"
            f"state: settled\n---\n\n{request.submission.text}")


class AgentDirectory(Service):
    """The agent-directory contract over a Store."""

    def __init__(self, store: Store, limits: Limits, clock: Callable[[], int], *, max_causal_depth: int = 8,
                 keepalive_s: float = 15.0) -> None:
        super().__init__(store, limits, clock, keepalive_s)
        self.max_causal_depth = max_causal_depth  # reloadable

    def _text(self, value: str, name: str, limit: int = MAX_TEXT) -> None:
        validate.text_bytes(value, name, limit)

    # -- agents and threads

    async def initialize(self, instructions: str, settings: str) -> tuple[Agent, Thread]:
        self._text(instructions, "instructions")
        self._text(settings, "settings")
        return await self._store.agent_directory.initialize(instructions, settings)

    async def create_agent(self, name: str, description: str, instructions: str, settings: str) -> Agent:
        validate.name(validate.text_field(name, "name", self.limits, required=True), "name")
        for value, field_name in ((description, "description"), (instructions, "instructions"), (settings, "settings")):
            self._text(value, field_name)
        return await self._store.agent_directory.create_agent(name, description, instructions, settings)

    async def get_agent(self, agent_id: str) -> Agent:
        validate.agent_id(agent_id, self.limits)
        agent = await self._store.agent_directory.get_agent(agent_id)
        if agent is None:
            raise agent_not_found(agent_id)
        return agent

    async def list_agents(self, page_size: int = 0, page_token: str = "") -> Listed[Agent]:
        """One page of the agents, in the store's order."""
        return await paging.read("agents", "", page_size, page_token, self._store.agent_directory.agents_page)

    async def create_thread(self, agent_id: str, title: str, kind: str, create_ns: int,
                            contexts: tuple[str, ...], request_key: str = "") -> Thread:
        """A new thread; with a `request_key`, a retry returns the thread the first call created."""
        validate.agent_id(agent_id, self.limits)
        self._text(title, "title", 4096)
        self._text(kind, "kind", 256)
        validate.text_field(request_key, "request_key", self.limits, required=False)
        if len(contexts) > MAX_CONTEXTS:
            raise InvalidArgument(f"{len(contexts)} contexts; the limit is {MAX_CONTEXTS}", reason="TOO_MANY_ITEMS",
                                  field="contexts", limit=MAX_CONTEXTS)
        size = sum(validate.text_bytes(c, f"contexts[{i}]", MAX_CONTEXTS_BYTES) for i, c in enumerate(contexts))
        if size > MAX_CONTEXTS_BYTES:
            raise validate.too_large("contexts", size, MAX_CONTEXTS_BYTES)
        return await self._store.agent_directory.create_thread(agent_id, title, kind, create_ns, contexts,
                                                               request_key)

    async def list_threads(self, agent_id: str, page_size: int = 0, page_token: str = "") -> Listed[Thread]:
        """One page of an agent's threads, in creation order; NOT_FOUND for an unknown agent."""
        validate.agent_id(agent_id, self.limits)

        async def fetch(after: str, limit: int, max_bytes: int) -> Page[Thread]:
            page = await self._store.agent_directory.threads_page(agent_id, after, limit, max_bytes)
            if page is None:
                raise agent_not_found(agent_id)
            return page

        return await paging.read("threads", agent_id, page_size, page_token, fetch)

    # -- requests

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
        if submission.response is not None:  # settling posts the text to `response`: it must fit in a message
            room = self.limits.max_message_bytes - SETTLEMENT_OVERHEAD
            validate.text_bytes(submission.text, "submission.text", max(room, 0))
        validate.text_field(submission.source_kind, "submission.source_kind", self.limits, required=False)
        validate.text_field(submission.source_label, "submission.source_label", self.limits, required=False)

    async def admit(self, agent_id: str, thread_id: str, submission: Submission, optional_work: bool,
                    request_key: str = "") -> Admission:
        """Admit a submission; with a `request_key`, a retry returns the first accepted answer unchanged."""
        validate.agent_id(agent_id, self.limits)
        self._check_submission(submission)
        validate.text_field(request_key, "request_key", self.limits, required=False)
        return await self._store.agent_directory.admit(agent_id, thread_id, submission, optional_work,
                                                       self.max_causal_depth, request_key)

    async def settle(self, request_id: str, thread_id: str, interactive: bool, notify: bool) -> WorkRequest:
        validate.text_field(request_id, "request_id", self.limits, required=True)
        return await self._store.agent_directory.settle(request_id, thread_id, interactive, notify)

    async def notification_sent(self, request_id: str) -> None:
        validate.text_field(request_id, "request_id", self.limits, required=True)
        await self._store.agent_directory.notification_sent(request_id)

    async def list_requests(self, which: int, page_size: int = 0, page_token: str = "") -> Listed[WorkRequest]:
        """One page of the requests of a filter, in admission order."""
        if which not in (0, FILTER_PENDING, FILTER_NOTIFICATIONS, FILTER_ALL):
            raise InvalidArgument(f"filter {which} is unknown", reason="INVALID_FIELD", field="filter")
        which = which or FILTER_ALL
        if len(page_token) > 1 and page_token[0] == "r" and page_token[1:].isdigit():
            page_token = paging.encode("requests", str(which), page_token[1:], 0)  # a token of release 1

        async def fetch(after: str, limit: int, max_bytes: int) -> Page[WorkRequest]:
            return await self._store.agent_directory.requests_page(which, after, limit, max_bytes)

        return await paging.read("requests", str(which), page_size, page_token, fetch)

    # -- host data

    async def advertise(self, profiles: str, availability: str) -> None:
        self._text(profiles, "profiles")
        self._text(availability, "availability")
        await self._store.agent_directory.advertise(profiles, availability)

    async def reconcile_repair(self, repair: RepairInfo, text: str, publication: str, create_ns: int) -> str:
        validate.text_field(repair.key, "key", self.limits, required=True)
        if repair.generation > MAX_GENERATION:  # PostgreSQL keeps it in a bigint; every backend answers alike
            raise InvalidArgument(f"generation is {repair.generation}; the largest is {MAX_GENERATION} (2^63 - 1)",
                                  reason="INVALID_FIELD", field="generation", limit=MAX_GENERATION)
        self._text(text, "text")
        self._text(repair.configuration, "configuration")
        return await self._store.agent_directory.reconcile_repair(repair, text, publication, create_ns)

    async def data(self) -> DirectoryData:
        return await self._store.agent_directory.data()

    async def watch(self) -> AsyncIterator[WatchUpdate]:
        """The data now, then each sequence value in order; WatchUpdate(None) is a keepalive."""
        wakeups, port = self._wakeups, self._store.agent_directory
        current = await port.data()
        yield WatchUpdate(current)
        last = current.sequence
        while True:
            seen = wakeups.version(AGENT_DIRECTORY)
            history, now = await port.history(last, 256)
            if now.sequence > last:
                if history and history[0].sequence == last + 1:
                    for data in history:
                        yield WatchUpdate(data)
                    last = history[-1].sequence
                else:  # fell behind the kept history
                    yield WatchUpdate(now, gap=True)
                    last = now.sequence
                continue
            woke = await wakeups.wait(AGENT_DIRECTORY, seen, self._keepalive_s)
            if wakeups.closed:
                return
            if not woke:
                yield WatchUpdate(None)
