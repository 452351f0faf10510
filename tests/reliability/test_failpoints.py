"""A crash in the writer, before or after the commit: an idempotent resend gives exactly one message."""

from __future__ import annotations

import pytest

from fabricd.client import Client, Unavailable


@pytest.mark.parametrize(("point", "stored_before_crash"), [("before-commit", False), ("after-commit", True)])
async def test_a_resend_after_a_writer_crash_gives_exactly_one_message(make_daemon, point, stored_before_crash) -> None:
    daemon = make_daemon(env={"FABRICD_TEST_FAILPOINT": point})
    daemon.start()
    async with Client(daemon.target) as client:
        with pytest.raises(Unavailable):  # the daemon died before answering
            await client.send("alice", "important", id="only-once", create_mailbox=True)
    assert daemon.proc.wait(30) == 86
    daemon.env = None  # the restarted daemon runs without the failpoint
    daemon.start()
    async with Client(daemon.target) as client:
        before = (await client.peek("alice")).unread_count
        assert before == (1 if stored_before_crash else 0)
        again = await client.send("alice", "important", id="only-once", create_mailbox=True)
        assert again.duplicate is stored_before_crash
        peek = await client.peek("alice")
        assert [m.id for m in peek.messages] == ["only-once"]
