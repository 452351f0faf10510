"""A bare grpc.aio MailboxService that stores nothing: the floor the unary workloads compare the daemon with.

    python scripts/bench_unary_bare.py unix:/tmp/x.sock     (prints 'serving' once it listens)

SendMessage answers the message back with a seq and a send time, as the daemon's response carries them; every
other method is UNIMPLEMENTED. The same grpc.aio options as the daemon's server would not change the floor much;
this is the plain server a Python gRPC service starts with, on the event loop the daemon would choose
(server.event_loop, from FABRICD_SERVER_EVENT_LOOP, default auto: uvloop where it imports), so the daemon is
compared with a floor on the same loop.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import sys
import time

import grpc

from fabricd.daemon.eventloop import choose
from fabricd.v1 import mailbox_service_pb2 as pb
from fabricd.v1 import mailbox_service_pb2_grpc as pb_grpc


class Bare(pb_grpc.MailboxServiceServicer):
    def __init__(self) -> None:
        self._seq = itertools.count(1)

    async def SendMessage(self, request: pb.SendMessageRequest, context: grpc.aio.ServicerContext) -> pb.SendMessageResponse:
        out = pb.SendMessageResponse(message=request.message)
        out.message.seq = next(self._seq)
        out.message.send_time.FromNanoseconds(time.time_ns())
        return out


async def main(target: str) -> None:
    server = grpc.aio.server()
    pb_grpc.add_MailboxServiceServicer_to_server(Bare(), server)
    server.add_insecure_port(target)
    await server.start()
    print("serving", flush=True)
    await server.wait_for_termination()


if __name__ == "__main__":
    with asyncio.Runner(loop_factory=choose(os.environ.get("FABRICD_SERVER_EVENT_LOOP", "auto")).new) as runner:
        runner.run(main(sys.argv[1]))
