"""A typo in an agent's name is NOT_FOUND with the closest names everywhere, and a session name works everywhere."""

from __future__ import annotations

import pytest

from fabricd.client import Client, NotFound
from tests.e2e.test_cli import fabric

BACKENDS = ("lmdb", "postgres")
HINT = "did you mean 'researcher'?"


@pytest.mark.parametrize("command", [
    ("peek", "researchr"), ("drain", "researchr"), ("tail", "researchr", "--wait", "5"), ("queue", "researchr"),
    ("wait", "researchr", "--timeout", "30"), ("ask", "researchr", "hello", "--timeout", "5"),
    ("wake", "set", "researchr", "--command", "--", "true"), ("resolve", "researchr"), ("unregister", "researchr"),
    ("a2a", "card", "researchr"),
])
def test_a_typo_in_a_name_is_refused_with_the_closest_name(daemon, command) -> None:
    assert fabric(daemon, "register", "researcher", "--name", "lead").returncode == 0
    result = fabric(daemon, *command)
    assert result.returncode == 1 and HINT in result.stderr, result.stderr
    assert "[NAME_NOT_FOUND]" in result.stderr or "[UNKNOWN_TARGET]" in result.stderr or \
        "[INVALID_PARAMS]" in result.stderr


async def test_asking_or_listing_the_queue_of_a_name_no_one_has_is_not_found_with_suggestions(
        daemon) -> None:
    async with Client(daemon.target) as client:
        await client.register("researcher")
        for call in (client.get_queue, client.resolve):
            with pytest.raises(NotFound) as caught:
                await call("researchr")
            assert caught.value.reason == "NAME_NOT_FOUND"
            assert caught.value.metadata["suggestions"] == "researcher"
        assert not (await client.peek("researchr")).messages  # the daemon's reads stay empty: an agent may
        assert not (await client.drain("researchr")).messages  # read before its first mail makes its mailbox
        with pytest.raises(NotFound) as caught:
            await client.enqueue("researchr", "hello")
        assert caught.value.reason == "UNKNOWN_TARGET" and caught.value.metadata["suggestions"] == "researcher"
        await client.touch("created-by-touch")  # an existing mailbox with no mail is empty, not unknown
        assert not (await client.peek("created-by-touch")).messages
        assert not (await client.drain("created-by-touch")).messages


def test_every_mail_and_wake_command_takes_a_session_name(daemon) -> None:
    assert fabric(daemon, "register", "agent-7f3a", "--name", "reviewer").returncode == 0
    assert fabric(daemon, "send", "reviewer", "please review", "--from", "me").returncode == 0
    assert "please review" in fabric(daemon, "peek", "reviewer").stdout
    assert "please review" in fabric(daemon, "tail", "reviewer", "-n", "1").stdout
    assert "1 unread" in fabric(daemon, "wait", "reviewer").stdout
    woken = fabric(daemon, "wake", "set", "reviewer", "--command", "--", "true")
    assert woken.returncode == 0, woken.stderr
    assert "run true" in fabric(daemon, "wake", "show", "reviewer").stdout
    assert fabric(daemon, "wake", "clear", "reviewer").returncode == 0
    drained = fabric(daemon, "drain", "reviewer")
    assert "please review" in drained.stdout and "0 left unread" in drained.stdout
    assert "0 unread" in fabric(daemon, "peek", "agent-7f3a").stdout
