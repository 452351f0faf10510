"""The search query language of SearchMessages, and the reference matcher the in-memory backend uses.

    words        every word must match (case-insensitive, whole words)
    "a phrase"   the words in this order, side by side
    -word        posts holding it are left out
    pre*         any word starting with `pre`

`parse` turns a query into terms; each backend translates them for its index (SQLite FTS5 on LMDB,
websearch_to_tsquery on PostgreSQL); `matches` and `snippet` are the plain reading of the same terms,
for the in-memory backend and tests. Snippets mark each match between "[" and "]".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from fabricd.core.errors import InvalidArgument

_TOKEN = re.compile(r'(-?)"([^"]*)"|(-?)(\S+)')
_WORD = re.compile(r"\w+", re.UNICODE)
OPEN, CLOSE = "[", "]"
SNIPPET_WORDS = 24


@dataclass(frozen=True, slots=True)
class Term:
    words: tuple[str, ...]
    """One word, or a phrase's words (lower case)."""
    prefix: bool = False
    exclude: bool = False


def empty_query() -> InvalidArgument:
    return InvalidArgument('query holds no word to look for: give words, "a phrase" or a prefix*',
                           reason="EMPTY_QUERY", field="query")


def parse(query: str) -> list[Term]:
    """The terms of a query; EMPTY_QUERY when it has no word to include."""
    terms = []
    for m in _TOKEN.finditer(query):
        if m.group(2) is not None:
            words = tuple(w.lower() for w in _WORD.findall(m.group(2)))
            if words:
                terms.append(Term(words, exclude=bool(m.group(1))))
            continue
        raw = m.group(4)
        prefix = raw.endswith("*")
        words = tuple(w.lower() for w in _WORD.findall(raw))
        for i, w in enumerate(words):
            terms.append(Term((w,), prefix=prefix and i == len(words) - 1, exclude=bool(m.group(3))))
    if not any(not t.exclude for t in terms):
        raise empty_query()
    return terms


def _hits(term: Term, words: list[str]) -> list[int]:
    n = len(term.words)
    out: list[int] = []
    for i in range(len(words) - n + 1):
        ok = all(words[i + j] == w for j, w in enumerate(term.words[:-1]))
        last = words[i + n - 1]
        ok = ok and (last.startswith(term.words[-1]) if term.prefix else last == term.words[-1])
        if ok:
            out.extend(range(i, i + n))
    return out


def matches(terms: list[Term], text: str) -> bool:
    words = [w.lower() for w in _WORD.findall(text)]
    for t in terms:
        if bool(_hits(t, words)) == t.exclude:
            return False
    return True


def snippet(terms: list[Term], text: str) -> str:
    """The text around the first match, each matching word between [ and ]."""
    found = list(_WORD.finditer(text))
    words = [m.group().lower() for m in found]
    marked: set[int] = set()
    for t in terms:
        if not t.exclude:
            marked.update(_hits(t, words))
    if not found:
        return text[:200]
    first = min(marked) if marked else 0
    start = max(0, first - SNIPPET_WORDS // 3)
    end = min(len(found), start + SNIPPET_WORDS)
    out = []
    pos = found[start].start()
    for i in range(start, end):
        m = found[i]
        out.append(text[pos:m.start()])
        out.append(f"{OPEN}{m.group()}{CLOSE}" if i in marked else m.group())
        pos = m.end()
    prefix = "…" if start else ""
    suffix = "…" if end < len(found) else ""
    return prefix + "".join(out).strip() + suffix
