"""What a person does from the overseer page, and what the page then shows, over its HTTP API (both backends)."""

from __future__ import annotations

import asyncio
import shutil
import tempfile

import aiohttp

from fabricd.client import Aborted, Client
from tests.conftest import Daemon
from tests.e2e.test_outbox import job
from tests.http.conftest import Page, Web

BACKENDS = ("lmdb", "postgres")
# PostgreSQL only by nature: two nodes on one database (pg_url), whatever the module's backends.


async def test_an_admin_retries_a_dead_letter_and_the_page_sees_it_delivered(make_daemon) -> None:
    daemon = make_daemon("--http", "127.0.0.1:0", "--max-unread", "1", "--outbox-backoff", "0.01",
                         "--outbox-backoff-cap", "0.02", "--outbox-max-attempts", "2").start()
    url = daemon.wait_for("overseer page on").split(" on ", 1)[1].strip()
    async with Client(daemon.target) as client, aiohttp.ClientSession(
            cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
        web = Web(http, url)
        token = (await client.issue_token(admin=True)).token
        await web.sign_in(token, "ops")
        await client.register("parent")
        await client.send("parent", "fills the mailbox")
        await client.fan_out(job(), "the result")
        dead: list[dict] = []
        async for name, data in web.events():
            if name == "fabric" and data["outbox"]["dead"]:
                dead = data["outbox"]["dead"]
                break
        assert dead[0]["recipient"] == "parent" and "MAILBOX_FULL" in dead[0]["last_error"]
        await client.drain("parent")
        status, body = await web.post("api/outbox/retry", {"keys": [dead[0]["key"]]})
        assert (status, body) == (200, {"retried": 1})
        async for name, data in web.events():
            if name == "fabric" and not data["outbox"]["dead"] and not data["outbox"]["pending"]:
                break
        assert [m.text.endswith("\n\nthe result") for m in (await client.peek("parent")).messages] == [True]


async def test_a_person_cancels_an_ask_and_the_asker_is_told(page: Page, web: Web) -> None:
    await web.sign_in(page.admin_token, "alice")
    async with Client(page.daemon.target) as agent:
        asking = asyncio.create_task(agent.ask("human:alice", "may I delete the logs?", source_agent="janitor",
                                               timeout=60))
        async for _name, data in web.events():
            mine = [q for q in data.get("queues", ()) if q["target"] == "human:alice"]
            if mine:
                ticket = mine[0]["tickets"][0]["ticket_id"]
                break
        assert (await web.post(f"api/tickets/{ticket}/cancel", {}))[1] == {"ticket_id": ticket, "cancelled": True}
        try:
            await asyncio.wait_for(asking, 30)
        except Aborted:
            pass
        else:
            raise AssertionError("the ask returned an answer after its ticket was cancelled")


async def test_mail_a_person_sends_arrives_from_the_person_and_shows_in_their_inbox_live(page: Page, web: Web,
                                                                                         other_web: Web) -> None:
    await web.sign_in(page.admin_token, "alice")
    await other_web.sign_in(page.admin_token, "bob")
    async with Client(page.daemon.target) as agent:
        await agent.register("builder")
        status, sent = await web.post("api/messages", {"to": "builder", "text": "rebuild please", "thread_id": "t1"})
        assert status == 200, sent
        (message,) = (await agent.peek("builder")).messages
        assert (message.sender.agent_id, message.text, message.thread_id) == ("human:alice", "rebuild please", "t1")
        inboxes = other_web.events()
        async for name, data in inboxes:
            if name == "inbox":
                assert data == {"agent_id": "human:bob", "messages": [], "unread": 0}
                break
        await web.post("api/messages", {"to": "human:bob", "text": "lunch?"})
        async for name, data in inboxes:
            if name == "inbox" and data["messages"]:
                assert [(m["sender"], m["text"]) for m in data["messages"]] == [("human:alice", "lunch?")]
                break
        await inboxes.aclose()


async def test_revoking_a_token_ends_its_open_event_stream(page: Page, web: Web) -> None:
    async with Client(page.daemon.target) as admin:
        await admin.register("bob")
        issued = await admin.issue_token(agent_id="bob")
        await web.sign_in(issued.token)
        seen = []
        async for name, _ in web.events():
            seen.append(name)
            if name == "fabric" and len(seen) == 1:
                await admin.revoke_token(issued.info.token_id)
        assert seen[0] == "fabric"  # the stream ended (the loop is over) once the token was revoked


async def test_the_daemon_stops_cleanly_with_pages_open(page: Page, web: Web) -> None:
    await web.sign_in(page.admin_token, "alice")
    names = []
    async for name, _ in web.events():
        names.append(name)
        if len(names) == 1:
            page.daemon.proc.send_signal(15)  # SIGTERM: the daemon ends the page's stream and stops
    assert names[0] == "fabric"
    assert page.daemon.proc.wait(30) == 0


async def test_any_postgresql_node_serves_the_page_and_sees_what_another_node_writes(pg_url, tmp_path,
                                                                                     sock_dir) -> None:
    other_sock = tempfile.mkdtemp(prefix="fo-", dir="/tmp")
    writer = Daemon(str(tmp_path / "a"), sock_dir, "--store", pg_url).start()
    viewer = Daemon(str(tmp_path / "b"), other_sock, "--store", pg_url, "--http", "127.0.0.1:0").start()
    try:
        url = viewer.wait_for("overseer page on").split(" on ", 1)[1].strip()
        async with Client(writer.target) as on_a, aiohttp.ClientSession(
                cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
            token = (await on_a.issue_token(admin=True)).token  # issued on node A, signs in on node B at once
            web = Web(http, url)
            assert (await web.sign_in(token, "alice"))[0] == 200
            await on_a.register("far-away")
            async for name, data in web.events():
                if name == "fabric" and "far-away" in {a["id"] for a in data["agents"]}:
                    break
            await on_a.send("far-away", "written on node A")
            async for name, data in web.events():
                agents = {a["id"]: a for a in data.get("agents", ())}
                if name == "fabric" and agents.get("far-away", {}).get("unread") == 1:
                    break
    finally:
        writer.stop()
        viewer.stop()
        shutil.rmtree(other_sock, ignore_errors=True)


async def test_a_channel_s_log_is_live_on_the_page_and_a_person_posts_to_it(page: Page, web: Web,
                                                                           other_web: Web) -> None:
    async with Client(page.daemon.target) as admin:
        await admin.register("builder")
        await admin.register("outsider")
        await admin.create_channel("release", description="the 2.3 release")
        await admin.join_channel("release", "builder")
        outsider = (await admin.issue_token(agent_id="outsider")).token
        await web.sign_in(page.admin_token, "alice")
        await other_web.sign_in(outsider)

        async def picture(w: Web, seq: int) -> dict:
            async for name, data in w.events():
                found = [c for c in data.get("sections", {}).get("channels", {}).get("channels", ())
                         if c["name"] == "release"]
                if name == "fabric" and found and found[0]["last_seq"] >= seq:
                    return found[0]
            raise AssertionError("the event stream ended")

        await admin.publish("release", "tests are green", sender="builder")
        shown = await picture(web, 1)
        assert [(p["sender"], p["text"]) for p in shown["posts"]] == [("builder", "tests are green")]
        assert shown["member_ids"] == ["builder"] and shown["description"] == "the 2.3 release"
        status, body = await web.post("api/channels/release/posts", {"text": "ship it"})
        assert status == 200 and body["seq"] == 2, body
        shown = await picture(web, 2)
        assert [(p["sender"], p["text"]) for p in shown["posts"]][-1] == ("human:alice", "ship it")
        assert "ship it" in [m.text for m in (await admin.peek("builder")).messages]  # the member's copy

        hidden = await picture(other_web, 2)  # not a member: the channel, its counts, no members, no posts
        assert hidden["count"] == 2 and hidden["posts"] == [] and hidden["member_ids"] == []
        status, body = await other_web.post("api/channels/release/posts", {"text": "let me in"})
        assert status == 403 and body["error"]["reason"] == "NOT_A_MEMBER", body
