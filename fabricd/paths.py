"""Where the daemon keeps its data and its socket by default. Shared by the daemon and the clients."""

from __future__ import annotations

import os
from collections.abc import Mapping


def state_dir(environ: Mapping[str, str] = os.environ) -> str:
    """The daemon's state folder: systemd's $STATE_DIRECTORY, else $XDG_STATE_HOME/fabricd."""
    if environ.get("STATE_DIRECTORY"):
        return environ["STATE_DIRECTORY"].split(":")[0]
    base = environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(base, "fabricd")


def default_data_dir(environ: Mapping[str, str] = os.environ) -> str:
    return os.path.join(state_dir(environ), "data")


def default_socket(environ: Mapping[str, str] = os.environ) -> str:
    """The unix socket: in systemd's $RUNTIME_DIRECTORY, else beside the data folder."""
    if environ.get("RUNTIME_DIRECTORY"):
        return os.path.join(environ["RUNTIME_DIRECTORY"].split(":")[0], "fabricd.sock")
    return os.path.join(state_dir(environ), "fabricd.sock")
