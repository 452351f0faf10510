"""fabricd: a durable messaging fabric for AI agents.

Layers, dependencies pointing inward:
    daemon  -> rpc -> core        (config, lifecycle; servicers; rules)
    daemon  -> store -> core      (the only code that imports lmdb)
    fabricd.v1, fabricd.client, fabricd.cli live in clients/python.
"""

from fabricd import grpc_env as _grpc_env

# Here, so that every way in (the fabricd and fabric commands, the client, the stubs)
# sets gRPC's experiments before its first grpc import: see fabricd/grpc_env.py.
_grpc_env.apply()

__version__ = "0.1.0"
