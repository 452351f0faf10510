"""A replier does not ack the task messages its replies consumed: Reply already marked them read.

Both clients: the Python one and the Node one (clients/node/test/replier.mjs).

Counted by the daemon itself (its per-method call metrics), so any AckMessages
from any path of the client shows up.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import urllib.request

import pytest

from fabricd.client import Client
from tests.e2e.test_node import NODE_CLIENT


def calls(body: str, method: str) -> float:
    """fabricd_rpc_total for `method` with code OK; 0 when the series is absent."""
    prefix = f'fabricd_rpc_total{{code="OK",method="{method}"}} '
    return sum(float(line[len(prefix):]) for line in body.splitlines() if line.startswith(prefix))


@pytest.mark.parametrize("by_ticket", [True, False], ids=["reply-by-ticket", "reply-to-head"])
async def test_a_replier_acks_its_plain_mail_but_not_the_tasks_it_answered(
        make_daemon, by_ticket: bool) -> None:
    daemon = make_daemon("--metrics-listen", "127.0.0.1:0").start()
    metrics = "http://" + daemon.wait_for("metrics on").split("http://", 1)[1].strip()
    # the unary path (Subscribe, Reply, AckMessages): a streams client acks on its SendStream
    async with Client(daemon.target) as asker, Client(daemon.target, streams=False) as worker:
        await worker.register("worker")
        plain: list[str] = []

        async def serve() -> None:
            async with worker.subscribe("worker") as inbox:
                async for message in inbox:
                    if message.ticket_id:
                        await worker.reply("worker", f"done: {message.text.rsplit(chr(10), 1)[-1]}",
                                           ticket_id=message.ticket_id if by_ticket else "")
                    else:
                        plain.append(message.text)
                        return  # closing acks this handled message

        server = asyncio.create_task(serve())
        answers = [await asker.ask("worker", f"task {i}", timeout=30) for i in range(3)]
        await asker.send("worker", "a plain note", sender="boss")
        await asyncio.wait_for(server, 30)
        assert answers == [f"done: task {i}" for i in range(3)] and plain == ["a plain note"]
        assert (await asker.peek("worker")).unread_count == 0  # the tasks were consumed, the note acked
    body = urllib.request.urlopen(metrics, timeout=30).read().decode()
    assert calls(body, "Reply") == 3
    assert calls(body, "AckMessages") == 1, "only the plain note is acked, once, when the subscription closes"


@pytest.mark.parametrize("by_ticket", [True, False], ids=["reply-by-ticket", "reply-to-head"])
async def test_a_node_replier_acks_its_plain_mail_but_not_the_tasks_it_answered(
        make_daemon, by_ticket: bool) -> None:
    node = shutil.which("node")
    if node is None or not os.path.isdir(os.path.join(NODE_CLIENT, "node_modules", "@grpc")):
        pytest.fail("Node and clients/node/node_modules are needed: `python3 scripts/dev test` installs them")
    daemon = make_daemon("--metrics-listen", "127.0.0.1:0").start()
    metrics = "http://" + daemon.wait_for("metrics on").split("http://", 1)[1].strip()
    proc = await asyncio.create_subprocess_exec(node, "test/replier.mjs", daemon.target,
                                                "ticket" if by_ticket else "head", cwd=NODE_CLIENT,
                                                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    assert proc.stdout is not None
    assert json.loads(await asyncio.wait_for(proc.stdout.readline(), 60)) == {"step": "ready"}
    async with Client(daemon.target) as asker:
        answers = [await asker.ask("node-worker", f"task {i}", timeout=30) for i in range(3)]
        await asker.send("node-worker", "a plain note", sender="boss")
        out, err = await asyncio.wait_for(proc.communicate(), 60)
        assert proc.returncode == 0, err.decode()
        assert json.loads(out.decode().splitlines()[-1]) == {"step": "done", "plain": ["a plain note"]}
        assert answers == [f"done: task {i}" for i in range(3)]
        assert (await asker.peek("node-worker")).unread_count == 0  # the tasks were consumed, the note acked
    body = urllib.request.urlopen(metrics, timeout=30).read().decode()
    assert calls(body, "Reply") == 3
    assert calls(body, "AckMessages") == 1, "only the plain note is acked, once, when the loop ends"
