"""Dropped connections, deadlines and cancelled calls leave no stream, waiter or ticket behind."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import textwrap

import grpc
import pytest

from fabricd.client import Client
from fabricd.v1 import mailbox_service_pb2 as mb
from fabricd.v1 import rendezvous_service_pb2 as rv
from tests.reliability.helpers import eventually, quiet

BACKENDS = ["lmdb", "postgres"]


def client_process(target: str, body: str) -> subprocess.Popen[str]:
    """A separate client process that prints "ready" once its call is under way."""
    script = textwrap.dedent(f"""
        import asyncio, sys
        from fabricd.client import Client
        async def main():
            async with Client({target!r}) as client:
        {textwrap.indent(textwrap.dedent(body), ' ' * 16)}
        asyncio.run(main())
    """)
    return subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)


async def test_a_client_killed_mid_stream_and_mid_ask_leaks_nothing(make_daemon) -> None:
    daemon = make_daemon("--reattach-grace", "0.2").start()  # the client's Ask has a request_key: kept that long
    # unary calls: a client's SendStream would count among the open streams and calls
    async with Client(daemon.target, streams=False) as client:
        await client.register("worker")
        baseline = (await client.get_status()).waiters
        await client.send("reader", "one", create_mailbox=True)
        procs = [
            client_process(daemon.target, """
                async with client.subscribe("reader") as inbox:
                    async for m in inbox:
                        print("ready", flush=True)
                        await asyncio.sleep(3600)
            """),
            client_process(daemon.target, """
                async for _ in client.watch_mailboxes():
                    print("ready", flush=True)
                    await asyncio.sleep(3600)
            """),
            client_process(daemon.target, """
                print("ready", flush=True)
                await client.ask("worker", "never answered", timeout=3600)
            """),
        ]
        for proc in procs:
            assert proc.stdout.readline().strip() == "ready"

        async def all_open() -> bool:
            s = await client.get_status()
            return s.open_streams >= 2 and s.open_waits == 1

        await eventually(all_open)
        for proc in procs:
            proc.send_signal(signal.SIGKILL)
            proc.wait(30)
        await quiet(client, baseline)

        async def retired() -> bool:  # retired by a background write after the asker's call was cancelled
            return await client.get_queue("worker") == []

        await eventually(retired, what="the dropped asker's ticket retired")
        assert (await client.peek("reader")).unread_count == 1  # unacked mail stays for the next reader


async def test_deadlines_and_cancelled_calls_leak_nothing(daemon) -> None:
    async with Client(daemon.target) as client:
        await client.register("worker")
        baseline = (await client.get_status()).waiters
        for _ in range(20):
            with pytest.raises(grpc.aio.AioRpcError) as err:
                await client.rendezvous.Ask(rv.AskRequest(target="worker", task="t"), timeout=0.05)
            assert err.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
            stream = client.mailbox.Subscribe(mb.SubscribeRequest(agent_id="nobody"))
            waiting = asyncio.ensure_future(stream.read())
            await asyncio.sleep(0)
            stream.cancel()
            waiting.cancel()
            wait = client.rendezvous.AwaitReply(rv.AwaitReplyRequest(ticket_id="x"), timeout=0.05)
            with pytest.raises(grpc.aio.AioRpcError):
                await wait
        await quiet(client, baseline)

        async def no_tickets() -> bool:
            return (await client.get_status()).queued_tickets == 0

        await eventually(no_tickets)
