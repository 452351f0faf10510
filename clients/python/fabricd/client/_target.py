"""Where a client dials: the --target grammar, and socket discovery when none is given.

With no target and no $FABRICD_TARGET, a client tries the sockets the daemon
is started on, in this order, and dials the first that accepts a connection
(else the first that exists, else the state-folder one, `fabricd serve`'s default):

  1. $XDG_RUNTIME_DIR/fabricd.sock        the user unit (`systemctl --user`; /run/user/UID if unset)
  2. $XDG_STATE_HOME/fabricd/fabricd.sock  `fabricd serve` run by hand
  3. /run/fabricd/fabricd.sock             the system unit

A target is `unix:PATH`, a bare path (`/run/x.sock`, `./x.sock`, `~/x.sock`),
`HOST:PORT`, or any gRPC scheme (`dns:`, `ipv4:`, `ipv6:`, `unix-abstract:`).
A host without a port is refused: fabricd has no well-known TCP port, so
dialling one (gRPC would pick 443) only hides the mistake.

Several nodes (fabricd on PostgreSQL): a list of targets, or one string with
commas (`--target a:7077,b:7077`, $FABRICD_TARGET likewise). The client dials
the first and moves to the next when a call answers UNAVAILABLE. An `ipv4:` or
`ipv6:` target keeps its commas: that is gRPC's own list of addresses.
"""

from __future__ import annotations

import os
import re
import socket
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from fabricd import paths
from fabricd.client._errors import InvalidArgument

# The system unit's socket; a module constant so tests can point it at a fake /run.
SYSTEM_SOCKET = "/run/fabricd/fabricd.sock"
EXAMPLE_PORT = 7077  # the port the docs use for TCP listeners; named in the error for a host without one

_SCHEMES = ("unix:", "unix-abstract:", "dns:", "ipv4:", "ipv6:", "vsock:", "xds:")
_HOST_PORT = re.compile(r"^(\[[0-9a-fA-F:.%\w]+\]|[^:/\s\[\]]+):(\d{1,5})$")


@dataclass(frozen=True, slots=True)
class Candidate:
    """One socket a client looked for, and what it found there."""

    path: str
    state: str  # "accepts connections", "refused", "not a socket", "no such file"

    def __str__(self) -> str:
        return f"unix:{self.path} ({self.state})"


@dataclass(frozen=True, slots=True)
class Resolved:
    """The target to dial, and, when it was discovered, every socket looked at."""

    target: str
    tried: tuple[Candidate, ...] = ()
    alternates: tuple[str, ...] = ()
    """The other nodes, in order, to fail over to (given several targets)."""

    @property
    def targets(self) -> tuple[str, ...]:
        return (self.target, *self.alternates)

    @property
    def discovered(self) -> bool:
        return bool(self.tried)

    def describe(self) -> str:
        """`unix:/a (refused), unix:/b (no such file)`: for messages."""
        return ", ".join(map(str, self.tried)) if self.tried else ", ".join(self.targets)


def candidates(environ: Mapping[str, str] = os.environ) -> list[str]:
    """The sockets discovery tries, in order, without duplicates."""
    # systemd's %t for a user manager; /run/user/UID when a session did not export it (su, cron)
    runtime = environ.get("XDG_RUNTIME_DIR") or f"/run/user/{os.getuid()}"
    found = [os.path.join(runtime, "fabricd.sock")]
    found.append(paths.default_socket(environ))
    found.append(SYSTEM_SOCKET)
    return list(dict.fromkeys(found))


def probe(path: str) -> str:
    """What is at `path`: a unix connect is answered (or refused) at once, so this never blocks."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "no such file"
    except OSError as exc:
        return exc.strerror or "unreadable"
    if not stat.S_ISSOCK(mode):
        return "not a socket"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(1.0)
        try:
            s.connect(path)
        except PermissionError:
            return "permission denied"
        except OSError:
            return "refused"
    return "accepts connections"


def discover(environ: Mapping[str, str] = os.environ) -> Resolved:
    """The first candidate socket that accepts a connection, else the first that exists, else the state one."""
    tried = tuple(Candidate(path, probe(path)) for path in candidates(environ))
    for wanted in ("accepts connections", None):
        for c in tried:
            if c.state == wanted or (wanted is None and c.state != "no such file"):
                return Resolved(f"unix:{c.path}", tried)
    return Resolved(f"unix:{paths.default_socket(environ)}", tried)


def normalize(target: str) -> str:
    """A --target as gRPC wants it; InvalidArgument (BAD_TARGET) with the fix when it cannot be dialled."""
    target = target.strip()
    if not target:
        raise InvalidArgument("empty target: give unix:PATH, a socket path or HOST:PORT", reason="BAD_TARGET")
    if target.startswith("unix:") and not target.startswith("unix://"):
        return "unix:" + os.path.expanduser(target[5:])  # `unix:~/x.sock` as a shell user means it
    if target.startswith(_SCHEMES):
        return target
    if target.startswith(("/", "./", "../", "~")) or target.endswith(".sock"):
        return "unix:" + os.path.abspath(os.path.expanduser(target))
    if "://" in target:
        raise InvalidArgument(f"target {target!r}: fabricd speaks gRPC, not a URL; give HOST:PORT or unix:PATH",
                              reason="BAD_TARGET", metadata={"target": target})
    if _HOST_PORT.match(target):
        if int(target.rsplit(":", 1)[1]) > 65535:
            raise InvalidArgument(f"target {target!r}: the port must be 1-65535", reason="BAD_TARGET",
                                  metadata={"target": target})
        return target
    host = target.rstrip(":")
    raise InvalidArgument(
        f"target {target!r} has no port, and fabricd has no default TCP port: give the port of the daemon's "
        f"`--listen HOST:PORT`, e.g. {host}:{EXAMPLE_PORT}, or unix:PATH for a socket",
        reason="BAD_TARGET", metadata={"target": target, "example": f"{host}:{EXAMPLE_PORT}"})


def split(targets: str | Sequence[str]) -> list[str]:
    """Several targets as gRPC wants each: from a list, or from one string with commas; without duplicates."""
    given = [targets] if isinstance(targets, str) else list(targets)
    parts: list[str] = []
    for item in given:
        if item.strip().startswith(("ipv4:", "ipv6:")):
            parts.append(item)  # gRPC's own comma-separated address list: one target
        elif "," in item:
            parts.extend(p for p in item.split(",") if p.strip())  # `a,b,` is two targets
        else:
            parts.append(item)
    if not parts:
        raise InvalidArgument("empty target: give unix:PATH, a socket path or HOST:PORT", reason="BAD_TARGET")
    return list(dict.fromkeys(normalize(p) for p in parts))


def resolve(target: str | Sequence[str] | None, environ: Mapping[str, str] = os.environ) -> Resolved:
    """The given target(s), else $FABRICD_TARGET, else discovery."""
    given = target or environ.get("FABRICD_TARGET")
    if given:
        first, *others = split(given)
        return Resolved(first, alternates=tuple(others))
    return discover(environ)
