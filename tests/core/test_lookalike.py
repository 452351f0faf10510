"""The look-alike rule (fabricd.core.lookalike): UTS #39 skeletons from Unicode's confusables data."""

from __future__ import annotations

import pytest

from fabricd.core import lookalike
from fabricd.core.lookalike import keys, look_alike, skeleton


@pytest.mark.parametrize(("name", "twin"), [
    ("alice", "\u0430lice"),  # Cyrillic а
    ("alice", "\uff41lice"),  # fullwidth a
    ("alice", "a\u05d5ice"),  # Hebrew vav (a right-to-left letter) for l
    ("alice", "aIice"),
    ("alice", "ALICE"),
    ("alice", " alice "),
    ("modem", "rnodern"),  # rn for m
    ("jos\u00e9", "jose\u0301"),  # precomposed and decomposed é
    ("reviewer", "rev\u0456ewer"),  # Cyrillic і
])
def test_look_alikes_share_a_key(name: str, twin: str) -> None:
    assert not keys(name).isdisjoint(keys(twin))
    assert look_alike(twin, [(name, "holder", "the agent id")]) == (name, "holder", "the agent id")


@pytest.mark.parametrize(("name", "other"), [("alice", "alicia"), ("alice", "al"), ("agent-1", "agent-2"),
                                             ("agent-10", "agent-11"), ("bob", "rob")])
def test_names_that_differ_to_the_eye_do_not(name: str, other: str) -> None:
    assert keys(name).isdisjoint(keys(other))


def test_a_skeleton_is_its_own_skeleton_for_every_character_of_the_data() -> None:
    table = lookalike.prototypes()
    assert len(table) > 6000
    assert [c for c in table if skeleton(skeleton(c)) != skeleton(c)] == []
    assert "\u200e" not in "".join(table) + "".join(table.values())  # the package's left-to-right marks are gone


def test_the_name_itself_and_its_holders_own_names_are_no_look_alikes() -> None:
    known = [("alice", "alice", "the agent id"), ("Alice", "alice", "the session name")]
    assert look_alike("alice", known[:1]) is None  # the very same string
    assert look_alike("alice", known, own="alice") is None  # alice's own session name
    assert look_alike("ALICE", known, own="alice") is None  # alice's own names
    assert look_alike("ALICE", known, own="bob") == ("alice", "alice", "the agent id")


def test_the_refusal_shows_the_difference_in_ascii() -> None:
    err = lookalike.looks_taken("agent id", "\u0430lice", "alice", "alice", "the agent id")
    assert err.reason == "NAME_COLLISION" and "'\\u0430lice'" in str(err) and err.metadata["looks_like"] == "alice"
