"""The overseer page's HTTP server: aiohttp on the daemon's own event loop, serving one page and its JSON API.

Routes: `/` and `/static/*` (the page, from package data), `POST /api/session` (sign in: a token for a session
cookie), `GET /api/session`, `POST /api/signout`, `GET /api/events` (server-sent events: the fabric as the
session may see it, then each change), `GET /api/inbox`, `GET /api/mailboxes/{agent_id}` (another's unread mail: admins), and the actions `POST /api/messages`, `/api/channels/{name}/posts`,
`/api/tickets/{id}/reply`, `/api/tickets/{id}/cancel`, `/api/outbox/retry`.

Invariants:
- Over plain HTTP, a request must name the page's loopback address in its Host (no DNS rebinding).
- Every /api route but sign-in needs a session; every POST needs `Content-Type: application/json`, no foreign
  Origin, and (but sign-in) the session's CSRF token in X-Fabricd-Csrf. A refusal writes nothing.
- Errors are the RPC's: the domain error's gRPC code (fabricd.rpc.errors.code_of) as an HTTP status, with its
  ErrorInfo reason, message and metadata as JSON.
- Responses carry a Content-Security-Policy that allows only this origin's script and no inline script.
- No access log: a request line has no token, but the daemon logs calls, not page loads.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
import ssl
import time
import uuid
from collections.abc import Awaitable, Callable
from importlib import resources
from typing import Any

from aiohttp import web

from fabricd.core.errors import FabricError, InvalidArgument, PermissionDenied, Unauthenticated
from fabricd.core.model import MailboxEntry
from fabricd.http import views
from fabricd.http.actions import Actions
from fabricd.http.live import Live
from fabricd.http.panels import channels_panel, leases_panel
from fabricd.http.sessions import COOKIE, CSRF_HEADER, IDLE_S, Session, Sessions
from fabricd.rpc.auth import Guard
from fabricd.rpc.errors import code_of
from fabricd.rpc.server import Core
from fabricd.v1 import directory_service_pb2 as dir_pb

log = logging.getLogger("fabricd.http")

KEEPALIVE_S = 15.0
MAX_BODY = 1 << 20
HUMAN_KIND = "human"
HTTP_STATUS = {
    "INVALID_ARGUMENT": 400, "FAILED_PRECONDITION": 409, "NOT_FOUND": 404, "ALREADY_EXISTS": 409, "ABORTED": 409,
    "RESOURCE_EXHAUSTED": 429, "DEADLINE_EXCEEDED": 504, "UNAVAILABLE": 503, "UNAUTHENTICATED": 401,
    "PERMISSION_DENIED": 403,
}
"""google.rpc.Code's own HTTP mapping (FAILED_PRECONDITION as 409: the state, not the request, is wrong)."""
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
STATIC = {"overseer.js": "text/javascript", "overseer.css": "text/css"}

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def error_response(exc: FabricError) -> web.Response:
    code = code_of(exc).name  # the gRPC code the RPC would answer (fabricd.rpc.errors' one table)
    body = {"error": {"code": code, "reason": exc.reason, "message": exc.message, "metadata": exc.metadata}}
    return web.json_response(body, status=HTTP_STATUS.get(code, 500))


def no_session() -> Unauthenticated:
    return Unauthenticated("sign in first: POST /api/session with a token (the page asks for one)",
                           reason="SESSION_REQUIRED")


def csrf_refused(why: str) -> PermissionDenied:
    return PermissionDenied(f"refused as a possible cross-site request: {why}", reason="CSRF_REJECTED")


def _is_loopback_ip(name: str) -> bool:
    try:
        return ipaddress.ip_address(name.strip("[]")).is_loopback
    except ValueError:
        return False


def _asset(name: str) -> bytes:
    return resources.files("fabricd.http").joinpath("static", name).read_bytes()


class Overseer:
    """The page's server (see the module docstring); `start` binds it, `stop` ends its streams and closes it."""

    def __init__(self, core: Core, guard: Guard, *, mode: str, tls: tuple[str, str] | None = None) -> None:
        self._core = core
        self._guard = guard
        self.live = Live(core)
        if core.channels is not None:
            self.live.sections.append(channels_panel(core.channels))
        self.live.sections.append(leases_panel(core.leases))
        self.sessions = Sessions(core.tokens, mode)
        self.actions = Actions(core, guard)
        self._tls = tls
        self._runner: web.AppRunner | None = None
        self.url = ""
        self._streams: dict[asyncio.Task[Any], Session] = {}
        """Open event streams, ended at once when their token is revoked or the daemon stops."""
        self._ended: set[asyncio.Task[Any]] = set()
        core.tokens.on_revoke.append(self._end_streams)

    def app(self) -> web.Application:
        app = web.Application(client_max_size=MAX_BODY, middlewares=[self._guarded])
        app.router.add_get("/", self.index)
        app.router.add_get("/static/{name}", self.static)
        app.router.add_post("/api/session", self.sign_in)
        app.router.add_get("/api/session", self.who)
        app.router.add_post("/api/signout", self.sign_out)
        app.router.add_get("/api/events", self.events)
        app.router.add_get("/api/inbox", self.inbox)
        app.router.add_get("/api/mailboxes/{agent_id}", self.mailbox)
        app.router.add_post("/api/messages", self.send)
        app.router.add_post("/api/channels/{channel}/posts", self.post)
        app.router.add_post("/api/tickets/{ticket_id}/reply", self.reply)
        app.router.add_post("/api/tickets/{ticket_id}/cancel", self.cancel)
        app.router.add_post("/api/outbox/retry", self.retry)
        return app

    async def start(self, address: str) -> str:
        host, _, port = address.rpartition(":")
        context = None
        if self._tls is not None:
            context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            context.load_cert_chain(*self._tls)
        self._runner = web.AppRunner(self.app(), access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, host.strip("[]"), int(port), ssl_context=context)
        await site.start()
        bound = self._runner.addresses[-1][1]
        shown = f"[{host.strip('[]')}]" if ":" in host.strip("[]") else host
        self.url = f"{'https' if context else 'http'}://{shown}:{bound}/"
        return self.url

    def _end_streams(self, token_id: str) -> None:
        for task, session in list(self._streams.items()):
            if session.identity.token_id == token_id:
                self._ended.add(task)
                task.cancel()

    async def stop(self) -> None:
        self.live.close()
        for task in list(self._streams):
            self._ended.add(task)
            task.cancel()
        if self._runner is not None:
            await self._runner.cleanup()

    # -- the checks every request passes

    @web.middleware
    async def _guarded(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        try:
            self._check_host(request)
            session = request["session"] = await self.sessions.get(request.cookies.get(COOKIE, ""))
            if request.method == "POST":
                self._check_post(request)
            response = await handler(request)
            if session is not None and session.renewed and not response.prepared and request.path != "/api/signout":
                self._set_cookie(response, session.renewed)
        except FabricError as exc:
            response = error_response(exc)
        except web.HTTPException as exc:
            response = exc
        except Exception:  # reported as INTERNAL with an incident id, as an RPC's would be
            incident = uuid.uuid4().hex[:16]
            log.exception("unexpected error in %s %s (incident %s)", request.method, request.path, incident,
                          extra={"incident_id": incident})
            response = web.json_response({"error": {
                "code": "INTERNAL", "reason": "INTERNAL", "metadata": {"incident_id": incident},
                "message": f"internal error (incident {incident}); the daemon log has the details under that id"}},
                status=500)
        response.headers["Content-Security-Policy"] = CSP
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["Cache-Control"] = "no-store"
        return response

    def _check_host(self, request: web.Request) -> None:
        """Over plain HTTP (the loopback), only a loopback name or address in Host: a site whose name was made to
        point at 127.0.0.1 (DNS rebinding) would otherwise be this page's origin in its visitor's browser."""
        name = request.host.rsplit(":", 1)[0] if not request.host.endswith("]") else request.host
        if self._tls is None and not (name in ("localhost", "[::1]") or _is_loopback_ip(name)):
            raise csrf_refused(f"Host {request.host!r} is not a name of this page's loopback address; open "
                               f"{self.url}")

    def _check_post(self, request: web.Request) -> None:
        if request.content_type != "application/json":
            raise csrf_refused("send the body as application/json")
        origin = request.headers.get("Origin")
        if origin is not None and origin != f"{request.scheme}://{request.host}":
            raise csrf_refused(f"Origin {origin!r} is not this page's")
        if request.headers.get("Sec-Fetch-Site", "same-origin") not in ("same-origin", "none"):
            raise csrf_refused("the browser says the request comes from another site")
        if request.path != "/api/session":
            session = self._session(request)
            if not Sessions.csrf_ok(session, request.headers.get(CSRF_HEADER, "")):
                raise csrf_refused(f"the {CSRF_HEADER} header does not carry this session's CSRF token")

    @staticmethod
    def _session(request: web.Request) -> Session:
        session: Session | None = request.get("session")
        if session is None:
            raise no_session()
        return session

    def _set_cookie(self, response: web.StreamResponse, value: str) -> None:
        response.set_cookie(COOKIE, value, httponly=True, samesite="Strict", secure=self._tls is not None, path="/",
                            max_age=IDLE_S)

    @staticmethod
    async def _body(request: web.Request) -> dict[str, Any]:
        try:
            body = await request.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise InvalidArgument("the body is not JSON", reason="INVALID_FIELD", field="body") from None
        if not isinstance(body, dict):
            raise InvalidArgument("the body is a JSON object", reason="INVALID_FIELD", field="body")
        return body

    # -- the page

    async def index(self, request: web.Request) -> web.Response:
        return web.Response(body=_asset("index.html"), content_type="text/html", charset="utf-8")

    async def static(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        if name not in STATIC:
            raise web.HTTPNotFound()
        return web.Response(body=_asset(name), content_type=STATIC[name], charset="utf-8")

    # -- sessions

    async def sign_in(self, request: web.Request) -> web.Response:
        body = await self._body(request)
        token, act_as = body.get("token", ""), body.get("act_as", "")
        if not isinstance(token, str) or not isinstance(act_as, str):
            raise InvalidArgument("token and act_as are strings", reason="INVALID_FIELD", field="token")
        key, session = await self.sessions.sign_in(token, act_as)
        if session.human:
            await self._register_human(session)
        response = web.json_response(session.public())
        self._set_cookie(response, key)
        return response

    async def _register_human(self, session: Session) -> MailboxEntry:
        """The person is an agent of the fabric: registered (and so live) under `human:NAME`."""
        request = dir_pb.RegisterRequest(agent_id=session.acting_as, metadata={"kind": HUMAN_KIND})
        await self._guard.authorize("Register", request, session.identity)
        registered = await self._core.directory.register(request.agent_id, metadata=dict(request.metadata))
        return registered.entry

    async def who(self, request: web.Request) -> web.Response:
        """The session, or {"signed_in": false}: a page without one asks for a token (no error to log)."""
        session: Session | None = request.get("session")
        return web.json_response({"signed_in": False} if session is None else session.public())

    async def sign_out(self, request: web.Request) -> web.Response:
        if request.get("session") is not None:
            self.sessions.sign_out(request.cookies.get(COOKIE, ""))
        response = web.json_response({})
        response.del_cookie(COOKIE, path="/")
        return response

    # -- live

    async def events(self, request: web.Request) -> web.StreamResponse:
        """Server-sent events: `fabric` (the whole picture, on connect and at each change) and `inbox` (the
        session's own unread mail, when it moves). A reconnect gets the current picture: nothing to replay."""
        key = request.cookies.get(COOKIE, "")
        session = self._session(request)
        task = asyncio.current_task()
        assert task is not None
        self._streams[task] = session
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-store",
                                               "X-Accel-Buffering": "no", "Content-Security-Policy": CSP})
        await response.prepare(request)
        await self.live.watch()
        try:
            snapshot, version, mail_seen, touched = self.live.snapshot, -1, -1, time.monotonic()
            while not self.live.closed and await self.sessions.alive(key):
                if snapshot is not None and snapshot.version != version:
                    version = snapshot.version
                    started = time.monotonic()
                    data = await views.encode(snapshot, session.identity, self._guard)
                    await response.write(b"event: fabric\nid: %d\ndata: " % version + data + b"\n\n")
                    self.live.spent(time.monotonic() - started)
                    moved = self.live.mail_versions.get(session.acting_as, 0)
                    if moved != mail_seen:
                        mail_seen = moved
                        inbox = json.dumps(await self.actions.inbox(session), separators=(",", ":")).encode()
                        await response.write(b"event: inbox\ndata: " + inbox + b"\n\n")
                else:
                    await response.write(b": keepalive\n\n")
                if session.human and time.monotonic() - touched > KEEPALIVE_S:
                    touched = time.monotonic()  # the person is there while the page is open: keep it live
                    await self._core.directory.touch(session.acting_as, False)
                snapshot = await self.live.next(version, KEEPALIVE_S)
        except ConnectionResetError:
            pass  # the page went away
        except asyncio.CancelledError:
            if task not in self._ended:
                raise
            task.uncancel()  # ended by us (a revoked token, the daemon stopping): finish the response
        finally:
            self.live.unwatch()
            self._streams.pop(task, None)
            self._ended.discard(task)
        return response

    async def inbox(self, request: web.Request) -> web.Response:
        return web.json_response(await self.actions.inbox(self._session(request)))

    async def mailbox(self, request: web.Request) -> web.Response:
        session = self._session(request)
        return web.json_response(await self.actions.mailbox(session, request.match_info["agent_id"]))

    # -- actions

    async def send(self, request: web.Request) -> web.Response:
        return web.json_response(await self.actions.send(self._session(request), await self._body(request)))

    async def post(self, request: web.Request) -> web.Response:
        session, body = self._session(request), await self._body(request)
        return web.json_response(await self.actions.post(session, request.match_info["channel"], body))

    async def reply(self, request: web.Request) -> web.Response:
        session, body = self._session(request), await self._body(request)
        return web.json_response(await self.actions.reply(session, request.match_info["ticket_id"], body))

    async def cancel(self, request: web.Request) -> web.Response:
        return web.json_response(await self.actions.cancel(self._session(request), request.match_info["ticket_id"]))

    async def retry(self, request: web.Request) -> web.Response:
        return web.json_response(await self.actions.retry(self._session(request), await self._body(request)))
