"""How a client proves who it is: TLS files for the channel, a bearer token on every call."""

from __future__ import annotations

import os
from dataclasses import dataclass

import grpc


@dataclass(frozen=True, slots=True)
class ClientTls:
    """TLS to the daemon: the CA that signed its certificate, and for mutual TLS our own."""

    ca: bytes | None = None
    cert: bytes | None = None
    key: bytes | None = None

    @classmethod
    def from_files(cls, ca: str = "", cert: str = "", key: str = "") -> ClientTls:
        def read(path: str) -> bytes | None:
            if not path:
                return None
            with open(path, "rb") as f:
                return f.read()

        return cls(read(ca), read(cert), read(key))

    @classmethod
    def from_env(cls) -> ClientTls | None:
        """$FABRICD_TLS_CA, $FABRICD_TLS_CERT, $FABRICD_TLS_KEY; None when none is set."""
        names = ("FABRICD_TLS_CA", "FABRICD_TLS_CERT", "FABRICD_TLS_KEY")
        if not any(os.environ.get(n) for n in names):
            return None
        return cls.from_files(*(os.environ.get(n, "") for n in names))


class _Bearer:
    """Adds `authorization: Bearer <token>` to every call."""

    def __init__(self, token: str) -> None:
        self._metadata = ("authorization", f"Bearer {token}")

    def _details(self, details: grpc.aio.ClientCallDetails) -> grpc.aio.ClientCallDetails:
        metadata = grpc.aio.Metadata(*(details.metadata or ()))
        metadata.add(*self._metadata)
        return grpc.aio.ClientCallDetails(details.method, details.timeout, metadata, details.credentials,
                                          details.wait_for_ready)


# grpc.aio files an interceptor under its first matching kind only: one class per kind.
class _BearerUnary(_Bearer, grpc.aio.UnaryUnaryClientInterceptor):
    async def intercept_unary_unary(self, continuation, details, request):  # noqa: ANN001, ANN202 - grpc.aio types none
        return await continuation(self._details(details), request)


class _BearerStream(_Bearer, grpc.aio.UnaryStreamClientInterceptor):
    async def intercept_unary_stream(self, continuation, details, request):  # noqa: ANN001, ANN202 - grpc.aio types none
        return await continuation(self._details(details), request)
