"""sd_notify without libsystemd: one datagram to $NOTIFY_SOCKET per state change."""

from __future__ import annotations

import os
import socket


class SystemdNotifier:
    """Tells systemd the daemon's state (READY=1, STATUS=..., WATCHDOG=1) over $NOTIFY_SOCKET; a no-op without it."""

    def __init__(self, address: str | None) -> None:
        self._address = address
        if address and address.startswith("@"):
            self._address = "\0" + address[1:]

    @classmethod
    def from_env(cls, environ: dict[str, str] | os._Environ[str] = os.environ) -> SystemdNotifier:
        return cls(environ.get("NOTIFY_SOCKET") or None)

    @property
    def enabled(self) -> bool:
        return self._address is not None

    def notify(self, *states: str) -> bool:
        if not self._address:
            return False
        payload = "\n".join(states).encode()
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            try:
                sock.sendto(payload, self._address)
            except OSError:
                return False
        return True


def watchdog_interval(environ: dict[str, str] | os._Environ[str] = os.environ) -> float:
    """$WATCHDOG_USEC in seconds when the watchdog is meant for this process; else 0."""
    usec = environ.get("WATCHDOG_USEC")
    pid = environ.get("WATCHDOG_PID")
    if not usec or (pid and pid != str(os.getpid())):
        return 0.0
    try:
        return int(usec) / 1e6
    except ValueError:
        return 0.0
