"""The Python client for fabricd: `Client` (asyncio) and `SyncClient`.

    async with Client() as client:
        await client.register("alice", session_name="reviewer")
        await client.send("alice", "please review PR 12", sender="bob")
        async with client.subscribe("alice") as inbox:
            async for message in inbox:
                ...
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
from fabricd.client._paging import Page
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
    "ResourceExhausted",
    "SendResult",
    "Subscription",
    "SyncClient",
    "SyncSubscription",
    "Unauthenticated",
    "Unavailable",
    "address",
    "agent_job",
    "decode_agent_job",
    "from_rpc_error",
    "from_status",
]
