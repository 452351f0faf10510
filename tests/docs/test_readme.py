"""README.md and docs/*.md run as written: every code block a user would copy is run, in order, against a throwaway daemon.

A block is run unless the line before its opening fence is `<!-- fragment -->`
(optionally `<!-- fragment: why -->`): code to adapt rather than to paste, or a
command that starts a service. `sh` blocks run in bash with `set -e`, `python`
blocks with the checkout's Python, `js` blocks with node from the checkout
root, `json` and `toml` blocks must parse. Any other language must be marked.

The blocks run with HOME set to a fresh folder where a daemon was started with
its defaults, so the documented default paths (the socket under
~/.local/state/fabricd) are the ones tested, and no FABRICD_TARGET is set.
README.md's blocks run first, then each page of docs/ in name order, each
from the checkout root.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from tests.conftest import Daemon

ROOT = pathlib.Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
RUNNERS = {"sh", "bash", "python", "js", "json", "toml"}
FENCE = re.compile(r"^```(\w*)\s*$")


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    language: str
    code: str
    fragment: bool

    def __str__(self) -> str:
        return f"{self.page}:{self.line} ({self.language})"


def blocks(page: pathlib.Path) -> list[Block]:
    out: list[Block] = []
    name = page.relative_to(ROOT).as_posix()
    lines = page.read_text().splitlines()
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if match is None:
            i += 1
            continue
        start, language = i, match.group(1)
        j = i + 1
        while not lines[j].startswith("```"):
            j += 1
        fragment = start > 0 and lines[start - 1].strip().startswith("<!-- fragment")
        out.append(Block(name, start + 1, language, "\n".join(lines[start + 1 : j]) + "\n", fragment))
        i = j + 1
    return out


def test_every_block_is_runnable_or_marked_a_fragment() -> None:
    unmarked = [str(b) for page in PAGES for b in blocks(page) if not b.fragment and b.language not in RUNNERS]
    assert not unmarked, f"mark these `<!-- fragment -->` or make them runnable: {unmarked}"


@pytest.fixture(scope="module")
def home() -> Iterator[pathlib.Path]:
    """A fresh HOME with a daemon serving on its defaults (the socket under ~/.local/state/fabricd)."""
    folder = pathlib.Path(tempfile.mkdtemp(prefix="fd-home-", dir="/tmp"))
    env = {"HOME": str(folder), "XDG_STATE_HOME": "", "XDG_RUNTIME_DIR": "", "FABRICD_TARGET": ""}
    daemon = Daemon("", "", env=env)
    daemon.command = lambda: [sys.executable, "-m", "fabricd.daemon.main", "serve"]  # type: ignore[method-assign]
    daemon.start()
    try:
        yield folder
    finally:
        daemon.stop()
        shutil.rmtree(folder, ignore_errors=True)


def runnable() -> list[Block]:
    return [b for page in PAGES for b in blocks(page) if not b.fragment and b.language in RUNNERS]


@pytest.mark.parametrize("block", runnable(), ids=str)
def test_documented_block_runs_as_written(block: Block, home: pathlib.Path) -> None:
    if block.language == "json":
        json.loads(block.code)
        return
    if block.language == "toml":
        tomllib.loads(block.code)
        return
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FABRICD_", "XDG_"))}
    env.update(HOME=str(home), PATH=f"{ROOT / '.venv' / 'bin'}{os.pathsep}{env.get('PATH', '')}")
    if block.language in ("sh", "bash"):
        command = ["bash", "-euo", "pipefail", "-c", block.code]
    elif block.language == "python":
        command = [sys.executable, "-c", block.code]
    else:  # js: an ES module in the checkout root, so its relative imports resolve as the page says
        script = ROOT / f".docs-block-{pathlib.Path(block.page).stem}-{block.line}.mjs"
        script.write_text(block.code)
        command = ["node", str(script)]
    try:
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
                              stdin=subprocess.DEVNULL)
    finally:
        if block.language == "js":
            script.unlink()
    assert done.returncode == 0, f"{block} failed ({done.returncode}):\n{block.code}\n{done.stdout}\n{done.stderr}"
    assert done.stdout.strip(), f"{block} printed nothing: every runnable block shows its outcome"
    for expected in re.findall(r"prints: (.+)$", block.code, flags=re.M):  # "# ... prints: X" is checked
        assert expected.strip() in done.stdout, f"{block} did not print {expected!r}:\n{done.stdout}"
