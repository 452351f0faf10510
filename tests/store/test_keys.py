"""The key codec: order where it matters, a fixed size where names may be long."""

from __future__ import annotations

from fabricd.core.ids import IdMint
from fabricd.store.lmdb import keys


def test_minted_ids_key_in_minting_order_and_other_ids_are_hashed() -> None:
    mint = IdMint()
    minted = [mint.mint(1_800_000_000_000_000_000 + i * 1_000_000) for i in range(50)]
    assert [keys.message_id(m) for m in minted] == sorted(keys.message_id(m) for m in minted)
    assert keys.message_id("client-id-7") == b"\x00" + keys.h("client-id-7")
    assert len(keys.message_id("x" * 256)) == 17  # long client ids stay far below LMDB's 511-byte key limit
    assert keys.message_id(minted[0]) != keys.message_id(minted[0].lower())  # lower case is a client id


def test_integers_in_keys_sort_numerically() -> None:
    agent = keys.entry("alice")
    assert keys.message(agent, 9) < keys.message(agent, 10) < keys.message(agent, 2**40)
    assert keys.message_seq(keys.message(agent, 12345)) == 12345
