"""gRPC's process settings for fabricd programs: EventEngine experiments off, set before grpc loads.

grpcio 1.85 runs its I/O on the EventEngine by default. On this workload the
older iomgr path is faster, for unary calls and stream pushes alike, and costs
the client less CPU (the figures are in the commit that made this switch).
The switch is the GRPC_EXPERIMENTS environment variable, which grpc reads once
while `import grpc` loads its core: setting it any later does nothing. So the
`fabricd` package's __init__ calls `apply()`: whatever a program imports from
fabricd (the daemon's entry points, the `fabric` CLI, the client, the stubs),
it runs before any fabricd module imports grpc.

A user's own GRPC_EXPERIMENTS wins: an experiment it names (on or off) is left
as it says; ours are appended for the others. Nothing is changed when grpc is
already imported (too late to matter) or when the installed grpcio is not a
version these names were measured on (an unknown name makes grpc log errors).
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from collections.abc import MutableMapping

VARIABLE = "GRPC_EXPERIMENTS"
EXPERIMENTS_OFF = ("event_engine_client", "event_engine_listener", "event_engine_for_all_other_endpoints",
                   "event_engine_callback_cq")
"""Turned off by default: each exists in grpcio 1.85 (checked by tests/e2e/test_grpc_env.py)."""
MEASURED = ((1, 85),)
"""grpcio minor versions the settings were measured on; keep in step with the pin in pyproject.toml."""


def merged(current: str | None) -> str:
    """`current` plus `-name` for each of ours it does not mention."""
    named = {part.strip().lstrip("-") for part in (current or "").split(",") if part.strip()}
    ours = [f"-{name}" for name in EXPERIMENTS_OFF if name not in named]
    return ",".join(p for p in [*(s.strip() for s in (current or "").split(",")), *ours] if p)


def grpcio_version() -> tuple[int, int] | None:
    """(major, minor) of the installed grpcio, read from its metadata file without importing grpc."""
    try:
        spec = importlib.util.find_spec("grpc")
        folders = list(spec.submodule_search_locations or ()) if spec else []
        with open(os.path.join(folders[0], "_grpcio_metadata.py")) as f:
            found = re.search(r"(\d+)\.(\d+)", f.read())
    except (ImportError, IndexError, OSError, ValueError):
        return None
    return (int(found.group(1)), int(found.group(2))) if found else None


def apply(environ: MutableMapping[str, str] | None = None) -> bool:
    """Set GRPC_EXPERIMENTS for this process (see the module docstring); True if it will take effect."""
    environ = os.environ if environ is None else environ
    if "grpc" in sys.modules or grpcio_version() not in MEASURED:
        return False
    environ[VARIABLE] = merged(environ.get(VARIABLE))
    return True
