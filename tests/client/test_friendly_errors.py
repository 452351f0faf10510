"""The Python client, like the CLI, says what to do when no daemon answers."""

from __future__ import annotations

import pytest

from fabricd.client import Client, SyncClient, Unavailable


def test_the_sync_client_without_a_daemon_says_how_to_start_one(sock_dir) -> None:
    target = f"unix:{sock_dir}/none.sock"
    with SyncClient(target) as client:
        client.retry_window = 0
        with pytest.raises(Unavailable) as caught:
            client.list_mailboxes()
    error = caught.value
    assert error.reason == "UNAVAILABLE"
    assert str(error).startswith(f"cannot reach fabricd at {target}: is it running?")
    assert "start it with `fabricd serve`" in str(error) and "failed to connect" in error.metadata["grpc_message"]


async def test_the_async_client_says_the_same(sock_dir) -> None:
    async with Client(f"unix:{sock_dir}/none.sock") as client:
        client.retry_window = 0
        with pytest.raises(Unavailable, match="cannot reach fabricd at unix:.*start it with `fabricd serve`"):
            await client.peek("alice")
