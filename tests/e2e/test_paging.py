"""Every list pages the same way (AIP-158) over real gRPC, and no page outgrows a stock client's 4 MiB limit."""

from __future__ import annotations

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from fabricd.client import Client, InvalidArgument, Page
from fabricd.v1 import directory_service_pb2 as dir_pb
from fabricd.v1 import directory_service_pb2_grpc as dir_grpc
from fabricd.v1 import rendezvous_service_pb2 as rv_pb
from fabricd.v1 import rendezvous_service_pb2_grpc as rv_grpc
from fabricd.v1 import types_pb2 as pb

STOCK_LIMIT = 4 << 20
"""gRPC's default receive limit in most languages' stubs: a channel opened with no options."""


def reason(err: grpc.aio.AioRpcError) -> str:
    status = rpc_status.from_call(err)
    info = error_details_pb2.ErrorInfo()
    status.details[0].Unpack(info)
    return info.reason


async def test_three_pages_of_mailboxes_then_the_end(daemon, client: Client) -> None:
    names = sorted(f"agent-{i:02}" for i in range(25))
    for name in names:
        await client.register(name)
    async with grpc.aio.insecure_channel(daemon.target) as channel:
        stub = dir_grpc.DirectoryServiceStub(channel)
        seen, token, pages = [], "", 0
        while True:
            page = await stub.ListMailboxes(dir_pb.ListMailboxesRequest(page_size=10, page_token=token))
            seen += [e.agent_id for e in page.mailboxes]
            pages += 1
            token = page.next_page_token
            if not token:
                break
        assert pages == 3 and sorted(seen) == names and len(seen) == 25
        one = await client.list_mailboxes(page_size=10)
        assert isinstance(one, Page) and len(one) == 10 and one.next_page_token
        assert sorted(e.agent_id for e in await client.list_mailboxes()) == names  # the client reads every page


async def test_a_tampered_token_or_one_of_another_list_is_invalid_page_token(daemon, client: Client) -> None:
    for name in ("alice", "bob", "carol"):
        await client.register(name)
        await client.enqueue("alice", f"task from {name}")
    token = (await client.list_mailboxes(page_size=1)).next_page_token
    queue_token = (await client.get_queue("alice", page_size=1)).next_page_token
    tampered = token[:-2] + ("A" if token[-2] != "A" else "B") + token[-1]
    async with grpc.aio.insecure_channel(daemon.target) as channel:
        stub = dir_grpc.DirectoryServiceStub(channel)
        for bad in (tampered, queue_token, "not-a-token"):
            with pytest.raises(grpc.aio.AioRpcError) as err:
                await stub.ListMailboxes(dir_pb.ListMailboxesRequest(page_size=1, page_token=bad))
            assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT and reason(err.value) == "INVALID_PAGE_TOKEN"
    with pytest.raises(InvalidArgument) as refused:
        await client.get_queue("bob", page_token=queue_token)  # alice's queue token, for bob's queue
    assert refused.value.reason == "INVALID_PAGE_TOKEN"


async def test_a_page_size_over_the_maximum_is_read_as_the_maximum(client: Client) -> None:
    for name in ("alice", "bob"):
        await client.register(name)
    page = await client.list_mailboxes(page_size=1_000_000)
    assert sorted(e.agent_id for e in page) == ["alice", "bob"] and page.next_page_token == ""
    with pytest.raises(InvalidArgument) as refused:
        await client.list_mailboxes(page_size=-1)
    assert refused.value.reason == "LIMIT_OUT_OF_RANGE"


async def test_directory_entries_near_their_size_limit_never_make_a_page_over_4_mib(daemon, client: Client) -> None:
    payload = "p" * (60 << 10)  # just under the 64 KiB entry limit
    for i in range(100):
        await client.register(f"big-{i:03}", capabilities=[pb.Capability(name="c", payload=payload)])
    async with grpc.aio.insecure_channel(daemon.target) as channel:  # stock limits: 4 MiB received at most
        stub = dir_grpc.DirectoryServiceStub(channel)
        sizes, token, count = [], "", 0
        while True:
            page = await stub.ListMailboxes(dir_pb.ListMailboxesRequest(page_size=1000, page_token=token))
            sizes.append(page.ByteSize())
            count += len(page.mailboxes)
            token = page.next_page_token
            if not token:
                break
    assert count == 100 and len(sizes) >= 2 and max(sizes) <= STOCK_LIMIT


async def test_a_register_over_the_entry_limit_is_field_too_large_in_bytes(client: Client) -> None:
    wide = "é" * (33 << 10)  # 33 Ki characters, 66 KiB: under any character limit, over the byte limit
    with pytest.raises(InvalidArgument) as refused:
        await client.register("alice", capabilities=[pb.Capability(name="c", description=wide)])
    assert refused.value.reason == "FIELD_TOO_LARGE" and refused.value.metadata["field"] == "capabilities[0].description"
    caps = [pb.Capability(name=f"c{i}", payload="x" * (16 << 10)) for i in range(8)]  # 128 KiB in all
    with pytest.raises(InvalidArgument) as refused:
        await client.register("alice", capabilities=caps)
    assert refused.value.reason == "FIELD_TOO_LARGE" and refused.value.metadata["limit"] == str(64 << 10)
    assert await client.list_mailboxes() == []


async def test_a_queue_of_near_1_mib_tasks_pages_within_4_mib_with_positions(daemon, client: Client) -> None:
    await client.register("worker")
    task = "t" * ((1 << 20) - 1024)
    for _ in range(9):
        await client.enqueue("worker", task)
    async with grpc.aio.insecure_channel(daemon.target) as channel:
        stub = rv_grpc.RendezvousServiceStub(channel)
        positions, token, pages = [], "", 0
        while True:
            page = await stub.GetQueue(rv_pb.GetQueueRequest(agent_id="worker", page_token=token))
            assert page.ByteSize() <= STOCK_LIMIT
            positions += [t.position for t in page.tickets]
            pages += 1
            token = page.next_page_token
            if not token:
                break
    assert positions == list(range(9)) and pages >= 3
    assert [t.position for t in await client.get_queue("worker")] == list(range(9))
