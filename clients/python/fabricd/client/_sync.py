"""A small synchronous facade over Client, for scripts and the CLI.

It runs the asyncio client on a private event loop in a background thread;
each method blocks until the daemon answers.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import threading
from collections.abc import Callable, Iterator
from typing import Any

from fabricd.client._client import Client, Subscription
from fabricd.v1 import types_pb2 as pb


class SyncClient:
    """`with SyncClient(target) as client: client.send("bob", "hi")`."""

    def __init__(self, target: str | None = None, **options: Any) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="fabricd-client", daemon=True)
        self._thread.start()
        self._client: Client = self._run(self._make(target, options))
        self.target = self._client.target

    @staticmethod
    async def _make(target: str | None, options: dict[str, Any]) -> Client:
        return Client(target, **options)

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

    def __getattr__(self, name: str) -> Any:
        """Every coroutine method of Client (send, peek, ask, fan_out, ...), as a blocking call."""
        attr = getattr(self._client, name)
        if not inspect.iscoroutinefunction(attr):
            return attr

        @functools.wraps(attr)
        def blocking(*args: Any, **kwargs: Any) -> Any:
            return self._run(attr(*args, **kwargs))

        return blocking

    def subscribe(self, agent_id: str, *, auto_ack: bool = True, wait: float = 30.0,
                  on_wait: Callable[[str], None] | None = None) -> Iterator[pb.Message]:
        """Yield messages as they arrive; acks what was handled when the loop moves on or stops.

        Without a daemon it says "waiting for fabricd at ..." (`on_wait`, default a
        log warning) and raises Unavailable after `wait` seconds (0: wait forever).
        """
        sub: Subscription = self._client.subscribe(agent_id, auto_ack=auto_ack, wait=wait, on_wait=on_wait)
        try:
            while True:
                try:
                    yield self._run(sub.__anext__())
                except StopAsyncIteration:
                    return
        finally:
            self._run(sub.close())
