"""Who may do what: tokens and their scopes on every RPC, TLS and mutual TLS, rate limits."""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import subprocess
from collections.abc import Callable
from dataclasses import dataclass

import grpc
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from fabricd.a2a import a2a_pb2 as a2a
from fabricd.a2a import a2a_pb2_grpc as a2a_grpc
from fabricd.client import Client, ClientTls, FailedPrecondition, PermissionDenied, ResourceExhausted, Unauthenticated
from fabricd.v1 import admin_service_pb2 as adm
from fabricd.v1 import agent_directory_service_pb2 as ad
from fabricd.v1 import channel_service_pb2 as chs
from fabricd.v1 import directory_service_pb2 as dr
from fabricd.v1 import lease_service_pb2 as ls
from fabricd.v1 import mailbox_service_pb2 as mb
from fabricd.v1 import outbox_service_pb2 as ob
from fabricd.v1 import rendezvous_service_pb2 as rv
from fabricd.v1 import types_pb2 as pb

ALICE, BOB = "alice", "bob"
AGENT_SOURCE = rv.TicketSource(kind=rv.TICKET_SOURCE_KIND_AGENT, agent_id=ALICE)


@dataclass
class Call:
    stub: str
    method: str
    request: Callable[[dict], object]
    scope: str  # "anyone": any identity; "narrowed": any, seeing only its own; "own": alice's token only; "admin"
    stream: bool = False
    bidi: bool = False
    """A bidirectional stream: the request is its first frame; a frame's error counts as the call's."""


def job() -> ob.SettledJob:
    return ob.SettledJob(job_id="j", outcome=ob.JOB_OUTCOME_COMPLETED, agent=pb.Address(agent_id=ALICE, session_id="s"),
                         mail=pb.Mail(key="k", reply_to=[pb.Address(agent_id=BOB, session_id="s")]))


CALLS = [
    Call("directory", "Register", lambda s: dr.RegisterRequest(agent_id=ALICE), "own"),
    Call("directory", "Touch", lambda s: dr.TouchRequest(agent_id=ALICE), "own"),
    Call("directory", "ListMailboxes", lambda s: dr.ListMailboxesRequest(), "anyone"),
    Call("directory", "ResolveName", lambda s: dr.ResolveNameRequest(name=BOB), "anyone"),
    Call("directory", "WatchMailboxes", lambda s: dr.WatchMailboxesRequest(), "anyone", stream=True),
    Call("directory", "SetWakeHook", lambda s: dr.SetWakeHookRequest(
        agent_id=ALICE, hook=dr.WakeHook(url="http://127.0.0.1:9/wake")), "own"),
    Call("directory", "GetWakeHook", lambda s: dr.GetWakeHookRequest(agent_id=ALICE), "own"),
    Call("mailbox", "SendMessage", lambda s: mb.SendMessageRequest(message=pb.Message(
        sender=pb.Address(agent_id=ALICE), recipient=pb.Address(agent_id=BOB), text="hi")), "own"),
    Call("mailbox", "SendMessages", lambda s: mb.SendMessagesRequest(messages=[pb.Message(
        sender=pb.Address(agent_id=ALICE), recipient=pb.Address(agent_id=BOB), text="hi")]), "own"),
    Call("mailbox", "PeekMessages", lambda s: mb.PeekMessagesRequest(agent_id=ALICE), "own"),
    Call("mailbox", "DrainMessages", lambda s: mb.DrainMessagesRequest(agent_id=ALICE), "own"),
    Call("mailbox", "Subscribe", lambda s: mb.SubscribeRequest(agent_id=ALICE), "own", stream=True),
    Call("mailbox", "AckMessages", lambda s: mb.AckMessagesRequest(agent_id=ALICE, message_ids=["x"]), "own"),
    Call("mailbox", "SendStream", lambda s: mb.SendStreamRequest(seq=1, send=mb.SendMessageRequest(message=pb.Message(
        sender=pb.Address(agent_id=ALICE), recipient=pb.Address(agent_id=BOB), text="hi"))), "own", bidi=True),
    Call("rendezvous", "EnqueueTicket", lambda s: rv.EnqueueTicketRequest(target=BOB, task="t", source=AGENT_SOURCE),
         "own"),
    Call("rendezvous", "Ask", lambda s: rv.AskRequest(target=BOB, task="t", source=AGENT_SOURCE,
                                                      timeout={"nanos": 50_000_000}), "own"),
    Call("rendezvous", "AwaitReply", lambda s: rv.AwaitReplyRequest(ticket_id=s["ticket"],
                                                                    timeout={"nanos": 50_000_000}), "own"),
    Call("rendezvous", "Reply", lambda s: rv.ReplyRequest(agent_id=ALICE, result="r"), "own"),
    Call("rendezvous", "CancelHead", lambda s: rv.CancelHeadRequest(agent_id=BOB, ticket_id=s["ticket"]), "own"),
    Call("rendezvous", "CloseQueue", lambda s: rv.CloseQueueRequest(agent_id=ALICE), "own"),
    Call("rendezvous", "Serve", lambda s: rv.ServeRequest(open=rv.ServeOpen(agent_id=ALICE)), "own", bidi=True),
    Call("rendezvous", "GetQueue", lambda s: rv.GetQueueRequest(agent_id=BOB), "anyone"),
    Call("rendezvous", "WatchQueue", lambda s: rv.WatchQueueRequest(agent_id=BOB), "anyone", stream=True),
    Call("rendezvous", "GetTicket", lambda s: rv.GetTicketRequest(ticket_id=s["ticket"]), "own"),
    Call("rendezvous", "ListTickets", lambda s: rv.ListTicketsRequest(agent_id=BOB), "narrowed"),
    Call("rendezvous", "CancelTicket", lambda s: rv.CancelTicketRequest(ticket_id=s["ticket"]), "own"),
    Call("outbox", "FanOut", lambda s: ob.FanOutRequest(job=job(), content="c"), "own"),
    Call("outbox", "DrainOutbox", lambda s: ob.DrainOutboxRequest(), "admin"),
    Call("outbox", "ListOutbox", lambda s: ob.ListOutboxRequest(), "admin"),
    Call("outbox", "RetryDeadLetters", lambda s: ob.RetryDeadLettersRequest(), "admin"),
    Call("outbox", "PruneReceipts", lambda s: ob.PruneReceiptsRequest(before_time={"seconds": 1}), "admin"),
    Call("agent_directory", "Initialize", lambda s: ad.InitializeRequest(instructions="i"), "admin"),
    Call("agent_directory", "CreateAgent", lambda s: ad.CreateAgentRequest(name="n"), "admin"),
    Call("agent_directory", "GetAgent", lambda s: ad.GetAgentRequest(agent_id="agent-x"), "anyone"),
    Call("agent_directory", "ListAgents", lambda s: ad.ListAgentsRequest(), "anyone"),
    Call("agent_directory", "CreateThread", lambda s: ad.CreateThreadRequest(agent_id="agent-x"), "admin"),
    Call("agent_directory", "ListThreads", lambda s: ad.ListThreadsRequest(agent_id="agent-x"), "anyone"),
    Call("agent_directory", "Admit", lambda s: ad.AdmitRequest(agent_id="agent-x", submission=ad.Submission(text="t")),
         "admin"),
    Call("agent_directory", "Settle", lambda s: ad.SettleRequest(request_id="req-x"), "admin"),
    Call("agent_directory", "NotificationSent", lambda s: ad.NotificationSentRequest(request_id="req-x"), "admin"),
    Call("agent_directory", "ListRequests", lambda s: ad.ListRequestsRequest(), "anyone"),
    Call("agent_directory", "Advertise", lambda s: ad.AdvertiseRequest(profiles="p"), "admin"),
    Call("agent_directory", "ReconcileRepair", lambda s: ad.ReconcileRepairRequest(key="k", generation=1), "admin"),
    Call("agent_directory", "GetDirectoryData", lambda s: ad.GetDirectoryDataRequest(), "anyone"),
    Call("agent_directory", "WatchDirectoryData", lambda s: ad.WatchDirectoryDataRequest(), "anyone", stream=True),
    Call("lease", "Acquire", lambda s: ls.AcquireRequest(agent_id=ALICE, resources=["sec/mine"]), "own"),
    Call("lease", "Renew", lambda s: ls.RenewRequest(lease_id=s.get("lease", "no-lease")), "own"),
    Call("lease", "ListLeases", lambda s: ls.ListLeasesRequest(), "anyone"),
    Call("lease", "CheckLeases", lambda s: ls.CheckLeasesRequest(paths=["sec/held"]), "anyone"),
    Call("lease", "WatchLeases", lambda s: ls.WatchLeasesRequest(), "anyone", stream=True),
    Call("lease", "Release", lambda s: ls.ReleaseRequest(agent_id=ALICE), "own"),
    Call("admin", "GetStatus", lambda s: adm.GetStatusRequest(), "anyone"),
    Call("admin", "IssueToken", lambda s: adm.IssueTokenRequest(scope=adm.TOKEN_SCOPE_AGENT, agent_id="x"), "admin"),
    Call("admin", "RevokeToken", lambda s: adm.RevokeTokenRequest(token_id="nope"), "admin"),
    Call("admin", "ListTokens", lambda s: adm.ListTokensRequest(), "admin"),
    Call("admin", "BackupStore", lambda s: adm.BackupStoreRequest(), "admin", stream=True),
    # lf.a2a.v1.A2AService: any identity, as itself. The sends carry no content, so the guard is what is
    # tested and nothing is written; an agent sees only its own tasks (TASK_NOT_FOUND otherwise).
    Call("a2a", "SendMessage", lambda s: a2a.SendMessageRequest(tenant=BOB, message=a2a.Message(message_id="m")),
         "anyone"),
    Call("a2a", "SendStreamingMessage", lambda s: a2a.SendMessageRequest(tenant=BOB, message=a2a.Message(
        message_id="m")), "anyone", stream=True),
    Call("a2a", "GetTask", lambda s: a2a.GetTaskRequest(tenant=BOB, id=s["ticket"]), "anyone"),
    Call("a2a", "ListTasks", lambda s: a2a.ListTasksRequest(tenant=BOB), "anyone"),
    Call("a2a", "CancelTask", lambda s: a2a.CancelTaskRequest(tenant=BOB, id="no-such-task"), "anyone"),
    Call("a2a", "SubscribeToTask", lambda s: a2a.SubscribeToTaskRequest(tenant=BOB, id=s["ticket"]), "anyone",
         stream=True),
    Call("a2a", "CreateTaskPushNotificationConfig", lambda s: a2a.TaskPushNotificationConfig(tenant=BOB),
         "anyone"),
    Call("a2a", "GetTaskPushNotificationConfig", lambda s: a2a.GetTaskPushNotificationConfigRequest(tenant=BOB),
         "anyone"),
    Call("a2a", "ListTaskPushNotificationConfigs",
         lambda s: a2a.ListTaskPushNotificationConfigsRequest(tenant=BOB), "anyone"),
    Call("a2a", "DeleteTaskPushNotificationConfig",
         lambda s: a2a.DeleteTaskPushNotificationConfigRequest(tenant=BOB), "anyone"),
    Call("a2a", "GetExtendedAgentCard", lambda s: a2a.GetExtendedAgentCardRequest(tenant=BOB), "anyone"),
    # ChannelService: `crew` is closed, alice a member; `alice-room` is alice's (see `secured`). Mallory's
    # CreateChannel names a channel that exists: it passes the guard and writes nothing.
    Call("channels", "CreateChannel", lambda s: chs.CreateChannelRequest(channel=chs.Channel(name="crew")),
         "narrowed"),
    Call("channels", "GetChannel", lambda s: chs.GetChannelRequest(name="crew"), "anyone"),
    Call("channels", "ListChannels", lambda s: chs.ListChannelsRequest(), "anyone"),
    Call("channels", "JoinChannel", lambda s: chs.JoinChannelRequest(channel="crew"), "own"),
    Call("channels", "ListMembers", lambda s: chs.ListMembersRequest(channel="crew"), "own"),
    Call("channels", "Publish", lambda s: chs.PublishRequest(channel="crew", message=pb.Message(text="hi")), "own"),
    Call("channels", "ReadChannel", lambda s: chs.ReadChannelRequest(channel="crew"), "own"),
    Call("channels", "SubscribeChannel", lambda s: chs.SubscribeChannelRequest(channel="crew"), "own", stream=True),
    Call("channels", "SearchMessages", lambda s: chs.SearchMessagesRequest(query="hi", channel="crew"), "own"),
    Call("channels", "DeleteChannel", lambda s: chs.DeleteChannelRequest(name="alice-room"), "own"),
    Call("channels", "LeaveChannel", lambda s: chs.LeaveChannelRequest(channel="crew", agent_id=ALICE), "own"),
    # Last: it may remove alice's mailbox.
    Call("directory", "Unregister", lambda s: dr.UnregisterRequest(agent_id=ALICE), "own"),
]


def test_every_fabricd_rpc_is_in_the_matrix() -> None:
    from fabricd.rpc.server import SERVICE_NAMES
    from fabricd.v1 import (
        admin_service_pb2,
        agent_directory_service_pb2,
        channel_service_pb2,
        directory_service_pb2,
        lease_service_pb2,
        mailbox_service_pb2,
        outbox_service_pb2,
        rendezvous_service_pb2,
    )

    modules = (admin_service_pb2, agent_directory_service_pb2, directory_service_pb2, mailbox_service_pb2,
               outbox_service_pb2, rendezvous_service_pb2, channel_service_pb2, lease_service_pb2)
    methods = {m.name for mod in modules for s in mod.DESCRIPTOR.services_by_name.values() for m in s.methods}
    assert {c.method for c in CALLS if c.stub != "a2a"} == methods
    assert {c.method for c in CALLS if c.stub == "a2a"} == {
        m.name for m in a2a.DESCRIPTOR.services_by_name["A2AService"].methods}
    assert len(SERVICE_NAMES) == 8


PUBLIC_READS = {"ListMailboxes", "ResolveName", "WatchMailboxes", "GetStatus", "GetChannel", "ListChannels",
                "ListLeases", "CheckLeases", "WatchLeases"}
"""Reads an agent token gets whole: addressing data, channels' names and settings, the daemon's status and the
leases (any member of the fabric may see who holds what: that is what leases are for) (see fabricd.rpc.visibility)."""


def test_every_read_an_agent_may_make_beyond_its_own_is_either_withheld_in_part_or_public() -> None:
    from fabricd.rpc import auth, visibility

    # A2A reads are decided in their servicer (an agent sees the tasks it sent or that are queued for it).
    anyone = {c.method for c in CALLS if c.scope == "anyone" and c.stub != "a2a"}
    assert anyone == {m for m, policy in auth.POLICIES.items()
                      if policy is auth.anyone and not m.startswith("A2AService/")}
    assert set(visibility.WITHHELD) | PUBLIC_READS == anyone  # every such read is decided, none forgotten
    assert not set(visibility.WITHHELD) & PUBLIC_READS


async def code_of(client: Client, call: Call, state: dict) -> grpc.StatusCode:
    stub = a2a_grpc.A2AServiceStub(client._channel) if call.stub == "a2a" else getattr(client, call.stub)
    rpc = getattr(stub, call.method)
    try:
        if call.bidi:
            stream = rpc()
            try:
                await stream.write(call.request(state))
            except (asyncio.InvalidStateError, grpc.aio.AioRpcError):
                return await stream.code()  # refused as it opened (the write may fail INTERNAL in gRPC's core)
            response = await stream.read()
            stream.cancel()
            error = getattr(response, "error", None)
            if error is not None and error.code:
                return grpc.StatusCode([c for c in grpc.StatusCode if c.value[0] == error.code][0])
        elif call.stream:
            stream = rpc(call.request(state))
            await stream.read()
            stream.cancel()
        else:
            await rpc(call.request(state), timeout=10)
    except grpc.aio.AioRpcError as exc:
        return exc.code()
    return grpc.StatusCode.OK


@pytest.fixture
async def secured(make_daemon):  # noqa: ANN201
    """A daemon on a trusted unix socket (for setup) and a loopback TCP listener that requires tokens."""
    daemon = make_daemon("--listen", "127.0.0.1:0", "--no-outbox-loop", "--keepalive", "0.1")
    daemon.start()
    port = int(daemon.wait_for("127.0.0.1:").strip().rsplit(":", 1)[1])
    async with Client(daemon.target) as local:
        await local.register(BOB)
        state = {
            "ticket": (await local.enqueue(BOB, "t", source_agent=ALICE)).ticket_id,
            "alice": (await local.issue_token(agent_id=ALICE)).token,
            "mallory": (await local.issue_token(agent_id="mallory")).token,
            "admin": (await local.issue_token(admin=True)).token,
            "lease": (await local.acquire_lease(ALICE, ["sec/held"])).lease_id,
        }
        revoked = await local.issue_token(agent_id=ALICE)
        assert await local.revoke_token(revoked.info.token_id)
        state["revoked"] = revoked.token
        async with Client(f"127.0.0.1:{port}", token=state["alice"]) as alice:
            await alice.create_channel("crew", open=False)  # its creator: its first member
            await alice.create_channel("alice-room")
        yield daemon, f"127.0.0.1:{port}", local, state


async def test_every_rpc_refuses_missing_bad_revoked_and_foreign_tokens_and_changes_nothing(secured) -> None:
    daemon, tcp, local, state = secured
    before = await local.get_status()
    for who, expected in (("", "UNAUTHENTICATED"), ("fdt_not-a-token", "UNAUTHENTICATED"),
                          (state["revoked"], "UNAUTHENTICATED"), (state["mallory"], None)):
        async with Client(tcp, token=who) as client:
            for call in CALLS:
                code = await code_of(client, call, state)
                if expected:
                    assert code.name == expected, (who[:8], call.method, code)
                elif call.scope in ("anyone", "narrowed"):
                    assert code not in (grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.UNAUTHENTICATED), call.method
                else:
                    assert code == grpc.StatusCode.PERMISSION_DENIED, (call.method, code)
    after = await local.get_status()
    assert after.writes == before.writes  # no refused call wrote anything


async def test_an_agent_token_may_act_as_its_agent_and_an_admin_token_may_do_everything(secured) -> None:
    daemon, tcp, local, state = secured
    async with Client(tcp, token=state["alice"]) as client:
        for call in CALLS:
            code = await code_of(client, call, state)
            if call.scope == "admin":
                assert code == grpc.StatusCode.PERMISSION_DENIED, call.method
            else:
                assert code not in (grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.UNAUTHENTICATED), call.method
    async with Client(tcp, token=state["admin"]) as client:
        for call in CALLS:
            code = await code_of(client, call, state)
            assert code not in (grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.UNAUTHENTICATED), call.method


async def test_only_an_admin_may_set_a_command_wake_hook_and_a_tcp_daemon_runs_none(secured) -> None:
    daemon, tcp, local, state = secured
    async with Client(tcp, token=state["alice"]) as client:
        with pytest.raises(PermissionDenied) as denied:
            await client.set_wake_hook(ALICE, command=["/bin/true"])
        assert denied.value.reason == "WAKE_COMMAND_ADMIN_ONLY"
    async with Client(tcp, token=state["admin"]) as client:  # an admin passes the guard; the daemon refuses
        await client.register(ALICE)
        with pytest.raises(FailedPrecondition) as disabled:
            await client.set_wake_hook(ALICE, command=["/bin/true"])
        assert disabled.value.reason == "WAKE_COMMANDS_DISABLED"  # wake.allow_commands is off on TCP
        assert not (await client.get_wake_hook(ALICE)).HasField("hook")


async def test_an_agent_token_sends_as_itself(secured) -> None:
    daemon, tcp, local, state = secured
    async with Client(tcp, token=state["alice"]) as client:
        sent = await client.send(BOB, "no sender given")
        assert sent.message.sender.agent_id == ALICE  # the token says who sends
        with pytest.raises(PermissionDenied):
            await client.send(BOB, "forged", sender="mallory")
        with pytest.raises(PermissionDenied):
            await client.peek(BOB)
    mail = [m for m in (await local.peek(BOB)).messages if not m.ticket_id]  # the fixture's ticket is mail too
    assert [(m.sender.agent_id, m.text) for m in mail] == [(ALICE, "no sender given")]


async def test_tokens_are_stored_hashed_and_never_listed(secured, tmp_path) -> None:
    daemon, tcp, local, state = secured
    listed = await local.list_tokens()
    assert len(listed) == 4 and sum(1 for t in listed if t.revoke_time.seconds) == 1
    assert all(state[k] not in str(listed) for k in ("alice", "admin"))
    daemon.stop()
    data = (daemon.data_dir + "/data.mdb")
    with open(data, "rb") as f:
        raw = f.read()
    assert state["admin"].encode() not in raw and state["alice"].encode() not in raw


async def test_rate_limits_answer_resource_exhausted_with_a_retry_hint(make_daemon) -> None:
    daemon = make_daemon("--listen", "127.0.0.1:0", "--rate-limit", "1", "--rate-burst", "3").start()
    port = int(daemon.wait_for("127.0.0.1:").strip().rsplit(":", 1)[1])
    async with Client(daemon.target) as local:
        token = (await local.issue_token(agent_id=ALICE)).token
    async with Client(f"127.0.0.1:{port}", token=token) as client:
        for _ in range(3):
            await client.touch(ALICE)
        with pytest.raises(ResourceExhausted) as err:
            await client.touch(ALICE)
        assert err.value.reason == "RATE_LIMITED"
        raw = client.directory.Touch(dr.TouchRequest(agent_id=ALICE))
        with pytest.raises(grpc.aio.AioRpcError) as exc:
            await raw
        status = rpc_status.from_call(exc.value)
        retry = error_details_pb2.RetryInfo()
        assert any(d.Unpack(retry) for d in status.details if d.Is(retry.DESCRIPTOR))
        assert 0 < retry.retry_delay.ToNanoseconds() <= 1_000_000_000


# -- TLS


def _key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def _pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def _cert(name: str, key, issuer_name: str, issuer_key, *, ca: bool = False, server: bool = False) -> x509.Certificate:
    now = datetime.datetime.now(datetime.UTC)
    builder = (x509.CertificateBuilder()
               .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)]))
               .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer_name)]))
               .public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
               .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
    if server:
        builder = builder.add_extension(x509.SubjectAlternativeName(
            [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
    return builder.sign(issuer_key, hashes.SHA256())


@pytest.fixture
def certs(tmp_path):  # noqa: ANN201
    ca_key = _key()
    ca = _cert("fabricd test CA", ca_key, "fabricd test CA", ca_key, ca=True)
    files = {"ca": ca.public_bytes(serialization.Encoding.PEM)}
    for name, server in (("server", True), (ALICE, False), ("operator", False)):
        key = _key()
        files[f"{name}.crt"] = _cert(name, key, "fabricd test CA", ca_key, server=server).public_bytes(
            serialization.Encoding.PEM)
        files[f"{name}.key"] = _pem(key)
    paths = {}
    for name, data in files.items():
        path = tmp_path / name.replace(".", "_")
        path.write_bytes(data)
        paths[name] = str(path)
    return paths


async def test_tls_with_a_token(make_daemon, certs) -> None:
    daemon = make_daemon("--listen", "127.0.0.1:0", "--tls-cert", certs["server.crt"], "--tls-key",
                         certs["server.key"]).start()
    port = int(daemon.wait_for("127.0.0.1:").strip().rsplit(":", 1)[1])
    async with Client(daemon.target) as local:
        token = (await local.issue_token(agent_id=ALICE)).token
    tls = ClientTls.from_files(ca=certs["ca"])
    async with Client(f"127.0.0.1:{port}", token=token, tls=tls) as client:
        await client.register(ALICE)
    async with Client(f"127.0.0.1:{port}", tls=tls) as client:
        with pytest.raises(Unauthenticated):
            await client.register(ALICE)


async def test_mutual_tls_uses_the_certificate_name_as_the_identity(make_daemon, certs) -> None:
    daemon = make_daemon("--listen", "127.0.0.1:0", "--tls-cert", certs["server.crt"], "--tls-key",
                         certs["server.key"], "--tls-client-ca", certs["ca"], "--tls-require-client-cert",
                         "--tls-admin-names", "operator").start()
    port = int(daemon.wait_for("127.0.0.1:").strip().rsplit(":", 1)[1])
    target = f"127.0.0.1:{port}"
    async with Client(target, tls=ClientTls.from_files(certs["ca"], certs[f"{ALICE}.crt"], certs[f"{ALICE}.key"])) as c:
        await c.register(ALICE)
        with pytest.raises(PermissionDenied):
            await c.register(BOB)
        with pytest.raises(PermissionDenied):
            await c.list_tokens()
    async with Client(target, tls=ClientTls.from_files(certs["ca"], certs["operator.crt"], certs["operator.key"])) as c:
        assert await c.list_tokens() == []
    async with Client(target, tls=ClientTls.from_files(certs["ca"])) as c:  # no client certificate: refused
        with pytest.raises(Exception) as err:
            await c.register(ALICE)
        assert getattr(err.value, "code", None) in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.UNAUTHENTICATED)


def test_a_listener_beyond_loopback_without_tls_is_refused(make_daemon) -> None:
    daemon = make_daemon("--listen", "0.0.0.0:0")
    result = subprocess.run(daemon.command(), capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "without TLS" in result.stderr
