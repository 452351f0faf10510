"""A hostile agent or local user against wake hooks and the data folder, each refused or contained."""

from __future__ import annotations

import os
import pwd
import subprocess
import sys

import pytest

FABRICD = [sys.executable, "-m", "fabricd.daemon.main"]


def serve(*args: str) -> subprocess.CompletedProcess[str]:
    """`fabricd serve` with none of the caller's FABRICD_ variables (a refusal exits; a start would hang)."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("FABRICD_")}
    return subprocess.run([*FABRICD, "serve", *args], capture_output=True, text=True, timeout=60, env=clean)


# -- command hooks on an unauthenticated TCP listener


def test_command_hooks_on_a_tcp_listener_without_tokens_stop_the_daemon_naming_the_keys(tmp_path, sock_dir) -> None:  # noqa: ANN001
    result = serve("--data-dir", str(tmp_path / "d"), "--listen", f"unix:{sock_dir}/fd.sock", "--listen",
                   "127.0.0.1:0", "--auth", "off", "--wake-allow-commands", "on")
    assert result.returncode == 2, result.stderr
    for key in ("wake.allow_commands = on (flag --wake-allow-commands)", "auth.tokens = off (flag --auth)",
                "listen = "):
        assert key in result.stderr, result.stderr
    assert not (tmp_path / "d").exists()  # refused before the store was touched


@pytest.mark.parametrize("args", [
    ("--auth", "on", "--wake-allow-commands", "on", "--listen", "127.0.0.1:0"),  # tokens guard the listener
    ("--auth", "off", "--wake-allow-commands", "on"),  # a unix socket only: its file mode guards it
    ("--auth", "off", "--wake-allow-commands", "off", "--listen", "127.0.0.1:0"),
])
def test_command_hooks_with_tokens_or_only_a_unix_socket_still_configure(args) -> None:  # noqa: ANN001
    clean = {k: v for k, v in os.environ.items() if not k.startswith("FABRICD_")}
    result = subprocess.run([*FABRICD, "config", "--listen", "unix:/tmp/x.sock", *args], capture_output=True,
                            text=True, timeout=60, env=clean)
    assert result.returncode == 0, result.stderr


# -- a data folder another user owns


@pytest.fixture
def other_user() -> pwd.struct_passwd:
    if os.geteuid() != 0:
        pytest.fail("these tests chown folders to another user: they run as root (as the test command does)")
    return pwd.getpwnam("nobody")


def test_a_root_daemon_refuses_a_folder_another_user_owns_and_follows_none_of_its_symlinks(
        tmp_path, sock_dir, other_user) -> None:  # noqa: ANN001
    victim = tmp_path / "victim"
    victim.write_text("root's own file")
    theirs = tmp_path / "theirs"
    theirs.mkdir(mode=0o700)
    (theirs / "lock.mdb").symlink_to(victim)
    (theirs / "fabricd.lock").symlink_to(victim)
    os.lchown(theirs / "lock.mdb", other_user.pw_uid, other_user.pw_gid)
    os.chown(theirs, other_user.pw_uid, other_user.pw_gid)
    result = serve("--data-dir", str(theirs), "--listen", f"unix:{sock_dir}/fd.sock")
    assert result.returncode == 2, result.stderr
    assert f"{theirs} is owned by nobody (uid {other_user.pw_uid}), not by the user running fabricd" in result.stderr
    assert "Traceback" not in result.stderr
    assert victim.read_text() == "root's own file"
    assert sorted(os.listdir(theirs)) == ["fabricd.lock", "lock.mdb"]  # nothing created either


@pytest.mark.parametrize("name", ["lock.mdb", "data.mdb", "fabricd.lock"])
def test_a_store_file_that_is_a_symlink_is_refused_even_in_an_own_folder(tmp_path, sock_dir, name) -> None:  # noqa: ANN001
    victim = tmp_path / "victim"
    victim.write_text("root's own file")
    mine = tmp_path / "mine"
    mine.mkdir(mode=0o700)
    (mine / name).symlink_to(victim)
    result = serve("--data-dir", str(mine), "--listen", f"unix:{sock_dir}/fd.sock")
    assert result.returncode == 2 and f"{mine / name} is a symlink" in result.stderr, result.stderr
    assert victim.read_text() == "root's own file"


def test_a_store_file_another_user_owns_or_a_folder_anyone_may_write_is_refused(tmp_path, sock_dir,  # noqa: ANN001
                                                                                 other_user) -> None:
    mine = tmp_path / "mine"
    mine.mkdir(mode=0o700)
    (mine / "data.mdb").write_bytes(b"")
    os.chown(mine / "data.mdb", other_user.pw_uid, other_user.pw_gid)
    result = serve("--data-dir", str(mine), "--listen", f"unix:{sock_dir}/fd.sock")
    assert result.returncode == 2 and f"{mine / 'data.mdb'} is owned by nobody" in result.stderr, result.stderr
    open_to_all = tmp_path / "open"
    open_to_all.mkdir()
    os.chmod(open_to_all, 0o777)
    result = serve("--data-dir", str(open_to_all), "--listen", f"unix:{sock_dir}/fd.sock")
    assert result.returncode == 2 and "may be written by every local user (mode 777)" in result.stderr, result.stderr
    assert os.listdir(open_to_all) == []
