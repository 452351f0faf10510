"""Flow-controlled stream writes (fabricd.rpc.streams) never lose a caller's cancel."""

from __future__ import annotations

import asyncio

import pytest

from fabricd.core.limits import Limits
from fabricd.rpc.streams import Streams


class _Context:
    def __init__(self, written: asyncio.Future[None]) -> None:
        self._written = written

    def write(self, response: object) -> asyncio.Future[None]:
        return self._written

    def peer(self) -> str:
        return "ipv4:127.0.0.1:1"


async def test_a_cancel_that_arrives_as_the_transport_takes_the_response_ends_the_stream() -> None:
    # The caller left in the same loop turn as its last response was taken: Python 3.11's wait_for then
    # returns the write's result and drops the cancel; the stream went on until a keepalive write failed.
    streams = Streams(Limits)
    written: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    writing = asyncio.ensure_future(streams.write(_Context(written), b"response", 8))
    await asyncio.sleep(0)  # the write is handed to the transport
    written.set_result(None)
    writing.cancel()
    with pytest.raises(asyncio.CancelledError):
        await writing
    assert streams.in_flight == 0


async def test_a_write_the_transport_takes_returns_with_its_bytes_given_back() -> None:
    streams = Streams(Limits)
    written: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    written.set_result(None)
    await streams.write(_Context(written), b"response", 8)
    assert streams.in_flight == 0
