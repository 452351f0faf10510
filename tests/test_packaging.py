"""What each install brings: the client alone has no LMDB or Prometheus; the daemon extra has them."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import textwrap

ROOT = pathlib.Path(__file__).resolve().parent.parent
DAEMON_ONLY = {"lmdb", "prometheus-client", "grpcio-health-checking", "grpcio-reflection", "confusable-homoglyphs",
               "uvloop"}
CLIENT = {"grpcio", "grpcio-status", "protobuf", "click", "rich"}


def resolved(requirement: str, tmp_path: pathlib.Path) -> set[str]:
    """Every distribution pip would install into an empty environment for `requirement` (nothing installed)."""
    report = tmp_path / "report.json"
    result = subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
                             "--disable-pip-version-check", "--report", str(report), requirement],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return {item["metadata"]["name"].lower().replace("_", "-") for item in json.loads(report.read_text())["install"]}


def test_installing_the_client_alone_brings_no_lmdb_prometheus_health_or_reflection(tmp_path) -> None:
    names = resolved(str(ROOT), tmp_path)
    assert names >= CLIENT
    assert not names & DAEMON_ONLY, f"a client-only install would pull in {sorted(names & DAEMON_ONLY)}"


def test_the_daemon_extra_brings_what_the_daemon_imports(tmp_path) -> None:
    assert resolved(f"{ROOT}[daemon]", tmp_path) >= CLIENT | DAEMON_ONLY


# Runs a snippet in a fresh interpreter where the daemon's libraries cannot be imported, as in a client-only install.
WITHOUT_DAEMON_LIBRARIES = textwrap.dedent("""
    import importlib.abc, sys
    BLOCKED = {"lmdb", "prometheus_client", "grpc_health", "grpc_reflection", "confusable_homoglyphs", "uvloop"}

    class Missing(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, Missing())
""")


def run_without_daemon_libraries(code: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", WITHOUT_DAEMON_LIBRARIES + textwrap.dedent(code)],
                          capture_output=True, text=True, timeout=60, cwd=ROOT, env=env)


def test_the_cli_talks_to_a_daemon_without_the_daemon_libraries(daemon) -> None:
    env = dict(os.environ, FABRICD_TARGET=daemon.target)
    result = run_without_daemon_libraries("""
        import sys
        from fabricd.cli.main import main
        sys.argv = ["fabric", "register", "alice", "--name", "reviewer"]
        try:
            main()
        except SystemExit as exit:
            assert not exit.code, exit.code
        sys.argv = ["fabric", "--json", "ls"]
        main()
    """, env)
    assert result.returncode == 0, result.stderr
    assert '"reviewer"' in result.stdout


def test_fabricd_without_the_daemon_extra_says_in_one_line_what_to_install() -> None:
    result = run_without_daemon_libraries("""
        from fabricd.daemon.entry import main
        raise SystemExit(main(["serve"]))
    """)
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1, result.stderr
    assert "pip install 'fabricd[daemon]'" in result.stderr and "lmdb" in result.stderr


def test_fabricd_with_the_daemon_extra_runs_the_daemon_command(capsys) -> None:
    from fabricd import __version__
    from fabricd.daemon.entry import main

    assert main(["version"]) == 0
    assert capsys.readouterr().out.strip() == __version__
