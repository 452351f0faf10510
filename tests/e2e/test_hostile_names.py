"""Names that cross scopes: an identity whose agent id is another agent's name acts on no agent but its own.

The core resolves a name as an agent id, a session name or `session/segment` (a suffix of the id after a
session name). A token for `builder/b` reaches bob (session `builder`, id ending in `b`) wherever the core
resolves its id as a name, so the guard decides on the agent a name resolves to; and ids and session names
that would be one address for two agents are refused where they are made (NAME_COLLISION): at Register,
Touch and token issue. The matrix below calls every directory, mailbox, rendezvous and outbox RPC that takes
an agent id or a name, with the colliding id and with bob's own names, and checks bob's state is untouched
and nothing of bob's comes back.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import grpc
import pytest
from cryptography.hazmat.primitives import serialization

from fabricd.client import AlreadyExists, Client, ClientTls
from fabricd.v1 import directory_service_pb2 as dr
from fabricd.v1 import mailbox_service_pb2 as mb
from fabricd.v1 import outbox_service_pb2 as ob
from fabricd.v1 import rendezvous_service_pb2 as rv
from fabricd.v1 import types_pb2 as pb
from tests.e2e.test_security import _cert, _key, _pem

BACKENDS = ("lmdb", "postgres")
ALICE, BOB, CAROL = "alice", "bob", "carol"
COLLIDING = "builder/b"  # bob's address as `session/segment`: session `builder`, id ending in `b`
SECRET = "bob-secret"  # in every task and message of bob's: a response carrying it leaked bob's data


@dataclass(frozen=True)
class Call:
    stub: str
    method: str
    request: Callable[[str, dict], object]
    stream: bool = False


def _job(agent: str) -> ob.SettledJob:
    return ob.SettledJob(job_id="j", outcome=ob.JOB_OUTCOME_COMPLETED, agent=pb.Address(agent_id=agent, session_id="s"),
                         mail=pb.Mail(key="k", reply_to=[pb.Address(agent_id=ALICE, session_id="s")]))


def _source(name: str) -> rv.TicketSource:
    return rv.TicketSource(kind=rv.TICKET_SOURCE_KIND_AGENT, agent_id=name)


SHORT = {"nanos": 50_000_000}
CALLS = [
    Call("directory", "Unregister", lambda n, s: dr.UnregisterRequest(agent_id=n, purge=True)),
    Call("directory", "SetWakeHook", lambda n, s: dr.SetWakeHookRequest(
        agent_id=n, hook=dr.WakeHook(url="http://127.0.0.1:9/wake"))),
    Call("directory", "GetWakeHook", lambda n, s: dr.GetWakeHookRequest(agent_id=n)),
    Call("mailbox", "SendMessage", lambda n, s: mb.SendMessageRequest(message=pb.Message(
        sender=pb.Address(agent_id=n), recipient=pb.Address(agent_id=ALICE), text="hi"))),
    Call("mailbox", "SendMessages", lambda n, s: mb.SendMessagesRequest(messages=[pb.Message(
        sender=pb.Address(agent_id=n), recipient=pb.Address(agent_id=ALICE), text="hi")])),
    Call("mailbox", "PeekMessages", lambda n, s: mb.PeekMessagesRequest(agent_id=n)),
    Call("mailbox", "DrainMessages", lambda n, s: mb.DrainMessagesRequest(agent_id=n)),
    Call("mailbox", "Subscribe", lambda n, s: mb.SubscribeRequest(agent_id=n), stream=True),
    Call("mailbox", "AckMessages", lambda n, s: mb.AckMessagesRequest(agent_id=n, message_ids=[s["mail"]])),
    Call("rendezvous", "Ask", lambda n, s: rv.AskRequest(target=ALICE, task="t", source=_source(n), timeout=SHORT)),
    Call("rendezvous", "EnqueueTicket", lambda n, s: rv.EnqueueTicketRequest(target=ALICE, task="t",
                                                                             source=_source(n))),
    Call("rendezvous", "Reply", lambda n, s: rv.ReplyRequest(agent_id=n, result="forged")),
    Call("rendezvous", "Reply", lambda n, s: rv.ReplyRequest(agent_id=n, result="forged", ticket_id=s["head"])),
    Call("rendezvous", "CancelHead", lambda n, s: rv.CancelHeadRequest(agent_id=n, ticket_id=s["head"])),
    Call("rendezvous", "CloseQueue", lambda n, s: rv.CloseQueueRequest(agent_id=n)),
    Call("rendezvous", "ListTickets", lambda n, s: rv.ListTicketsRequest(agent_id=n)),
    Call("rendezvous", "ListTickets", lambda n, s: rv.ListTicketsRequest(agent_id=BOB, source_agent_id=n)),
    Call("outbox", "FanOut", lambda n, s: ob.FanOutRequest(job=_job(n), content="c")),
    # last: made under the colliding id, an entry would take the address from bob (an id resolves first)
    Call("directory", "Register", lambda n, s: dr.RegisterRequest(agent_id=n)),
    Call("directory", "Touch", lambda n, s: dr.TouchRequest(agent_id=n, busy=True)),
]


async def _call(client: Client, call: Call, name: str, state: dict) -> tuple[grpc.StatusCode, bytes]:
    """The call's status and the bytes it answered (the first frame of a stream)."""
    rpc = getattr(getattr(client, call.stub), call.method)
    try:
        if call.stream:
            stream = rpc(call.request(name, state))
            response = await stream.read()
            stream.cancel()
        else:
            response = await rpc(call.request(name, state), timeout=10)
    except grpc.aio.AioRpcError as exc:
        return exc.code(), (exc.details() or "").encode()
    return grpc.StatusCode.OK, response.SerializeToString() if hasattr(response, "SerializeToString") else b""


async def state_of(local: Client, victim: str) -> tuple:
    """All a trusted caller sees of an agent: its entry, mail, queue, tickets and wake hook."""
    entry = await local.resolve(victim)
    mail = [(m.id, m.text) for m in (await local.peek(victim)).messages]
    queue = [t.ticket_id for t in await local.get_queue(victim)]
    tickets = [(t.ticket_id, t.state, t.result) for t in await local.list_tickets(victim)]
    hook = (await local.get_wake_hook(victim)).HasField("hook")
    return entry.agent_id, entry.session_name, entry.registered, entry.busy, mail, queue, tickets, hook


async def victim_of_asks(local: Client, victim: str, session_name: str) -> dict:
    """`victim` registered under `session_name`, with mail and two tickets alice asked (the head one to forge)."""
    await local.register(ALICE)
    await local.register(victim, session_name=session_name)
    state = {"head": (await local.enqueue(victim, f"{SECRET} task 1", source_agent=ALICE)).ticket_id}
    await local.enqueue(victim, f"{SECRET} task 2", source_agent=ALICE)
    state["mail"] = (await local.send(victim, f"{SECRET} mail")).message.id
    return state


async def assert_acts_on_nothing_of(hostile: Client, local: Client, victim: str, name: str, state: dict) -> None:
    before = await state_of(local, victim)
    for call in CALLS:
        code, answered = await _call(hostile, call, name, state)
        assert SECRET.encode() not in answered, (call.method, name, code)
        assert await state_of(local, victim) == before, (call.method, name, code)


@pytest.fixture
async def collided(make_daemon):  # noqa: ANN201
    """A token for `builder/b`, issued before bob registered under session name `builder`; bob has mail and
    two tickets alice asked (the head one is the one to forge an answer to)."""
    daemon = make_daemon("--listen", "127.0.0.1:0", "--no-outbox-loop", "--keepalive", "0.1")
    daemon.start()
    port = int(daemon.wait_for("127.0.0.1:").strip().rsplit(":", 1)[1])
    async with Client(daemon.target) as local:
        token = (await local.issue_token(agent_id=COLLIDING)).token
        state = {"token": token, **await victim_of_asks(local, BOB, "builder")}
        assert (await local.resolve(COLLIDING)).agent_id == BOB  # the collision: the token's id reaches bob
        yield f"127.0.0.1:{port}", local, state


@pytest.mark.parametrize("name", [COLLIDING, "builder", BOB])
async def test_a_token_whose_id_is_bobs_address_acts_on_nothing_of_bobs(collided, name) -> None:
    tcp, local, state = collided
    async with Client(tcp, token=state["token"]) as hostile:
        await assert_acts_on_nothing_of(hostile, local, BOB, name, state)


@pytest.mark.parametrize("name", ["reviewer", CAROL])
async def test_a_certificate_named_as_carols_session_acts_on_nothing_of_carols(make_daemon, tmp_path,
                                                                               name) -> None:
    """A client certificate names its agent with no record the directory could check at registration, so
    carol may hold the session name `reviewer` while a certificate CN=reviewer is in use: the guard decides."""
    ca_key = _key()
    ca = _cert("fabricd test CA", ca_key, "fabricd test CA", ca_key, ca=True)
    files = {"ca": ca.public_bytes(serialization.Encoding.PEM)}
    for cn, server in (("server", True), ("reviewer", False)):
        key = _key()
        files[f"{cn}.crt"] = _cert(cn, key, "fabricd test CA", ca_key, server=server).public_bytes(
            serialization.Encoding.PEM)
        files[f"{cn}.key"] = _pem(key)
    for file, data in files.items():
        (tmp_path / file).write_bytes(data)
    paths = {file: str(tmp_path / file) for file in files}
    daemon = make_daemon("--listen", "127.0.0.1:0", "--no-outbox-loop", "--keepalive", "0.1", "--tls-cert",
                         paths["server.crt"], "--tls-key", paths["server.key"], "--tls-client-ca", paths["ca"],
                         "--tls-require-client-cert").start()
    port = int(daemon.wait_for("127.0.0.1:").strip().rsplit(":", 1)[1])
    async with Client(daemon.target) as local:
        state = await victim_of_asks(local, CAROL, "reviewer")
        tls = ClientTls.from_files(paths["ca"], paths["reviewer.crt"], paths["reviewer.key"])
        async with Client(f"127.0.0.1:{port}", tls=tls) as hostile:
            await assert_acts_on_nothing_of(hostile, local, CAROL, name, state)


async def test_the_colliding_token_is_refused_where_the_core_resolves_its_id(collided) -> None:
    tcp, local, state = collided
    async with Client(tcp, token=state["token"]) as hostile:
        for call in CALLS:
            code, _ = await _call(hostile, call, COLLIDING, state)
            if call.method in ("Unregister", "Reply", "CancelHead", "CloseQueue") or (
                    call.method == "ListTickets" and not call.request(COLLIDING, state).source_agent_id):
                assert code == grpc.StatusCode.PERMISSION_DENIED, (call.method, code)
            elif call.method in ("Register", "Touch"):  # would make an entry under bob's address
                assert code == grpc.StatusCode.ALREADY_EXISTS, (call.method, code)
    assert (await local.resolve(COLLIDING)).agent_id == BOB


async def test_an_agent_id_that_is_another_agents_name_is_refused_at_register_touch_and_token_issue(
        client) -> None:
    await client.register(CAROL, session_name="reviewer")
    before_entries = (await client.list_mailboxes())
    for name in ("reviewer", "reviewer/carol", "reviewer/l"):  # the session name, and both `session/segment` forms
        with pytest.raises(AlreadyExists) as err:
            await client.issue_token(agent_id=name)
        assert err.value.reason == "NAME_COLLISION" and err.value.metadata["held_by"] == CAROL
        with pytest.raises(AlreadyExists) as err:
            await client.register(name)
        assert err.value.reason == "NAME_COLLISION"
        with pytest.raises(AlreadyExists) as err:
            await client.touch(name)
        assert err.value.reason == "NAME_COLLISION"
    # nothing written: the directory and its revision as they were (the daemon-wide write count is no measure
    # here, the daemon's own housekeeping moves it on a busy machine)
    assert [(e.agent_id, e.revision) for e in (await client.list_mailboxes())] == [
        (e.agent_id, e.revision) for e in before_entries]
    assert (await client.resolve("reviewer")).agent_id == CAROL
    assert [t.agent_id for t in await client.list_tokens()] == []
    await client.issue_token(agent_id="reviewer-2")  # an id that is nobody's name is fine


async def test_a_session_name_that_is_another_agents_id_is_refused(client) -> None:
    issued = await client.issue_token(agent_id="reviewer")
    await client.register(ALICE)
    for name in ("reviewer", ALICE):  # a live token's agent id, a registered agent's id
        with pytest.raises(AlreadyExists) as err:
            await client.register(CAROL, session_name=name)
        assert err.value.reason == "NAME_COLLISION" and err.value.metadata["name"] == name
        with pytest.raises(AlreadyExists) as err:
            await client.issue_token(agent_id=CAROL, session_names=[name])
        assert err.value.reason == "NAME_COLLISION"
    assert not (await client.resolve(ALICE)).session_name
    await client.register("reviewer", session_name="reviewer")  # its own id as its name is one address
    await client.unregister("reviewer")
    assert await client.revoke_token(issued.info.token_id)
    entry = await client.register(CAROL, session_name="reviewer")  # the token is gone: the name is free
    assert entry.session_name == "reviewer"
