"""Names that look like another agent's: homoglyphs, case, spaces, decomposed accents, invisible characters.

Two names a person cannot tell apart in `fabric ls` or in a message's "from" line are two addresses for what
reads as one agent: an agent registered as 'аlice' (Cyrillic а) would get mail meant for alice and sign its own
mail as her. Register, Touch and token issue refuse an agent id or session name whose confusable skeleton
(Unicode UTS #39, and its casefolded form's) is another agent's id or session name while the strings differ:
ALREADY_EXISTS NAME_COLLISION, naming the look-alike with its non-ASCII characters escaped, nothing written.
Names not in Unicode NFC are INVALID_CHARACTERS; control, zero-width and bidi characters were refused before.
"""

from __future__ import annotations

import pytest

from fabricd.client import AlreadyExists, AmbiguousNameWarning, InvalidArgument

BACKENDS = ("lmdb", "postgres")
ALICE = "alice"
LOOK_ALIKES = {  # each reads as 'alice' (or nearly: case, a space) where a person looks
    "cyrillic a": "\u0430lice",
    "fullwidth a": "\uff41lice",
    "mixed scripts": "\u0430lic\u0435",  # Cyrillic а and е around Latin letters
    "capital I for l": "aIice",
    "digit 1 for l": "a1ice",
    "case": "Alice",
    "upper case": "ALICE",
    "trailing space": "alice ",
    "leading space": " alice",
    "greek alpha": "\u03b1lice",
    "hebrew vav for l": "a\u05d5ice",  # a right-to-left letter inside a left-to-right name
    "mathematical a": "\U0001d41alice",
}


async def _directory(client) -> tuple:
    """All a refused call could have written: every mailbox entry (with its revision) and every token."""
    return (list(await client.list_mailboxes()), [t.token_id for t in await client.list_tokens()],
            (await client.get_status()).mailboxes)


async def _refused(call, name: str) -> AlreadyExists:
    with pytest.raises(AlreadyExists) as err:
        await call()
    assert err.value.reason == "NAME_COLLISION", name
    return err.value


@pytest.mark.parametrize("name", LOOK_ALIKES.values(), ids=LOOK_ALIKES.keys())
async def test_an_agent_id_that_looks_like_a_registered_agents_is_refused_at_register_touch_and_issue(
        client, name) -> None:
    await client.register(ALICE)
    before = await _directory(client)
    for call in (lambda: client.register(name), lambda: client.touch(name),
                 lambda: client.issue_token(agent_id=name)):
        err = await _refused(call, name)
        assert err.metadata["held_by"] == ALICE and err.metadata["looks_like"] == ALICE
        assert ascii(name) in str(err), str(err)  # escaped: a reader sees the difference
    assert await _directory(client) == before  # nothing written
    assert [e.agent_id for e in before[0]] == [ALICE] and before[1] == []


async def test_a_look_alike_of_a_session_name_is_refused_as_an_id_and_as_a_name(client) -> None:
    await client.register("carol", session_name="reviewer")
    before = await _directory(client)
    twin = "rev\u0456ewer"  # Cyrillic і
    await _refused(lambda: client.register(twin), twin)
    await _refused(lambda: client.register("dave", session_name=twin), twin)
    await _refused(lambda: client.register("dave", session_name="Reviewer"), "Reviewer")
    await _refused(lambda: client.issue_token(agent_id="dave", session_names=[twin]), twin)
    err = await _refused(lambda: client.register("carol-2", session_name="c\u0430rol"), "carol")
    assert err.metadata["held_by"] == "carol"
    assert await _directory(client) == before


async def test_a_live_tokens_agent_id_keeps_its_look_alikes_out(client) -> None:
    issued = await client.issue_token(agent_id=ALICE)  # alice has not registered yet
    await _refused(lambda: client.register("\u0430lice"), "\u0430lice")
    await _refused(lambda: client.issue_token(agent_id="Alice"), "Alice")
    await _refused(lambda: client.register("bob", session_name="ALICE"), "ALICE")
    assert await client.revoke_token(issued.info.token_id)
    await client.register("\u0430lice")  # no alice any more: the name is free


async def test_the_agent_itself_and_names_that_only_look_different_pass(client) -> None:
    await client.register(ALICE, session_name="Alice")  # its own id's look-alike is its own name
    await client.register(ALICE, session_name="Alice")  # registering again changes nothing
    await client.touch(ALICE)
    await client.issue_token(agent_id=ALICE)
    await client.register("alicia")
    await client.register("al")
    await client.register("carol", session_name="team")
    with pytest.warns(AmbiguousNameWarning):  # the very same name, shared by trusted callers
        await client.register("bob", session_name="team")
    await client.register("jos\u00e9")
    assert sorted(e.agent_id for e in await client.list_mailboxes()) == [
        "al", ALICE, "alicia", "bob", "carol", "jos\u00e9"]


async def test_a_decomposed_name_is_refused_as_not_normalized(client) -> None:
    decomposed = "jose\u0301"  # 'é' as 'e' and a combining acute accent
    for call in (lambda: client.register(decomposed), lambda: client.touch(decomposed),
                 lambda: client.issue_token(agent_id=decomposed),
                 lambda: client.register("jose", session_name=decomposed),
                 lambda: client.create_channel(decomposed), lambda: client.create_agent(decomposed)):
        with pytest.raises(InvalidArgument) as err:
            await call()
        assert err.value.reason == "INVALID_CHARACTERS"
        assert "jos\\xe9" in str(err.value)  # the normalized form to send instead
    assert [e.agent_id for e in await client.list_mailboxes()] == []
    # a channel (or directory agent) under each form would be two that read the same
    assert list(await client.list_channels()) == [] and list(await client.list_agents()) == []


INVISIBLE = {  # each shows as nothing (or a blank) after 'alice'
    "zero-width space": "ali\u200bce", "zero-width joiner": "alice\u200d", "right-to-left override": "\u202ealice",
    "isolate": "alice\u2066", "soft hyphen": "ali\u00adce", "word joiner": "alice\u2060", "bom": "\ufeffalice",
    # printable to Python (letters and marks), so the control-character check let them by:
    "hangul filler": "alice\u3164", "halfwidth hangul filler": "alice\uffa0", "hangul choseong filler": "\u115falice",
    "combining grapheme joiner": "ali\u034fce", "variation selector 16": "alice\ufe0f",
    "variation selector 17": "alice\U000e0100", "mongolian free variation selector": "alice\u180b",
    "khmer inherent vowel": "alice\u17b4", "braille blank": "alice\u2800",
}


@pytest.mark.parametrize("name", list(INVISIBLE.values()), ids=list(INVISIBLE))
async def test_invisible_and_bidi_characters_are_refused(client, name) -> None:
    await client.register(ALICE)
    before = await _directory(client)
    for call in (lambda: client.register(name), lambda: client.register("bob", session_name=name),
                 lambda: client.touch(name), lambda: client.issue_token(agent_id=name),
                 lambda: client.issue_token(agent_id="bob", session_names=[name]),
                 lambda: client.create_channel(name), lambda: client.create_agent(name)):
        with pytest.raises(InvalidArgument) as err:
            await call()
        assert err.value.reason == "INVALID_CHARACTERS", err.value
    assert await _directory(client) == before
    assert list(await client.list_channels()) == [] and list(await client.list_agents()) == []


async def test_a_name_given_up_is_free_for_its_look_alikes(client) -> None:
    await client.register(ALICE, session_name="reviewer")
    await client.register(ALICE, session_name="critic")  # alice gives up 'reviewer'
    await client.register("bob", session_name="rev\u0456ewer")
    await _refused(lambda: client.register("carol", session_name="crit\u0456c"), "crit\u0456c")
    await client.unregister(ALICE)
    await client.register("\u0430lice", session_name="crit\u0456c")  # alice is gone


async def test_an_agent_heard_from_but_never_registered_keeps_its_look_alikes_out(client) -> None:
    await client.touch(ALICE)  # a heartbeat makes alice's entry: live, not registered
    await _refused(lambda: client.register("\u0430lice"), "\u0430lice")
    await _refused(lambda: client.issue_token(agent_id="Alice"), "Alice")
    await client.send("carol", "hi", create_mailbox=True)  # a mailbox only mail made is no agent
    await client.register("c\u0430rol")
