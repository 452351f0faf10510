"""fabricd.v1.AdminService: the daemon's status for operators and tests."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from fabricd.core.tokens import ADMIN, AGENT, Token, Tokens
from fabricd.rpc.errors import mapped
from fabricd.v1 import admin_service_pb2 as pb
from fabricd.v1 import admin_service_pb2_grpc as pb_grpc


@dataclass(frozen=True, slots=True)
class Status:
    version: str
    start_time_ns: int
    data_dir: str
    listen_addresses: tuple[str, ...]
    map_size_bytes: int
    map_used_bytes: int
    commits: int
    writes: int
    mailboxes: int
    queued_tickets: int
    open_streams: int
    waiters: int
    open_waits: int
    outbox_pending: int
    outbox_rows: int
    auth_tokens: str = ""


_SCOPES = {pb.TOKEN_SCOPE_ADMIN: ADMIN, pb.TOKEN_SCOPE_AGENT: AGENT}


def token_out(t: Token) -> pb.TokenInfo:
    out = pb.TokenInfo(token_id=t.token_id, scope=pb.TOKEN_SCOPE_ADMIN if t.scope == ADMIN else pb.TOKEN_SCOPE_AGENT,
                       agent_id=t.agent_id, label=t.label)
    out.create_time.FromNanoseconds(t.create_ns)
    if t.revoke_ns:
        out.revoke_time.FromNanoseconds(t.revoke_ns)
    return out


class AdminServicer(pb_grpc.AdminServiceServicer):
    def __init__(self, status: Callable[[], Status], tokens: Tokens) -> None:
        self._status = status
        self._tokens = tokens

    @mapped
    async def IssueToken(self, request, context):  # noqa: ANN001, ANN201, N802
        token, secret = await self._tokens.issue(_SCOPES.get(request.scope, ""), request.agent_id, request.label)
        return pb.IssueTokenResponse(info=token_out(token), token=secret)

    @mapped
    async def RevokeToken(self, request, context):  # noqa: ANN001, ANN201, N802
        return pb.RevokeTokenResponse(revoked=await self._tokens.revoke(request.token_id))

    @mapped
    async def ListTokens(self, request, context):  # noqa: ANN001, ANN201, N802
        return pb.ListTokensResponse(tokens=[token_out(t) for t in self._tokens.list()])

    @mapped
    async def GetStatus(self, request, context):  # noqa: ANN001, ANN201, N802
        s = self._status()
        out = pb.GetStatusResponse(
            version=s.version,
            data_dir=s.data_dir,
            listen_addresses=s.listen_addresses,
            map_size_bytes=s.map_size_bytes,
            map_used_bytes=s.map_used_bytes,
            commits=s.commits,
            writes=s.writes,
            mailboxes=s.mailboxes,
            queued_tickets=s.queued_tickets,
            open_streams=s.open_streams,
            waiters=s.waiters,
            open_waits=s.open_waits,
            outbox_pending=s.outbox_pending,
            outbox_rows=s.outbox_rows,
            auth_tokens=s.auth_tokens,
        )
        out.start_time.FromNanoseconds(s.start_time_ns)
        out.current_time.GetCurrentTime()
        return out
