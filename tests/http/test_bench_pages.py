"""scripts/bench_pages.py (scripts/bench --pages): open pages paint, follow changes, and close cleanly."""

from __future__ import annotations

import asyncio
import os
import sys

from fabricd.client import Client
from tests.http.conftest import Page

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "scripts"))

import bench_pages


def test_the_page_url_is_read_from_a_json_or_a_plain_announcement() -> None:
    assert bench_pages.page_url('{"message": "fabricd overseer page on http://127.0.0.1:1/", '
                                '"url": "http://127.0.0.1:1/"}') == "http://127.0.0.1:1/"
    assert bench_pages.page_url("fabricd overseer page on http://127.0.0.1:2/\n") == "http://127.0.0.1:2/"


async def test_pages_open_paint_follow_changes_and_close(page: Page) -> None:
    async with Client(page.daemon.target) as client:
        await bench_pages.populate(client, 50)
        pages = bench_pages.Pages(page.url, page.admin_token, 3)
        await pages.open()
        try:
            assert len(pages.first_paint_ms) == 3
            painted = pages.events
            await client.send("page-agent-0", "more")
            await asyncio.wait_for(pages.until(painted + 3), 30)  # each page gets the picture with the new mail
        finally:
            await pages.close()
    assert bench_pages.rss_mb(page.daemon.proc.pid) > 0
