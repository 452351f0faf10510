"""`fabricd copy`: an embedded fabric moved into PostgreSQL and back keeps every record, and a daemon serves the copy.

A real daemon fills an LMDB folder with one of everything a fabric keeps; it
is stopped, `fabricd copy` moves the folder into a fresh database and that
database into a new folder, and the complete dumps of all three must be equal.
Then a daemon on each copy must serve it as the original would have.
"""

from __future__ import annotations

import asyncio
import dataclasses
import enum
import json
import os
import shutil
import subprocess
import sys
import tempfile

import asyncpg
import lmdb
import pytest

from fabricd.client import AlreadyExists, Client
from fabricd.store import transfer
from fabricd.store.lmdb import dump as lmdb_dump
from fabricd.store.lmdb.schema import MAX_DBS, NAMES
from fabricd.store.postgres import dump as pg_dump
from fabricd.store.transfer import Kind
from fabricd.v1 import agent_directory_service_pb2 as ad
from fabricd.v1 import channel_service_pb2 as ch
from tests.conftest import ROOT, Daemon
from tests.e2e.test_outbox import DEAD, DELIVERED, PENDING, job, rows

BOB, CAROL, WORKER, HELPER, FULL, SLEEPER = "bob", "carol", "worker", "helper", "full", "sleeper"
HOOK_URL = "https://hooks.example.test/wake"


def fabricd(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fabricd.daemon.main", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)


def canonical(value: object) -> object:
    """A record as plain JSON-able data, dict keys sorted by json.dumps: PostgreSQL's jsonb reorders them."""
    if dataclasses.is_dataclass(value):
        return {f.name: canonical(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, (tuple, list)):
        return [canonical(v) for v in value]
    if isinstance(value, dict):
        return {k: canonical(v) for k, v in value.items()}
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).hex()
    return value


def dump(location: str) -> list[str]:
    """Every record, canonical. A ticket's seq is shown as its rank in its target's tickets: PostgreSQL places
    a ticket by its task message's seq, LMDB by a store-wide counter, and the order is what must survive; the
    "ticket" counter only has to stay above every ticket's seq (checked here) so new tickets queue last."""
    records = asyncio.run(transfer.dump_all(transfer.open_source(location)))
    tickets = [v for k, v in records if k is Kind.TICKET]
    rank = {t.ticket_id: sorted(u.seq for u in tickets if u.target == t.target).index(t.seq) for t in tickets}
    out = []
    for kind, value in records:
        if kind is Kind.TICKET:
            value = dataclasses.replace(value, seq=rank[value.ticket_id])
        elif kind is Kind.COUNTER and value[0] == "ticket":
            if not location.startswith("postgresql:"):  # (PostgreSQL places tickets by their messages' seqs)
                assert value[1] >= max((t.seq for t in tickets), default=0), (location, value)
            continue
        out.append((kind, value))
    return sorted(json.dumps(canonical(r), sort_keys=True) for r in out)


def entries_per_database(path: str) -> dict[str, int]:
    """Records in each sub-database; in meta, a queue's ticket count of 0 counts as absent (both read as 0)."""
    env = lmdb.open(path, map_size=0, max_dbs=MAX_DBS, readonly=True, create=False)
    try:
        with env.begin() as txn:
            counts = {name: txn.stat(env.open_db(name.encode(), txn=txn, create=False))["entries"] for name in NAMES}
            with txn.cursor(db=env.open_db(b"meta", txn=txn, create=False)) as cur:
                counts["meta"] -= sum(1 for k, v in cur if k.startswith(b"queued/") and not any(v))
            return counts
    finally:
        env.close()


def serve(data_dir: str, *args: str) -> tuple[Daemon, str]:
    """A daemon (delivery loop off, so tests drive the outbox) with a token-checked TCP listener; (daemon, tcp)."""
    sock = tempfile.mkdtemp(prefix="fc-", dir="/tmp")
    daemon = Daemon(data_dir, sock, "--no-outbox-loop", "--max-unread", "5", "--outbox-max-attempts", "1",
                    "--listen", "127.0.0.1:0", *args)
    daemon.start()
    port = int(daemon.wait_for("127.0.0.1:").strip().rsplit(":", 1)[1])
    return daemon, f"127.0.0.1:{port}"


def stop(daemon: Daemon) -> None:
    daemon.stop()
    shutil.rmtree(os.path.dirname(daemon.socket), ignore_errors=True)


async def fill(client: Client) -> dict[str, object]:
    """One of everything a fabric keeps; what the checks on the copy need to know."""
    await client.register(BOB, session_name="bob-session", capabilities=["summarize"])
    for name in (CAROL, WORKER, HELPER, FULL, SLEEPER, "dave"):
        await client.register(name)
    secret = (await client.set_wake_hook(SLEEPER, url=HOOK_URL, quiet_period=90, only_when_idle=False)).secret
    await client.unregister("dave")  # a removal watchers resuming from before it must still see
    consumed = await client.send(BOB, "read already", id="client-1")
    await client.ack(BOB, [consumed.message.id])  # gone, but its id stays inside the dedupe window
    unread = [(await client.send(BOB, text, id=mid)).message for text, mid in (("two", "client-2"), ("three", ""))]
    minted = (await client.send(CAROL, "minted for carol", sender=BOB)).message.id  # bob's own id, though minted
    queued = [(await client.enqueue(WORKER, f"task {i}", source_agent=BOB)).ticket_id for i in range(2)]
    answered = (await client.enqueue(HELPER, "what is 6 x 7?", source_agent=BOB)).ticket_id
    assert await client.reply(HELPER, "42") == answered
    await client.fan_out(job(key="req-done", job_id="job-done", reply_to=[(CAROL, "s")]), "delivered before")
    await client.drain_outbox()  # a receipt
    for i in range(5):
        await client.send(FULL, f"filler {i}")
    await client.fan_out(job(key="req-dead", job_id="job-dead", reply_to=[(FULL, "s")]), "no room")
    await client.drain_outbox()  # one attempt on a full mailbox: a dead letter
    await client.fan_out(job(key="req-pending", job_id="job-pending", reply_to=[(CAROL, "s")]), "deliver me")
    states = sorted(r.state for r in await rows(client))
    assert states == sorted([DELIVERED, DEAD, PENDING]), states
    await client.initialize("be helpful")
    agent = await client.create_agent("reviewer", description="reads diffs")
    thread = await client.create_thread(agent.agent_id, title="review", request_key="thread-key-1")
    admitted = await client.admit(agent.agent_id, ad.Submission(text="review this"), thread_id=thread.thread_id,
                                  request_key="admit-key-1")
    assert admitted.accepted
    await client.settle(admitted.request_id, notify=True)
    repair = await client.reconcile_repair("disk-check", 3, "the disk is full")
    await client.advertise('{"tier": "gold"}', "available")
    token = (await client.issue_token(agent_id=BOB, label="bob's laptop")).token
    await client.create_channel("crew", description="the crew", max_messages=5)  # posts copied to no mailbox:
    await client.join_channel("crew", BOB)  # bob posts (no copy of its own), helper reads the log
    await client.join_channel("crew", HELPER, delivery=ch.CHANNEL_DELIVERY_LOG)
    await client.publish("crew", "deploy at noon", sender=BOB, id="post-1")
    await client.publish("crew", "deploy done", sender=BOB)
    released = await client.acquire_lease(CAROL, ["docs/**"], mode="shared")
    await client.release_lease(released.lease_id)  # an ended record, kept for watchers
    lease = await client.acquire_lease(BOB, ["src/**"], ttl=3600, reason="refactor")
    return {"lease": (lease.lease_id, lease.fencing_token, lease.expire_time.seconds),
            "unread": [(m.id, m.seq) for m in unread], "minted": minted, "queued": queued, "answered": answered,
            "thread": thread.thread_id, "agent": agent.agent_id, "request": admitted.request_id, "repair": repair,
            "token": token, "sequence": (await client.get_directory_data()).sequence, "secret": secret}


async def check_served(daemon: Daemon, tcp: str, known: dict[str, object]) -> None:
    """What a daemon started on a copy must do with it."""
    async with Client(daemon.target) as client:
        peeked = await client.peek(BOB)
        assert [(m.id, m.seq) for m in peeked.messages] == known["unread"]
        assert (await client.send(BOB, "read already", id="client-1")).duplicate  # consumed, still remembered
        assert (await client.send(BOB, "two", id="client-2")).duplicate
        with pytest.raises(AlreadyExists):  # a minted id keeps its sender through the copy
            await client.send(CAROL, "minted for carol", sender=BOB, id=known["minted"])
        fresh = await client.send(BOB, "new mail")
        assert fresh.message.seq == known["unread"][-1][1] + 1
        assert (await client.resolve("bob-session")).capabilities[0].name == "summarize"
        with pytest.raises(AlreadyExists) as err:  # the copy's look-alike index holds bob's names
            await client.register("bobs-twin", session_name="bob-sessi\u043en")  # Cyrillic о
        assert err.value.reason == "NAME_COLLISION" and err.value.metadata["looks_like"] == "bob-session"
        assert await client.await_reply(known["answered"], timeout=5) == "42"
        assert [t.ticket_id for t in await client.get_queue(WORKER)] == known["queued"]
        assert (await client.drain_outbox()).posted == 1
        assert (await client.drain_outbox()).posted == 0
        got = [m.id for m in (await client.peek(CAROL)).messages]
        assert got.count("outbox:req-pending:reply:0") == 1 and got.count("outbox:req-done:reply:0") == 1
        assert len(await rows(client, DEAD)) == 1
        assert (await client.get_directory_data()).sequence == known["sequence"]
        again = await client.create_thread(known["agent"], title="review", request_key="thread-key-1")
        assert again.thread_id == known["thread"]
        readmitted = await client.admit(known["agent"], ad.Submission(text="review this"),
                                        thread_id=known["thread"], request_key="admit-key-1")
        assert readmitted.request_id == known["request"]
        assert await client.reconcile_repair("disk-check", 3, "the disk is full") == known["repair"]
        [lease] = await client.list_leases()
        assert (lease.lease_id, lease.fencing_token, lease.expire_time.seconds) == known["lease"]
        assert (await client.acquire_lease(CAROL, ["docs/**"])).fencing_token > known["lease"][1]  # never reused
        hooked = await client.get_wake_hook(SLEEPER)
        assert (hooked.hook.url, hooked.hook.quiet_period.seconds, hooked.hook.only_when_idle) == (HOOK_URL, 90, False)
        read = await client.read_channel("crew")
        assert [p.message.text for p in read.posts] == ["deploy at noon", "deploy done"]
        assert (await client.publish("crew", "deploy at noon", sender=BOB, id="post-1")).duplicate
        assert [m.agent_id for m in await client.list_members("crew")] == [BOB, HELPER]
        assert [h.seq for h in (await client.search_messages("noon")).hits] == [1]
        assert (await client.publish("crew", "after the copy", sender=BOB)).post.seq == 3
    async with Client(tcp, token=known["token"]) as as_bob:
        assert len((await as_bob.peek(BOB)).messages) == 3


def test_round_trip_lmdb_postgres_lmdb_keeps_everything_and_a_daemon_serves_each_copy(tmp_path, pg_url) -> None:
    original, back = str(tmp_path / "original"), str(tmp_path / "back")
    daemon, _ = serve(original)
    try:
        known = asyncio.run(_with_client(daemon, fill))
    finally:
        stop(daemon)

    into_db = fabricd("copy", "--from", original, "--to", pg_url)
    assert into_db.returncode == 0, into_db.stderr
    assert "mailbox" in into_db.stdout and "not copied" not in into_db.stdout, into_db.stdout
    out_of_db = fabricd("copy", "--from", pg_url, "--to", back)
    assert out_of_db.returncode == 0, out_of_db.stderr

    first = dump(original)
    assert len(first) > 40
    assert [r for r in first if '"wake_hook"' in r and known["secret"] in r and SLEEPER in r]  # the hook, its secret
    assert dump(pg_url) == first
    assert dump(back) == first
    assert entries_per_database(back) == entries_per_database(original)  # indexes rebuilt, not just records

    for data_dir, args in ((back, ()), (str(tmp_path / "unused"), ("--store", pg_url))):
        daemon, tcp = serve(data_dir, *args)
        try:
            asyncio.run(check_served(daemon, tcp, known))
        finally:
            stop(daemon)


async def _with_client(daemon: Daemon, fn):  # noqa: ANN202
    async with Client(daemon.target) as client:
        return await fn(client)


def test_a_target_that_holds_a_fabric_is_refused_and_left_unchanged(tmp_path, pg_url) -> None:
    source, other = str(tmp_path / "source"), str(tmp_path / "other")
    for path, who in ((source, "ann"), (other, "otto")):
        daemon, _ = serve(path)
        try:
            asyncio.run(_with_client(daemon, lambda c, who=who: c.register(who)))
        finally:
            stop(daemon)
    assert fabricd("copy", "--from", other, "--to", pg_url).returncode == 0
    before_db, before_folder = dump(pg_url), dump(other)

    for target, before in ((pg_url, before_db), (other, before_folder)):
        refused = fabricd("copy", "--from", source, "--to", target)
        assert refused.returncode == 2
        assert len(refused.stderr.strip().splitlines()) == 1 and "already holds a fabric" in refused.stderr
        assert dump(target) == before

    fresh = _empty_fabric(tmp_path)  # a store a daemon created and left empty holds no fabric: accepted
    assert fabricd("copy", "--from", source, "--to", fresh).returncode == 0
    assert dump(fresh) == dump(source)


@pytest.mark.parametrize(("source", "says"), [
    ("/nonexistent/fabric", "holds no fabricd store"),
    ("TARGET", "the same store"),
    ("mysql://db/x", "postgresql://"),
    ("postgresql://nobody@127.0.0.1:1/none", "cannot reach"),
    ("NOT_A_STORE", "is not empty and holds no store"),
])
def test_bad_locations_exit_2_with_one_line_and_create_nothing(tmp_path, source: str, says: str) -> None:
    target = str(tmp_path / "target")
    if source == "NOT_A_STORE":  # a folder of other things: a valid source, and a target to leave alone
        source, target = str(tmp_path / "source"), str(tmp_path / "photos")
        asyncio.run(transfer.copy(transfer.open_source(_empty_fabric(tmp_path)), transfer.open_target(
            source, map_size=1 << 26)))
        os.makedirs(target)
        open(os.path.join(target, "cat.jpg"), "w").close()
    result = fabricd("copy", "--from", target if source == "TARGET" else source, "--to", target)
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert says in result.stderr
    assert not os.path.exists(target) or os.listdir(target) == ["cat.jpg"]


def _empty_fabric(tmp_path) -> str:
    """A data folder holding a store and no fabric (as a daemon leaves it after its first start)."""
    path = str(tmp_path / "empty")
    stop(serve(path)[0])
    return path


async def test_a_database_of_other_things_is_refused_and_not_migrated(tmp_path, pg_empty_url) -> None:
    conn = await asyncpg.connect(pg_empty_url)
    try:
        await conn.execute("CREATE TABLE photos (id int)")
        result = await asyncio.to_thread(fabricd, "copy", "--from", _empty_fabric(tmp_path), "--to", pg_empty_url)
        assert result.returncode == 2 and "not this fabricd's (photos)" in result.stderr, result.stderr
        assert await pg_dump.tables(conn) == {"photos"}
    finally:
        await conn.close()


def test_a_running_daemons_folder_is_copied_from_one_snapshot(tmp_path, pg_url) -> None:
    source = str(tmp_path / "live")
    daemon, _ = serve(source)
    try:
        asyncio.run(_with_client(daemon, lambda c: c.register("ann")))
        copied = fabricd("copy", "--from", source, "--to", pg_url)
        assert copied.returncode == 0, copied.stderr
        assert dump(pg_url) == dump(source)
    finally:
        stop(daemon)


def test_a_backup_file_is_a_source_too(tmp_path, pg_url) -> None:
    source, backup = str(tmp_path / "source"), str(tmp_path / "fabric.mdb")
    daemon, _ = serve(source)
    try:
        asyncio.run(_with_client(daemon, lambda c: c.register("ann")))
    finally:
        stop(daemon)
    assert fabricd("backup", "--data-dir", source, "--to", backup).returncode == 0
    copied = fabricd("copy", "--from", backup, "--to", pg_url)
    assert copied.returncode == 0, copied.stderr
    assert dump(pg_url) == dump(source) == dump(backup)


def test_every_lmdb_sub_database_is_copied_or_rebuilt(tmp_path) -> None:
    path = str(tmp_path / "data")
    stop(serve(path)[0])
    assert set(lmdb_dump.sub_databases(path)) == set(lmdb_dump.COVERS)


async def test_every_postgresql_table_and_sequence_is_copied_or_named_as_not_copied(pg_url) -> None:
    conn = await asyncpg.connect(pg_url)
    try:
        found = await pg_dump.tables(conn)
    finally:
        await conn.close()
    assert found == set(pg_dump.COVERS) | set(pg_dump.NOT_COPIED)
    assert {kind for kinds in pg_dump.COVERS.values() for kind in kinds} == set(transfer.Kind)
    assert {kind for kinds in lmdb_dump.COVERS.values() for kind in kinds} == set(transfer.Kind)


async def test_every_column_of_every_copied_table_is_written_by_the_load(pg_url) -> None:
    conn = await asyncpg.connect(pg_url)
    try:
        rows = await conn.fetch("SELECT table_name, column_name FROM information_schema.columns "
                                "WHERE table_schema = current_schema()")
    finally:
        await conn.close()
    found: dict[str, set[str]] = {}
    for r in rows:
        found.setdefault(r["table_name"], set()).add(r["column_name"])
    written = pg_dump.written_columns()
    assert {table: found[table] for table in pg_dump.COVERS} == written
