"""A PostgreSQL store as a newcomer starts one: what to install, and the first admin token for a TCP-only node."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import subprocess
import sys
import tempfile
import textwrap

import pytest

from fabricd.client import Client, Unauthenticated
from tests.conftest import ROOT, Daemon
from tests.e2e.test_store_operations import fabricd

WITHOUT_ASYNCPG = textwrap.dedent("""
    import importlib.abc, sys

    class Missing(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] == "asyncpg":
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, Missing())
    from fabricd.daemon.main import main
    raise SystemExit(main(sys.argv[1:]))
""")


def fabricd_without_asyncpg(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", WITHOUT_ASYNCPG, *args], capture_output=True, text=True,
                          timeout=60, cwd=ROOT)


@pytest.mark.parametrize("command", [("serve",), ("token", "issue", "--admin"), ("migrate",), ("check",)])
def test_a_missing_postgres_driver_is_one_line_saying_what_to_install(command, tmp_path) -> None:
    extra = ("--data-dir", str(tmp_path / "data")) if command[0] != "migrate" else ()
    result = fabricd_without_asyncpg(*command, *extra, "--store", "postgresql://fabricd@127.0.0.1:1/fabricd")
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, result.stderr
    assert "asyncpg" in result.stderr and "pip install 'fabricd[postgres]'" in result.stderr


def dev_script():  # noqa: ANN201
    loader = importlib.machinery.SourceFileLoader("scripts_dev", os.path.join(ROOT, "scripts", "dev"))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader("scripts_dev", loader))
    loader.exec_module(module)
    return module


def test_dev_serve_installs_the_postgres_driver_when_the_store_is_a_database(tmp_path) -> None:
    dev = dev_script()
    url = "postgresql://fabricd@127.0.0.1/fabricd"
    assert dev.serve_extras([], {}) == "daemon"
    assert dev.serve_extras(["--data-dir", "/srv/fabricd"], {}) == "daemon"
    assert dev.serve_extras(["--store", url], {}) == "daemon,postgres"
    assert dev.serve_extras([f"--store={url}"], {}) == "daemon,postgres"
    assert dev.serve_extras([], {"FABRICD_STORE": url}) == "daemon,postgres"
    config = tmp_path / "fabricd.toml"
    config.write_text(f'store = "{url}"\n')
    assert dev.serve_extras(["--config", str(config)], {}) == "daemon,postgres"
    assert dev.serve_extras([], {"FABRICD_CONFIG": str(config)}) == "daemon,postgres"
    assert dev.serve_extras(["--store", "", "--config", str(config)], {}) == "daemon"


@pytest.mark.parametrize("how", ["flag", "environment"])
async def test_token_issue_with_a_postgres_store_is_accepted_by_its_tcp_node_at_once(how, make_daemon, pg_url,
                                                                                   tmp_path) -> None:
    node = make_daemon("--store", pg_url, "--listen", "127.0.0.1:0").start()
    port = int(node.wait_for("127.0.0.1:").strip().rsplit(":", 1)[1])
    with tempfile.TemporaryDirectory(prefix="fd-") as sockets:
        local = Daemon(str(tmp_path / "local"), sockets).start()  # an LMDB daemon on this machine's folder
        try:
            args = ("token", "issue", "--admin", "--label", "first", "--data-dir", local.data_dir)
            if how == "flag":
                result = fabricd(*args, "--store", pg_url)
            else:
                result = subprocess.run([sys.executable, "-m", "fabricd.daemon.main", *args], capture_output=True,
                                        text=True, timeout=120, cwd=ROOT, env={**os.environ, "FABRICD_STORE": pg_url})
            assert result.returncode == 0, result.stderr
            assert local.proc is not None and f"pid {local.proc.pid}" not in result.stderr
            assert "every fabricd node serving postgresql://" in result.stderr
            async with Client(f"127.0.0.1:{port}", token=result.stdout.strip()) as admin:
                assert [t.label for t in await admin.list_tokens()] == ["first"]
            async with Client(local.target) as lmdb:  # nothing was written into the LMDB folder's store
                assert [t.label for t in await lmdb.list_tokens()] == []
        finally:
            local.stop()


async def test_a_token_refused_on_the_node_before_issue_is_accepted_after(make_daemon, pg_url) -> None:
    node = make_daemon("--store", pg_url, "--listen", "127.0.0.1:0").start()
    port = int(node.wait_for("127.0.0.1:").strip().rsplit(":", 1)[1])
    async with Client(f"127.0.0.1:{port}") as anonymous:
        with pytest.raises(Unauthenticated):
            await anonymous.list_tokens()
    result = fabricd("token", "issue", "--agent", "worker", "--store", pg_url)
    assert result.returncode == 0, result.stderr
    async with Client(f"127.0.0.1:{port}", token=result.stdout.strip()) as worker:
        await worker.touch("worker")


@pytest.mark.parametrize("command", ["backup", "restore", "compact"])
def test_lmdb_folder_tools_on_a_postgres_store_say_what_to_use_instead(command, pg_url, tmp_path) -> None:
    extra = {"backup": ("--to", str(tmp_path / "b")), "restore": ("--from", str(tmp_path / "b")), "compact": ()}
    result = fabricd(command, "--store", pg_url, "--data-dir", str(tmp_path / "data"), *extra[command])
    assert result.returncode == 2 and "pg_dump" in result.stderr and "fabricd copy" in result.stderr
    assert not (tmp_path / "b").exists() and not (tmp_path / "data").exists()
