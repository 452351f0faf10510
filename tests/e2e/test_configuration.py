"""Configuring fabricd as an operator does: precedence, `fabricd config` as TOML, refusals naming key and source."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib

import pytest

from fabricd import __version__
from fabricd.daemon import settings

FABRICD = [sys.executable, "-m", "fabricd.daemon.main"]


def fabricd(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run `fabricd` with none of the caller's FABRICD_ variables, only `env`."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("FABRICD_")}
    return subprocess.run([*FABRICD, *args], capture_output=True, text=True, timeout=60, env={**clean, **(env or {})})


def serve(tmp_path, text: str, *args: str,
          env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`fabricd serve` with `text` as its configuration file, on a socket of its own (refusals never serve)."""
    config = tmp_path / "fabricd.toml"
    config.write_text(text)
    return fabricd("serve", "--config", str(config), "--data-dir", str(tmp_path / "d"), *args, env=env)


def test_configuration_precedence_file_then_env_then_flags(tmp_path) -> None:
    config = tmp_path / "fabricd.toml"
    config.write_text('log_level = "warning"\ngrace = 3\n[limits]\nmax_unread = 5\nmax_message_bytes = "2M"\n')
    out = fabricd("config", "--config", str(config), "--max-unread", "7",
                  env={"FABRICD_LIMITS_MAX_UNREAD": "6", "FABRICD_GRACE": "4"}).stdout
    lines = {line.split(" = ")[0]: line for line in out.splitlines() if " = " in line}
    assert lines["max_unread"].startswith("max_unread = 7  # flag --max-unread")
    assert lines["grace"].startswith("grace = 4.0  # env FABRICD_GRACE")
    assert lines["log_level"].startswith(f'log_level = "WARNING"  # file {config}')
    assert lines["max_message_bytes"].startswith('max_message_bytes = "2M"  # file')
    assert lines["map_size"].startswith('map_size = "32G"  # default: the most the store may hold')


def test_fabricd_config_prints_toml_that_reads_back_as_the_same_configuration(tmp_path) -> None:
    pem = tmp_path / "x.pem"
    pem.write_text("not checked here: only that it can be read")
    env = {"FABRICD_SERVER_TLS_CERT": str(pem), "FABRICD_SERVER_TLS_KEY": str(pem), "FABRICD_SOCKET_MODE": "0640",
           "FABRICD_LIMITS_DEDUPE_WINDOW": "0.5", "FABRICD_SERVER_TLS_ADMIN_NAMES": 'ops, "quoted" \\ name'}
    first = fabricd("config", "--data-dir", str(tmp_path / 'data "dir" \u00e9\t'), "--listen", "unix:/tmp/fd.sock",
                    "--listen", "127.0.0.1:0", "--map-size", "3G", "--max-message-bytes", "1536K",
                    "--no-sync", "--no-outbox-loop", "--log-level", "debug", "--keepalive", "0.25", "--auth", "on",
                    "--rate-limit", "2.5", "--metrics-listen", "127.0.0.1:0", "--tls-client-ca", str(pem),
                    "--tls-require-client-cert", env=env)
    assert first.returncode == 0, first.stderr
    table = tomllib.loads(first.stdout)
    assert set(settings._flatten(table)) == set(settings.BY_KEY)  # every key, once, in its table
    saved = tmp_path / "effective.toml"
    saved.write_text(first.stdout)
    again = fabricd("config", "--config", str(saved))
    assert again.returncode == 0, again.stderr
    assert tomllib.loads(again.stdout) == table
    assert all(f"# file {saved}" in line for line in again.stdout.splitlines() if " = " in line)
    assert table["socket"]["mode"] == "0640" and table["tls"]["admin_names"] == ["ops", '"quoted" \\ name']


def test_fabricd_version_prints_the_version() -> None:
    result = fabricd("--version")
    assert result.returncode == 0 and result.stdout.strip() == f"fabricd {__version__}"


def test_the_test_failpoint_is_not_a_setting() -> None:
    assert "failpoint" not in fabricd("config").stdout + fabricd("serve", "--help").stdout
    result = fabricd("config", env={"FABRICD_TEST_FAILPOINT": "stall"})  # a known test switch, not reported
    assert result.returncode == 0, result.stderr


def test_every_unknown_key_and_variable_is_reported_with_the_closest_name(tmp_path) -> None:
    result = serve(tmp_path, "keepalive = 5\nkeeplive = 5\n[limits]\nmax_unred = 5\n[sockt]\nmode = \"0600\"\n",
                   env={"FABRICD_LIMITS_MAX_UNRED": "3", "FABRICD_GRAC": "1", "FABRICD_TOTALLY_ELSE": "1"})
    assert result.returncode == 2
    for line in ("unknown key 'keeplive' in", "(did you mean keepalive?)",
                 "unknown key 'limits.max_unred' in", "(did you mean limits.max_unread?)",
                 "unknown key 'sockt.mode'", "(did you mean socket.mode?)",
                 "unknown environment variable FABRICD_LIMITS_MAX_UNRED (did you mean FABRICD_LIMITS_MAX_UNREAD?)",
                 "unknown environment variable FABRICD_GRAC (did you mean FABRICD_GRACE?)",
                 "unknown environment variable FABRICD_TOTALLY_ELSE"):
        assert line in result.stderr, result.stderr
    assert "6 problems" in result.stderr


def test_client_variables_are_not_reported_and_do_not_configure_the_daemon(tmp_path) -> None:
    client = {"FABRICD_TARGET": "unix:/nowhere.sock", "FABRICD_TOKEN": "t", "FABRICD_TLS_CA": "/nowhere/ca.pem",
              "FABRICD_TLS_CERT": "/nowhere/client.pem", "FABRICD_TLS_KEY": "/nowhere/client.key"}
    result = fabricd("config", env=client)
    assert result.returncode == 0, result.stderr
    tls = tomllib.loads(result.stdout)["tls"]
    assert tls["cert"] == "" and tls["key"] == ""  # the client's certificate is not the daemon's


@pytest.mark.parametrize(("text", "args", "env", "wanted"), [
    # ranges
    ("keepalive = 0\n", (), {}, ["keepalive = 0 (file ", "the smallest allowed is 0.01"]),
    ("housekeeping_interval = 0\n", (), {}, ["housekeeping_interval = 0 (file ", "the smallest allowed is 0.01"]),
    ("", (), {"FABRICD_GRACE": "nan"}, ["grace = 'nan' (env FABRICD_GRACE)", "finite"]),
    ("", ("--max-unread", "-1"), {}, ["limits.max_unread = '-1' (flag --max-unread)", "smallest allowed is 0"]),
    ("max_causal_depth = 2.5\n", (), {}, ["max_causal_depth = 2.5 (file ", "whole number"]),
    ('map_size = "512K"\n', (), {}, ["map_size = '512K' (file ", "smallest allowed is 1M"]),
    ("[auth]\nrate_burst = 0\n", (), {}, ["auth.rate_burst = 0 (file ", "smallest allowed is 1"]),
    ("[outbox]\nmax_attempts = -1\n", (), {}, ["outbox.max_attempts = -1 (file ", "smallest allowed is 0"]),
    ("[outbox]\nbackoff = 0\n", (), {}, ["outbox.backoff = 0 (file ", "smallest allowed is 0.001"]),
    ('grace = "soon"\n', (), {}, ["grace = 'soon' (file "]),
    ("", (), {"FABRICD_SYNC": "maybe"}, ["(env FABRICD_SYNC)", "not true or false"]),
    ('log_level = "loud"\n', (), {}, ["log_level = 'loud' (file ", "not a log level"]),
    ("this is not toml", (), {}, ["is not valid TOML"]),
    # the socket mode: octal digits in quotes
    ("[socket]\nmode = 511\n", (), {}, ["socket.mode = 511 (file ", 'like "0660"', "which is octal 777"]),
    ("[socket]\nmode = 0660\n", (), {}, ["is not valid TOML", "line 2: 'mode = 0660'", 'mode = "0660"']),
    ('[socket]\nmode = "0666"\n', (), {}, ["socket.mode = '0666' (file ", "world-writable"]),
    ("", ("--socket-mode", "0060"), {}, ["socket.mode = '0060' (flag --socket-mode)", "the owner needs read"]),
    ("", (), {"FABRICD_SOCKET_MODE": "rw-rw----"}, ["(env FABRICD_SOCKET_MODE)", "not an octal file mode"]),
    ('[socket]\nmode = "4660"\n', (), {}, ["socket.mode = '4660'", "setuid"]),
    # things that must exist, and addresses
    ('[socket]\ngroup = "no-such-group-fabricd"\n', (), {}, ["socket.group = 'no-such-group-fabricd' (file ",
                                                              "no group named"]),
    ('[tls]\ncert = "/nowhere/server.pem"\nkey = "/nowhere/server.key"\n', (), {},
     ["tls.cert = '/nowhere/server.pem' (file ", "cannot read /nowhere/server.pem"]),
    ("", ("--listen", "nonsense"), {}, ["(flag --listen): 'nonsense' is not HOST:PORT"]),
    ("", ("--listen", "127.0.0.1:7", "--listen", "127.0.0.1:7"), {}, ["listed twice"]),
    ("", ("--listen", "127.0.0.1:70000"), {}, ["a port from 0 to 65535"]),
    ("", ("--listen", "unix:"), {}, ["a unix address needs a path"]),
    ('[metrics]\nlisten = "localhost"\n', (), {}, ["metrics.listen = 'localhost' (file ", "HOST:PORT"]),
])
def test_a_bad_value_stops_the_daemon_naming_key_and_source(tmp_path, text, args, env, wanted) -> None:
    result = serve(tmp_path, text, "--listen", f"unix:{tmp_path}/fd.sock", *args, env=env)
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("fabricd: configuration: ")
    for part in wanted:
        assert part in result.stderr, result.stderr


@pytest.mark.parametrize(("text", "args", "wanted"), [
    ('[tls]\ncert = "{pem}"\n', ("--listen", "127.0.0.1:0"),
     "tls.cert = {pem} (file {config}) but tls.key is not set: TLS needs both"),
    ('[tls]\nkey = "{pem}"\n', ("--listen", "127.0.0.1:0"),
     "tls.key = {pem} (file {config}) but tls.cert is not set"),
    ("", ("--listen", "127.0.0.1:0", "--tls-client-ca", "{pem}"),
     "tls.client_ca = {pem} (flag --tls-client-ca) without tls.cert and tls.key"),
    ("", ("--listen", "127.0.0.1:0", "--tls-cert", "{pem}", "--tls-key", "{pem}", "--tls-require-client-cert"),
     "tls.require_client_cert = on (flag --tls-require-client-cert) but tls.client_ca is not set"),
    ('[tls]\nadmin_names = ["ops"]\ncert = "{pem}"\nkey = "{pem}"\n', ("--listen", "127.0.0.1:0"),
     "tls.admin_names = ops (file {config}) but tls.client_ca is not set"),
    ("", ("--tls-cert", "{pem}", "--tls-key", "{pem}"), "has no HOST:PORT: TLS is for TCP listeners"),
    ("", ("--listen", "0.0.0.0:0"), "0.0.0.0:0 is a TCP listener beyond the loopback without TLS"),
    ("", ("--http", "0.0.0.0:7078"), "http.listen = 0.0.0.0:7078 (flag --http) is beyond the loopback without TLS"),
    ("[outbox]\nbackoff = 10\n", ("--outbox-backoff-cap", "2"),
     "outbox.backoff_cap = 2 (flag --outbox-backoff-cap) is below outbox.backoff = 10 (file {config})"),
    ('map_size = "4M"\n[limits]\nmax_message_bytes = "3M"\n', (),
     "limits.max_message_bytes = 3M (file {config}) is more than half of map_size = 4M (file {config})"),
])
def test_keys_that_contradict_each_other_stop_the_daemon_naming_both(tmp_path, text, args,
                                                                     wanted) -> None:
    pem = tmp_path / "server.pem"
    pem.write_text("readable")
    config = tmp_path / "fabricd.toml"
    fill = {"pem": str(pem), "config": str(config)}
    result = serve(tmp_path, text.format(**fill), "--listen", f"unix:{tmp_path}/fd.sock",
                   *(a.format(**fill) for a in args))
    assert result.returncode == 2 and wanted.format(**fill) in result.stderr, result.stderr


def test_the_daemon_s_own_tls_variables_configure_it(tmp_path) -> None:
    pem = tmp_path / "server.pem"
    pem.write_text("readable")
    result = fabricd("config", "--listen", "127.0.0.1:0",
                     env={"FABRICD_SERVER_TLS_CERT": str(pem), "FABRICD_SERVER_TLS_KEY": str(pem)})
    assert result.returncode == 0, result.stderr
    assert f'cert = "{pem}"  # env FABRICD_SERVER_TLS_CERT' in result.stdout
