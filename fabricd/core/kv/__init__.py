"""The store port's operations written once over a record-level transaction, for key-value backends.

LMDB and the in-memory backend run these transaction scripts (`KvStore` binds
them to an `Engine`); a backend with a query language (PostgreSQL) implements
the port's operations itself and keeps the same rules, which the unit tests in
tests/core pin. The refusals (what is refused and why) are built by the core's
contract modules, so every backend refuses in the same words.
"""
