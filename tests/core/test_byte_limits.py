"""Every stored field is limited in UTF-8 bytes, not characters, and a directory entry as a whole (issue 17 #8)."""

from __future__ import annotations

import pytest

from fabricd.core.agentdir import MAX_TEXT, Submission
from fabricd.core.errors import InvalidArgument
from fabricd.core.model import Address, Capability, Message
from fabricd.core.rendezvous import MAX_REASON_BYTES
from fabricd.core.validate import MAX_CWD_BYTES
from tests.core.conftest import Fabric

WIDE = "é"
"""Two bytes in UTF-8, one character."""


def refused(exc: pytest.ExceptionInfo[InvalidArgument], field: str, limit: int) -> bool:
    return (exc.value.reason, exc.value.metadata["field"], exc.value.metadata["limit"]) == (
        "FIELD_TOO_LARGE", field, str(limit))


async def test_a_capability_counts_bytes_and_nothing_is_stored_on_refusal(fabric: Fabric) -> None:
    limit = fabric.directory.limits.max_entry_bytes
    for cap, field in ((Capability("c", description=WIDE * (limit // 2 + 1)), "capabilities[0].description"),
                       (Capability("c", payload=WIDE * (limit // 2 + 1)), "capabilities[0].payload")):
        with pytest.raises(InvalidArgument) as exc:
            await fabric.directory.register("alice", capabilities=(cap,))
        assert refused(exc, field, limit)
    assert (await fabric.directory.list()).items == []


async def test_a_whole_directory_entry_is_bounded_naming_its_largest_part(fabric: Fabric) -> None:
    limit = fabric.directory.limits.max_entry_bytes
    # Each capability is under the limit; 64 of them (the count limit) were 16 MiB of entry before.
    caps = tuple(Capability(f"c{i}", payload="x" * (limit // 4)) for i in range(fabric.directory.limits.max_capabilities))
    with pytest.raises(InvalidArgument) as exc:
        await fabric.directory.register("alice", capabilities=caps)
    assert refused(exc, "capabilities", limit) and "directory entry" in exc.value.message
    with pytest.raises(InvalidArgument) as exc:
        await fabric.directory.register("alice", capabilities=(Capability("c", payload="x" * (limit // 2)),),
                                        metadata={"k": "v" * (limit // 2)})
    assert exc.value.reason == "FIELD_TOO_LARGE"
    await fabric.directory.register("alice", capabilities=(Capability("c", payload="x" * (limit - 2048)),))


async def test_metadata_and_cwd_count_bytes(fabric: Fabric) -> None:
    limits = fabric.directory.limits
    with pytest.raises(InvalidArgument) as exc:
        await fabric.directory.register("alice", metadata={"k": WIDE * (limits.max_metadata_bytes // 2)})
    assert refused(exc, "metadata", limits.max_metadata_bytes)
    with pytest.raises(InvalidArgument) as exc:
        await fabric.directory.register("alice", cwd="/" + WIDE * (MAX_CWD_BYTES // 2))
    assert refused(exc, "cwd", MAX_CWD_BYTES)
    await fabric.directory.register("alice", cwd="/" + WIDE * (MAX_CWD_BYTES // 2 - 1))


async def test_headers_are_limited_in_count_and_key_size(fabric: Fabric) -> None:
    limits = fabric.mailboxes.limits
    await fabric.directory.register("bob")
    many = {f"h{i}": "v" for i in range(limits.max_headers + 1)}
    with pytest.raises(InvalidArgument) as exc:
        await fabric.mailboxes.send(Message(recipient=Address("bob"), text="hi", headers=many))
    assert (exc.value.reason, exc.value.metadata["limit"]) == ("TOO_MANY_ITEMS", str(limits.max_headers))
    with pytest.raises(InvalidArgument) as exc:
        await fabric.mailboxes.send(Message(recipient=Address("bob"), text="hi", headers={WIDE * 200: "v"}))
    assert exc.value.reason == "FIELD_TOO_LARGE"
    assert (await fabric.mailboxes.peek("bob", 10))[0] == []


async def test_close_queue_reason_counts_bytes(fabric: Fabric) -> None:
    await fabric.directory.register("alice")
    with pytest.raises(InvalidArgument) as exc:
        await fabric.rendezvous.close_queue("alice", WIDE * (MAX_REASON_BYTES // 2 + 1))
    assert refused(exc, "reason", MAX_REASON_BYTES)
    assert await fabric.rendezvous.close_queue("alice", WIDE * (MAX_REASON_BYTES // 2)) == 0


async def test_agent_directory_texts_count_bytes(fabric: Fabric) -> None:
    ad = fabric.agent_directory
    with pytest.raises(InvalidArgument) as exc:
        await ad.create_agent("worker", WIDE * (MAX_TEXT // 2 + 1), "", "")
    assert refused(exc, "description", MAX_TEXT)
    agent = await ad.create_agent("worker", "", "", "")
    with pytest.raises(InvalidArgument) as exc:
        await ad.create_thread(agent.agent_id, "t", "", 0, tuple("x" * 4096 for _ in range(20)))
    assert exc.value.reason == "FIELD_TOO_LARGE" and exc.value.metadata["field"] == "contexts"
    with pytest.raises(InvalidArgument) as exc:
        await ad.create_thread(agent.agent_id, "t", "", 0, tuple("c" for _ in range(65)))
    assert exc.value.reason == "TOO_MANY_ITEMS"


async def test_a_submission_whose_settlement_could_not_be_delivered_is_refused(fabric: Fabric) -> None:
    agent = await fabric.agent_directory.create_agent("worker", "", "", "")
    max_message = fabric.agent_directory.limits.max_message_bytes
    with pytest.raises(InvalidArgument) as exc:
        await fabric.agent_directory.admit(agent.agent_id, "", Submission(text="x" * max_message, response="bob"), False)
    assert exc.value.reason == "FIELD_TOO_LARGE" and exc.value.metadata["field"] == "submission.text"
    admitted = await fabric.agent_directory.admit(agent.agent_id, "", Submission(text="x" * max_message), False)
    assert admitted.accepted  # no response agent: nothing to deliver
