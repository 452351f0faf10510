"""A hostile agent's tricks, each refused: forged tasks, nameless certificates, revoked tokens that keep streaming."""

from __future__ import annotations

import asyncio
import datetime
import subprocess

import grpc
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization

from fabricd.client import (
    AlreadyExists,
    Client,
    ClientTls,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    Unauthenticated,
)
from fabricd.v1 import agent_directory_service_pb2 as ad
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
async def test_a_message_carrying_daemon_only_fields_is_refused_and_not_stored(client, forgery) -> None:
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


async def test_ordinary_headers_and_real_tickets_still_flow(client) -> None:
    await client.register(BOB)
    await client.send(BOB, "hi", headers={"x-fabricd-note": "not reserved", "priority": "high"})
    ticket = await client.enqueue(BOB, "a real task", source_agent=ALICE)
    hi, task = (await client.peek(BOB)).messages
    assert hi.headers["x-fabricd-note"] == "not reserved"
    assert task.ticket_id == ticket.ticket_id  # the daemon still sets them itself
    assert task.headers["fabricd-ticket-id"] == ticket.ticket_id


# -- certificates without a name


@pytest.fixture
def nameless_pki(tmp_path):  # noqa: ANN201
    """A CA, a server certificate, and a client certificate from that CA whose subject has no common name."""
    ca_key, server_key, client_key = _key(), _key(), _key()
    ca = _cert("fabricd test CA", ca_key, "fabricd test CA", ca_key, ca=True)
    server = _cert("server", server_key, "fabricd test CA", ca_key, server=True)
    now = datetime.datetime.now(datetime.UTC)
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


async def test_a_client_certificate_without_a_common_name_is_unauthenticated(make_daemon, nameless_pki) -> None:
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


async def test_a_client_certificate_whose_common_name_only_reads_as_an_agents_is_unauthenticated(
        make_daemon, tmp_path) -> None:
    # The CN was trimmed: a certificate issued for 'alice ' (or 'alice' and a no-break or em space) acted as
    # alice herself; one with a Hangul filler or a decomposed accent acted as a name no agent may register.
    ca_key = _key()
    ca = _cert("fabricd test CA", ca_key, "fabricd test CA", ca_key, ca=True)
    server_key = _key()
    files = {"ca": ca.public_bytes(serialization.Encoding.PEM), "server.crt": _cert(
        "server", server_key, "fabricd test CA", ca_key, server=True).public_bytes(serialization.Encoding.PEM),
        "server.key": _pem(server_key)}
    names = {"space": " alice", "nbsp": "alice\u00a0", "em space": "alice\u2003", "hangul filler": "alice\u3164",
             "decomposed": "jose\u0301"}
    for label, name in names.items():
        key = _key()
        files[f"{label}.crt"] = _cert(name, key, "fabricd test CA", ca_key).public_bytes(serialization.Encoding.PEM)
        files[f"{label}.key"] = _pem(key)
    for file, data in files.items():
        (tmp_path / file).write_bytes(data)
    daemon = make_daemon("--listen", "127.0.0.1:0", "--tls-cert", str(tmp_path / "server.crt"), "--tls-key",
                         str(tmp_path / "server.key"), "--tls-client-ca", str(tmp_path / "ca"),
                         "--tls-require-client-cert").start()
    port = int(daemon.wait_for("127.0.0.1:").strip().rsplit(":", 1)[1])
    async with Client(daemon.target) as local:
        await local.register(ALICE)
        await local.register(BOB)
    for label in names:
        tls = ClientTls.from_files(str(tmp_path / "ca"), str(tmp_path / f"{label}.crt"), str(tmp_path / f"{label}.key"))
        async with Client(f"127.0.0.1:{port}", tls=tls) as mallory:
            for call in (mallory.send(BOB, "from alice, honest", sender=ALICE), mallory.drain(ALICE)):
                with pytest.raises(Unauthenticated) as err:
                    await call
                assert err.value.reason == "CERTIFICATE_WITHOUT_NAME", label
    async with Client(daemon.target) as local:
        assert list((await local.peek(BOB)).messages) == []


def test_a_client_ca_without_required_certificates_is_refused_at_start(make_daemon, certs) -> None:  # noqa: F811
    daemon = make_daemon("--listen", "127.0.0.1:0", "--tls-cert", certs["server.crt"], "--tls-key",
                         certs["server.key"], "--tls-client-ca", certs["ca"])
    result = subprocess.run(daemon.command(), capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "tls.require_client_cert" in result.stderr and "Traceback" not in result.stderr


# -- revocation


async def test_revoking_a_token_ends_its_streams_and_waits_within_a_second(secured) -> None:  # noqa: F811
    daemon, tcp, local, state = secured
    issued = await local.issue_token(agent_id=ALICE)
    async with Client(tcp, token=issued.token) as alice:
        subscribe = alice.mailbox.Subscribe(mb.SubscribeRequest(agent_id=ALICE))
        watch = alice.rendezvous.WatchQueue(rv.WatchQueueRequest(agent_id=BOB))
        stuck = alice.rendezvous.WatchQueue(rv.WatchQueueRequest(agent_id=BOB))  # opened, never read
        ask = asyncio.ensure_future(alice.rendezvous.Ask(rv.AskRequest(
            target=BOB, task="wait for me", source=rv.TicketSource(kind=rv.TICKET_SOURCE_KIND_AGENT, agent_id=ALICE),
            timeout={"seconds": 60})))
        serve = alice.rendezvous.Serve()
        await serve.write(rv.ServeRequest(open=rv.ServeOpen(agent_id=ALICE)))
        sender = alice.mailbox.SendStream()  # an ask waiting on it
        await sender.write(mb.SendStreamRequest(seq=1, ask=rv.AskRequest(target=BOB, task="wait for me too")))
        await subscribe.read()
        await watch.read()
        while (await local.get_status()).open_waits < 2:
            await asyncio.sleep(0.01)
        assert await local.revoke_token(issued.info.token_id)

        async def ended(stream) -> grpc.StatusCode:
            try:
                while True:
                    await stream.read()
            except grpc.aio.AioRpcError as exc:
                return exc.code()

        codes = await asyncio.wait_for(asyncio.gather(ended(subscribe), ended(watch), ended(serve), ended(sender)),
                                       1.0)
        assert codes == [grpc.StatusCode.UNAUTHENTICATED] * 4
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


# -- names (#1)


async def test_an_agent_token_cannot_squat_a_name_nor_take_one_a_live_agent_holds(secured) -> None:  # noqa: F811
    daemon, tcp, local, state = secured
    bound = (await local.issue_token(agent_id=ALICE, session_names=["reviewer"])).token
    async with Client(tcp, token=state["mallory"]) as mallory:
        with pytest.raises(PermissionDenied) as err:  # dave has not registered yet: the squatter still may not
            await mallory.register("mallory", session_name="dave")
        assert err.value.reason == "OUT_OF_SCOPE" and "--name dave" in str(err.value)
    with pytest.raises(NotFound):
        await local.resolve("dave")
    await local.register(BOB, session_name="reviewer")
    async with Client(tcp, token=bound) as alice:
        with pytest.raises(PermissionDenied) as err:  # bound to alice, but held by live bob
            await alice.register(ALICE, session_name="reviewer")
        assert err.value.reason == "NAME_HELD" and err.value.metadata["held_by"] == BOB
        assert (await local.resolve("reviewer")).agent_id == BOB  # sends to the name still reach bob alone
        await local.touch(BOB, offline=True)
        await alice.register(ALICE, session_name="reviewer")
    assert (await local.resolve("reviewer")).agent_id == ALICE
    assert [t.session_names for t in await local.list_tokens() if t.session_names] == [["reviewer"]]


# -- reading what is not yours (#5)


async def test_an_agent_token_reads_task_text_only_of_its_own_queue_and_of_tickets_it_asked(secured) -> None:  # noqa: F811
    daemon, tcp, local, state = secured
    await local.register(ALICE)
    human = await local.enqueue(BOB, "the human's private task")
    mine = await local.enqueue(ALICE, "a task for alice")
    async with Client(tcp, token=state["alice"]) as alice:
        queue = await alice.get_queue(BOB)
        assert [(t.ticket_id == state["ticket"], t.task) for t in queue] == [(True, "t"), (False, "")]
        assert queue[1].ticket_id == human.ticket_id and queue[1].requester == "human" and queue[1].position == 1
        watched = await anext(alice.watch_queue(BOB))
        assert [t.task for t in watched] == ["t", ""]
        assert [(t.ticket_id, t.task) for t in await alice.get_queue(ALICE)] == [(mine.ticket_id, "a task for alice")]
    assert [t.task for t in await local.get_queue(BOB)] == ["t", "the human's private task"]  # trusted: whole


async def test_an_agent_token_does_not_read_submissions_threads_or_instructions(secured) -> None:  # noqa: F811
    daemon, tcp, local, state = secured
    agent = (await local.initialize(instructions="the host's secret instructions")).agent
    await local.admit(agent.agent_id, ad.Submission(text="the secret plan", data="{}"))
    async with Client(tcp, token=state["alice"]) as alice:
        (request,) = (await alice.list_requests()).requests
        assert request.request_id and request.submission.text == "" and not request.submission.HasField("data")
        assert all(t.title == "" for t in await alice.list_threads(agent.agent_id))
        assert (await alice.get_agent(agent.agent_id)).instructions == ""
        assert (await alice.get_directory_data()).default_agent.instructions == ""
    (request,) = (await local.list_requests()).requests
    assert request.submission.text == "the secret plan"


# -- bounded work (#10)


async def test_an_agent_token_cannot_make_one_message_carry_thousands_of_headers(secured) -> None:  # noqa: F811
    daemon, tcp, local, state = secured
    async with Client(tcp, token=state["alice"]) as alice:
        with pytest.raises(InvalidArgument) as err:
            await alice.send(BOB, "h", headers={f"h{i}": "" for i in range(60_000)})
        assert err.value.reason == "TOO_MANY_ITEMS"
        await alice.send(BOB, "h", headers={f"h{i}": "" for i in range(64)})


# -- retrying a lost answer (#13)


async def test_an_admit_retried_with_its_request_key_returns_the_first_answer(secured) -> None:  # noqa: F811
    daemon, tcp, local, state = secured
    agent = (await local.initialize(instructions="")).agent
    async with Client(tcp, token=state["admin"]) as admin:
        first = await admin.admit(agent.agent_id, ad.Submission(text="build it"), request_key="k-7")
        sequence = (await admin.get_directory_data()).sequence
        again = await admin.admit(agent.agent_id, ad.Submission(text="build it"), request_key="k-7")
        assert (again.accepted, again.request_id, again.thread_id) == (True, first.request_id, first.thread_id)
        assert (await admin.get_directory_data()).sequence == sequence
        with pytest.raises(AlreadyExists) as err:
            await admin.admit(agent.agent_id, ad.Submission(text="something else"), request_key="k-7")
        assert err.value.reason == "REQUEST_KEY_REUSED"
        thread = await admin.create_thread(agent.agent_id, title="t", request_key="t-1")
        assert (await admin.create_thread(agent.agent_id, title="t", request_key="t-1")).thread_id == thread.thread_id


# -- drains whose caller is gone (#11)


async def test_drains_with_short_deadlines_under_load_lose_nothing(secured) -> None:  # noqa: F811
    daemon, tcp, local, state = secured
    await local.register(ALICE)
    total = 400
    await local.send_many([pb.Message(recipient=pb.Address(agent_id=ALICE), text=f"m{i}") for i in range(total)])
    received: list[str] = []
    stop, half_drained = asyncio.Event(), asyncio.Event()

    async def load() -> None:  # keeps the writer busy, so drains wait for it; bounded, so a slow machine where
        # no short drain gets through under load ends the load (and the drains then finish) instead of filling
        # the disk: an unbounded loop here once grew a daemon to 23 GB and held CI for half an hour
        async with Client(daemon.target) as loader:
            for _ in range(40):
                if stop.is_set():
                    break
                await loader.send_many([pb.Message(recipient=pb.Address(agent_id=BOB), text="x" * 2000)] * 200)

    async def drainer(deadline: float) -> None:
        async with Client(tcp, token=state["alice"]) as alice:
            while not stop.is_set():
                try:
                    answer = await alice.mailbox.DrainMessages(mb.DrainMessagesRequest(agent_id=ALICE, limit=7),
                                                               timeout=deadline)
                except grpc.aio.AioRpcError as exc:
                    assert exc.code() == grpc.StatusCode.DEADLINE_EXCEEDED, exc
                    continue
                received.extend(m.text for m in answer.messages)
                if len(received) >= total // 2:
                    half_drained.set()

    loaders = [asyncio.ensure_future(load()) for _ in range(2)]
    drainers = [asyncio.ensure_future(drainer(d)) for d in (0.01, 0.01, 0.03, 0.06, 0.1)]
    half = asyncio.ensure_future(half_drained.wait())
    running: set[asyncio.Future[object]] = {half, *loaders, *drainers}
    # Until half the mail is drained, or the load ends first (a machine so busy that no short drain gets
    # through: the rest is drained below, and what counts is that nothing was lost or given twice).
    while not half.done() and not all(task.done() for task in loaders):
        done, running = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
        for task in done:
            task.result()  # a failed loader or drainer (a wrong status, say) ends the test at once
    half.cancel()
    stop.set()
    await asyncio.gather(*loaders, *drainers)
    while True:  # what is left, with all the time in the world
        rest = await local.drain(ALICE, 1000)
        if not rest.messages:
            break
        received.extend(m.text for m in rest.messages)
    assert sorted(received) == sorted(f"m{i}" for i in range(total))  # each once: none lost, none twice
