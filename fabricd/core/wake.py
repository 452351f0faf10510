"""Wake hooks: tell an idle agent that work arrived, once per burst, through the outbox's durable delivery.

An agent (or an admin for it) sets a hook: a URL to POST to or a command to
run. The rules, every backend's (fabricd.core.kv.wake holds the scripts):

- Arrival: storing mail (a ticket's task is mail too) for an agent with a hook
  ARMS the hook, in the send's own transaction; an armed hook stays armed, so
  a burst of 1,000 messages arms it once and costs one read per message.
- Firing: the daemon's wake loop looks at armed hooks. A hook is due at its
  arming, or `quiet_period` after its last fire, whichever is later: after a
  fire, nothing fires again until the quiet period has passed AND new work
  arrived since. When due, and with `only_when_idle` the agent has no open
  Subscribe stream and is not BUSY, and something still waits (unread mail or
  a queued ticket), it fires: in one transaction the hook is disarmed and a
  wake row (key `wake:<agent>:<n>`, n from a store-wide counter) joins the
  outbox. Otherwise it is disarmed without firing: a subscriber already has the
  mail, a busy agent reads it at the end of its turn, an empty inbox needs no wake.
- Delivery: the outbox loop claims a due wake row with a lease (so no other
  node takes it: RetryPolicy.lease_s, wake.timeout + 5 s in the daemon), POSTs
  or runs the hook outside any transaction, then turns the row into its
  receipt, or into a retry with the outbox's back-off and dead letters. A
  wake row is made once per arming, so one arrival never makes two wakes; a
  daemon killed after the POST but before the receipt sends that same wake
  again when the lease ends (at least once, like any webhook): the
  `Fabricd-Wake-Id` header (the row key) lets a receiver drop the repeat.
- Per hook, not per row: one send at a time (the hook names the row it is
  sending, leased, and no other row of it is claimed meanwhile); a failure
  backs the HOOK off (its `retry_ns` grows with its failures in a row, its
  rows wait for it); `disable_after` failures in a row disable it, settle
  its rows as receipts and tell its owner with a message in its mailbox; a
  disabled hook fires no more until it is set again. A hook has at most one
  row waiting besides the one being sent: a fire while one waits rewrites
  that row's body (fresher counts) instead of adding a row.

Several nodes (PostgreSQL): arming, firing and claiming are row-locked
transactions, so each wake is made and sent once whichever nodes run the
loops; whether an agent has an open Subscribe stream is each node's own
knowledge (`streaming`), so a stream on another node does not hold a wake back.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import secrets
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import asdict, replace
from urllib.parse import urlsplit

from fabricd.core import quota, validate, wakehosts
from fabricd.core.errors import FabricError, FailedPrecondition, InvalidArgument
from fabricd.core.limits import Limits
from fabricd.core.model_wake import DEFAULT_QUIET_NS as DEFAULT_QUIET_NS
from fabricd.core.model_wake import WakeHook as WakeHook
from fabricd.core.ports import Service, Store

log = logging.getLogger("fabricd.wake")

WAKE = "wake"
"""Wake-up key: a hook was armed or changed (the wake loop looks again)."""
ROW_PREFIX = quota.WAKE_ROW_PREFIX
MAX_QUIET_NS = 86400 * 10**9
MAX_URL_BYTES = 2048
MAX_ARGS = 64
MAX_COMMAND_BYTES = 8192


def encode(hook: WakeHook) -> bytes:
    """The stored form (JSON, the same on every backend)."""
    record = asdict(hook)
    record["command"] = list(hook.command)
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False).encode()


def decode(raw: bytes | str) -> WakeHook:
    record = json.loads(raw)
    known = set(WakeHook.__dataclass_fields__)
    extra = {k: v for k, v in record.items() if k not in known}
    hook = WakeHook(**{k: v for k, v in record.items() if k in known})
    hook.command = tuple(hook.command)
    hook.extra.update(extra)
    return hook


def arming(hook: WakeHook, now: int, message_id: str, ticket_id: str) -> WakeHook | None:
    """The hook once mail `message_id` (a ticket's task: `ticket_id` set) arrived for its agent, or None when
    it has nothing new to say: armed already, and no ticket to name or one named already (a burst of mail
    writes the hook once). The first arrival arms it; a ticket names itself on a hook armed without one.
    Every backend's arming decision (a batch folds its arrivals in order); `hook` is left alone."""
    if hook.armed and (hook.ticket_id or not ticket_id):
        return None
    armed = hook if hook.armed else replace(hook, armed_ns=now, reason="mail", first_message_id=message_id)
    return replace(armed, reason="ticket", ticket_id=ticket_id) if ticket_id else armed


def arm_all(hooks: Mapping[str, WakeHook], arrivals: Iterable[tuple[str, str, str]],
            now: int) -> dict[str, WakeHook]:
    """`arming` folded over a group's arrivals, in order: (agent id, message id, ticket id) each, for agents
    whose hooks are `hooks`. The hooks the group changes, each as its last arrival leaves it."""
    out: dict[str, WakeHook] = {}
    for agent_id, message_id, ticket_id in arrivals:
        hook = out.get(agent_id) or hooks.get(agent_id)
        armed = arming(hook, now, message_id, ticket_id) if hook is not None else None
        if armed is not None:
            out[agent_id] = armed
    return out


def new_secret() -> str:
    return secrets.token_hex(32)


def signature(secret: str, body: bytes) -> str:
    """The `Fabricd-Signature` header: HMAC-SHA256 of the body, keyed with the secret's text, in hex."""
    return hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def row_key(agent_id: str, n: int) -> str:
    """`wake:<agent>:<n>`; a long agent id is named by its digest (outbox keys stay short on LMDB)."""
    name = agent_id if len(agent_id.encode("utf-8", "surrogatepass")) <= 200 else hashlib.blake2b(
        agent_id.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
    return f"{ROW_PREFIX}{name}:{n:012d}"


def is_wake_row(key: str) -> bool:
    return key.startswith(ROW_PREFIX)


def payload(hook: WakeHook, session_name: str, unread: int, queued: int) -> str:
    """The JSON a URL hook is POSTed and a command hook reads on stdin."""
    return json.dumps({"agent_id": hook.agent_id, "session_name": session_name, "reason": hook.reason or "mail",
                       "unread": unread, "queued_tickets": queued, "first_message_id": hook.first_message_id,
                       "ticket_id": hook.ticket_id}, separators=(",", ":"), ensure_ascii=False)


# -- checks (the refusals, in these words on every backend)


def _bad(message: str, *, reason: str, **metadata: object) -> InvalidArgument:
    return InvalidArgument(message, reason=reason, field="hook", **metadata)


def check_url(url: str) -> None:
    size = len(url.encode("utf-8", "surrogatepass"))
    if size > MAX_URL_BYTES:
        raise _bad(f"hook.url is {size} bytes; the limit is {MAX_URL_BYTES}", reason="WAKE_URL_INVALID",
                   limit=MAX_URL_BYTES)
    if not url.isprintable() or any(c.isspace() for c in url):
        raise _bad("hook.url contains spaces or control characters; percent-encode them", reason="WAKE_URL_INVALID")
    try:
        parts = urlsplit(url)
        _ = parts.port  # a port that is no number in range raises here
    except ValueError as exc:
        raise _bad(f"hook.url {url!r} is not a URL: {exc}", reason="WAKE_URL_INVALID") from None
    if parts.scheme not in ("http", "https"):
        raise _bad(f"hook.url {url!r} must start with http:// or https:// (fabricd POSTs the wake to it)",
                   reason="WAKE_URL_INVALID")
    if not parts.hostname:
        raise _bad(f"hook.url {url!r} names no host: use http://HOST[:PORT]/PATH", reason="WAKE_URL_INVALID")
    if parts.username is not None or parts.password is not None:
        raise _bad("hook.url may not carry a user or password (they would be stored and shown); check the "
                   "Fabricd-Signature header instead", reason="WAKE_URL_INVALID")


def check_command(command: tuple[str, ...]) -> None:
    if len(command) > MAX_ARGS:
        raise _bad(f"hook.command has {len(command)} arguments; the limit is {MAX_ARGS}", reason="WAKE_COMMAND_INVALID",
                   limit=MAX_ARGS)
    if not command[0].strip():
        raise _bad("hook.command[0] is empty: it names the program to run (no shell is involved)",
                   reason="WAKE_COMMAND_INVALID")
    size = sum(len(a.encode("utf-8", "surrogatepass")) for a in command)
    if size > MAX_COMMAND_BYTES:
        raise _bad(f"hook.command is {size} bytes; the limit is {MAX_COMMAND_BYTES}", reason="WAKE_COMMAND_INVALID",
                   limit=MAX_COMMAND_BYTES)
    for i, arg in enumerate(command):
        if "\0" in arg:
            raise _bad(f"hook.command[{i}] contains a NUL character, which no argument can hold",
                       reason="WAKE_COMMAND_INVALID")


def check(url: str, command: tuple[str, ...], quiet_ns: int, min_quiet_ns: int = 0) -> None:
    """Refuse a hook that is not exactly one of a URL and a command, or has a quiet period out of range
    (below `min_quiet_ns`, the daemon's wake.min_quiet_period, or above a day)."""
    if url and command:
        raise _bad("a hook is either a URL or a command, not both: set one of hook.url and hook.command",
                   reason="WAKE_HOOK_AMBIGUOUS")
    if url:
        check_url(url)
    if command:
        check_command(command)
    if not max(0, min_quiet_ns) <= quiet_ns <= MAX_QUIET_NS:
        raise _bad(f"hook.quiet_period is {quiet_ns / 1e9:g} s; it must be between {max(0, min_quiet_ns) / 1e9:g} s "
                   "(wake.min_quiet_period) and 86400 s (a day)", reason="WAKE_QUIET_PERIOD_OUT_OF_RANGE",
                   limit=86400, minimum=f"{max(0, min_quiet_ns) / 1e9:g}")


# -- the contract


def commands_disabled() -> FailedPrecondition:
    return FailedPrecondition(
        "this daemon runs no wake commands (wake.allow_commands is off, the default when it listens on TCP): "
        "use a URL hook, or set wake.allow_commands = \"on\" in its configuration if every caller that can "
        "reach it may run programs as the daemon's user", reason="WAKE_COMMANDS_DISABLED")


class Wakes(Service):
    """Wake hooks over a Store, and the loop that fires them (see the module docstring)."""

    def __init__(self, store: Store, limits: Limits, clock: Callable[[], int], *,
                 streaming: Callable[[str], bool] = lambda agent_id: False, allow_commands: bool = True,
                 min_quiet_ns: int = 0, hosts: wakehosts.HostPolicy = wakehosts.HostPolicy(),
                 resolve: Callable[[str], Awaitable[list[str]]] | None = None) -> None:
        super().__init__(store, limits, clock)
        self._streaming = streaming
        self.allow_commands = allow_commands
        self.min_quiet_ns = min_quiet_ns
        self.hosts = hosts
        self._resolve = resolve
        """The addresses a host name stands for now ([] when it resolves to none); None: names are not resolved
        here (the sender checks them before each POST)."""

    async def set(self, agent_id: str, url: str = "", command: tuple[str, ...] = (),
                  quiet_ns: int = DEFAULT_QUIET_NS, only_when_idle: bool = True) -> WakeHook | None:
        """Set the agent's hook (a new secret for a URL hook); an empty one removes it (None)."""
        validate.agent_id(agent_id, self.limits)
        if not url and not command:
            await self._store.wake.delete(agent_id)
            return None
        check(url, command, quiet_ns, self.min_quiet_ns)
        if command and not self.allow_commands:
            raise commands_disabled()
        if url:
            await self._check_host(url)
        hook = WakeHook(agent_id, url, tuple(command), quiet_ns, only_when_idle, new_secret() if url else "")
        return await self._store.wake.set(hook)

    async def _check_host(self, url: str) -> None:
        """Refuse a URL whose host is, or resolves to, an address hooks may not reach (fabricd.core.wakehosts).
        A name that resolves to nothing yet is taken: the sender checks it again before each POST."""
        host = urlsplit(url).hostname or ""
        if wakehosts.literal(host) is not None:
            addresses = [host]
        elif self._resolve is not None:
            addresses = await self._resolve(host)
        else:
            return
        wakehosts.check(self.hosts, url, host, addresses)

    async def get(self, agent_id: str) -> WakeHook | None:
        validate.agent_id(agent_id, self.limits)
        return await self._store.wake.get(agent_id)

    def state(self, hook: WakeHook) -> str:
        """ACTIVE, BACKING_OFF (its last send failed; none before `retry_ns`) or DISABLED."""
        if hook.disabled:
            return "DISABLED"
        return "BACKING_OFF" if hook.failures and hook.retry_ns > self._clock() else "ACTIVE"

    async def fire_due(self) -> int | None:
        """Fire (or disarm) each due hook, one transaction each; when the next armed hook is due (None: none)."""
        now, upcoming = self._clock(), None
        for agent_id, due in await self._store.wake.armed():
            if due > now:
                upcoming = due if upcoming is None else min(upcoming, due)
            else:
                await self._store.wake.fire(agent_id, self._streaming, int(self.limits.live_window_s * 1e9))
        return upcoming

    async def run(self, idle_s: float = 60.0) -> None:
        """The wake loop: fire due hooks, then sleep until the next is due or a hook is armed."""
        wakeups = self._wakeups
        while not wakeups.closed:
            seen = wakeups.version(WAKE)
            try:
                due = await self.fire_due()
            except FabricError as exc:  # the store is full or closing: try again later
                log.warning("wake hooks paused: %s", exc.message)
                due = None
            wait = idle_s if due is None else max(0.0, (due - self._clock()) / 1e9)
            if wait > 0:
                await wakeups.wait(WAKE, seen, min(wait, idle_s))
