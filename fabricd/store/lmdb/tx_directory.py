"""The agent directory's, the wake hooks' and the access tokens' part of a transaction (a mixin of LmdbTx)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fabricd import wire
from fabricd.core import agentdir, lookalike
from fabricd.core.tokens import Token
from fabricd.core.wake import WakeHook
from fabricd.store.lmdb import keys, looks, records
from fabricd.v1 import agent_directory_service_pb2 as ad_pb


def rows_after(txn: Any, db: Any, start: bytes, *, inclusive: bool = False) -> Iterator[tuple[bytes, bytes]]:
    """(key, value) of `db` in key order after the key `start` (from it, when `inclusive`)."""
    with txn.cursor(db=db) as cur:
        if not cur.set_range(start):
            return
        for key, value in cur:
            if start and key == start and not inclusive:
                continue
            yield key, value


def rows_under(txn: Any, db: Any, prefix: bytes, start: bytes) -> Iterator[tuple[bytes, bytes]]:
    """(key, value) of `db` under `prefix`, from the key `prefix + start` on."""
    for key, value in rows_after(txn, db, prefix + start, inclusive=True):
        if not key.startswith(prefix):
            return
        yield key, value


class DirectoryRecords:
    __slots__ = ()
    _txn: Any
    _dbs: Any
    _no_hooks: set[str]
    """Agents this transaction found without a wake hook."""

    def next_sequence(self, name: str) -> int:
        raise NotImplementedError

    # -- agent directory

    def get_directory_data(self) -> agentdir.DirectoryData:
        raw = self._txn.get(keys.DIRECTORY_DATA, db=self._dbs.meta)
        return wire.from_pb(ad_pb.DirectoryData.FromString(raw or b""), agentdir.DirectoryData)

    def put_directory_data(self, data: agentdir.DirectoryData, keep_history: int) -> None:
        raw = wire.to_pb(data, ad_pb.DirectoryData).SerializeToString()
        self._txn.put(keys.DIRECTORY_DATA, raw, db=self._dbs.meta)
        if keep_history:
            self._txn.put(keys.u64(data.sequence), raw, db=self._dbs.ad_history)
            if data.sequence > keep_history:
                self._txn.delete(keys.u64(data.sequence - keep_history), db=self._dbs.ad_history)

    def directory_history(self, after_sequence: int, limit: int) -> list[agentdir.DirectoryData]:
        out = []
        with self._txn.cursor(db=self._dbs.ad_history) as cur:
            if cur.set_range(keys.u64(after_sequence + 1)):
                for _, raw in cur:
                    out.append(wire.from_pb(ad_pb.DirectoryData.FromString(raw), agentdir.DirectoryData))
                    if len(out) >= limit:
                        break
        return out

    def get_agent(self, agent_id: str) -> agentdir.Agent | None:
        raw = self._txn.get(keys.h(agent_id), db=self._dbs.ad_agents)
        return wire.from_pb(ad_pb.Agent.FromString(raw), agentdir.Agent) if raw is not None else None

    def agent_named(self, name: str) -> agentdir.Agent | None:
        raw = self._txn.get(keys.h(name), db=self._dbs.ad_names)
        return self.get_agent(raw.decode()) if raw is not None else None

    def put_agent(self, agent: agentdir.Agent) -> None:
        before = self.get_agent(agent.agent_id)
        if before is not None and before.name != agent.name:
            self._txn.delete(keys.h(before.name), db=self._dbs.ad_names)
        if before is None or before.name != agent.name:
            looks.move_name(self._txn, self._dbs, keys.AGENT_NAME_LOOKS, agent.agent_id,
                            lookalike.keys(before.name) if before is not None else frozenset(),
                            lookalike.keys(agent.name))
        self._txn.put(keys.h(agent.name), agent.agent_id.encode(), db=self._dbs.ad_names)
        self._txn.put(keys.h(agent.agent_id), wire.to_pb(agent, ad_pb.Agent).SerializeToString(),
                      db=self._dbs.ad_agents)

    def agents(self) -> list[agentdir.Agent]:
        with self._txn.cursor(db=self._dbs.ad_agents) as cur:
            return [wire.from_pb(ad_pb.Agent.FromString(raw), agentdir.Agent) for _, raw in cur]

    def agents_looking_like(self, looks_like: frozenset[str]) -> list[agentdir.Agent]:
        found = (self.get_agent(a) for a in looks.holders(self._txn, self._dbs, keys.AGENT_NAME_LOOKS, looks_like))
        return [a for a in found if a is not None]

    def agents_from(self, after: str) -> Iterator[tuple[str, agentdir.Agent]]:
        for key, raw in rows_after(self._txn, self._dbs.ad_agents, bytes.fromhex(after)):
            yield key.hex(), wire.from_pb(ad_pb.Agent.FromString(raw), agentdir.Agent)

    def get_thread(self, thread_id: str) -> agentdir.Thread | None:
        raw = self._txn.get(keys.h(thread_id), db=self._dbs.ad_threads)
        return wire.from_pb(ad_pb.Thread.FromString(raw), agentdir.Thread) if raw is not None else None

    def put_thread(self, thread: agentdir.Thread) -> None:
        if self.get_thread(thread.thread_id) is None:
            seq = self.next_sequence("thread")
            self._txn.put(keys.agent_thread(thread.agent_id, seq, thread.thread_id), b"", db=self._dbs.ad_by_agent)
        self._txn.put(keys.h(thread.thread_id), wire.to_pb(thread, ad_pb.Thread).SerializeToString(),
                      db=self._dbs.ad_threads)

    def threads_of(self, agent_id: str) -> list[agentdir.Thread]:
        prefix = keys.h(agent_id)
        out = []
        with self._txn.cursor(db=self._dbs.ad_by_agent) as cur:
            if cur.set_range(prefix):
                for key in cur.iternext(keys=True, values=False):
                    if not key.startswith(prefix):
                        break
                    raw = self._txn.get(key[-keys.DIGEST :], db=self._dbs.ad_threads)
                    if raw is not None:
                        out.append(wire.from_pb(ad_pb.Thread.FromString(raw), agentdir.Thread))
        return out

    def threads_from(self, agent_id: str, after_seq: int) -> Iterator[tuple[int, agentdir.Thread]]:
        start = keys.u64(after_seq + 1) if after_seq else b""
        for key, _ in rows_under(self._txn, self._dbs.ad_by_agent, keys.h(agent_id), start):
            raw = self._txn.get(key[-keys.DIGEST :], db=self._dbs.ad_threads)
            if raw is not None:
                yield keys.read_u64(key, keys.DIGEST), wire.from_pb(ad_pb.Thread.FromString(raw), agentdir.Thread)

    def get_request(self, request_id: str) -> agentdir.WorkRequest | None:
        raw = self._txn.get(keys.h(request_id), db=self._dbs.ad_requests)
        return records.decode_request(raw) if raw is not None else None

    @staticmethod
    def _lists_of(request: agentdir.WorkRequest | None) -> set[int]:
        if request is None:
            return set()
        lists = {agentdir.FILTER_ALL}
        if request.state == agentdir.PENDING:
            lists.add(agentdir.FILTER_PENDING)
        if request.owes_notification:
            lists.add(agentdir.FILTER_NOTIFICATIONS)
        return lists

    def put_request(self, request: agentdir.WorkRequest) -> None:
        txn, db = self._txn, self._dbs.ad_lists
        before = self._lists_of(self.get_request(request.request_id))
        after = self._lists_of(request)
        for which in before - after:
            txn.delete(keys.listed(which, request.seq, request.request_id), db=db)
        for which in after - before:
            txn.put(keys.listed(which, request.seq, request.request_id), b"", db=db)
        txn.put(keys.h(request.request_id), records.encode_request(request), db=self._dbs.ad_requests)

    def requests(self, which: int, after_seq: int, limit: int) -> list[agentdir.WorkRequest]:
        out: list[agentdir.WorkRequest] = []
        prefix = bytes((which,))
        with self._txn.cursor(db=self._dbs.ad_lists) as cur:
            if cur.set_range(prefix + keys.u64(after_seq + 1)):
                for key in cur.iternext(keys=True, values=False):
                    if not key.startswith(prefix) or len(out) >= limit:
                        break
                    raw = self._txn.get(key[9:], db=self._dbs.ad_requests)
                    if raw is not None:
                        out.append(records.decode_request(raw))
        return out

    def requests_from(self, which: int, after_seq: int) -> Iterator[tuple[int, agentdir.WorkRequest]]:
        for key, _ in rows_under(self._txn, self._dbs.ad_lists, bytes((which,)), keys.u64(after_seq + 1)):
            raw = self._txn.get(key[9:], db=self._dbs.ad_requests)
            if raw is not None:
                yield keys.read_u64(key, 1), records.decode_request(raw)

    def get_repair(self, key: str) -> tuple[int, str] | None:
        raw = self._txn.get(keys.h(key), db=self._dbs.ad_repairs)
        return (keys.read_u64(raw), raw[8:].decode()) if raw is not None else None

    def get_request_key(self, scope: str, key: str) -> tuple[bytes, str] | None:
        raw = self._txn.get(keys.request_key(scope, key), db=self._dbs.ad_repairs)
        return records.decode_request_key(raw)[:2] if raw is not None else None

    def put_request_key(self, scope: str, key: str, digest: bytes, created_id: str) -> None:
        self._txn.put(keys.request_key(scope, key), records.encode_request_key(scope, key, digest, created_id),
                      db=self._dbs.ad_repairs)

    def put_repair(self, key: str, generation: int, request_id: str) -> None:
        self._txn.put(keys.h(key), keys.u64(generation) + request_id.encode(), db=self._dbs.ad_repairs)

    # -- wake hooks

    def get_wake_hook(self, agent_id: str) -> WakeHook | None:
        # Every send asks (fabricd.core.kv.wake.note) and most agents have no hook: a batch of 100 to one
        # mailbox reads its absence once. A hook found is read each time (its reader may change it).
        if agent_id in self._no_hooks:
            return None
        key = keys.wake_hook(agent_id)
        raw = self._txn.get(key, db=self._dbs.meta)
        if raw is None:
            self._no_hooks.add(agent_id)
            return None
        return self._hook(key, raw)

    def _hook(self, key: bytes, raw: bytes) -> WakeHook | None:
        """A stored hook; a corrupt one is reported for the quarantine and served as missing."""
        hook = records.decode_wake_hook(raw)
        if hook is None:
            self._txn.report("meta", key)
        return hook

    def put_wake_hook(self, hook: WakeHook) -> None:
        self._no_hooks.discard(hook.agent_id)
        self._txn.put(keys.wake_hook(hook.agent_id), records.encode_wake_hook(hook), db=self._dbs.meta)

    def delete_wake_hook(self, agent_id: str) -> None:
        self._txn.delete(keys.wake_hook(agent_id), db=self._dbs.meta)
        self._no_hooks.add(agent_id)

    def wake_hooks(self) -> list[WakeHook]:
        found = (self._hook(key, raw) for key, raw in rows_under(self._txn, self._dbs.meta, keys.WAKE_HOOKS, b""))
        return [hook for hook in found if hook is not None]

    # -- access tokens

    def put_token(self, key: bytes, token: Token) -> None:
        self._txn.put(key, records.encode_token(token), db=self._dbs.tokens)

    def get_token(self, key: bytes) -> Token | None:
        raw = self._txn.get(key, db=self._dbs.tokens)
        return records.decode_token(raw) if raw is not None else None

    def token_by_id(self, token_id: str) -> tuple[bytes, Token] | None:
        for key, token in self.tokens():
            if token.token_id == token_id:
                return key, token
        return None

    def tokens_from(self, after: str) -> Iterator[tuple[str, Token]]:
        for key, raw in rows_after(self._txn, self._dbs.tokens, bytes.fromhex(after)):
            yield bytes(key).hex(), records.decode_token(raw)

    def tokens(self) -> list[tuple[bytes, Token]]:
        with self._txn.cursor(db=self._dbs.tokens) as cur:
            return [(bytes(key), records.decode_token(raw)) for key, raw in cur]
