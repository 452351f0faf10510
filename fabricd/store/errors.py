"""The one error every backend raises when its store cannot be opened or used (a line for people, exit 2)."""

from __future__ import annotations


class StoreError(Exception):
    """The store cannot be opened or used: another process holds it, its folder or disk refuses, its schema is foreign."""
