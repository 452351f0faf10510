"""The synchronous facade over the same daemon."""

from __future__ import annotations

import threading

import pytest

from fabricd.client import NotFound, SyncClient


def test_sync_client_sends_reads_subscribes_and_asks(daemon) -> None:  # noqa: ANN001
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
