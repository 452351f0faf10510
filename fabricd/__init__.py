"""fabricd: a durable messaging fabric for AI agents.

Layers, dependencies pointing inward:
    daemon  -> rpc -> core        (config, lifecycle; servicers; rules)
    daemon  -> store -> core      (the only code that imports lmdb)
    fabricd.v1, fabricd.client, fabricd.cli live in clients/python.
"""

__version__ = "0.1.0"
