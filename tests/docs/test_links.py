"""Links between the documentation pages lead somewhere: every relative link names a file of the checkout, and
every `#anchor` names a heading of the page it points into (GitHub's anchors: lower case, punctuation dropped,
spaces as hyphens, a repeated heading numbered -1, -2, ...). Links to other sites are not fetched.
"""

from __future__ import annotations

import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "examples" / "README.md"]
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$")


def prose(text: str) -> list[str]:
    """The page's lines outside fenced code blocks."""
    out, fenced = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced:
            out.append(line)
    return out


def slug(heading: str) -> str:
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link in a heading anchors on its text
    text = re.sub(r"[^\w\- ]", "", text.replace("`", "").lower())
    return text.replace(" ", "-")


def anchors(page: pathlib.Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for line in prose(page.read_text()):
        match = HEADING.match(line)
        if match:
            base = slug(match.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            out.add(base if count == 0 else f"{base}-{count}")
    return out


def links() -> list[tuple[str, str]]:
    found = []
    for page in PAGES:
        for line in prose(page.read_text()):
            for target in LINK.findall(line):
                if not re.match(r"[a-z]+:", target):  # http:, https:, mailto: are other sites
                    found.append((page.relative_to(ROOT).as_posix(), target))
    return found


def test_readme_maps_every_page_of_docs() -> None:
    linked = {target.partition("#")[0] for page, target in links() if page == "README.md"}
    unmapped = [p.relative_to(ROOT).as_posix() for p in PAGES if p.parent.name == "docs"
                and p.relative_to(ROOT).as_posix() not in linked]
    assert not unmapped, f"README.md's map of docs/ lacks {unmapped}"


@pytest.mark.parametrize(("page", "target"), links(), ids=lambda value: value)
def test_relative_link_resolves(page: str, target: str) -> None:
    path, _, anchor = target.partition("#")
    source = ROOT / page
    resolved = (source.parent / path).resolve() if path else source
    assert resolved.exists(), f"{page} links to {target}: no such file"
    assert resolved.is_relative_to(ROOT), f"{page} links to {target}, outside the checkout"
    if anchor:
        assert resolved.suffix == ".md", f"{page} links to {target}: an anchor into a file that is not a page"
        assert anchor in anchors(resolved), f"{page} links to {target}: {resolved.name} has no heading #{anchor}"
