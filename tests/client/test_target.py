"""Where a client dials: the --target grammar and socket discovery (no daemon needed)."""

from __future__ import annotations

import os
import socket

import pytest

from fabricd.client import InvalidArgument, _target


@pytest.mark.parametrize(("given", "dialled"), [
    ("unix:/run/fabricd/fabricd.sock", "unix:/run/fabricd/fabricd.sock"),
    ("/run/fabricd/fabricd.sock", "unix:/run/fabricd/fabricd.sock"),
    ("127.0.0.1:7077", "127.0.0.1:7077"),
    ("[::1]:7077", "[::1]:7077"),
    ("fabric.example.com:7077", "fabric.example.com:7077"),
    ("dns:///fabric.example.com:7077", "dns:///fabric.example.com:7077"),
])
def test_a_target_is_a_unix_path_or_host_and_port(given: str, dialled: str) -> None:
    assert _target.normalize(given) == dialled


def test_a_bare_relative_or_home_path_is_a_unix_socket(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert _target.normalize("./x.sock") == f"unix:{tmp_path}/x.sock"
    assert _target.normalize("~/x.sock") == f"unix:{tmp_path}/x.sock"
    assert _target.normalize("unix:~/x.sock") == f"unix:{tmp_path}/x.sock"


@pytest.mark.parametrize("given", ["fabric.example.com", "localhost:", "127.0.0.1"])
def test_a_host_without_a_port_is_refused_naming_the_port_to_add(given: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        _target.normalize(given)
    host = given.rstrip(":")
    assert caught.value.reason == "BAD_TARGET" and f"{host}:7077" in caught.value.message
    assert "no default TCP port" in caught.value.message


def test_a_url_is_refused_with_the_form_to_use() -> None:
    with pytest.raises(InvalidArgument, match="HOST:PORT"):
        _target.normalize("http://localhost:7077")


def _listening(path: str) -> socket.socket:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    s.listen()
    return s


def _stale(path: str) -> None:
    """A socket file nobody listens on, as a killed daemon leaves behind."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    s.close()


@pytest.fixture
def places(sock_dir, monkeypatch):  # noqa: ANN201
    runtime, state, run = (os.path.join(sock_dir, name) for name in ("rt", "st", "run"))
    for folder in (runtime, os.path.join(state, "fabricd"), run):
        os.makedirs(folder)
    monkeypatch.setattr(_target, "SYSTEM_SOCKET", os.path.join(run, "fabricd.sock"))
    env = {"XDG_RUNTIME_DIR": runtime, "XDG_STATE_HOME": state, "HOME": sock_dir}
    return env, [os.path.join(runtime, "fabricd.sock"), os.path.join(state, "fabricd", "fabricd.sock"),
                 os.path.join(run, "fabricd.sock")]


def test_discovery_tries_runtime_dir_then_state_dir_then_run(places) -> None:
    env, (user_unit, by_hand, system_unit) = places
    assert _target.candidates(env) == [user_unit, by_hand, system_unit]
    nothing = _target.discover(env)
    assert nothing.target == f"unix:{by_hand}"  # `fabricd serve`'s default, for a daemon started later
    assert nothing.describe() == (f"unix:{user_unit} (no such file), unix:{by_hand} (no such file), "
                                  f"unix:{system_unit} (no such file)")
    with _listening(system_unit):
        assert _target.discover(env).target == f"unix:{system_unit}"
        with _listening(by_hand):
            assert _target.discover(env).target == f"unix:{by_hand}"
            with _listening(user_unit):
                assert _target.discover(env).target == f"unix:{user_unit}"


def test_discovery_passes_over_a_socket_a_dead_daemon_left(places) -> None:
    env, (user_unit, by_hand, system_unit) = places
    _stale(user_unit)
    with _listening(system_unit):
        found = _target.discover(env)
        assert found.target == f"unix:{system_unit}"
        assert f"unix:{user_unit} (refused)" in found.describe()
    assert _target.discover(env).target == f"unix:{user_unit}"  # nothing answers: the first that exists


def test_an_explicit_target_or_fabricd_target_skips_discovery(places) -> None:
    env, _ = places
    assert _target.resolve("/x.sock", env).target == "unix:/x.sock"
    assert not _target.resolve(None, {**env, "FABRICD_TARGET": "127.0.0.1:1"}).discovered


def test_several_targets_come_from_a_list_or_commas_in_order_without_duplicates() -> None:
    assert _target.split("a:1,b:2, c:3,") == ["a:1", "b:2", "c:3"]
    assert _target.split(["a:1", "b:2,a:1"]) == ["a:1", "b:2"]
    resolved = _target.resolve(None, {"FABRICD_TARGET": "a:1,/run/x.sock"})
    assert resolved.targets == ("a:1", "unix:/run/x.sock") and not resolved.discovered


def test_an_ipv4_or_ipv6_address_list_stays_one_grpc_target() -> None:
    assert _target.split("ipv4:10.0.0.1:7077,10.0.0.2:7077") == ["ipv4:10.0.0.1:7077,10.0.0.2:7077"]


@pytest.mark.parametrize("given", [",", ["", " "], "a:1,myhost"])
def test_an_empty_or_portless_target_in_a_list_is_refused(given: str | list[str]) -> None:
    with pytest.raises(InvalidArgument) as caught:
        _target.split(given)
    assert caught.value.reason == "BAD_TARGET"
