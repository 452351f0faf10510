"""The resource language of leases: normalised paths and patterns, what a pattern covers, when two overlap.

A resource is a slash-separated path or pattern, relative (no leading `/`), normalised by `normalise`:
empty and `.` segments dropped, `..` refused. Within one segment `*` matches any run of characters and `?`
one character (neither crosses a `/`); every other character is itself (`[` too). A segment that is exactly
`**` matches any number of segments, none included.

A pattern covers what it matches AND everything under it: a lease on `src` (or `src/*`) reserves the files
below as a lock on a directory would, so `dir`, `dir/**` and `dir/` reserve the same paths.

Invariant (pinned by a property test): if some path is covered by two patterns, `overlap` says True. It may
say True when no such path exists only where the language makes that judgement undecidable here; with `*`,
`?` and `**` alone it is exact, by a search over the two patterns' positions (memoised, bounded by the
product of their lengths).
"""

from __future__ import annotations

import functools

from fabricd.core.errors import InvalidArgument

MAX_RESOURCE_CHARS = 1024
MAX_SEGMENTS = 64
ANY = "**"
_WILD = frozenset("*?")


def invalid(resource: str, problem: str, field: str = "resources") -> InvalidArgument:
    return InvalidArgument(
        f"{field} {resource!r} is not a lease path or pattern: {problem}; write a path relative to the "
        "repository or fabric root, such as 'src/api/app.py', 'src/api/**' or 'src/*.py'",
        reason="LEASE_PATTERN_INVALID", field=field, resource=resource, problem=problem)


def normalise(resource: str, field: str = "resources", literal: bool = False) -> str:
    """The canonical form of a path or pattern; raises InvalidArgument (LEASE_PATTERN_INVALID). A `literal`
    path's `*` are characters: `**` may stand anywhere in a segment, and a last `**` segment is kept."""
    if not resource.strip():
        raise invalid(resource, "it is empty", field)
    if len(resource) > MAX_RESOURCE_CHARS:
        raise invalid(resource, f"it is longer than {MAX_RESOURCE_CHARS} characters", field)
    if any(ord(c) < 32 or ord(c) == 127 for c in resource):
        raise invalid(resource, "it holds a control character", field)
    if resource.startswith("/"):
        raise invalid(resource, "it is absolute", field)
    segments = [s for s in resource.split("/") if s not in ("", ".")]
    if not segments:
        raise invalid(resource, "it names no path", field)
    if ".." in segments:
        raise invalid(resource, "it has a '..' segment", field)
    if not literal and any("**" in s and s != ANY for s in segments):
        raise invalid(resource, "'**' must be a whole segment", field)
    if len(segments) > MAX_SEGMENTS:
        raise invalid(resource, f"it has more than {MAX_SEGMENTS} segments", field)
    while not literal and len(segments) > 1 and segments[-1] == ANY and segments[-2] == ANY:
        segments.pop()
    return "/".join(segments)


def is_pattern(resource: str) -> bool:
    return any(c in _WILD for c in resource)


def _covering(pattern: str) -> tuple[str, ...]:
    """The segments of what `pattern` covers: itself and everything under it (a trailing `**`)."""
    segments = tuple(pattern.split("/"))
    return segments if segments[-1] == ANY else (*segments, ANY)


@functools.lru_cache(maxsize=65536)
def _segments_meet(a: str, b: str) -> bool:
    """Whether one segment text matches both globs `a` and `b`."""

    @functools.cache
    def meet(i: int, j: int) -> bool:
        if i < len(a) and a[i] == "*":
            return meet(i + 1, j) or (j < len(b) and meet(i, j + 1))
        if j < len(b) and b[j] == "*":
            return meet(i, j + 1) or (i < len(a) and meet(i + 1, j))
        if i == len(a) or j == len(b):
            return i == len(a) and j == len(b)
        return (a[i] == b[j] or a[i] == "?" or b[j] == "?") and meet(i + 1, j + 1)

    return meet(0, 0)


@functools.lru_cache(maxsize=65536)
def _paths_meet(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Whether one path matches both segment patterns (`**`: any number of segments)."""

    @functools.cache
    def meet(i: int, j: int) -> bool:
        if i < len(a) and a[i] == ANY:
            return meet(i + 1, j) or (j < len(b) and meet(i, j + 1))
        if j < len(b) and b[j] == ANY:
            return meet(i, j + 1) or (i < len(a) and meet(i + 1, j))
        if i == len(a) or j == len(b):
            return i == len(a) and j == len(b)
        return _segments_meet(a[i], b[j]) and meet(i + 1, j + 1)

    return meet(0, 0)


def overlap(a: str, b: str) -> bool:
    """Whether some path is covered by both normalised patterns (see the module docstring)."""
    if a == b:
        return True
    first_a, _, _ = a.partition("/")
    first_b, _, _ = b.partition("/")
    if first_a != first_b and not (is_pattern(first_a) or is_pattern(first_b)):
        return False  # the usual case among many leases: different top-level literals, decided at once
    return _paths_meet(_covering(a), _covering(b))


ANYWHERE = "*"
"""The anchor of a pattern whose first segment is itself a pattern: it may overlap anything."""


def anchor(resource: str) -> str:
    """Where a normalised resource is indexed: its first segment when that is literal, else ANYWHERE. Two
    resources with different literal anchors never overlap (see `overlap`), so a search for what may overlap
    `r` reads only the leases anchored at anchor(r) and at ANYWHERE (or all, when r's own is ANYWHERE)."""
    first = resource.partition("/")[0]
    return ANYWHERE if is_pattern(first) else first


def literal_anchor(path: str) -> str:
    """Where the leases that may cover the literal `path` are indexed besides ANYWHERE: its first segment (a
    lease anchored at a literal segment covers only paths that begin with that very text)."""
    return path.partition("/")[0]


def meets(held: str, asked: str, literal: bool) -> bool:
    """Whether the lease resource `held` is in the way of work on `asked`: a pattern `asked` (its `*` and `?`
    wild) overlaps it, a `literal` path (its characters all themselves) is covered by it."""
    return covers(held, asked) if literal else overlap(held, asked)


def covers(pattern: str, path: str) -> bool:
    """Whether the normalised `pattern` covers the normalised `path` (a literal path or a pattern's
    reading of one: the path's own `*` are taken as characters)."""
    literal = tuple(s.replace("*", "\0").replace("?", "\1") for s in path.split("/"))
    return _paths_meet(_covering(pattern), literal)
