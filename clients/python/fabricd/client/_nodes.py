"""Several fabricd nodes behind one client: stubs that follow the current node, and when to move on.

A client given several targets (nodes on one PostgreSQL database, see docs/postgresql.md,
"Clients and several nodes") keeps one channel per node, opened on first use, and
sends every call to its current node. A call that answers UNAVAILABLE (refused,
node killed, shutting down) moves the client to the next node, once per failure
however many calls saw it. The failed call itself is re-sent there only when
sending it twice cannot do it twice: reads and waits, writes idempotent by
contract (register, ack, fan-out), and writes carrying an idempotency id (a
message id, an Ask's request key). Everything else raises Unavailable, as it
does with one node, and the caller decides.

    nodes = Nodes(["a:7077", "b:7077"], open_channel)
    stub = Service(nodes, "mailbox").SendMessage     # always the current node's
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from typing import Any

import grpc

log = logging.getLogger("fabricd.client")

RETRY_WINDOW_S = 10.0
"""How long a re-sendable call keeps trying the nodes, by default, when there are several."""


class Nodes:
    """The targets in order, the current one, and a channel and stubs per target (opened on first use)."""

    def __init__(self, targets: Sequence[str], open_channel: Callable[[str], tuple[grpc.aio.Channel, dict[str, Any]]]
                 ) -> None:
        self.targets = list(targets)
        self._index = 0
        self._open_channel = open_channel
        self._open: dict[str, tuple[grpc.aio.Channel, dict[str, Any]]] = {}
        self._retired: list[grpc.aio.Channel] = []
        self.moves = 0

    @property
    def current(self) -> str:
        return self.targets[self._index]

    def _opened(self, target: str) -> tuple[grpc.aio.Channel, dict[str, Any]]:
        found = self._open.get(target)
        if found is None:
            found = self._open[target] = self._open_channel(target)
        return found

    @property
    def channel(self) -> grpc.aio.Channel:
        return self._opened(self.current)[0]

    def stubs(self) -> dict[str, Any]:
        return self._opened(self.current)[1]

    def failed(self, target: str) -> bool:
        """`target` answered UNAVAILABLE: move to the next node, unless another call already did."""
        if len(self.targets) < 2 or target != self.current:
            return False
        self._index = (self._index + 1) % len(self.targets)
        self.moves += 1
        log.info("fabricd at %s is unavailable: moving to %s", target, self.current)
        return True

    def use(self, target: str) -> None:
        """Go to `target`, one of the targets, from now on (it answered)."""
        self._index = self.targets.index(target)

    def replace(self, target: str) -> None:
        """Dial `target` instead of the current one (socket discovery found the daemon elsewhere)."""
        old = self._open.pop(self.current, None)
        if old is not None:
            self._retired.append(old[0])  # closed with the client: calls may still be on it
        self.targets[self._index] = target

    async def ready(self, timeout: float) -> bool:
        """Until some node accepts connections (it becomes the current one); False after `timeout`."""
        waits = {asyncio.ensure_future(self._opened(t)[0].channel_ready()): t for t in self.targets}
        try:
            done, _ = await asyncio.wait(waits, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for w in waits:
                w.cancel()
        if not done:
            return False
        answered = [waits[w] for w in done]
        if self.current not in answered:
            self.use(answered[0])
        return True

    async def close(self) -> None:
        for channel in [*self._retired, *(c for c, _ in self._open.values())]:
            await channel.close()


class Rpc:
    """One method of one service, called on whichever node is current when called."""

    __slots__ = ("_nodes", "_service", "_method")

    def __init__(self, nodes: Nodes, service: str, method: str) -> None:
        self._nodes, self._service, self._method = nodes, service, method

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return getattr(self._nodes.stubs()[self._service], self._method)(*args, **kwargs)


class Service:
    """A generated stub's stand-in: `client.mailbox.SendMessage(request)` goes to the current node."""

    def __init__(self, nodes: Nodes, name: str) -> None:
        self._nodes = nodes
        self._name = name

    def __getattr__(self, method: str) -> Rpc:
        if method.startswith("_"):
            raise AttributeError(method)
        rpc = Rpc(self._nodes, self._name, method)
        setattr(self, method, rpc)  # looked up once per method
        return rpc


async def pause(attempt: int, nodes: int) -> None:
    """Back off after each full round of the nodes (none of them answered): 50 ms, doubling up to 1 s."""
    if attempt % max(nodes, 1) == 0:
        await asyncio.sleep(min(0.05 * 2 ** (attempt // max(nodes, 1) - 1), 1.0))
