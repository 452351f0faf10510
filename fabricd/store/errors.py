"""The one error every backend raises when its store cannot be opened or used (a line for people, exit 2)."""

from __future__ import annotations

import importlib


class StoreError(Exception):
    """The store cannot be opened or used: another process holds it, its folder or disk refuses, its schema is foreign."""


NO_POSTGRES_DRIVER = ("the PostgreSQL store needs the asyncpg driver, which this install lacks: "
                      "pip install 'fabricd[postgres]' (in a checkout: .venv/bin/pip install -e '.[postgres]', "
                      "or start with `python3 scripts/dev serve --store postgresql://...`, which installs it)")


def require_postgres_driver() -> None:
    """Raise StoreError (one line saying what to install) when asyncpg, the PostgreSQL driver, cannot be imported."""
    try:
        importlib.import_module("asyncpg")  # by name: only store/postgres imports a driver (tests/store)
    except ImportError as exc:
        raise StoreError(NO_POSTGRES_DRIVER) from exc
