"""A repair generation a signed 64-bit integer cannot hold is INVALID_ARGUMENT on every backend.

ReconcileRepair takes a uint64 generation; PostgreSQL keeps it in a bigint and
failed INTERNAL past 2^63 - 1 (LMDB stored it, so the backends disagreed).
"""

from __future__ import annotations

import pytest

from fabricd.client import Client, FailedPrecondition, InvalidArgument

BACKENDS = ("lmdb", "postgres")


@pytest.mark.parametrize("generation", [2**63, 2**64 - 1])
async def test_a_generation_past_2_63_is_refused_and_admits_nothing(client: Client, generation: int) -> None:
    await client.initialize("i")
    sequence = (await client.get_directory_data()).sequence
    with pytest.raises(InvalidArgument) as err:
        await client.reconcile_repair("disk-1", generation, "repair the disk")
    assert (err.value.reason, err.value.metadata["field"]) == ("INVALID_FIELD", "generation")
    assert "the largest is 9223372036854775807" in err.value.message
    assert (await client.get_directory_data()).sequence == sequence


async def test_the_largest_generation_is_kept_and_an_older_one_is_stale(client: Client) -> None:
    await client.initialize("i")
    first = await client.reconcile_repair("disk-1", 2**63 - 1, "repair the disk")
    assert await client.reconcile_repair("disk-1", 2**63 - 1, "repair the disk") == first
    with pytest.raises(FailedPrecondition):
        await client.reconcile_repair("disk-1", 5, "stale")
