"""The key codec: order where it matters, a fixed size where names may be long."""

from __future__ import annotations

from fabricd.core.ids import IdMint
from fabricd.store.lmdb import keys


def test_minted_ids_key_in_minting_order_and_chosen_ids_are_hashed_in_their_senders_scope() -> None:
    mint = IdMint()
    minted = [mint.mint(1_800_000_000_000_000_000 + i * 1_000_000) for i in range(50)]
    assert [keys.minted_id(m) for m in minted] == sorted(keys.minted_id(m) for m in minted)
    assert all(keys.looks_minted(m) for m in minted) and not keys.looks_minted(minted[0].lower())
    assert not any(keys.looks_minted(m) for m in (minted[0][:25], minted[0] + "0", minted[0][:12] + "W" + minted[0][13:],
                                                  minted[0][:25] + "\u00e9", " " + minted[0][1:], ""))
    assert keys.chosen_id("", "client-id-7") == b"\x00" + keys.h("client-id-7")  # sender "": schema 3's key
    assert keys.chosen_id("alice", "client-id-7") != keys.chosen_id("bob", "client-id-7")
    assert len(keys.chosen_id("a" * 256, "x" * 256)) == 33  # long ids stay far below LMDB's 511-byte key limit
    assert keys.chosen_id("alice", minted[0]) != keys.minted_id(minted[0])  # a chosen id never takes a minted key


def test_outbox_rows_list_by_key_and_each_agent_has_its_own() -> None:
    assert keys.outbox_row("alice", "outbox:k:reply:0") != keys.outbox_row("bob", "outbox:k:reply:0")
    assert keys.outbox_row("bob", "outbox:k:reply:0") < keys.outbox_row("alice", "outbox:k:reply:1")
    assert keys.outbox_after("outbox:k:reply:0") > keys.outbox_row("bob", "outbox:k:reply:0")  # a bare key: past all


def test_integers_in_keys_sort_numerically() -> None:
    agent = keys.entry("alice")
    assert keys.message(agent, 9) < keys.message(agent, 10) < keys.message(agent, 2**40)
    assert keys.message_seq(keys.message(agent, 12345)) == 12345
