"""Session names under agent tokens: a live agent's name cannot be taken; an offline holder's passes on."""

from __future__ import annotations

import pytest

from fabricd.core.errors import InvalidArgument, PermissionDenied
from fabricd.core.limits import Limits
from fabricd.core.model import Presence
from fabricd.core.tokens import mint
from tests.core.conftest import Fabric


async def test_an_exclusive_claim_on_a_name_a_live_agent_holds_is_name_held_and_writes_nothing(fabric: Fabric) -> None:
    await fabric.directory.register("bob", session_name="reviewer")
    before = await fabric.directory.list()
    with pytest.raises(PermissionDenied) as err:
        await fabric.directory.register("mallory", session_name="reviewer", exclusive=True)
    assert err.value.reason == "NAME_HELD" and err.value.metadata["held_by"] == "bob"
    assert await fabric.directory.list() == before  # mallory got no entry either
    assert (await fabric.directory.resolve("reviewer")).agent_id == "bob"


async def test_an_exclusive_claim_takes_a_name_only_offline_agents_hold_so_it_stays_unambiguous(fabric: Fabric) -> None:
    await fabric.directory.register("bob", session_name="reviewer")
    await fabric.directory.touch("bob", busy=False, offline=True)
    claimed = await fabric.directory.register("alice", session_name="reviewer", exclusive=True)
    assert claimed.name_shared_with == []
    assert (await fabric.directory.resolve("reviewer")).agent_id == "alice"
    bob = await fabric.directory.resolve("bob")
    assert bob.session_name == "" and fabric.directory.presence_of(bob) == Presence.OFFLINE


async def test_trusted_callers_may_still_share_a_name_and_are_told(fabric: Fabric) -> None:
    await fabric.directory.register("a-1", session_name="builder")
    assert (await fabric.directory.register("a-2", session_name="builder")).name_shared_with == ["a-1"]


def test_names_bind_to_agent_tokens_only_and_are_checked() -> None:
    _, token, _ = mint("agent", "alice", "", Limits(), 1, ("reviewer", "reviewer", "writer"))
    assert token.session_names == ("reviewer", "writer")
    for scope, agent, names in (("admin", "", ("x",)), ("agent", "alice", ("a/b",)), ("agent", "alice", ("",))):
        with pytest.raises(Exception) as err:
            mint(scope, agent, "", Limits(), 1, names)
        assert getattr(err.value, "reason", "") in ("INVALID_FIELD", "INVALID_CHARACTERS", "MISSING_FIELD")


async def test_an_agent_named_before_the_name_rules_can_still_be_removed(fabric: Fabric) -> None:
    # 'bob' with a Hangul filler (shows as nothing) and a decomposed 'josé': refused as new names since, but an
    # agent stored under one before must not be stuck: Unregister takes its id as it is.
    for old in ("bob\u3164", "jose\u0301"):
        await fabric.store.directory.register(old, "", (), "", {}, False, 10**9)
        with pytest.raises(InvalidArgument) as err:
            await fabric.directory.register(old)
        assert err.value.reason == "INVALID_CHARACTERS"
        assert await fabric.directory.unregister(old, purge=False) == (0, 0)
    assert (await fabric.directory.list()).items == []
