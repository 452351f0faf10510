"""Operators' work on a store: backup under load, restore, compact, the first token, permissions, open errors."""

from __future__ import annotations

import asyncio
import grp
import os
import stat
import subprocess
import sys

import grpc
import pytest

from fabricd.client import Client, Unauthenticated
from fabricd.v1 import admin_service_pb2 as adm
from tests.conftest import ROOT

AGENT = "keeper"


def fabricd(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fabricd.daemon.main", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)


async def send_until(client: Client, stop: asyncio.Event, acked: list[str]) -> None:
    """Send to AGENT until `stop`, recording each id the daemon acknowledged, in order."""
    i = 0
    while not stop.is_set():
        acked.append((await client.send(AGENT, f"message {i}", data=b"z" * 2000)).message.id)
        i += 1


async def all_ids(client: Client) -> list[str]:
    ids: list[str] = []
    while True:  # peek pages by draining a copy would consume; the restored store is ours to consume
        batch = (await client.drain(AGENT, 1000)).messages
        if not batch:
            return ids
        ids.extend(m.id for m in batch)


async def assert_restored_holds(make_daemon, backup_file: str, tmp_path, acked_before: list[str],
                                acked: list[str]) -> None:
    target = str(tmp_path / "restored")
    result = fabricd("restore", "--from", backup_file, "--data-dir", target)
    assert result.returncode == 0, result.stderr
    restored = make_daemon(data_dir=target).start()
    async with Client(restored.target) as client:
        ids = await all_ids(client)
    assert ids[: len(acked_before)] == acked_before  # every message acknowledged before the backup, in order
    assert ids == acked[: len(ids)]  # and nothing the daemon did not acknowledge
    restored.stop()


async def test_backup_under_write_load_restores_every_acknowledged_message(make_daemon, tmp_path) -> None:
    daemon = make_daemon().start()
    backup_file = str(tmp_path / "store.backup")
    async with Client(daemon.target) as client:
        await client.register(AGENT)
        acked: list[str] = []
        stop = asyncio.Event()
        writer = asyncio.create_task(send_until(client, stop, acked))
        while len(acked) < 300:
            await asyncio.sleep(0.01)
        acked_before = list(acked)
        result = await asyncio.to_thread(fabricd, "backup", "--data-dir", daemon.data_dir, "--to", backup_file)
        stop.set()
        await writer
    assert result.returncode == 0, result.stderr
    assert len(acked) > len(acked_before)  # the daemon kept writing during the backup
    assert stat.S_IMODE(os.stat(backup_file).st_mode) == 0o600
    daemon.stop()  # the restored daemon takes its socket
    await assert_restored_holds(make_daemon, backup_file, tmp_path, acked_before, acked)


async def test_backup_store_rpc_streams_a_restorable_copy_under_load(make_daemon, tmp_path) -> None:
    daemon = make_daemon().start()
    backup_file = str(tmp_path / "remote.backup")
    async with Client(daemon.target) as client:
        await client.register(AGENT)
        acked: list[str] = []
        stop = asyncio.Event()
        writer = asyncio.create_task(send_until(client, stop, acked))
        while len(acked) < 300:
            await asyncio.sleep(0.01)
        acked_before = list(acked)
        env = dict(os.environ, FABRICD_TARGET=daemon.target)
        result = await asyncio.to_thread(subprocess.run, [sys.executable, "-m", "fabricd.cli.main", "backup", "--to",
                                                          backup_file], capture_output=True, text=True, env=env,
                                         timeout=120)
        stop.set()
        await writer
        chunks = [c async for c in client.admin.BackupStore(adm.BackupStoreRequest())]
    assert result.returncode == 0, result.stderr
    assert chunks[-1].sha256 and sum(len(c.data) for c in chunks) == chunks[-1].total_bytes
    assert not [n for n in os.listdir(daemon.data_dir) if "backup" in n]  # the staged copy is gone
    daemon.stop()  # the restored daemon takes its socket
    await assert_restored_holds(make_daemon, backup_file, tmp_path, acked_before, acked)


async def test_a_daemon_on_postgresql_refuses_backup_streams_and_names_fabricd_copy(make_daemon, pg_url,
                                                                                     tmp_path) -> None:
    daemon = make_daemon("--store", pg_url).start()
    env = dict(os.environ, FABRICD_TARGET=daemon.target)

    def backup(to: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "fabricd.cli.main", "backup", "--to", to],
                              capture_output=True, text=True, env=env, timeout=120)

    nowhere = await asyncio.to_thread(backup, str(tmp_path / "no-such-folder" / "x.backup"))
    assert nowhere.returncode == 1 and "Traceback" not in nowhere.stderr and "cannot write" in nowhere.stderr
    result = await asyncio.to_thread(backup, str(tmp_path / "never.backup"))
    assert result.returncode == 1 and not os.listdir(tmp_path)
    assert "[BACKUP_UNAVAILABLE]" in result.stderr and "fabricd copy" in result.stderr, result.stderr
    async with Client(daemon.target) as client:
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            [c async for c in client.admin.BackupStore(adm.BackupStoreRequest())]
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION  # not UNAVAILABLE: retrying cannot help


async def test_restore_refuses_a_served_folder_and_a_non_empty_one_without_force(make_daemon, tmp_path) -> None:
    daemon = make_daemon().start()
    backup_file = str(tmp_path / "b")
    assert fabricd("backup", "--data-dir", daemon.data_dir, "--to", backup_file).returncode == 0
    served = fabricd("restore", "--from", backup_file, "--data-dir", daemon.data_dir, "--force")
    assert served.returncode == 2 and "already serving" in served.stderr and "Traceback" not in served.stderr
    daemon.stop()
    busy = fabricd("restore", "--from", backup_file, "--data-dir", daemon.data_dir)
    assert busy.returncode == 2 and "not empty" in busy.stderr and "--force" in busy.stderr
    assert fabricd("restore", "--from", backup_file, "--data-dir", daemon.data_dir, "--force").returncode == 0
    junk = tmp_path / "junk"
    junk.write_bytes(b"not a store" * 1000)
    bad = fabricd("restore", "--from", str(junk), "--data-dir", str(tmp_path / "new"))
    assert bad.returncode == 2 and "not a fabricd backup" in bad.stderr
    assert not (tmp_path / "new" / "data.mdb").exists()


async def test_consumed_mail_shows_as_free_bytes_and_compact_returns_them_to_the_disk(make_daemon) -> None:
    daemon = make_daemon().start()
    async with Client(daemon.target) as client:
        await client.register(AGENT)
        for _ in range(20):
            await client.send_many([client_message(AGENT, "x" * 50_000) for _ in range(20)])
        full = await client.get_status()
        await all_ids(client)  # consume everything
        await client.send(AGENT, "one more commit, so the freed pages are counted")
        drained = await client.get_status()
    assert drained.map_free_bytes > full.map_free_bytes + 10_000_000  # the metric grows when mail is consumed
    refused = fabricd("compact", "--data-dir", daemon.data_dir)
    assert refused.returncode == 2 and "already serving" in refused.stderr
    daemon.stop()
    result = fabricd("compact", "--data-dir", daemon.data_dir)
    assert result.returncode == 0, result.stderr
    assert os.path.getsize(os.path.join(daemon.data_dir, "data.mdb")) < 5_000_000
    daemon.start()
    async with Client(daemon.target) as client:
        assert [m.text for m in (await client.peek(AGENT)).messages] == [
            "one more commit, so the freed pages are counted"]
        assert (await client.get_status()).map_free_bytes < 1_000_000


def client_message(to: str, text: str):  # noqa: ANN201
    from fabricd.v1 import types_pb2 as pb

    return pb.Message(recipient=pb.Address(agent_id=to), text=text)


async def test_token_issue_on_a_new_store_gives_the_first_admin_token(make_daemon, tmp_path) -> None:
    data = str(tmp_path / "fresh")
    result = fabricd("token", "issue", "--data-dir", data, "--admin", "--label", "first")
    assert result.returncode == 0, result.stderr
    token = result.stdout.strip()
    assert token.startswith("fdt_") and "not shown again" in result.stderr
    daemon = make_daemon("--auth", "on", data_dir=data).start()
    async with Client(daemon.target) as anonymous:
        with pytest.raises(Unauthenticated):
            await anonymous.get_status()
    async with Client(daemon.target, token=token) as admin:
        assert [t.label for t in await admin.list_tokens()] == ["first"]


async def test_token_issue_while_the_daemon_runs_is_accepted_at_once(make_daemon, tmp_path) -> None:
    daemon = make_daemon("--listen", "127.0.0.1:0").start()
    port = int(daemon.wait_for("127.0.0.1:").strip().rsplit(":", 1)[1])
    async with Client(daemon.target) as local:  # unix socket, tokens auto: no token needed
        await local.register("worker")
        await local.register(AGENT)
        acked: list[str] = []
        stop = asyncio.Event()
        writer = asyncio.create_task(send_until(local, stop, acked))  # the daemon's writer is busy meanwhile
        result = await asyncio.to_thread(fabricd, "token", "issue", "--data-dir", daemon.data_dir, "--agent", "worker")
        stop.set()
        await writer
        assert result.returncode == 0, result.stderr
        assert f"pid {daemon.proc.pid}" in result.stderr
        async with Client(f"127.0.0.1:{port}", token=result.stdout.strip()) as worker:
            await worker.touch("worker")
        assert await all_ids(local) == acked  # the daemon's writes went on around the token's
        assert [t.agent_id for t in await local.list_tokens()] == ["worker"]


def test_token_issue_needs_one_scope() -> None:
    result = fabricd("token", "issue", "--data-dir", "/nonexistent/never")
    assert result.returncode == 2 and "exactly one of --admin and --agent" in result.stderr


# -- the data folder


def mode(path: str) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


async def test_a_new_data_folder_is_private(make_daemon, tmp_path) -> None:
    daemon = make_daemon(data_dir=str(tmp_path / "private")).start()
    assert mode(daemon.data_dir) == 0o700
    for name in ("data.mdb", "lock.mdb", "fabricd.lock"):
        assert mode(os.path.join(daemon.data_dir, name)) == 0o600, name


async def test_a_socket_group_makes_the_folder_readable_by_that_group(make_daemon, tmp_path) -> None:
    group = next(g for g in grp.getgrall() if g.gr_gid != os.getgid())
    daemon = make_daemon("--socket-group", group.gr_name, data_dir=str(tmp_path / "shared")).start()
    assert mode(daemon.data_dir) == 0o750 and os.stat(daemon.data_dir).st_gid == group.gr_gid
    for name in ("data.mdb", "lock.mdb", "fabricd.lock"):
        path = os.path.join(daemon.data_dir, name)
        assert mode(path) == 0o640 and os.stat(path).st_gid == group.gr_gid, name


async def test_an_existing_world_readable_folder_is_kept_and_warned_about(make_daemon, tmp_path) -> None:
    folder = tmp_path / "open"
    folder.mkdir(mode=0o755)
    os.chmod(folder, 0o755)
    daemon = make_daemon(data_dir=str(folder)).start()
    daemon.stop()
    assert mode(str(folder)) == 0o755
    assert any("readable by every local user" in line for line in daemon.output)


# -- stores that cannot be opened: one line, exit 2, no traceback


@pytest.fixture
def mount(tmp_path):  # noqa: ANN201
    """Mount a small tmpfs (root only); unmounted afterwards."""
    mounted: list[str] = []

    def make(name: str, options: str) -> str:
        point = tmp_path / name
        point.mkdir()
        result = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(point)], capture_output=True,
                                text=True)
        if result.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here (needs root): {result.stderr.strip()}")
        mounted.append(str(point))
        return str(point)

    yield make
    for point in mounted:
        subprocess.run(["umount", "-l", point], check=False)


def serve_once(data_dir: str, *prefix: str) -> subprocess.CompletedProcess[str]:
    sock = os.path.join("/tmp", f"fd-open-{os.getpid()}.sock")
    return subprocess.run([*prefix, sys.executable, "-m", "fabricd.daemon.main", "serve", "--data-dir", data_dir,
                           "--listen", f"unix:{sock}"], capture_output=True, text=True, timeout=60, cwd=ROOT)


def assert_one_line(result: subprocess.CompletedProcess[str], *words: str) -> None:
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1, result.stderr
    for word in words:
        assert word in result.stderr, result.stderr


def test_a_read_only_file_system_is_one_line_and_exit_2(mount, make_daemon) -> None:
    assert_one_line(serve_once(os.path.join(mount("ro", "ro,size=1m"), "data")), "read-only file system")
    existing = mount("was-rw", "size=8m")
    daemon = make_daemon("--map-size", "4M", data_dir=os.path.join(existing, "data")).start()
    daemon.stop()
    subprocess.run(["mount", "-o", "remount,ro", existing], check=True)
    assert_one_line(serve_once(os.path.join(existing, "data")), "read-only file system", "Remount")


def test_a_new_store_on_a_full_disk_is_one_line_and_exit_2(mount) -> None:
    disk = mount("full", "size=1m")
    with open(os.path.join(disk, "filler"), "wb", buffering=0) as f:
        try:
            while True:
                f.write(b"\0" * 4096)
        except OSError:
            pass
    assert_one_line(serve_once(os.path.join(disk, "data")), "no space left", "Free some space")


def test_a_read_only_folder_is_one_line_and_exit_2(tmp_path) -> None:
    """Root ignores a folder's mode through its capabilities, so as root the daemon runs with none (setpriv)."""
    folder = tmp_path / "locked"
    folder.mkdir(mode=0o500)
    prefix = ("setpriv", "--bounding-set=-all", "--inh-caps=-all") if os.geteuid() == 0 else ()
    assert_one_line(serve_once(str(folder / "data"), *prefix), "permission denied", "write access")


# -- record checksums (#12) and the schema upgrade


def flip_byte_in(data_dir: str, database: str, needle: bytes) -> bytes:
    """Flip one byte inside the first value of `database` holding `needle` (daemon stopped); return its key."""
    import lmdb

    env = lmdb.open(data_dir, max_dbs=32, map_size=0)
    try:
        with env.begin(write=True) as txn:
            db = env.open_db(database.encode(), txn=txn, create=False)
            for key, value in txn.cursor(db=db):
                at = value.find(needle)
                if at >= 0:
                    flipped = bytearray(value)
                    flipped[at] ^= 0x01  # "m" becomes "l": the text a reader would be served, changed
                    txn.put(key, bytes(flipped), db=db)
                    return bytes(key)
    finally:
        env.close()
    raise AssertionError(f"no value of {database} holds {needle!r}")


async def test_a_flipped_byte_in_one_message_is_quarantined_and_the_rest_of_the_mailbox_keeps_flowing(
        make_daemon) -> None:
    daemon = make_daemon().start()
    texts = [f"message-{i}" for i in range(6)]
    async with Client(daemon.target) as client:
        await client.register(AGENT)
        for text in texts:
            await client.send(AGENT, text)
    daemon.stop()
    key = flip_byte_in(daemon.data_dir, "messages", b"message-2")
    checked = fabricd("check", "--data-dir", daemon.data_dir)
    assert checked.returncode == 1, checked.stdout + checked.stderr
    assert f"corrupt record: database messages, key {key.hex()}" in checked.stdout
    daemon.start()
    async with Client(daemon.target) as client:
        got = []
        async with client.subscribe(AGENT) as inbox:  # the stream goes on past the bad record
            async for message in inbox:
                got.append(message.text)
                if len(got) == 5:
                    break
        assert got == [t for t in texts if t != "message-2"]  # never served changed
        daemon.wait_for(f"quarantined a corrupt record: database messages, key {key.hex()}")
        await client.send(AGENT, "after")
        drained = await client.drain(AGENT, 100)
        assert [m.text for m in drained.messages] == ["after"] and drained.remaining == 0
    daemon.stop()
    again = fabricd("check", "--data-dir", daemon.data_dir)
    assert again.returncode == 0 and "0 corrupt, 1 quarantined earlier" in again.stdout, again.stdout


async def test_check_repair_moves_corrupt_tickets_and_entries_aside_and_the_mailbox_is_rebuilt(
        make_daemon) -> None:
    daemon = make_daemon().start()
    async with Client(daemon.target) as client:
        await client.register(AGENT, session_name="keeper-session")
        await client.send(AGENT, "kept mail")
        await client.enqueue(AGENT, "a task whose ticket breaks")
    daemon.stop()
    flip_byte_in(daemon.data_dir, "tickets", b"a task whose ticket breaks")
    flip_byte_in(daemon.data_dir, "entries", b"keeper-session")
    assert fabricd("check", "--data-dir", daemon.data_dir).returncode == 1
    repaired = fabricd("check", "--repair", "--data-dir", daemon.data_dir)
    assert repaired.returncode == 0 and repaired.stdout.count("(moved to quarantine)") == 2, repaired.stdout
    assert fabricd("check", "--data-dir", daemon.data_dir).returncode == 0
    daemon.start()
    async with Client(daemon.target) as client:
        # the entry is rebuilt from its mail: unread count and seq kept, registration lost until it registers
        peeked = await client.peek(AGENT)
        assert [m.text.rsplit("\n", 1)[-1] for m in peeked.messages] == ["kept mail", "a task whose ticket breaks"]
        assert peeked.unread_count == 2
        sent = await client.send(AGENT, "new")
        assert sent.message.seq == 3


def downgrade_lmdb_to_schema_3(data_dir: str) -> None:
    """Rewrite what schema 4 changed as schema 3 wrote it (daemon stopped).

    ids: a chosen id is keyed 0x00 H(id), or 0x01 id when it has a minted id's form, and its record ends
    with the id's text (hashed keys only), without a sender (a minted id's record names no sender either);
    `by_id` does not exist; outbox rows and their due entries are keyed by the reply key alone."""
    import lmdb

    from fabricd.store.lmdb import keys, records, sealed

    env = lmdb.open(data_dir, max_dbs=32, map_size=0)
    try:
        with env.begin(write=True) as txn:
            db = {name: env.open_db(name.encode(), txn=txn, create=False)
                  for name in ("ids", "by_id", "outbox", "due", "meta")}
            for key, value in list(txn.cursor(db=db["ids"])):
                raw = sealed.unseal(value)
                assert raw is not None
                end = raw.find(b"\0", records._ID_HEAD.size)  # the recipient's end
                head = raw[:end] if end >= 0 else raw  # the record without id text or sender
                if key[0] == 1:  # a minted id: the same key, its record without the sender
                    txn.put(key, sealed.seal(head), db=db["ids"])
                    continue
                text, _ = records.id_texts(raw)
                assert text is not None
                if keys.looks_minted(text):
                    old_key, old = keys.minted_id(text), head
                else:
                    old_key, old = b"\x00" + keys.h(text), head + b"\0" + text.encode()
                txn.delete(key, db=db["ids"])
                txn.put(old_key, sealed.seal(old), db=db["ids"])
            txn.drop(db["by_id"], delete=True)
            for name, start in (("outbox", 0), ("due", 8)):
                for key, value in list(txn.cursor(db=db[name])):
                    txn.delete(key, db=db[name])
                    txn.put(key[: key.index(b"\0", start)], value, db=db[name])
            txn.put(keys.SCHEMA, keys.u64(3), db=db["meta"])
    finally:
        env.close()

async def test_a_flipped_byte_in_a_wake_hook_is_quarantined_and_the_hook_reads_as_unset(make_daemon) -> None:
    daemon = make_daemon().start()
    async with Client(daemon.target) as client:
        for agent in (AGENT, "other"):
            await client.register(agent)
            await client.set_wake_hook(agent, url=f"http://127.0.0.1:9/{agent}-hook")
    daemon.stop()
    key = flip_byte_in(daemon.data_dir, "meta", f"{AGENT}-hook".encode())  # "k" becomes "j": still JSON
    checked = fabricd("check", "--data-dir", daemon.data_dir)
    assert checked.returncode == 1, checked.stdout + checked.stderr
    assert f"corrupt record: database meta, key {key.hex()}" in checked.stdout
    daemon.start()
    async with Client(daemon.target) as client:
        assert not (await client.get_wake_hook(AGENT)).HasField("hook")  # never served changed
        daemon.wait_for(f"quarantined a corrupt record: database meta, key {key.hex()}")
        assert (await client.get_wake_hook("other")).hook.url == "http://127.0.0.1:9/other-hook"
        await client.set_wake_hook(AGENT, url="http://127.0.0.1:9/set-again")
        assert (await client.get_wake_hook(AGENT)).hook.url == "http://127.0.0.1:9/set-again"
    daemon.stop()
    again = fabricd("check", "--data-dir", daemon.data_dir)
    assert again.returncode == 0 and "0 corrupt, 1 quarantined earlier" in again.stdout, again.stdout


async def test_a_wake_hook_stored_before_hooks_were_sealed_reads_and_is_sealed_at_start(make_daemon) -> None:
    import lmdb

    from fabricd.store.lmdb import keys, sealed

    daemon = make_daemon().start()
    async with Client(daemon.target) as client:
        await client.register(AGENT)
        await client.set_wake_hook(AGENT, url="http://127.0.0.1:9/old-hook")
    daemon.stop()

    def stored() -> bytes:
        env = lmdb.open(daemon.data_dir, max_dbs=32, map_size=0)
        try:
            with env.begin() as txn:
                return txn.get(keys.wake_hook(AGENT), db=env.open_db(b"meta", txn=txn, create=False))
        finally:
            env.close()

    old = sealed.unseal_meta(stored())
    env = lmdb.open(daemon.data_dir, max_dbs=32, map_size=0)
    with env.begin(write=True) as txn:  # as an earlier fabricd stored it: the JSON alone
        txn.put(keys.wake_hook(AGENT), old, db=env.open_db(b"meta", txn=txn, create=False))
    env.close()
    assert stored().startswith(b"{")
    assert fabricd("check", "--data-dir", daemon.data_dir).returncode == 0  # an old hook is not corrupt
    daemon.start()
    async with Client(daemon.target) as client:
        assert (await client.get_wake_hook(AGENT)).hook.url == "http://127.0.0.1:9/old-hook"
    daemon.stop()
    assert sealed.unseal_meta(stored()) is not None and not stored().startswith(b"{")  # sealed at the start


def downgrade_to_schema_2(data_dir: str) -> None:
    """Make the store in `data_dir` what a schema-2 fabricd wrote: the same records without their checksums.

    Schema 3 differs from 2 only by the 4-byte checksum after every value of the sealed databases
    (fabricd.store.lmdb.sealed), so stripping them from a schema-3 store gives, byte for byte, the records
    fabricd wrote before."""
    import lmdb

    from fabricd.store.lmdb import keys, sealed
    from fabricd.store.lmdb.schema import SEALED

    downgrade_lmdb_to_schema_3(data_dir)
    env = lmdb.open(data_dir, max_dbs=32, map_size=0)
    try:
        with env.begin(write=True) as txn:
            for name in SEALED:
                if name == "by_id":  # schema 4's: gone above
                    continue
                db = env.open_db(name.encode(), txn=txn, create=False)
                rows = list(txn.cursor(db=db))
                for key, value in rows:
                    body = sealed.unseal(value)
                    assert body is not None
                    txn.put(key, body, db=db)
            txn.drop(env.open_db(b"quarantine", txn=txn, create=False), delete=True)
            txn.put(keys.SCHEMA, keys.u64(2), db=env.open_db(b"meta", txn=txn, create=False))
    finally:
        env.close()


async def test_a_schema_2_store_is_upgraded_at_start_after_a_backup_and_everything_survives(make_daemon,
                                                                                          tmp_path) -> None:
    daemon = make_daemon().start()
    async with Client(daemon.target) as client:
        await client.register(AGENT, session_name="keeper-session")
        for i in range(300):
            await client.send(AGENT, f"old {i}", data=b"d" * 500)
        ticket = await client.enqueue(AGENT, "an old task")
        await client.issue_token(admin=True)
        before = [m.text for m in (await client.peek(AGENT, 1000)).messages]
    daemon.stop()
    downgrade_to_schema_2(daemon.data_dir)
    old = fabricd("check", "--data-dir", daemon.data_dir)
    assert old.returncode == 2 and "schema version 2" in old.stderr
    daemon.start()
    assert any("upgraded the store" in line and "from schema 2 to 4" in line for line in daemon.output)
    (backup,) = [n for n in os.listdir(daemon.data_dir) if n.startswith("data.schema-2.")]
    async with Client(daemon.target) as client:
        assert [m.text for m in (await client.peek(AGENT, 1000)).messages] == before
        assert (await client.resolve("keeper-session")).agent_id == AGENT
        assert [t.ticket_id for t in await client.get_queue(AGENT)] == [ticket.ticket_id]
        assert [t.token_id for t in await client.list_tokens()]  # the token survived
        assert (await client.send(AGENT, "new")).message.seq == 302
    daemon.stop()
    assert fabricd("check", "--data-dir", daemon.data_dir).returncode == 0
    # The backup is the old store: restored, it is upgraded again and holds the same mail.
    restored = str(tmp_path / "restored")
    result = fabricd("restore", "--from", os.path.join(daemon.data_dir, backup), "--data-dir", restored)
    assert result.returncode == 0, result.stderr
    again = make_daemon(data_dir=restored).start()
    async with Client(again.target) as client:
        assert [m.text for m in (await client.peek(AGENT, 1000)).messages] == before


def usage_in(txn, meta) -> dict[bytes, int]:
    """The quota usage counters (meta `usage/...`) an LMDB transaction sees."""
    from fabricd.store.lmdb import keys

    out = {}
    with txn.cursor(db=meta) as cur:
        found = cur.set_range(b"usage/")
        while found and cur.key().startswith(b"usage/"):
            out[bytes(cur.key())] = keys.read_u64(cur.value())
            found = cur.next()
    return out


def usage_counters(data_dir: str, *, drop: bool = False) -> dict[bytes, int]:
    """The quota usage counters of a stopped store; `drop`: delete them too (schema 2 kept none)."""
    import lmdb

    env = lmdb.open(data_dir, max_dbs=32, map_size=0)
    try:
        with env.begin(write=drop) as txn:
            meta = env.open_db(b"meta", txn=txn, create=False)
            found = usage_in(txn, meta)
            for key in found if drop else ():
                txn.delete(key, db=meta)
            return found
    finally:
        env.close()


async def test_a_schema_2_store_upgraded_counts_quota_usage_as_a_copy_recounts_it(make_daemon, tmp_path) -> None:
    from fabricd.v1 import outbox_service_pb2 as ob
    from fabricd.v1 import types_pb2 as pb

    daemon = make_daemon("--no-outbox-loop").start()
    async with Client(daemon.target) as client:
        await client.register(AGENT)
        for i in range(5):
            await client.send(AGENT, f"unread {i}", sender="mallory", data=b"d" * 300)
        await client.send("made-by-mallory", "hello", sender="mallory", create_mailbox=True)
        await client.enqueue(AGENT, "a task", source_agent="mallory")
        await client.fan_out(ob.SettledJob(job_id="j", outcome=ob.JOB_OUTCOME_COMPLETED,
                                           agent=pb.Address(agent_id="mallory", session_id="s"),
                                           mail=pb.Mail(key="k", reply_to=[pb.Address(agent_id=AGENT, session_id="s")])),
                             "done")
        await client.drain(AGENT, 2)  # read mail gives its bytes back
    daemon.stop()
    downgrade_to_schema_2(daemon.data_dir)
    live = usage_counters(daemon.data_dir, drop=True)  # what the daemon counted as it went
    assert usage_counters(daemon.data_dir) == {}
    daemon.start()
    assert any("from schema 2 to 4" in line for line in daemon.output)
    daemon.stop()
    upgraded = usage_counters(daemon.data_dir)
    copied = str(tmp_path / "copied")
    result = fabricd("copy", "--from", daemon.data_dir, "--to", copied)
    assert result.returncode == 0, result.stderr
    recounted = usage_counters(copied)
    # mallory's unread bytes and unread messages, mailboxes, queued tickets and outbox rows
    assert sorted(key.split(b"/")[1] for key in recounted) == [b"mailboxes", b"outbox_rows", b"queued_tickets",
                                                               b"unread_bytes", b"unread_messages"]
    assert upgraded == recounted == live


async def test_check_on_a_database_decodes_every_row_and_names_a_broken_one(make_daemon, pg_url) -> None:
    import asyncpg

    daemon = make_daemon("--store", pg_url).start()
    async with Client(daemon.target) as client:
        await client.register(AGENT)
        for i in range(3):
            await client.send(AGENT, f"row {i}")
        await client.enqueue(AGENT, "a task")
    daemon.stop()
    sound = fabricd("check", "--store", pg_url)
    assert sound.returncode == 0 and "0 undecodable" in sound.stdout, sound.stdout + sound.stderr
    conn = await asyncpg.connect(pg_url)
    try:  # a body no longer a fabricd.v1.Message: a field tag protobuf cannot read
        await conn.execute("UPDATE messages SET body = '\\xffffffff'::bytea WHERE seq = 2")
    finally:
        await conn.close()
    broken = fabricd("check", "--store", pg_url)
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert f"undecodable row: table messages, key {AGENT}/2" in broken.stdout
    assert fabricd("check", "--repair", "--store", pg_url).returncode == 2


async def test_token_issue_refuses_an_agent_id_that_is_another_agents_session_name(daemon) -> None:
    async with Client(daemon.target) as local:
        await local.register("carol", session_name="reviewer")
    for running in (True, False):  # through the running daemon's store, and with the store closed
        if not running:
            daemon.stop()
        result = await asyncio.to_thread(fabricd, "token", "issue", "--data-dir", daemon.data_dir, "--agent",
                                         "reviewer")
        assert result.returncode == 2 and not result.stdout, result
        assert "'reviewer' is already an address of agent carol" in result.stderr
    daemon.start()
    async with Client(daemon.target) as local:
        assert [t.agent_id for t in await local.list_tokens()] == []


def test_a_backup_written_in_the_checkout_is_not_shown_by_git_and_a_failed_one_leaves_nothing(
        tmp_path) -> None:
    ignored = subprocess.run(["git", "check-ignore", "fabricd.mdb", "fabricd.mdb.partial"], cwd=ROOT,
                             capture_output=True, text=True)
    assert ignored.stdout.split() == ["fabricd.mdb", "fabricd.mdb.partial"]  # README's `fabric backup --to fabricd.mdb`
    failed = subprocess.run([sys.executable, "-m", "fabricd.cli.main", "--target", f"unix:{tmp_path}/none.sock",
                             "backup", "--to", str(tmp_path / "b.mdb")], capture_output=True, text=True, timeout=60)
    assert failed.returncode == 1 and sorted(os.listdir(tmp_path)) == []  # no b.mdb.partial left behind
