"""Token records keep their bound session names, and records written before names existed still read."""

from __future__ import annotations

from fabricd.core.tokens import Token
from fabricd.store.lmdb import records


def test_a_token_record_round_trips_its_session_names() -> None:
    token = Token("abc", "agent", "alice", "laptop", 5, 0, ("reviewer", "writer"))
    back = records.decode_token(records.encode_token(token))
    assert (back.token_id, back.agent_id, back.label, back.session_names) == ("abc", "alice", "laptop",
                                                                              ("reviewer", "writer"))


def test_a_version_1_token_record_reads_with_no_names() -> None:
    v1 = records._TOKEN_HEAD.pack(1, 5, 0) + records._strings(("abc", "agent", "alice", "laptop"))
    token = records.decode_token(v1)
    assert (token.token_id, token.agent_id, token.label, token.session_names) == ("abc", "alice", "laptop", ())
