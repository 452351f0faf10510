"""The overseer page in a real browser: Debian's headless chromium, driven by Playwright for Python.

Playwright is pointed at /usr/bin/chromium (scripts/dev test installs the package) and never downloads a
browser. Each test gets a fresh profile. Screenshots of the main views are written into docs/ by the LMDB
runs, so docs/overseer.md shows the page as it is.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import AsyncIterator

import pytest
from playwright.async_api import BrowserContext, Page, async_playwright, expect

from fabricd.client import Client
from tests.conftest import ROOT
from tests.http.conftest import Page as Overseer

BACKENDS = ("lmdb", "postgres")
LMDB_ONLY = ("test_a_wrong_token_is_refused_by_the_page", "test_hostile_text_is_shown_as_text_and_never_runs",
             "test_the_page_catches_up_after_its_connection_drops",
             "test_a_lease_shows_live_with_its_holder_and_goes_when_released")
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
DOCS = os.path.join(ROOT, "docs")
HOSTILE = '<script>window.pwned = 1</script></textarea><img src=x onerror="window.pwned = 2">'


@pytest.fixture
async def browser(tmp_path) -> AsyncIterator[BrowserContext]:
    if shutil.which(CHROMIUM) is None:
        pytest.fail("chromium is not installed: run `python3 scripts/dev test` as root (apt-get install chromium)")
    async with async_playwright() as p:
        context = await p.chromium.launch_persistent_context(
            str(tmp_path / "profile"), executable_path=CHROMIUM, headless=True, args=FLAGS,
            viewport={"width": 1280, "height": 900})
        try:
            yield context
        finally:
            await context.close()


class Console:
    """The page's console errors and uncaught exceptions."""

    def __init__(self, page: Page) -> None:
        self.errors: list[str] = []
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))


async def open_signed_in(browser: BrowserContext, overseer: Overseer, act_as: str = "alice") -> tuple[Page, Console]:
    page = await browser.new_page()
    console = Console(page)
    await page.goto(overseer.url)
    await page.fill("#token", overseer.admin_token)
    await page.fill("#act-as", act_as)
    await page.click("#signin-form button[type=submit]")
    await expect(page.locator("#main")).to_be_visible()
    await expect(page.locator("#live")).to_have_text("live")
    return page, console


async def screenshot(page: Page, backend: str, name: str) -> None:
    """The page as a picture; docs/' pictures are written again only when FABRICD_DOC_PICTURES=1 (LMDB run), so
    a test run leaves the checkout as it found it."""
    data = await page.screenshot(full_page=True)
    assert data.startswith(b"\x89PNG")
    if not backend and os.environ.get("FABRICD_DOC_PICTURES") == "1":
        with open(os.path.join(DOCS, name), "wb") as f:
            f.write(data)


async def test_the_page_shows_a_registered_agent_and_its_unread_count_live(page: Overseer, browser, backend) -> None:
    async with Client(page.daemon.target) as agent:
        await agent.register("builder", session_name="build", capabilities=["compile"], cwd="/src/app")
        await agent.touch("builder", busy=True)
        tab, console = await open_signed_in(browser, page)
        row = tab.locator("#agents tr[data-agent=builder]")
        await expect(row).to_contain_text("/src/app")
        await expect(row).to_contain_text("BUSY")
        await expect(row.locator("td").nth(6)).to_have_text("0")
        await agent.send("builder", "build #41 is done", sender="tester")
        await expect(row.locator("td").nth(6)).to_have_text("1")  # pushed by the event stream, no reload
        await row.click()  # an admin looks into the agent's mailbox (nothing consumed)
        await expect(tab.locator("#mailbox-owner")).to_have_text("builder")
        await expect(tab.locator("#mailbox tbody tr")).to_contain_text("build #41 is done")
        await agent.send("human:alice", "the nightly build failed", sender="builder", thread_id="nightly")
        await expect(tab.locator("#inbox tbody tr")).to_have_count(1)
        await tab.locator("#inbox tbody tr").first.click()
        await expect(tab.locator("#message-text")).to_have_text("the nightly build failed")
        await screenshot(tab, backend, "overseer-agents.png")
    assert console.errors == []


async def test_a_person_answers_in_the_browser_an_ask_a_client_is_blocked_on(page: Overseer, browser,
                                                                              backend) -> None:
    tab, console = await open_signed_in(browser, page)
    async with Client(page.daemon.target) as agent:
        asking = asyncio.create_task(agent.ask("human:alice", "Ship release 2.3 to production?",
                                               source_agent="release-bot", timeout=60))
        ask = tab.locator("#asks tbody tr")
        await expect(ask).to_contain_text("Ship release 2.3 to production?")
        await expect(ask).to_contain_text("release-bot")
        await screenshot(tab, backend, "overseer-asks.png")
        answer = ask.locator("input[name=result]")
        await answer.fill("yes, ")
        await agent.register("bystander")  # the page updates while the person types: the answer stays
        await expect(tab.locator("#agents tr[data-agent=bystander]")).to_have_count(1)
        await answer.press_sequentially("ship it")
        await ask.locator("button[type=submit]").click()
        assert await asyncio.wait_for(asking, 30) == "yes, ship it"
        await expect(ask).to_have_count(0)
    assert console.errors == []


async def test_a_channel_s_log_moves_live_and_a_person_posts_to_it_from_the_page(page: Overseer, browser,
                                                                                  backend) -> None:
    async with Client(page.daemon.target) as agent:
        await agent.register("builder")
        await agent.create_channel("release", description="the 2.3 release")
        await agent.join_channel("release", "builder")
        tab, console = await open_signed_in(browser, page)
        channel = tab.locator("#panel-channels .channel[data-channel=release]")
        await expect(channel.locator("h3")).to_contain_text("#release")
        await agent.publish("release", "tests are green", sender="builder")
        await expect(channel.locator("tbody tr")).to_contain_text("tests are green")  # live, no reload
        await channel.locator("input[name=text]").fill("ship it")
        await channel.locator("button[type=submit]").click()
        await expect(channel.locator("tbody tr").nth(1)).to_contain_text("ship it")
        assert "ship it" in [m.text for m in (await agent.peek("builder")).messages]
        await screenshot(tab, backend, "overseer-channels.png")
    assert console.errors == []


async def test_a_lease_shows_live_with_its_holder_and_goes_when_released(page: Overseer, browser, backend) -> None:
    async with Client(page.daemon.target) as agent:
        await agent.register("builder", session_name="build")
        tab, console = await open_signed_in(browser, page)
        await expect(tab.locator("#panel-leases")).to_contain_text("no live leases")
        lease = await agent.acquire_lease("builder", ["src/app/**"], ttl=600, reason="refactor")
        row = tab.locator("#leases tbody tr[data-agent=builder]")
        await expect(row).to_contain_text("src/app/**")  # live, no reload
        await expect(row).to_contain_text("EXCLUSIVE")
        await expect(row).to_contain_text("refactor")
        await expect(row.locator("td").nth(4)).to_have_text(str(lease.fencing_token))
        await agent.release_lease(lease.lease_id)
        await expect(row).to_have_count(0)
        await expect(tab.locator("#panel-leases")).to_contain_text("no live leases")
    assert console.errors == []


async def test_a_wrong_token_is_refused_by_the_page(page: Overseer, browser) -> None:
    tab = await browser.new_page()
    await tab.goto(page.url)
    await tab.fill("#token", "fdt_wrong")
    await tab.click("#signin-form button[type=submit]")
    await expect(tab.locator("#signin-error")).to_contain_text("BAD_TOKEN")
    await expect(tab.locator("#main")).to_be_hidden()


async def test_hostile_text_is_shown_as_text_and_never_runs(page: Overseer, browser) -> None:
    async with Client(page.daemon.target) as agent:
        await agent.register("mallory", cwd=HOSTILE, capabilities=["</td><b>bold</b>"])
        await agent.send("human:alice", HOSTILE, sender="mallory", thread_id=HOSTILE, create_mailbox=True)
        tab, console = await open_signed_in(browser, page)
        asking = asyncio.create_task(agent.ask("human:alice", HOSTILE, source_agent="mallory", timeout=60))
        await expect(tab.locator("#inbox tbody tr td").nth(1)).to_have_text(HOSTILE)
        await expect(tab.locator("#asks tbody tr td").nth(2)).to_have_text(HOSTILE)
        await expect(tab.locator("#agents tr[data-agent=mallory] td").nth(3)).to_have_text(HOSTILE)
        await tab.locator("#inbox tbody tr").first.click()
        await expect(tab.locator("#message-text")).to_have_text(HOSTILE)
        assert await tab.evaluate("window.pwned") is None
        assert await tab.locator("main img, main b, main script").count() == 0
        asking.cancel()
    assert console.errors == []


class Cable:
    """A TCP relay between the browser and the page that the test can cut, and keep cut, at will."""

    def __init__(self, url: str) -> None:
        self._host, self._port = url.split("//")[1].rstrip("/").rsplit(":", 1)
        self.down = False
        self._writers: set[asyncio.StreamWriter] = set()
        self.url = ""

    async def __aenter__(self) -> Cable:
        self._server = await asyncio.start_server(self._relay, "127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{self._server.sockets[0].getsockname()[1]}/"
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.cut()
        self._server.close()

    def cut(self) -> None:
        for w in self._writers:
            w.close()
        self._writers.clear()

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.down:
            writer.close()
            return
        up_reader, up_writer = await asyncio.open_connection(self._host, int(self._port))
        self._writers.update((writer, up_writer))

        async def pipe(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            try:
                while data := await r.read(65536):
                    w.write(data)
                    await w.drain()
            except (ConnectionError, OSError):
                pass
            finally:
                w.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))


async def test_the_page_catches_up_after_its_connection_drops(page: Overseer, browser) -> None:
    async with Client(page.daemon.target) as agent, Cable(page.url) as cable:
        await agent.register("worker")
        tab, console = await open_signed_in(browser, Overseer(page.daemon, cable.url, page.admin_token))
        row = tab.locator("#agents tr[data-agent=worker]")
        await expect(row.locator("td").nth(6)).to_have_text("0")
        cable.down = True
        cable.cut()
        await expect(tab.locator("#live")).to_have_text("reconnecting")
        await agent.send("worker", "sent while the page was away", sender="tester")
        cable.down = False
        await expect(tab.locator("#live")).to_have_text("live", timeout=15_000)
        await expect(row.locator("td").nth(6)).to_have_text("1")
