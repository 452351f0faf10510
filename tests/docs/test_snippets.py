"""What a user copies from the documentation holds no path of one person's machine."""

from __future__ import annotations

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_no_code_block_names_a_home_folder() -> None:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("**/*.md"))]
    found = []
    for page in pages:
        for block in re.findall(r"```[a-z]*\n(.*?)```", page.read_text(), flags=re.S):
            found += [f"{page.name}: {line.strip()}" for line in block.splitlines() if re.search(r"/home/\w+", line)]
    assert not found, found
