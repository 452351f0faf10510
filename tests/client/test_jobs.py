"""agent_job and decode_agent_job: pure client-side rules."""

from __future__ import annotations

import pytest

from fabricd.client import AgentWork, InvalidArgument, agent_job, decode_agent_job
from fabricd.v1 import types_pb2 as pb


def test_agent_job_queues_on_the_session_in_the_default_lane() -> None:
    recovery = object()
    mail = pb.Mail(key="req-1", reply_to=[pb.Address(agent_id="parent", session_id="p-1")], content="do it")
    job = agent_job(AgentWork(session_id="child-session", command_fact_id="fact-9", recovery=recovery), mail)
    assert (job.queue, job.lane, job.priority) == ("child-session", "default", 0)
    assert job.recovery is recovery  # passed through unchanged
    payload = decode_agent_job(job)
    assert (payload.session_id, payload.command_fact_id) == ("child-session", "fact-9")
    assert payload.mail == mail
    assert decode_agent_job(job.payload) == payload


def test_agent_job_without_mail_and_from_a_mapping() -> None:
    job = agent_job({"session_id": "s", "command_fact_id": "c"})
    payload = decode_agent_job(job)
    assert not payload.HasField("mail") and job.recovery is None


@pytest.mark.parametrize(("work", "mail", "field"), [
    ({"session_id": "", "command_fact_id": "c"}, None, "work.session_id"),
    ({"session_id": "s" * 257, "command_fact_id": "c"}, None, "work.session_id"),
    ({"session_id": "s"}, None, "work.command_fact_id"),
    ({"session_id": 7, "command_fact_id": "c"}, None, "work.session_id"),
    ({"session_id": "s", "command_fact_id": "c"}, pb.Mail(), "mail.key"),
    ({"session_id": "s", "command_fact_id": "c"}, pb.Mail(key="k", reply_to=[pb.Address(agent_id="a")]),
     "mail.reply_to[0].session_id"),
    ({"session_id": "s", "command_fact_id": "c"}, "not mail", "mail"),
])
def test_agent_job_checks_its_input_at_once(work, mail, field) -> None:
    with pytest.raises(InvalidArgument) as err:
        agent_job(work, mail)
    assert err.value.metadata["field"] == field


def test_decoding_garbage_is_invalid_argument() -> None:
    with pytest.raises(InvalidArgument):
        decode_agent_job(b"\xff\xff\xff")
