"""fabricd.v1.AdminService: the daemon's status, its tokens, and backups for operators."""

from __future__ import annotations

import asyncio
import hashlib
import os
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass

import grpc

from fabricd.core.errors import FailedPrecondition
from fabricd.core.model import PostgresInfo
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
    map_free_bytes: int = 0
    auth_tokens: str = ""
    postgres: PostgresInfo | None = None


CHUNK = 1 << 20
_SCOPES = {pb.TOKEN_SCOPE_ADMIN: ADMIN, pb.TOKEN_SCOPE_AGENT: AGENT}


def token_out(t: Token) -> pb.TokenInfo:
    out = pb.TokenInfo(token_id=t.token_id, scope=pb.TOKEN_SCOPE_ADMIN if t.scope == ADMIN else pb.TOKEN_SCOPE_AGENT,
                       agent_id=t.agent_id, label=t.label, session_names=t.session_names)
    out.create_time.FromNanoseconds(t.create_ns)
    if t.revoke_ns:
        out.revoke_time.FromNanoseconds(t.revoke_ns)
    return out


class AdminServicer(pb_grpc.AdminServiceServicer):
    def __init__(self, status: Callable[[], Awaitable[Status]], tokens: Tokens,
                 backup: Callable[[int], None] | None = None, backup_dir: str = "") -> None:
        self._status = status
        self._tokens = tokens
        self._backup = backup
        self._backup_dir = backup_dir

    @mapped
    async def BackupStore(self, request: pb.BackupStoreRequest,
                          context: grpc.aio.ServicerContext) -> AsyncIterator[pb.BackupStoreResponse]:
        if self._backup is None:
            # Not a retryable outage: this daemon's store is a database, which backs up with its own tools.
            raise FailedPrecondition("this daemon keeps its store in PostgreSQL and streams no backups: use "
                                     "`fabricd copy --from postgresql://... --to FOLDER` (an LMDB copy) or "
                                     "PostgreSQL's own backups (pg_basebackup, pg_dump)", reason="BACKUP_UNAVAILABLE")
        loop = asyncio.get_running_loop()
        # Staged whole first, so a slow reader never holds LMDB's read snapshot (and the file's growth) open;
        # unlinked at once, so nothing is left behind if the daemon dies mid-stream.
        with tempfile.TemporaryFile(dir=self._backup_dir or None, prefix=".backup-") as staged:
            await loop.run_in_executor(None, self._backup, staged.fileno())
            total = os.fstat(staged.fileno()).st_size
            digest = hashlib.sha256()
            offset = 0
            while True:
                data = await loop.run_in_executor(None, os.pread, staged.fileno(), CHUNK, offset)
                digest.update(data)
                last = offset + len(data) >= total
                yield pb.BackupStoreResponse(data=data, offset=offset, total_bytes=total,
                                             sha256=digest.hexdigest() if last else "")
                offset += len(data)
                if last:
                    return

    @mapped
    async def IssueToken(self, request: pb.IssueTokenRequest,
                         context: grpc.aio.ServicerContext) -> pb.IssueTokenResponse:
        token, secret = await self._tokens.issue(_SCOPES.get(request.scope, ""), request.agent_id, request.label,
                                                 tuple(request.session_names))
        return pb.IssueTokenResponse(info=token_out(token), token=secret)

    @mapped
    async def RevokeToken(self, request: pb.RevokeTokenRequest,
                          context: grpc.aio.ServicerContext) -> pb.RevokeTokenResponse:
        return pb.RevokeTokenResponse(revoked=await self._tokens.revoke(request.token_id))

    @mapped
    async def ListTokens(self, request: pb.ListTokensRequest,
                         context: grpc.aio.ServicerContext) -> pb.ListTokensResponse:
        listed = await self._tokens.list(request.page_size, request.page_token)
        return pb.ListTokensResponse(tokens=[token_out(t) for t in listed.items], next_page_token=listed.next_page_token)

    @mapped
    async def GetStatus(self, request: pb.GetStatusRequest, context: grpc.aio.ServicerContext) -> pb.GetStatusResponse:
        s = await self._status()
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
            map_free_bytes=s.map_free_bytes,
            auth_tokens=s.auth_tokens,
            store_kind="postgresql" if s.postgres is not None else "lmdb",
        )
        if s.postgres is not None:
            p = s.postgres
            out.postgres.CopyFrom(pb.PostgresStatus(
                url=p.url, server_version=p.server_version, database=p.database, schema_version=p.schema_version,
                pool_size=p.pool_size, pool_max_size=p.pool_max_size, pool_idle=p.pool_idle,
                in_recovery=p.in_recovery, replicas=p.replicas, database_bytes=p.database_bytes))
        out.start_time.FromNanoseconds(s.start_time_ns)
        out.current_time.GetCurrentTime()
        return out
