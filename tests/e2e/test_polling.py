"""Two fabricd nodes on one database without LISTEN/NOTIFY: wake-ups by polling still carry mail and answers.

CockroachDB and YugabyteDB lack LISTEN/NOTIFY. A node then wakes its own waiters
every poll interval, and each re-reads the database. Here both nodes run on a
real PostgreSQL with LISTEN/NOTIFY unused: once by the `poll_interval` setting,
once by the fallback a node takes when the database refuses LISTEN (simulated
with the test-only failpoint `listen-unsupported`, which answers the probe as
CockroachDB would).
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from collections.abc import Iterator

import asyncpg
import pytest

from fabricd.client import Client
from fabricd.store.postgres.poll import listen_supported
from tests.conftest import Daemon


@pytest.fixture(params=["setting", "detected"])
def pair(request, pg_url: str, tmp_path) -> Iterator[tuple[Daemon, Daemon]]:
    """Two nodes on one database, neither using LISTEN/NOTIFY, started."""
    args, env, says = (("--poll-interval", "0.05"), None, "polling every 0.05 s") if request.param == "setting" \
        else ((), {"FABRICD_TEST_FAILPOINT": "listen-unsupported"}, "does not support LISTEN/NOTIFY")
    made = [Daemon(str(tmp_path / f"data{i}"), tempfile.mkdtemp(prefix=f"fp{i}-", dir="/tmp"), "--store", pg_url,
                   *args, env=env) for i in range(2)]
    try:
        for d in made:
            d.start()
            assert any(says in line for line in d.output), "".join(d.output)
        yield made[0], made[1]
    finally:
        for d in made:
            if d.proc is not None and d.proc.poll() is None:
                d.kill()
            shutil.rmtree(d.socket.rsplit("/", 1)[0], ignore_errors=True)


async def test_a_send_on_one_node_reaches_a_subscriber_on_the_other(pair: tuple[Daemon, Daemon]) -> None:
    a, b = pair
    async with Client(a.target) as on_a, Client(b.target) as on_b:
        await on_b.register("bob")
        async with on_b.subscribe("bob") as inbox:
            for i in range(3):  # each arrives by a poll: B hears nothing from A
                await on_a.send("bob", f"hello {i}")
                message = await asyncio.wait_for(inbox.__anext__(), 10)
                assert message.text == f"hello {i}"


async def test_an_ask_on_one_node_is_answered_by_a_reply_on_the_other(pair: tuple[Daemon, Daemon]) -> None:
    a, b = pair
    async with Client(a.target) as on_a, Client(b.target) as on_b:
        await on_b.register("worker")
        asking = asyncio.create_task(on_a.ask("worker", "what is 6 x 7?", timeout=20))
        async with on_b.subscribe("worker", auto_ack=False) as inbox:
            task = await asyncio.wait_for(inbox.__anext__(), 10)
        assert "6 x 7" in task.text
        await on_b.reply("worker", "42")
        assert await asyncio.wait_for(asking, 20) == "42"


class _Refusing:
    """A connection whose LISTEN fails like a database's that lacks it (or for another reason)."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    async def execute(self, sql: str) -> None:
        raise self.error


async def test_listen_refused_as_unsupported_means_polling_and_other_errors_are_raised(pg_url: str) -> None:
    assert not await listen_supported(_Refusing(asyncpg.exceptions.FeatureNotSupportedError("unimplemented")))
    assert not await listen_supported(_Refusing(asyncpg.exceptions.PostgresSyntaxError("at or near listen")))
    with pytest.raises(asyncpg.exceptions.InsufficientPrivilegeError):
        await listen_supported(_Refusing(asyncpg.exceptions.InsufficientPrivilegeError("no")))
    conn = await asyncpg.connect(pg_url)
    try:
        assert await listen_supported(conn)  # PostgreSQL itself has it
        assert await conn.fetch("SELECT pg_listening_channels()") == []  # and the probe leaves nothing behind
    finally:
        await conn.close()
