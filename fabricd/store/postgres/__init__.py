"""The PostgreSQL backend: schema and migrations, statements, wake-ups. The only code that imports the driver.

    schema.py      every table, the numbered migrations, refusal of a newer schema
    statements.py  messages and tickets: append (single, batch), unread, drain, ack, enqueue, finish
    outbox.py      outbox rows, the SKIP LOCKED claim, receipts
    directory.py   mailbox directory with revisions and tombstones, counters, agent directory, tokens
    listen.py      NOTIFY after commit, and the LISTEN connection that reconnects
    locks.py       advisory locks (migrations; housekeeping on one node at a time)
    retry.py       re-running an operation after a serialization failure or a lost connection
    errors.py      the backend's exceptions

The driver is asyncpg, picked by measurement (scripts/pg-probe, both drivers
interleaved on one throwaway cluster, 2 shared cores): it spent about half of
psycopg 3's client CPU per operation and had the lower latency on every
operation; see the probe's figures in the commit that made this choice.
"""
