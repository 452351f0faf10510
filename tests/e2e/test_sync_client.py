"""The synchronous facade over the same daemon."""

from __future__ import annotations

import threading
import time

import pytest

from fabricd.client import NotFound, SyncClient


def test_sync_client_sends_reads_subscribes_and_asks(daemon) -> None:
    with SyncClient(daemon.target) as client:
        client.register("alice", session_name="al")
        assert client.send("al", "hi", sender="bob").message.seq == 1
        assert [m.text for m in client.peek("alice").messages] == ["hi"]
        for message in client.subscribe("alice"):
            assert message.text == "hi"
            break
        assert client.peek("alice").unread_count == 0  # handled and acked on leaving the loop
        with pytest.raises(NotFound):
            client.resolve("nobody")

        def serve() -> None:
            with SyncClient(daemon.target) as worker:
                for message in worker.subscribe("alice"):
                    if message.ticket_id:
                        worker.reply("alice", "answered", ticket_id=message.ticket_id)
                        return

        thread = threading.Thread(target=serve)
        thread.start()
        assert client.ask("alice", "a question", timeout=30) == "answered"
        thread.join(30)


def test_sync_watch_streams_are_iterators_that_end_when_the_loop_is_left(daemon) -> None:
    with SyncClient(daemon.target) as client:
        client.register("alice")
        client.enqueue("alice", "review PR 12")
        first = next(iter(client.watch_mailboxes()))
        assert first.snapshot_complete and "alice" in {e.entry.agent_id for e in first.events}
        for tickets in client.watch_queue("alice"):
            assert [t.task for t in tickets] == ["review PR 12"]
            break
        for response in client.watch_directory_data():
            assert response.data.sequence == client.get_directory_data().sequence
            break

        deadline = time.monotonic() + 30
        while client.get_status().open_streams:  # each left loop cancelled its call: the daemon sees them go
            assert time.monotonic() < deadline, "streams left open after their loops ended"
            time.sleep(0.02)


def test_old_names_still_work_on_the_sync_client_with_a_deprecation_warning(daemon) -> None:
    with SyncClient(daemon.target) as client:
        client.register("alice")
        with pytest.warns(DeprecationWarning, match=r"queue\(\) is deprecated: call get_queue\(\)") as caught:
            assert client.queue("alice") == []
        assert caught[0].filename == __file__  # the warning points at the caller's line
        with pytest.warns(DeprecationWarning, match="call get_status"):
            assert client.status().version == client.get_status().version


def test_a_message_whose_handler_raised_out_of_a_sync_subscription_is_delivered_again(daemon) -> None:
    class HandlerFailed(Exception):
        pass

    with SyncClient(daemon.target) as client:
        client.register("alice")
        for i in range(5):
            client.send("alice", f"m{i}")
        with pytest.raises(HandlerFailed), client.subscribe("alice") as inbox:
            for m in inbox:
                if m.text == "m2":
                    raise HandlerFailed  # m0 and m1 were handled; m2 was not
        assert [m.text for m in client.peek("alice").messages] == ["m2", "m3", "m4"]
        with client.subscribe("alice") as inbox:
            for m in inbox:
                if m.text == "m3":
                    break  # left without an exception: m3 counts as handled
        assert [m.text for m in client.peek("alice").messages] == ["m4"]
