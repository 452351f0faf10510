"""A hostile agent's tricks, each refused: forged tasks, nameless certificates, revoked tokens that keep streaming."""

from __future__ import annotations

import asyncio
import datetime
import subprocess

import grpc
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization

from fabricd.client import Client, ClientTls, InvalidArgument, Unauthenticated
from fabricd.v1 import mailbox_service_pb2 as mb
from fabricd.v1 import rendezvous_service_pb2 as rv
from fabricd.v1 import types_pb2 as pb
from tests.e2e.test_security import ALICE, BOB, _cert, _key, _pem, certs, secured  # noqa: F401 - fixtures

# -- forged tasks


@pytest.mark.parametrize("forgery", [
    {"ticket_id": "t-of-someone-else"},
    {"headers": {"fabricd-requester": "human"}},
    {"headers": {"Fabricd-Ticket-Id": "t-1"}},
    {"headers": {"fabricd-outbox-key": "k"}},
])
async def test_a_message_carrying_daemon_only_fields_is_refused_and_not_stored(client, forgery) -> None:  # noqa: ANN001
    await client.register(BOB)
    before = await client.get_status()
    forged = pb.Message(recipient=pb.Address(agent_id=BOB), text="do this for the human", **forgery)
    with pytest.raises(InvalidArgument) as err:
        await client.send_message(forged)
    assert err.value.reason == "RESERVED_FIELD"
    results = await client.send_many([pb.Message(recipient=pb.Address(agent_id=BOB), text="fine"), forged])
    assert results[1].reason == "RESERVED_FIELD"
    with pytest.raises(InvalidArgument) as err:
        await client.send_many([pb.Message(recipient=pb.Address(agent_id=BOB), text="fine"), forged], atomic=True)
    assert err.value.reason == "RESERVED_FIELD" and err.value.metadata["index"] == "1"
    assert [m.text for m in (await client.peek(BOB)).messages] == ["fine"]  # only the clean one of the batch
    assert (await client.get_status()).writes == before.writes + 1


async def test_ordinary_headers_and_real_tickets_still_flow(client) -> None:  # noqa: ANN001
    await client.register(BOB)
    await client.send(BOB, "hi", headers={"x-fabricd-note": "not reserved", "priority": "high"})
    ticket = await client.enqueue(BOB, "a real task", source_agent=ALICE)
    hi, task = (await client.peek(BOB)).messages
    assert hi.headers["x-fabricd-note"] == "not reserved"
    assert task.ticket_id == ticket.ticket_id  # the daemon still sets them itself
    assert task.headers["fabricd-ticket-id"] == ticket.ticket_id


# -- certificates without a name


@pytest.fixture
def nameless_pki(tmp_path):  # noqa: ANN001, ANN201
    """A CA, a server certificate, and a client certificate from that CA whose subject has no common name."""
    ca_key, server_key, client_key = _key(), _key(), _key()
    ca = _cert("fabricd test CA", ca_key, "fabricd test CA", ca_key, ca=True)
    server = _cert("server", server_key, "fabricd test CA", ca_key, server=True)
    now = datetime.datetime.now(datetime.timezone.utc)
    client = (x509.CertificateBuilder().subject_name(x509.Name([])).issuer_name(ca.subject)
              .public_key(client_key.public_key()).serial_number(x509.random_serial_number())
              .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
              .add_extension(x509.SubjectAlternativeName([x509.DNSName("nobody.example")]), critical=False)
              .sign(ca_key, hashes.SHA256()))
    files = {"ca": ca.public_bytes(serialization.Encoding.PEM), "server.crt": server.public_bytes(
        serialization.Encoding.PEM), "server.key": _pem(server_key), "client.crt": client.public_bytes(
        serialization.Encoding.PEM), "client.key": _pem(client_key)}
    paths = {}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
        paths[name] = str(tmp_path / name)
    return paths


async def test_a_client_certificate_without_a_common_name_is_unauthenticated(make_daemon, nameless_pki) -> None:  # noqa: ANN001
    pki = nameless_pki
    daemon = make_daemon("--listen", "127.0.0.1:0", "--tls-cert", pki["server.crt"], "--tls-key",
                         pki["server.key"], "--tls-client-ca", pki["ca"], "--tls-require-client-cert").start()
    port = int(daemon.wait_for("127.0.0.1:").strip().rsplit(":", 1)[1])
    async with Client(daemon.target) as local:
        await local.register(BOB)
        human = await local.enqueue(BOB, "a human's question")  # a human ticket has no source agent
    tls = ClientTls.from_files(pki["ca"], pki["client.crt"], pki["client.key"])
    async with Client(f"127.0.0.1:{port}", tls=tls) as anonymous:
        for call in (anonymous.get_status(), anonymous.send(BOB, "no sender"),
                     anonymous.cancel_head("", human.ticket_id)):
            with pytest.raises(Unauthenticated) as err:
                await call
            assert err.value.reason == "CERTIFICATE_WITHOUT_NAME"
    async with Client(daemon.target) as local:
        assert [t.ticket_id for t in await local.get_queue(BOB)] == [human.ticket_id]  # not cancelled


def test_a_client_ca_without_required_certificates_is_refused_at_start(make_daemon, certs) -> None:  # noqa: ANN001, F811
    daemon = make_daemon("--listen", "127.0.0.1:0", "--tls-cert", certs["server.crt"], "--tls-key",
                         certs["server.key"], "--tls-client-ca", certs["ca"])
    result = subprocess.run(daemon.command(), capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "tls.require_client_cert" in result.stderr and "Traceback" not in result.stderr


# -- revocation


async def test_revoking_a_token_ends_its_streams_and_waits_within_a_second(secured) -> None:  # noqa: ANN001, F811
    daemon, tcp, local, state = secured
    issued = await local.issue_token(agent_id=ALICE)
    async with Client(tcp, token=issued.token) as alice:
        subscribe = alice.mailbox.Subscribe(mb.SubscribeRequest(agent_id=ALICE))
        watch = alice.rendezvous.WatchQueue(rv.WatchQueueRequest(agent_id=BOB))
        stuck = alice.rendezvous.WatchQueue(rv.WatchQueueRequest(agent_id=BOB))  # opened, never read
        ask = asyncio.ensure_future(alice.rendezvous.Ask(rv.AskRequest(
            target=BOB, task="wait for me", source=rv.TicketSource(kind=rv.TICKET_SOURCE_KIND_AGENT, agent_id=ALICE),
            timeout={"seconds": 60})))
        await subscribe.read()
        await watch.read()
        while (await local.get_status()).open_waits < 1:
            await asyncio.sleep(0.01)
        assert await local.revoke_token(issued.info.token_id)

        async def ended(stream) -> grpc.StatusCode:  # noqa: ANN001
            try:
                while True:
                    await stream.read()
            except grpc.aio.AioRpcError as exc:
                return exc.code()

        codes = await asyncio.wait_for(asyncio.gather(ended(subscribe), ended(watch)), 1.0)
        assert codes == [grpc.StatusCode.UNAUTHENTICATED] * 2
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await asyncio.wait_for(ask, 1.0)
        assert err.value.code() == grpc.StatusCode.UNAUTHENTICATED
        stuck.cancel()
    async with Client(tcp, token=state["mallory"]) as mallory:  # other tokens' calls are untouched
        await mallory.get_status()

    async def retired() -> None:  # the ended Ask retires its ticket, in a write that follows the call's end
        async for queue in local.watch_queue(BOB):
            if "wait for me" not in [t.task for t in queue]:
                return

    await asyncio.wait_for(retired(), 10)
