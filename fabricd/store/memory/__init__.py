"""The in-memory backend: the reference for the core's unit tests (and `--data-dir memory:`); nothing persists."""

from fabricd.store.memory.engine import MemoryEngine

__all__ = ["MemoryEngine"]
