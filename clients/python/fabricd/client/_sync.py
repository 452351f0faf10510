"""A small synchronous facade over Client, for scripts and the CLI.

It runs the asyncio client on a private event loop in a background thread;
each method blocks until the daemon answers.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

from fabricd.client._client import Client, Subscription
from fabricd.v1 import types_pb2 as pb


class SyncClient:
    """`with SyncClient(target) as client: client.send("bob", "hi")`."""

    def __init__(self, target: str | None = None) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="fabricd-client", daemon=True)
        self._thread.start()
        self._client: Client = self._run(self._make(target))
        self.target = self._client.target

    @staticmethod
    async def _make(target: str | None) -> Client:
        return Client(target)

    def _run(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    def __enter__(self) -> SyncClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._loop.is_closed():
            return
        self._run(self._client.close())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()

    def wait_ready(self, timeout: float = 10.0) -> None:
        self._run(self._client.wait_ready(timeout))

    def register(self, agent_id: str, **kwargs: Any) -> pb.MailboxEntry:
        return self._run(self._client.register(agent_id, **kwargs))

    def touch(self, agent_id: str, *, busy: bool = False) -> None:
        self._run(self._client.touch(agent_id, busy=busy))

    def list_mailboxes(self) -> list[pb.MailboxEntry]:
        return self._run(self._client.list_mailboxes())

    def resolve(self, name: str) -> pb.MailboxEntry:
        return self._run(self._client.resolve(name))

    def send(self, to: Any, text: str = "", **kwargs: Any) -> Any:
        return self._run(self._client.send(to, text, **kwargs))

    def send_many(self, messages: list[pb.Message], *, atomic: bool = False) -> list[Any]:
        return self._run(self._client.send_many(messages, atomic=atomic))

    def peek(self, agent_id: str, limit: int = 0) -> Any:
        return self._run(self._client.peek(agent_id, limit))

    def drain(self, agent_id: str, limit: int = 0) -> Any:
        return self._run(self._client.drain(agent_id, limit))

    def ack(self, agent_id: str, message_ids: list[str]) -> int:
        return self._run(self._client.ack(agent_id, message_ids))

    def ask(self, target: str, task: str, **kwargs: Any) -> str:
        return self._run(self._client.ask(target, task, **kwargs))

    def enqueue(self, target: str, task: str, **kwargs: Any) -> Any:
        return self._run(self._client.enqueue(target, task, **kwargs))

    def await_reply(self, ticket_id: str, *, timeout: float | None = None) -> str:
        return self._run(self._client.await_reply(ticket_id, timeout=timeout))

    def reply(self, agent_id: str, result: str, *, ticket_id: str = "") -> str:
        return self._run(self._client.reply(agent_id, result, ticket_id=ticket_id))

    def cancel_head(self, agent_id: str, ticket_id: str) -> bool:
        return self._run(self._client.cancel_head(agent_id, ticket_id))

    def queue(self, agent_id: str) -> list[Any]:
        return self._run(self._client.queue(agent_id))

    def status(self) -> Any:
        return self._run(self._client.status())

    def subscribe(self, agent_id: str, *, auto_ack: bool = True) -> Iterator[pb.Message]:
        """Yield messages as they arrive; acks what was handled when the loop moves on or stops."""
        sub: Subscription = self._client.subscribe(agent_id, auto_ack=auto_ack)
        try:
            while True:
                try:
                    yield self._run(sub.__anext__())
                except StopAsyncIteration:
                    return
        finally:
            self._run(sub.close())
