"""The Python client for fabricd: `Client` (asyncio) and `SyncClient`.

    async with Client() as client:
        await client.register("alice", session_name="reviewer")
        await client.send("alice", "please review PR 12", sender="bob")
        async with client.subscribe("alice") as inbox:
            async for message in inbox:
                ...
        await client.serve("alice", lambda ticket: f"done: {ticket.task}")   # answer asks

Sends, acks and asks go on one MailboxService.SendStream per client, and `serve` (or a
`Replier`) on a RendezvousService.Serve stream, when the daemon offers them (unary calls
otherwise, or with `Client(streams=False)`).
"""

from fabricd.client._client import (
    AddressLike,
    AmbiguousNameWarning,
    Client,
    ClientTls,
    SendResult,
    Subscription,
    address,
)
from fabricd.client._errors import (
    Aborted,
    AlreadyExists,
    DeadlineExceeded,
    FabricError,
    FailedPrecondition,
    InternalError,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    ResourceExhausted,
    Unauthenticated,
    Unavailable,
    from_rpc_error,
    from_status,
)
from fabricd.client._jobs import AgentWork, QueuedJob, agent_job, decode_agent_job
from fabricd.client._leases import conflict_holders
from fabricd.client._paging import Page
from fabricd.client._replier import Replier
from fabricd.client._sync import SyncClient, SyncSubscription

__all__ = [
    "Aborted",
    "AddressLike",
    "AgentWork",
    "AmbiguousNameWarning",
    "AlreadyExists",
    "Client",
    "ClientTls",
    "DeadlineExceeded",
    "FabricError",
    "FailedPrecondition",
    "InternalError",
    "InvalidArgument",
    "NotFound",
    "Page",
    "PermissionDenied",
    "QueuedJob",
    "Replier",
    "ResourceExhausted",
    "SendResult",
    "Subscription",
    "SyncClient",
    "SyncSubscription",
    "Unauthenticated",
    "Unavailable",
    "address",
    "agent_job",
    "conflict_holders",
    "decode_agent_job",
    "from_rpc_error",
    "from_status",
]
