"""Send a claimed wake row: POST it to a URL hook, or run a command hook with it on stdin.

The outbox loop (fabricd.core.outbox) claims the row and settles it with what
this answers: nothing when the hook took the wake, a FabricError saying why not
(then the row is retried with back-off). The stdlib is enough: one small POST
per wake, on a worker thread so the event loop never waits on a socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import os
import signal
import ssl
from urllib.parse import urlsplit

from fabricd import __version__
from fabricd.core import wake
from fabricd.core.errors import FabricError
from fabricd.core.model import OutboxRow
from fabricd.core.wake import WakeHook


def _failed(message: str) -> FabricError:
    return FabricError(message, reason="WAKE_DELIVERY_FAILED")


class WakeSender:
    """Sends wakes with a timeout; commands only while `allow_commands` (wake.allow_commands)."""

    def __init__(self, timeout_s: float, allow_commands: bool) -> None:
        self.timeout_s = timeout_s
        self.allow_commands = allow_commands
        self.target = ""
        """The daemon's own unix socket once bound: commands get it as FABRICD_TARGET, so a `fabric` or a
        client they start reaches this daemon whatever socket it serves on."""

    async def __call__(self, row: OutboxRow, hook: WakeHook) -> None:
        body = row.content.encode()
        if hook.url:
            await asyncio.to_thread(self.post, hook.url, body, hook.secret, row.key)
        elif hook.command:
            if not self.allow_commands:
                raise wake.commands_disabled()
            await self.run(hook.command, body)

    def post(self, url: str, body: bytes, secret: str, wake_id: str) -> None:
        parts = urlsplit(url)
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        if parts.scheme == "https":
            conn: http.client.HTTPConnection = http.client.HTTPSConnection(
                parts.hostname or "", parts.port, timeout=self.timeout_s, context=ssl.create_default_context())
        else:
            conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=self.timeout_s)
        try:
            conn.request("POST", path, body=body, headers={
                "Content-Type": "application/json", "User-Agent": f"fabricd/{__version__}",
                "Fabricd-Signature": wake.signature(secret, body), "Fabricd-Wake-Id": wake_id})
            response = conn.getresponse()
            response.read(64 << 10)
        except (OSError, http.client.HTTPException) as exc:
            raise _failed(f"POST {url}: {exc or type(exc).__name__}") from exc
        finally:
            conn.close()
        if not 200 <= response.status < 300:
            raise _failed(f"POST {url}: HTTP {response.status} {response.reason}")

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
