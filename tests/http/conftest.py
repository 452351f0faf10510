"""Fixtures for the overseer page: a daemon serving it on a free loopback port, an admin token, HTTP sessions.

The daemon listens on its unix socket (a trusted local caller: the tests' admin client) and serves the page on
127.0.0.1 with auth.tokens auto, so the page asks for a token as it would on any TCP port.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import aiohttp
import pytest

from fabricd.client import Client
from tests.conftest import Daemon


@dataclass
class Page:
    daemon: Daemon
    url: str
    admin_token: str


@pytest.fixture
async def page(make_daemon) -> Page:
    daemon = make_daemon("--http", "127.0.0.1:0").start()
    url = daemon.wait_for("overseer page on").split(" on ", 1)[1].strip()
    async with Client(daemon.target) as admin:
        token = (await admin.issue_token(admin=True, label="overseer tests")).token
    return Page(daemon, url, token)


class Web:
    """One browser-like HTTP session: a cookie jar, and the CSRF token from sign-in."""

    def __init__(self, http: aiohttp.ClientSession, url: str) -> None:
        self.http = http
        self.url = url
        self.csrf = ""

    async def sign_in(self, token: str, act_as: str = "") -> tuple[int, dict[str, Any]]:
        async with self.http.post(self.url + "api/session", json={"token": token, "act_as": act_as}) as r:
            body = await r.json()
            self.csrf = body.get("csrf", "")
            return r.status, body

    async def post(self, path: str, body: dict[str, Any], *, csrf: str | None = None,
                   headers: dict[str, str] | None = None) -> tuple[int, dict[str, Any]]:
        sent = {"X-Fabricd-Csrf": self.csrf if csrf is None else csrf, **(headers or {})}
        async with self.http.post(self.url + path.lstrip("/"), json=body, headers=sent) as r:
            return r.status, await r.json()

    async def get(self, path: str) -> tuple[int, dict[str, Any]]:
        async with self.http.get(self.url + path.lstrip("/")) as r:
            return r.status, await r.json()

    async def events(self) -> AsyncIterator[tuple[str, dict[str, Any]]]:
        """The server-sent events, parsed: (event name, data)."""
        async with self.http.get(self.url + "api/events", timeout=aiohttp.ClientTimeout(total=60)) as r:
            assert r.status == 200, await r.text()
            name, data = "", ""
            async for raw in r.content:
                line = raw.decode().rstrip("\n")
                if line.startswith("event: "):
                    name = line[len("event: "):]
                elif line.startswith("data: "):
                    data = line[len("data: "):]
                elif not line and data:
                    yield name, json.loads(data)
                    name, data = "", ""


@pytest.fixture
async def web(page: Page) -> AsyncIterator[Web]:
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
        yield Web(http, page.url)


@pytest.fixture
async def other_web(page: Page) -> AsyncIterator[Web]:
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
        yield Web(http, page.url)
