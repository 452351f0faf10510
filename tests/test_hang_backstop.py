"""The backstop in tests/conftest.py ends a test that outlives its timeout when pytest-timeout's own alarm is lost."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

from tests.conftest import ROOT

HUNG = textwrap.dedent('''
    import signal
    import subprocess
    import sys
    import time

    import pytest


    @pytest.mark.timeout(1)
    def test_hangs() -> None:
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])  # as a daemon would be
        with open("CHILD", "w") as f:
            f.write(str(child.pid))
        signal.signal(signal.SIGALRM, signal.SIG_IGN)  # pytest-timeout's alarm is lost, as in an asyncio task
        time.sleep(300)


    def test_after() -> None:
        pass
''')


def test_a_test_that_swallows_its_timeout_ends_its_worker_and_its_children(tmp_path) -> None:
    os.makedirs(tmp_path / "tests")
    (tmp_path / "tests" / "test_hung.py").write_text(HUNG)
    env = dict(os.environ, FABRICD_TEST_HANG_GRACE_S="1", PYTHONPATH=ROOT)
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "1", "-p", "no:cacheprovider",
                             "--confcutdir", ROOT, "-p", "tests.conftest", "--rootdir", str(tmp_path),
                             str(tmp_path / "tests" / "test_hung.py")],
                            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=90)
    out = result.stdout + result.stderr
    assert result.returncode == 1, out
    assert "crashed while running 'tests/test_hung.py::test_hangs'" in out, out
    assert "1 passed" in out and "1 failed" in out, out  # the next test ran on a new worker
    child = int((tmp_path / "CHILD").read_text())
    assert not os.path.exists(f"/proc/{child}") or " Z " in open(f"/proc/{child}/stat").read(), "child lives"
