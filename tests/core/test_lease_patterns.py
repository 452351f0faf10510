"""The lease resource language: normalised forms, what a pattern covers, and the overlap judgement.

The property: whenever some path is covered by two patterns (checked by an independent matcher built on
fnmatch), `overlap` says they overlap. And where it says so for small patterns, a path covered by both is
found (the judgement is exact for `*`, `?` and `**`).
"""

from __future__ import annotations

import fnmatch
import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fabricd.core.errors import InvalidArgument
from fabricd.core.lease_patterns import covers, normalise, overlap


def reference_covers(pattern: str, path: str) -> bool:
    """A path is covered when the pattern matches it or one of its ancestors (fnmatch per segment)."""
    pat, segs = pattern.split("/"), path.split("/")

    def match(i: int, j: int) -> bool:
        if i == len(pat):
            return True  # the pattern matched an ancestor (or the path itself): everything under it is covered
        if pat[i] == "**":
            return match(i + 1, j) or (j < len(segs) and match(i, j + 1))
        return j < len(segs) and fnmatch.fnmatchcase(segs[j], pat[i]) and match(i + 1, j + 1)

    return match(0, 0)


@pytest.mark.parametrize(("raw", "normal"), [
    ("src/api/", "src/api"), ("./src//api/./x.py", "src/api/x.py"), ("src/**/**", "src/**"), ("a", "a")])
def test_paths_are_normalised(raw: str, normal: str) -> None:
    assert normalise(raw) == normal


@pytest.mark.parametrize(("raw", "problem"), [
    ("", "empty"), ("/etc/passwd", "absolute"), ("src/../etc", "'..'"), ("src/a**", "'**'"), ("a\nb", "control"),
    ("./", "no path")])
def test_bad_patterns_are_refused_with_the_problem(raw: str, problem: str) -> None:
    with pytest.raises(InvalidArgument) as refused:
        normalise(raw)
    assert refused.value.reason == "LEASE_PATTERN_INVALID" and problem in refused.value.metadata["problem"]


@pytest.mark.parametrize(("a", "b", "expected"), [
    ("src/api/**", "src/api/app.py", True),
    ("src/api/**", "src/web/app.py", False),
    ("src/*.py", "src/app.py", True),
    ("src/*.py", "src/app.js", False),
    ("src/*.py", "src/sub/app.py", False),  # `*` stays within its segment
    ("src/*.py", "src/x.py/inner", True),  # what a pattern covers includes what is under it
    ("src", "src/deep/file", True),  # a directory leased bare covers its contents
    ("docs/**", "src/**", False),
    ("*/api", "src/*", True),
    ("a?c", "abc", True),
    ("a?c", "ac", False),
    ("**", "anything/at/all", True),
])
def test_overlap_examples(a: str, b: str, expected: bool) -> None:
    assert overlap(a, b) is expected and overlap(b, a) is expected


def test_covers_reads_the_path_literally() -> None:
    assert covers("src/**", "src/a.py") and covers("src/*.py", "src/a.py")
    assert not covers("src/a.py", "src/*")  # a path's own `*` is a character, not a pattern
    assert covers("src/a.py", "src/a.py/inner")


SEGMENT = st.text(alphabet="ab*?", min_size=1, max_size=3).filter(lambda s: "**" not in s) | st.just("**")
PATTERN = st.lists(SEGMENT, min_size=1, max_size=4).map("/".join).map(normalise)
PATH = st.lists(st.text(alphabet="ab", min_size=1, max_size=3), min_size=1, max_size=5).map("/".join)


@settings(max_examples=2000, deadline=None)
@given(PATTERN, PATTERN, PATH)
def test_two_patterns_covering_one_path_overlap(a: str, b: str, path: str) -> None:
    if reference_covers(a, path) and reference_covers(b, path):
        assert overlap(a, b), (a, b, path)
    assert covers(a, path) == reference_covers(a, path)


def _witness_from(path: str) -> st.SearchStrategy[str]:
    """A pattern built from `path` by replacing characters with wildcards, segments with `**`, or cutting it."""
    segs = path.split("/")

    @st.composite
    def build(draw: st.DrawFn) -> str:
        out = []
        for seg in segs[:draw(st.integers(1, len(segs)))]:
            choice = draw(st.sampled_from(["keep", "star", "q", "any"]))
            if choice == "star":
                i = draw(st.integers(0, len(seg)))
                out.append(seg[:i] + "*")
            elif choice == "q":
                out.append("?" + seg[1:])
            elif choice == "any":
                out.append("**")
            else:
                out.append(seg)
        return normalise("/".join(out))

    return build()


@settings(max_examples=1000, deadline=None)
@given(PATH.flatmap(lambda p: st.tuples(st.just(p), _witness_from(p), _witness_from(p))))
def test_patterns_derived_from_one_path_overlap(case: tuple[str, str, str]) -> None:
    path, a, b = case
    assert reference_covers(a, path) and reference_covers(b, path)
    assert overlap(a, b)


def _small_paths() -> list[str]:
    segs = ["".join(p) for n in (1, 2, 3) for p in itertools.product("ab", repeat=n)]
    return ["/".join(p) for n in (1, 2, 3) for p in itertools.product(segs, repeat=n)]


SMALL = _small_paths()


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet="ab*?", min_size=1, max_size=2), min_size=1, max_size=2).map("/".join),
       st.lists(st.text(alphabet="ab*?", min_size=1, max_size=2), min_size=1, max_size=2).map("/".join))
def test_overlap_is_exact_for_small_patterns(a: str, b: str) -> None:
    assert overlap(a, b) == any(reference_covers(a, p) and reference_covers(b, p) for p in SMALL)
