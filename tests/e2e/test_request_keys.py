"""An Ask's request key is held to an id's limits under its own name, whatever the asker's id.

The daemon keys a ticket by the asker and its key together; that whole key
was held to one id's 256 characters, so an agent with a long id could not use
any request key, and a 250-character key was refused as an "idempotency_key"
the request does not have.
"""

from __future__ import annotations

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from fabricd.client import Client
from fabricd.v1 import rendezvous_service_pb2 as rv

BACKENDS = ("lmdb", "postgres")
AGENT = rv.TICKET_SOURCE_KIND_AGENT


def enqueue(asker: str, key: str) -> rv.EnqueueTicketRequest:
    return rv.EnqueueTicketRequest(target="worker", task="do it", request_key=key,
                                   source=rv.TicketSource(kind=AGENT, agent_id=asker))


@pytest.mark.parametrize(("asker", "key"), [("a" * 256, "k"), ("a" * 256, "k" * 256), ("bob", "k" * 250)],
                         ids=["longest asker", "longest asker and key", "long key"])
async def test_a_key_within_an_ids_limit_queues_once_however_long_the_askers_id(client: Client, asker: str,
                                                                                 key: str) -> None:
    await client.register("worker")
    first = await client.rendezvous.EnqueueTicket(enqueue(asker, key))
    again = await client.rendezvous.EnqueueTicket(enqueue(asker, key))
    assert again.ticket_id == first.ticket_id
    assert [t.ticket_id for t in await client.get_queue("worker")] == [first.ticket_id]


@pytest.mark.parametrize(("key", "reason"), [("k" * 257, "FIELD_TOO_LONG"), ("k\n", "INVALID_CHARACTERS")])
async def test_a_bad_key_is_refused_under_its_own_name(client: Client, key: str, reason: str) -> None:
    await client.register("worker")
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await client.rendezvous.EnqueueTicket(enqueue("bob", key))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    info = error_details_pb2.ErrorInfo()
    assert rpc_status.from_call(err.value).details[0].Unpack(info)
    assert (info.reason, info.metadata["field"]) == (reason, "request_key")
    assert list(await client.get_queue("worker")) == []
