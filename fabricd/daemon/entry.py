"""The `fabricd` command: runs the daemon, or says in one line what to install when only the client is.

`pip install fabricd` brings the client and the `fabric` CLI; the daemon's own
libraries (LMDB, Prometheus, health and reflection) come with the `daemon`
extra. This module tries them first, so it can say so instead of failing with
an ImportError traceback.
"""

from __future__ import annotations

import importlib
import sys

DAEMON_MODULES = ("lmdb", "prometheus_client", "grpc_health", "grpc_reflection")


def main(argv: list[str] | None = None) -> int:
    missing = []
    for name in DAEMON_MODULES:
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
    if missing:
        print(f"fabricd: this install has the client and the fabric CLI only (missing {', '.join(missing)}); "
              "for the daemon: pip install 'fabricd[daemon]'", file=sys.stderr)
        return 1
    from fabricd.daemon.main import main as run

    return run(argv)
