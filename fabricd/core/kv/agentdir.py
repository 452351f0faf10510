"""Transaction scripts of the agent directory: every change moves the sequence once, with the change."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from fabricd.core import agentdir as rules
from fabricd.core import lookalike
from fabricd.core.agentdir import (
    NOTIFICATION,
    PENDING,
    SETTLED,
    Admission,
    Agent,
    DirectoryData,
    RepairInfo,
    Submission,
    Thread,
    WorkRequest,
)
from fabricd.core.kv import outbox
from fabricd.core.kv.tx import RecordTx
from fabricd.core.model import Address
from fabricd.core.outbox import new_row

HISTORY = 1024
"""Sequences kept for watchers that fall behind."""


class Scripts:
    """The scripts with what they share: the clock and the id mint (ids are `<prefix>-<minted id>`)."""

    def __init__(self, clock: Callable[[], int], mint: Callable[[int], str], history: int = HISTORY) -> None:
        self._clock = clock
        self._mint = mint
        self._history = history

    def _changed(self, tx: RecordTx, data: DirectoryData) -> DirectoryData:
        """The one place the sequence moves: once per change, with the change."""
        data.sequence += 1
        tx.put_directory_data(data, keep_history=self._history)
        tx.wake(rules.AGENT_DIRECTORY)
        return data

    def _new_id(self, prefix: str) -> str:
        return f"{prefix}-{self._mint(self._clock()).lower()}"

    def _new_thread(self, tx: RecordTx, agent_id: str, title: str, kind: str, create_ns: int,
                    contexts: tuple[str, ...]) -> Thread:
        thread = Thread(self._new_id("thread"), agent_id, title, kind, create_ns or self._clock(), contexts)
        tx.put_thread(thread)
        return thread

    @staticmethod
    def _agent(tx: RecordTx, agent_id: str) -> Agent:
        agent = tx.get_agent(agent_id)
        if agent is None:
            raise rules.agent_not_found(agent_id)
        return agent

    @staticmethod
    def _request(tx: RecordTx, request_id: str) -> WorkRequest:
        request = tx.get_request(request_id)
        if request is None:
            raise rules.request_not_found(request_id)
        return request

    # -- agents and threads

    def initialize(self, tx: RecordTx, instructions: str, settings: str) -> tuple[Agent, Thread]:
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
        if tx.agent_named(rules.DEFAULT_AGENT_NAME) is not None:
            raise rules.default_name_taken()
        agent = Agent(self._new_id("agent"), rules.DEFAULT_AGENT_NAME, "the host's default agent", instructions,
                      settings, self._clock())
        tx.put_agent(agent)
        thread = self._new_thread(tx, agent.agent_id, "Initial thread", "initial", 0, ())
        data.default_agent, data.initial_thread = agent, thread
        self._changed(tx, data)
        return agent, thread

    def create_agent(self, tx: RecordTx, name: str, description: str, instructions: str, settings: str) -> Agent:
        looks = lookalike.keys(name)
        tx.hold_looks("agent-name", looks)  # two nodes never both make look-alikes (PostgreSQL)
        named = tx.agent_named(name)
        others = () if named is not None else ((a.name, a.agent_id) for a in tx.agents_looking_like(looks))
        rules.new_agent_name(name, named, others)
        agent = Agent(self._new_id("agent"), name, description, instructions, settings, self._clock())
        tx.put_agent(agent)
        self._changed(tx, tx.get_directory_data())
        return agent

    def create_thread(self, tx: RecordTx, agent_id: str, title: str, kind: str, create_ns: int,
                      contexts: tuple[str, ...], request_key: str = "") -> Thread:
        digest = rules.request_digest(agent_id, title, kind, create_ns, contexts)
        first = self._replayed(tx, "thread", request_key, digest)
        if first is not None:
            thread = tx.get_thread(first)
            if thread is not None:
                return thread
        self._agent(tx, agent_id)
        thread = self._new_thread(tx, agent_id, title, kind, create_ns, contexts)
        if request_key:
            tx.put_request_key("thread", request_key, digest, thread.thread_id)
        self._changed(tx, tx.get_directory_data())
        return thread

    @staticmethod
    def _replayed(tx: RecordTx, scope: str, request_key: str, digest: bytes) -> str | None:
        """The id a keyed call created the first time; None for a new key (REQUEST_KEY_REUSED for another request)."""
        if not request_key:
            return None
        known = tx.get_request_key(scope, request_key)
        if known is None:
            return None
        if known[0] != digest:
            raise rules.request_key_reused(request_key)
        return known[1]

    @staticmethod
    def threads_of(tx: RecordTx, agent_id: str) -> list[Thread] | None:
        return tx.threads_of(agent_id) if tx.get_agent(agent_id) is not None else None

    # -- requests

    def _admit(self, tx: RecordTx, data: DirectoryData, agent_id: str, thread_id: str, submission: Submission,
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

    def admit(self, tx: RecordTx, agent_id: str, thread_id: str, submission: Submission, optional_work: bool,
              max_causal_depth: int, request_key: str = "") -> Admission:
        digest = rules.request_digest(agent_id, thread_id, submission, optional_work)
        first = self._replayed(tx, "admit", request_key, digest)
        if first is not None:
            admitted = tx.get_request(first)
            if admitted is not None:  # the first answer again; nothing is written, the sequence stays
                return Admission(True, "", admitted.thread_id, admitted.request_id)
        data = tx.get_directory_data()
        thread = tx.get_thread(thread_id) if thread_id else None
        refs = {name: getattr(submission, name) for name in ("retry_of", "related", "root")}
        known = {ref for ref in refs.values() if ref is not None and tx.get_request(ref) is not None}
        reason = rules.refusal(tx.get_agent(agent_id) is not None, agent_id, thread_id, thread, submission,
                               optional_work, data, max_causal_depth, refs, known)
        if reason:
            return Admission(False, reason)
        request = self._admit(tx, data, agent_id, thread_id, submission)
        if request_key:  # only acceptances are remembered: a refusal wrote nothing, so its retry is judged afresh
            tx.put_request_key("admit", request_key, digest, request.request_id)
        return Admission(True, "", request.thread_id, request.request_id)

    def _settle(self, tx: RecordTx, request: WorkRequest, interactive: bool, notify: bool,
                data: DirectoryData) -> None:
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
        if response:  # the settlement goes to the `response` agent through the outbox: retried, exactly once
            outbox.add(tx, new_row(self._clock(), f"outbox:{request.request_id}:settlement:0", Address(response),
                                   Address(request.agent_id), request.request_id, rules.settlement_text(request)))

    def settle(self, tx: RecordTx, request_id: str, thread_id: str, interactive: bool, notify: bool) -> WorkRequest:
        request = self._request(tx, request_id)
        if thread_id and request.thread_id != thread_id:
            raise rules.wrong_thread(request_id, thread_id, request.thread_id)
        if request.state == SETTLED:
            return request  # settling twice changes nothing
        data = tx.get_directory_data()
        self._settle(tx, request, interactive, notify, data)
        self._changed(tx, data)
        return request

    def notification_sent(self, tx: RecordTx, request_id: str) -> None:
        request = self._request(tx, request_id)
        if not request.owes_notification:
            return
        request.notification_sent = True
        tx.put_request(request)
        data = tx.get_directory_data()
        data.notifications -= 1
        self._changed(tx, data)

    # -- host data

    def advertise(self, tx: RecordTx, profiles: str, availability: str) -> None:
        data = tx.get_directory_data()
        if (data.profiles, data.availability) == (profiles, availability):
            return
        data.profiles, data.availability = profiles, availability
        self._changed(tx, data)

    def reconcile_repair(self, tx: RecordTx, repair: RepairInfo, text: str, publication: str, create_ns: int) -> str:
        data = tx.get_directory_data()
        if data.default_agent is None or data.initial_thread is None:
            raise rules.not_initialized()
        known = tx.get_repair(repair.key)
        if known is not None:
            generation, request_id = known
            if repair.generation == generation:
                return request_id
            if repair.generation < generation:
                raise rules.stale_generation(repair, generation)
            older = tx.get_request(request_id)
            if older is not None and older.state == PENDING:
                self._settle(tx, older, False, False, data)  # counted in the one change below
        submission = Submission(text=text, source_kind="repair", source_label=repair.key,
                                publication=publication or None, create_ns=create_ns,
                                data=repair.configuration or None)
        request = self._admit(tx, data, data.default_agent.agent_id, data.initial_thread.thread_id, submission, repair)
        tx.put_repair(repair.key, repair.generation, request.request_id)
        return request.request_id
