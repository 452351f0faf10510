"""Send a claimed wake row: POST it to a URL hook, or run a command hook with it on stdin.

The outbox loop (fabricd.core.outbox) claims the row and settles it with what
this answers: nothing when the hook took the wake, a FabricError saying why not
(then the hook backs off). The stdlib is enough: one small HTTP/1.1 POST per
wake on asyncio's own sockets (no thread is held by a listener that never
answers), the whole of it (name lookup, connect, TLS, answer) within
wake.timeout. The host's addresses are looked up and checked against the
operator's networks (fabricd.core.wakehosts) right before the connection,
which goes to a checked address: a name that resolves elsewhere since the hook
was set is caught here.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import ssl
from urllib.parse import quote, urlsplit

from fabricd import __version__
from fabricd.core import wake, wakehosts
from fabricd.core.errors import FabricError
from fabricd.core.model import OutboxRow
from fabricd.core.wake import WakeHook

MAX_ANSWER_LINE = 8192


def _failed(message: str, reason: str = "WAKE_DELIVERY_FAILED") -> FabricError:
    return FabricError(message, reason=reason)


class WakeSender:
    """Sends wakes with a timeout; commands only while `allow_commands` (wake.allow_commands)."""

    def __init__(self, timeout_s: float, allow_commands: bool,
                 hosts: wakehosts.HostPolicy = wakehosts.HostPolicy()) -> None:
        self.timeout_s = timeout_s
        self.allow_commands = allow_commands
        self.hosts = hosts
        self._tls = ssl.create_default_context()
        self.target = ""
        """The daemon's own unix socket once bound: commands get it as FABRICD_TARGET, so a `fabric` or a
        client they start reaches this daemon whatever socket it serves on."""

    async def __call__(self, row: OutboxRow, hook: WakeHook) -> None:
        body = row.content.encode()
        if hook.url:
            await self.post(hook.url, body, hook.secret, row.key)
        elif hook.command:
            if not self.allow_commands:
                raise wake.commands_disabled()
            await self.run(hook.command, body)

    async def resolve(self, host: str) -> list[str]:
        """What `host` resolves to now, within wake.timeout; [] when it does not (SetWakeHook's check)."""
        try:
            async with asyncio.timeout(self.timeout_s):
                infos = await asyncio.get_running_loop().getaddrinfo(host, None, type=socket.SOCK_STREAM)
        except (OSError, TimeoutError):
            return []
        return list(dict.fromkeys(str(info[4][0]) for info in infos))

    async def addresses(self, url: str, host: str, port: int) -> list[str]:
        """The addresses `host` stands for now, each one hooks may reach; WAKE_HOST_NOT_ALLOWED else."""
        if wakehosts.literal(host) is not None:
            found = [host]
        else:
            try:
                infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
            except OSError as exc:
                raise _failed(f"POST {url}: cannot resolve {host}: {exc.strerror or exc}") from exc
            found = list(dict.fromkeys(str(info[4][0]) for info in infos))
        try:
            wakehosts.check(self.hosts, url, host, found)
        except FabricError as exc:
            raise _failed(exc.message, reason="WAKE_HOST_NOT_ALLOWED") from None
        return found

    async def post(self, url: str, body: bytes, secret: str, wake_id: str) -> None:
        parts = urlsplit(url)
        host, https = parts.hostname or "", parts.scheme == "https"
        port = parts.port or (443 if https else 80)
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        head = (f"POST {path} HTTP/1.1\r\nHost: {parts.netloc}\r\nContent-Type: application/json\r\n"
                f"User-Agent: fabricd/{__version__}\r\nFabricd-Signature: {wake.signature(secret, body)}\r\n"
                f"Fabricd-Wake-Id: {quote(wake_id, safe=':/@!$&()*+,;=-._~')}\r\n"
                f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n")
        try:
            async with asyncio.timeout(self.timeout_s):
                status = await self._exchange(url, host, port, https, head.encode() + body)
        except TimeoutError:
            raise _failed(f"POST {url}: no answer within {self.timeout_s:g}s (wake.timeout)") from None
        except (OSError, ValueError) as exc:
            raise _failed(f"POST {url}: {exc or type(exc).__name__}") from exc
        if not 200 <= status[0] < 300:
            raise _failed(f"POST {url}: HTTP {status[0]} {status[1]}")

    async def _exchange(self, url: str, host: str, port: int, https: bool, request: bytes) -> tuple[int, str]:
        """Connect to the first of the host's checked addresses that answers, send, read the status line."""
        last: OSError | None = None
        for address in await self.addresses(url, host, port):
            try:
                reader, writer = await asyncio.open_connection(
                    address, port, ssl=self._tls if https else None, server_hostname=host if https else None,
                    limit=MAX_ANSWER_LINE)
            except OSError as exc:
                last = exc
                continue
            try:
                writer.write(request)
                await writer.drain()
                line = (await reader.readline()).decode("latin-1").rstrip("\r\n")
            finally:
                writer.close()
            version, _, rest = line.partition(" ")
            code, _, reason = rest.partition(" ")
            if not version.startswith("HTTP/") or not code.isdigit():
                raise ValueError(f"the answer is no HTTP status line: {line[:100]!r}")
            return int(code), reason[:200]
        raise last or OSError(f"{host} has no address")

    async def run(self, command: tuple[str, ...], body: bytes) -> None:
        try:
            env = dict(os.environ, FABRICD_TARGET=self.target) if self.target else None
            proc = await asyncio.create_subprocess_exec(
                *command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.PIPE, env=env, start_new_session=True)  # its own group: a timeout ends it all
        except OSError as exc:
            raise _failed(f"cannot run {command[0]}: {exc.strerror or exc}") from exc
        try:
            _, err = await asyncio.wait_for(proc.communicate(body), self.timeout_s)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            await proc.wait()
            raise _failed(f"{command[0]} took over {self.timeout_s:g}s (wake.timeout); it was killed") from None
        if proc.returncode:
            last = (err or b"").decode(errors="replace").strip().splitlines()[-1:] or [""]
            raise _failed(f"{command[0]} exited with {proc.returncode}: {last[0][:200]}")
