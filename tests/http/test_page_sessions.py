"""Overseer sessions are signed cookies, not daemon memory: any node of a PostgreSQL fabric serves a session
another node signed in, a restart keeps it, and a forged or altered cookie, a signed-out one or one of a revoked
token is refused.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
import time
from collections.abc import Iterator

import aiohttp
import pytest

from fabricd.client import Client
from tests.conftest import Daemon
from tests.http.conftest import Page, Web

BACKENDS = ("lmdb", "postgres")
LMDB_ONLY = ("test_an_altered_or_forged_cookie_is_refused", "test_signing_out_ends_the_session_and_its_event_stream")


def page_url(daemon: Daemon) -> str:
    return daemon.wait_for("overseer page on").split(" on ", 1)[1].strip()


def cookie_of(web: Web) -> str:
    return next(c.value for c in web.http.cookie_jar if c.key == "fabricd_session")


async def signed_in(web: Web) -> bool:
    return bool((await web.get("api/session"))[1]["signed_in"])


async def until(check, timeout: float = 10.0) -> None:  # an async predicate
    """Polls an observable state (a session's answer) until it holds: what another node learns by a wake-up."""
    deadline = time.monotonic() + timeout
    while not await check():
        assert time.monotonic() < deadline, "the state never came"
        await asyncio.sleep(0.05)


async def test_a_session_outlives_a_daemon_restart(page: Page, web: Web) -> None:
    status, before = await web.sign_in(page.admin_token, "alice")
    assert status == 200, before
    page.daemon.restart()
    web.url = page_url(page.daemon)  # a new port: cookies are per host, so the jar sends it there too
    status, after = await web.get("api/session")
    assert status == 200 and after == before, after
    status, body = await web.post("api/messages", {"to": "human:alice", "text": "still me"})
    assert status == 200, body


@pytest.fixture
def second_sock() -> Iterator[str]:
    path = tempfile.mkdtemp(prefix="fd-", dir="/tmp")
    yield path
    shutil.rmtree(path, ignore_errors=True)


async def test_any_node_serves_a_session_another_node_signed_in(pg_url: str, tmp_path,
                                                              second_sock: str, sock_dir: str) -> None:
    first = Daemon(str(tmp_path / "first"), sock_dir, "--store", pg_url, "--http", "127.0.0.1:0").start()
    other = Daemon(str(tmp_path / "other"), second_sock, "--store", pg_url, "--http", "127.0.0.1:0").start()
    try:
        first_url = page_url(first)
        async with Client(first.target) as admin:
            admin_token = (await admin.issue_token(admin=True, label="two nodes")).token
        http = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))
        web = Web(http, first_url)
        other_url = page_url(other)
        status, session = await web.sign_in(admin_token, "alice")
        assert status == 200, session
        web.url = other_url
        assert (await web.get("api/session"))[1] == session
        status, body = await web.post("api/messages", {"to": "human:alice", "text": "from the other node"})
        assert status == 200, body  # the CSRF token node 1 gave is node 2's too
        async for name, data in web.events():
            if name == "inbox" and [m["text"] for m in data["messages"]] == ["from the other node"]:
                break
        async with Client(first.target) as admin:
            bob = await admin.issue_token(agent_id="bob")
            status, _ = await web.sign_in(bob.token)  # signed in on node 2 with a token node 1 issued
            assert status == 200
            await admin.revoke_token(bob.info.token_id)  # revoked through node 1: node 2 hears of it

        async def ended() -> bool:
            return not await signed_in(web)
        await until(ended)
        await http.close()
    finally:
        other.stop()
        first.stop()


async def test_an_altered_or_forged_cookie_is_refused(page: Page, web: Web) -> None:
    async with Client(page.daemon.target) as admin:
        bob = await admin.issue_token(agent_id="bob")
    await web.sign_in(bob.token)
    token_id, acting, started, seen, mac = cookie_of(web).split(".")
    carol = "Y2Fyb2w"  # base64url of "carol": an agent token acting as another agent
    later = str(int(seen) + 10_000)  # a renewal it did not get
    forgeries = [".".join((token_id, carol, started, seen, mac)), ".".join((token_id, acting, started, later, mac)),
                 ".".join((token_id, acting, started, seen, mac[:-2] + "AA")), "-." + ".".join((acting, started, seen, mac)),
                 "garbage", "a.b.c.d.e", ""]
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
        forged = Web(http, page.url)
        for value in forgeries:
            http.cookie_jar.clear()
            http.cookie_jar.update_cookies({"fabricd_session": value}, aiohttp.client.URL(page.url))
            assert (await forged.get("api/session"))[1] == {"signed_in": False}, value
            status, body = await forged.post("api/messages", {"to": "bob", "text": "forged"}, csrf="x")
            assert status == 401 and body["error"]["reason"] == "SESSION_REQUIRED", (value, body)
    async with Client(page.daemon.target) as admin:
        assert (await admin.peek("bob")).messages == []


async def test_signing_out_ends_the_session_and_its_event_stream(page: Page, web: Web) -> None:
    await web.sign_in(page.admin_token, "alice")
    cookie = cookie_of(web)
    stream = web.events()
    assert (await anext(stream))[0] == "fabric"
    assert (await web.post("api/signout", {}))[0] == 200
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
        http.cookie_jar.update_cookies({"fabricd_session": cookie}, aiohttp.client.URL(page.url))
        assert (await Web(http, page.url).get("api/session"))[1] == {"signed_in": False}  # a copy of it too
    async with Client(page.daemon.target) as admin:
        await admin.send("human:alice", "wakes the stream", sender="ops")  # a change: the stream looks again

    async def drained() -> None:
        async for _ in stream:
            pass
    await asyncio.wait_for(drained(), 30)  # the stream ended
