"""The PostgreSQL backend: schema and migrations, statements, wake-ups. The only code that imports the driver.

    store.py       PgStore: the core's Store port (the shared record scripts over engine.py, plus hot.py)
    engine.py      PgEngine: the pool, record transactions (tx.py; its mixins tx_tickets.py, tx_outbox.py,
                   tx_wake.py, tx_pages.py), `op` for one statement
    hot.py         the hot paths as one statement or one short transaction each, deciding through core:
                   the mailbox's here and in hot_append.py (append_sql.py), hot_rendezvous.py, hot_outbox.py
    schema.py      every table, the numbered migrations, refusal of a newer schema
    statements.py  messages: the stored encoding, unread, drain, ack, forgetting old ids
    tickets.py     rendezvous tickets: the enqueue's facts and writes, read, the FIFO, prune
    outbox.py      outbox rows, the SKIP LOCKED claim, receipts
    directory.py   mailbox directory with revisions and tombstones, counters, agent directory, tokens
    listen.py      NOTIFY after commit, and the LISTEN connection that reconnects
    locks.py       advisory locks (migrations; housekeeping on one node at a time)
    retry.py       re-running an operation after a serialization failure or a lost connection
    errors.py      the backend's exceptions

The driver is asyncpg, picked by measurement: scripts/pg-probe runs both drivers
interleaved (A B A B) on one durable throwaway cluster, each with a pool of 8
(psycopg 3.3 binary build with psycopg_pool, statements prepared). On 2 shared
cores (load 1.7-2.5), asyncpg 0.32 spent less client CPU on every operation
(send 263 vs 361 us, batch 7.2 vs 19.3 us a row, claim 423 vs 605 us, ticket
464 vs 785 us, notify 399 vs 537 us) and was as fast or faster on all but the
SKIP LOCKED claim (635 vs 702 claims/s, within noise of the first run's
677 vs 911): single send p50 0.70 vs 0.78 ms, 16 senders on one mailbox 1246 vs 971/s,
100-row batches 47.5k vs 29.5k rows/s, NOTIFY to LISTEN p50 0.47 vs 0.65 ms.
Client CPU is what limits a fabricd node, so asyncpg it is; psycopg stays in
the test extra only so the probe can compare them again.
"""
