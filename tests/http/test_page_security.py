"""The overseer page's security rules over plain HTTP: sign-in, the session cookie, CSRF, and what a token sees.

Where storage matters (what an agent token may read or do, a person answering an ask) each test runs on both
backends; rules decided before any read (no session, a bad token, CSRF) run on LMDB only.
"""

from __future__ import annotations

import asyncio

import aiohttp

from fabricd.client import Client
from tests.http.conftest import Page, Web

BACKENDS = ("lmdb", "postgres")
LMDB_ONLY = ("test_nothing_is_shown_or_done_without_a_session", "test_a_wrong_token_is_refused_and_gets_no_session",
             "test_the_session_cookie_is_httponly_samesite_strict_and_holds_no_token",
             "test_a_state_changing_request_without_the_csrf_token_writes_nothing",
             "test_the_page_is_served_with_a_policy_that_runs_only_its_own_script",
             "test_a_request_naming_another_host_is_refused_dns_rebinding")


async def showing(web: Web, queue: str) -> dict:
    """The first picture that shows `queue` (a first page paints the directory first, the queues next)."""
    async for name, data in web.events():
        if name == "fabric" and any(q["target"] == queue for q in data.get("queues", ())):
            return data
    raise AssertionError("the event stream ended")


async def test_nothing_is_shown_or_done_without_a_session(page: Page, web: Web) -> None:
    assert await web.get("api/session") == (200, {"signed_in": False})
    for path in ("api/events", "api/inbox"):
        status, body = await web.get(path)
        assert status == 401 and body["error"]["reason"] == "SESSION_REQUIRED", body
    status, body = await web.post("api/messages", {"to": "bob", "text": "hi"}, csrf="anything")
    assert status == 401 and body["error"]["reason"] == "SESSION_REQUIRED"


async def test_a_wrong_token_is_refused_and_gets_no_session(page: Page, web: Web) -> None:
    status, body = await web.sign_in("fdt_not-a-token", "alice")
    assert status == 401 and body["error"]["reason"] == "BAD_TOKEN", body
    status, body = await web.sign_in("", "alice")
    assert status == 401 and body["error"]["reason"] == "MISSING_TOKEN", body
    assert not list(web.http.cookie_jar)
    assert (await web.get("api/session"))[1] == {"signed_in": False}


async def test_the_session_cookie_is_httponly_samesite_strict_and_holds_no_token(page: Page, web: Web) -> None:
    async with web.http.post(page.url + "api/session", json={"token": page.admin_token, "act_as": "alice"}) as r:
        assert r.status == 200
        cookie = r.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie, cookie
    assert page.admin_token not in cookie
    assert page.admin_token not in "".join(page.daemon.output)


async def test_a_state_changing_request_without_the_csrf_token_writes_nothing(page: Page, web: Web) -> None:
    await web.sign_in(page.admin_token, "alice")
    refusals = [
        await web.post("api/messages", {"to": "human:alice", "text": "forged"}, csrf=""),
        await web.post("api/messages", {"to": "human:alice", "text": "forged"}, csrf="wrong"),
        await web.post("api/messages", {"to": "human:alice", "text": "forged"},
                       headers={"Origin": "https://evil.example"}),
        await web.post("api/messages", {"to": "human:alice", "text": "forged"},
                       headers={"Sec-Fetch-Site": "cross-site"}),
    ]
    async with web.http.post(page.url + "api/messages", data="to=human:alice&text=forged",
                             headers={"Content-Type": "application/x-www-form-urlencoded",
                                      "X-Fabricd-Csrf": web.csrf}) as r:
        refusals.append((r.status, await r.json()))
    for status, body in refusals:
        assert status == 403 and body["error"]["reason"] == "CSRF_REJECTED", body
    async with Client(page.daemon.target) as admin:
        assert not (await admin.peek("human:alice")).messages
    assert (await web.post("api/messages", {"to": "human:alice", "text": "mine"}))[0] == 200


async def test_the_page_is_served_with_a_policy_that_runs_only_its_own_script(page: Page, web: Web) -> None:
    async with web.http.get(page.url) as r:
        assert r.status == 200
        policy = r.headers["Content-Security-Policy"]
        html = await r.text()
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy and "frame-ancestors 'none'" in policy
    assert "<script src=\"/static/overseer.js\"" in html and "http" not in html.split("<body>")[1]


async def test_an_agent_token_sees_and_does_only_what_its_rpcs_allow(page: Page, web: Web) -> None:
    async with Client(page.daemon.target) as admin:
        await admin.register("bob")
        await admin.register("carol")
        bob_token = (await admin.issue_token(agent_id="bob")).token
        secret = await admin.enqueue("carol", "carol's secret task", source_agent="dave")
        await admin.send("bob", "for bob", sender="carol")
        await admin.send("carol", "for carol", sender="bob")
    status, session = await web.sign_in(bob_token, "carol")
    assert status == 403 and session["error"]["reason"] == "OUT_OF_SCOPE"  # an agent token acts as itself only
    status, session = await web.sign_in(bob_token)
    assert status == 200 and session["acting_as"] == "bob" and session["kind"] == "agent"

    fabric = await showing(web, "carol")
    assert {a["id"] for a in fabric["agents"]} >= {"bob", "carol"}
    assert "outbox" not in fabric and "tokens" not in fabric  # ListOutbox and ListTokens are admin calls
    carol = next(q for q in fabric["queues"] if q["target"] == "carol")
    assert carol["tickets"][0]["ticket_id"] == secret.ticket_id and carol["tickets"][0]["task"] == ""

    inbox = (await web.get("api/inbox"))[1]
    assert inbox["agent_id"] == "bob" and [m["text"] for m in inbox["messages"]] == ["for bob"]
    assert (await web.get("api/mailboxes/bob"))[1] == inbox
    status, body = await web.get("api/mailboxes/carol")  # PeekMessages of another agent: an admin's call
    assert status == 403 and body["error"]["reason"] == "OUT_OF_SCOPE", body
    status, body = await web.post(f"api/tickets/{secret.ticket_id}/cancel", {})
    assert status == 403 and body["error"]["reason"] == "OUT_OF_SCOPE", body
    status, body = await web.post(f"api/tickets/{secret.ticket_id}/reply", {"result": "forged"})
    assert status == 409 and body["error"]["reason"] == "NO_PENDING_REQUEST", body  # as bob: not in bob's queue
    status, body = await web.post("api/outbox/retry", {"keys": ["k"]})
    assert status == 403 and body["error"]["reason"] == "OUT_OF_SCOPE", body
    assert (await web.post("api/messages", {"to": "carol", "text": "from the page"}))[0] == 200
    async with Client(page.daemon.target) as admin:
        texts = [(m.sender.agent_id, m.text) for m in (await admin.peek("carol")).messages]
        assert texts[-2:] == [("bob", "for carol"), ("bob", "from the page")]  # after the ticket's task message
        assert (await admin.get_ticket(secret.ticket_id)).state == 1  # still QUEUED


async def test_a_person_answers_an_ask_an_agent_is_blocked_on(page: Page, web: Web) -> None:
    status, session = await web.sign_in(page.admin_token, "alice")
    assert status == 200 and session["acting_as"] == "human:alice" and session["human"]
    async with Client(page.daemon.target) as agent:
        assert (await agent.resolve("human:alice")).metadata["kind"] == "human"  # registered, in the directory
        asking = asyncio.create_task(agent.ask("human:alice", "deploy to prod?", source_agent="builder", timeout=30))
        ticket = None
        async for name, data in web.events():
            mine = [q for q in data.get("queues", ()) if q["target"] == "human:alice"]
            if name == "fabric" and mine:
                ticket = mine[0]["tickets"][0]
                break
        assert ticket is not None and ticket["task"] == "deploy to prod?" and ticket["asker"] == "builder"
        status, body = await web.post(f"api/tickets/{ticket['ticket_id']}/reply", {"result": "yes, go"})
        assert status == 200, body
        assert await asyncio.wait_for(asking, 10) == "yes, go"


async def test_revoking_the_token_ends_its_session(page: Page, web: Web) -> None:
    async with Client(page.daemon.target) as admin:
        issued = await admin.issue_token(agent_id="bob")
        await web.sign_in(issued.token)
        assert (await web.get("api/session"))[1]["signed_in"]
        await admin.revoke_token(issued.info.token_id)
    assert (await web.get("api/session"))[1] == {"signed_in": False}
    status, body = await web.post("api/messages", {"to": "bob", "text": "after"})
    assert status == 401 and body["error"]["reason"] == "SESSION_REQUIRED"


async def test_with_auth_off_anyone_who_reaches_the_page_signs_in_without_a_token(make_daemon) -> None:
    daemon = make_daemon("--http", "127.0.0.1:0", "--auth", "off").start()
    url = daemon.wait_for("overseer page on").split(" on ", 1)[1].strip()
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
        web = Web(http, url)
        status, session = await web.sign_in("", "ops")
        assert status == 200 and session["kind"] == "local" and session["acting_as"] == "human:ops", session
        assert (await web.post("api/messages", {"to": "human:ops", "text": "note to self"}))[0] == 200
        assert [m["text"] for m in (await web.get("api/inbox"))[1]["messages"]] == ["note to self"]


async def test_a_request_naming_another_host_is_refused_dns_rebinding(page: Page, web: Web) -> None:
    """A site whose name resolves to 127.0.0.1 gets nothing: not the page, not a sign-in."""
    port = page.url.rstrip("/").rsplit(":", 1)[1]
    for path in ("", "api/session"):
        async with web.http.get(page.url + path, headers={"Host": f"evil.example:{port}"}) as r:
            assert r.status == 403 and (await r.json())["error"]["reason"] == "CSRF_REJECTED"
    async with web.http.post(page.url + "api/session", json={"token": page.admin_token, "act_as": "x"},
                             headers={"Host": f"evil.example:{port}"}) as r:
        assert r.status == 403 and "Set-Cookie" not in r.headers
    async with web.http.get(page.url, headers={"Host": f"localhost:{port}"}) as r:
        assert r.status == 200
