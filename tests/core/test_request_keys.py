"""Creating calls with an idempotency key: a retry returns the first answer and changes nothing."""

from __future__ import annotations

import pytest

from fabricd.core.agentdir import FILTER_ALL, Submission
from fabricd.core.errors import AlreadyExists
from tests.core.conftest import Fabric


async def test_an_admit_retried_with_its_key_returns_the_first_answer_and_moves_nothing(fabric: Fabric) -> None:
    ad = fabric.agent_directory
    agent, _ = await ad.initialize("", "")
    first = await ad.admit(agent.agent_id, "", Submission(text="build it"), False, request_key="k-1")
    sequence = (await ad.data()).sequence
    again = await ad.admit(agent.agent_id, "", Submission(text="build it"), False, request_key="k-1")
    assert again == first and first.accepted
    assert (await ad.data()).sequence == sequence  # the agent-directory sequence did not move again
    assert len((await ad.list_requests(FILTER_ALL, 100, "")).items) == 1
    assert len((await ad.list_threads(agent.agent_id)).items) == 2  # the initial thread and the admission's one


async def test_an_admit_key_reused_for_another_submission_is_already_exists_and_writes_nothing(fabric: Fabric) -> None:
    ad = fabric.agent_directory
    agent, _ = await ad.initialize("", "")
    await ad.admit(agent.agent_id, "", Submission(text="build it"), False, request_key="k-1")
    sequence = (await ad.data()).sequence
    with pytest.raises(AlreadyExists) as err:
        await ad.admit(agent.agent_id, "", Submission(text="something else"), False, request_key="k-1")
    assert err.value.reason == "REQUEST_KEY_REUSED" and err.value.metadata["request_key"] == "k-1"
    assert (await ad.data()).sequence == sequence
    other = await ad.admit(agent.agent_id, "", Submission(text="something else"), False, request_key="k-2")
    assert other.accepted


async def test_a_refused_admit_is_not_remembered_so_its_retry_is_judged_afresh(fabric: Fabric) -> None:
    ad = fabric.agent_directory
    agent, _ = await ad.initialize("", "")
    await ad.advertise("", "busy")
    refused = await ad.admit(agent.agent_id, "", Submission(text="later"), True, request_key="k-1")
    assert not refused.accepted
    await ad.advertise("", "available")
    assert (await ad.admit(agent.agent_id, "", Submission(text="later"), True, request_key="k-1")).accepted


async def test_a_create_thread_retried_with_its_key_returns_the_same_thread(fabric: Fabric) -> None:
    ad = fabric.agent_directory
    agent, _ = await ad.initialize("", "")
    first = await ad.create_thread(agent.agent_id, "plans", "conversation", 0, (), request_key="t-1")
    sequence = (await ad.data()).sequence
    assert await ad.create_thread(agent.agent_id, "plans", "conversation", 0, (), request_key="t-1") == first
    assert (await ad.data()).sequence == sequence
    with pytest.raises(AlreadyExists):
        await ad.create_thread(agent.agent_id, "other plans", "conversation", 0, (), request_key="t-1")
    unkeyed = [await ad.create_thread(agent.agent_id, "plans", "conversation", 0, ()) for _ in range(2)]
    assert unkeyed[0].thread_id != unkeyed[1].thread_id  # no key: every call creates
