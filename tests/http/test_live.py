"""fabricd.http.live in process: nothing read without a page, a Panel's part follows its key, views withhold it."""

from __future__ import annotations

import json

import pytest

from fabricd.core.model import Address, Message, RowState
from fabricd.core.outbox import OUTBOX
from fabricd.core.paging import Listed
from fabricd.daemon.app import App
from fabricd.http import views
from fabricd.http.live import Live, Panel
from fabricd.rpc.auth import Identity


@pytest.fixture
def app(wired_app: App) -> App:
    return wired_app


def demo_panel(reads: list[int]) -> Panel:
    async def read(was: object, moved: set[str] | None) -> dict[str, object]:
        reads.append(len(reads) + 1)
        return {"reads": len(reads), "secret": "only for admins"}

    return Panel("demo", "ListMailboxes", lambda key: key == "demo", read,
                 withhold=lambda data, agent_id: {**data, "secret": ""})


async def test_a_panel_is_read_only_while_a_page_watches_and_again_when_its_key_moves(app: App) -> None:
    reads: list[int] = []
    live = Live(app.core)
    live.sections.append(demo_panel(reads))
    app.notifier.listeners.append(live.note)
    app.notifier.notify("demo")
    app.notifier.notify("directory")
    assert reads == [] and live.snapshot is None  # no page: the wake-ups are only noted
    await live.watch()
    first = await live.settled()  # the quick picture, then the full one: each reads the panel
    assert first is not None and first.sections["demo"][1]["reads"] == len(reads) == 2
    seen = len(reads)
    app.notifier.notify("demo")
    after = await live.next(first.version, 30)
    assert after is not None and after.sections["demo"][1]["reads"] == seen + 1
    app.notifier.notify("mailbox/nobody")  # a key the panel does not follow: its part is not read again
    later = await live.next(after.version, 30)
    assert later is not None and later.sections["demo"][1]["reads"] == seen + 1 and len(reads) == seen + 1
    live.unwatch()
    live.close()


async def test_an_agent_sees_a_panel_as_its_withhold_leaves_it_and_an_admin_whole(app: App) -> None:
    live = Live(app.core)
    live.sections.append(demo_panel([]))
    app.notifier.listeners.append(live.note)
    await live.watch()
    picture = await live.settled()
    assert picture is not None
    admin = json.loads(await views.encode(picture, Identity("admin", token_id="t1"), app.guard))
    agent = json.loads(await views.encode(picture, Identity("agent", "bob", "t2"), app.guard))
    assert admin["sections"]["demo"]["secret"] == "only for admins"
    assert agent["sections"]["demo"]["secret"] == ""
    assert "tokens" in admin and "tokens" not in agent
    live.unwatch()
    live.close()


async def test_mail_moving_in_a_few_mailboxes_rereads_their_entries_not_the_whole_directory(app: App) -> None:
    """A send moves its recipient's unread count: the next picture has it, read from that entry alone; a mailbox
    the picture does not know yet (made by a send) and a directory change re-read the whole directory."""
    for name in ("alice", "bob", "carol"):
        await app.core.directory.register(name)
    live = Live(app.core)
    whole: list[int] = []
    read_whole = live._entries

    async def counted() -> list:  # type: ignore[type-arg]
        whole.append(1)
        return await read_whole()

    live._entries = counted  # type: ignore[method-assign]
    app.notifier.listeners.append(live.note)
    await live.watch()
    first = await live.settled()
    assert first is not None
    reads = len(whole)

    def unread(picture: object) -> dict[str, int]:
        return {e.agent_id: e.unread_count for e in picture.entries}  # type: ignore[attr-defined]

    await app.core.mailboxes.send(Message(sender=Address("bob"), recipient=Address("alice"), text="hi"))
    moved = await live.settled()
    assert moved is not None and moved.version > first.version
    assert unread(moved) == {"alice": 1, "bob": 0, "carol": 0}
    assert [e.agent_id for e in moved.entries] == [e.agent_id for e in first.entries]
    assert len(whole) == reads  # alice's entry alone was read
    await app.core.mailboxes.send(Message(sender=Address("bob"), recipient=Address("dave"), text="hi"), True)
    made = await live.settled()
    assert made is not None and unread(made)["dave"] == 1 and len(whole) == reads + 1
    await app.core.directory.unregister("carol", True)
    gone = await live.settled()
    assert gone is not None and "carol" not in unread(gone) and len(whole) == reads + 2
    live.unwatch()
    live.close()


async def test_a_retry_between_the_outbox_reads_is_read_again_not_lost(app: App) -> None:
    """The picture reads pending rows, then dead ones. A retry landing between the two moved its row from dead to
    pending behind both reads, and the page showed an empty outbox while the row waited (a flaky page test on
    PostgreSQL): the OUTBOX wake-up of the retry makes the picture read both again."""
    live = Live(app.core)
    app.notifier.listeners.append(live.note)
    await live.watch()
    await live.settled()
    row = object()
    state = {"row": RowState.DEAD_LETTER}
    real = app.core.outbox

    class Outbox:
        async def list(self, limit: int, after: str, wanted: int, page_size: int) -> Listed[object]:
            items = [row] if state["row"] == wanted else []
            if wanted == RowState.PENDING and state["row"] == RowState.DEAD_LETTER:
                state["row"] = RowState.PENDING  # the retry commits now, and wakes the outbox
                app.notifier.notify(OUTBOX)
            return Listed(items)

    app.core.outbox = Outbox()  # a stand-in that plays the race
    try:
        read = await live._outbox()
    finally:
        app.core.outbox = real
    assert read["pending"] == [row] and read["dead"] == []
    live.unwatch()
    live.close()
