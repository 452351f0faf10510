"""Hostile client certificates (issue 27): a CN that only looks like another agent's id or session name."""

from __future__ import annotations

import pytest
from cryptography.hazmat.primitives import serialization

from fabricd.client import Client, ClientTls, PermissionDenied
from tests.e2e.test_security import ALICE, BOB, _cert, _key, _pem

BACKENDS = ("lmdb", "postgres")


async def test_a_certificate_whose_name_looks_like_another_agents_may_not_act_as_an_agent(make_daemon, tmp_path) -> None:
    # Register refuses 'аlice' (Cyrillic а) beside alice (NAME_COLLISION); a certificate issued for it acted as a
    # new agent all the same, and its mail to bob read as from alice. A look-alike of a session name, or the
    # name in another case, is refused too; alice's own certificate and a new honest name go on working.
    ca_key, server_key = _key(), _key()
    ca = _cert("fabricd test CA", ca_key, "fabricd test CA", ca_key, ca=True)
    files = {"ca": ca.public_bytes(serialization.Encoding.PEM), "server.crt": _cert(
        "server", server_key, "fabricd test CA", ca_key, server=True).public_bytes(serialization.Encoding.PEM),
        "server.key": _pem(server_key)}
    names = {"cyrillic a": "\u0430lice", "case": "Alice", "session look-alike": "r\u0435viewer",
             "alice": ALICE, "new": "carol"}
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
        await local.register(BOB, session_name="reviewer")

    def tls(label: str) -> ClientTls:
        return ClientTls.from_files(str(tmp_path / "ca"), str(tmp_path / f"{label}.crt"), str(tmp_path / f"{label}.key"))

    for label, looks_like in (("cyrillic a", ALICE), ("case", ALICE), ("session look-alike", "reviewer")):
        async with Client(f"127.0.0.1:{port}", tls=tls(label)) as mallory:
            for call in (mallory.send(BOB, "from alice, honest"), mallory.register(names[label]),
                         mallory.peek(names[label])):
                with pytest.raises(PermissionDenied) as err:
                    await call
                assert err.value.reason == "CERTIFICATE_NAME_LOOKS_TAKEN", label
                assert err.value.metadata["looks_like"] == looks_like, label
                assert "CN=" in err.value.message, label
    async with Client(daemon.target) as local:
        assert list((await local.peek(BOB)).messages) == []
        assert sorted(e.agent_id for e in await local.list_mailboxes()) == [ALICE, BOB]
    for label in ("alice", "new"):
        async with Client(f"127.0.0.1:{port}", tls=tls(label)) as honest:
            await honest.send(BOB, f"hello from {names[label]}")
    async with Client(daemon.target) as local:
        assert [m.sender.agent_id for m in (await local.peek(BOB)).messages] == [ALICE, "carol"]
