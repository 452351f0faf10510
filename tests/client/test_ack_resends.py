"""Acks whose answer was lost are sent again only when that cannot take a message the reader never saw
(fabricd.client._acks); the e2e side, through a relay that cuts the connection: tests/e2e/test_streams_cuts.py."""

from __future__ import annotations

from types import SimpleNamespace

from fabricd.client import Unavailable
from fabricd.client._acks import looks_minted, resend_safe
from fabricd.client._errors import ResourceExhausted
from fabricd.client._subscription import Subscription

MINTED = "01JE0ABCDEFGHIJKLMNOPQRSTU"


def test_only_acks_of_minted_ids_are_resent() -> None:
    assert looks_minted(MINTED) and not looks_minted(MINTED.lower()) and not looks_minted("x")
    assert resend_safe([MINTED, MINTED]) and not resend_safe([MINTED, "task-7"])


async def _after_a_failed_ack(error: Exception) -> list[str]:
    """The ids a subscription keeps to ack again after its ack of one minted and one chosen id failed so."""

    async def ack(agent_id: str, ids: list[str]) -> int:
        raise error

    subscription = Subscription(SimpleNamespace(ack=ack, target="unix:/nowhere"), "bob")  # type: ignore[arg-type]
    subscription._to_ack = [MINTED, "chosen-by-alice"]
    await subscription._send_acks()
    return subscription._to_ack


async def test_a_subscription_does_not_ack_a_chosen_id_again_when_its_ack_may_have_landed() -> None:
    assert await _after_a_failed_ack(Unavailable("cut", reason="STREAM_ENDED")) == [MINTED]
    # refused, so it did not land: both are acked again
    assert await _after_a_failed_ack(ResourceExhausted("slow down", reason="RATE_LIMITED")) == [MINTED,
                                                                                                 "chosen-by-alice"]
