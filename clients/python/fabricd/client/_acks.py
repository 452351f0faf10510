"""Which acks may be sent again when their first answer was lost (a cut stream, a dropped connection).

An ack takes, for each id it names, the oldest unread copy of that id in the mailbox, whoever sent it: two
senders may choose one id. Sent again after it landed, an ack of such an id would take the next copy, one
the reader never saw, and it would be lost unread. A server-minted id (26 base32hex characters) names one
message, so an ack of minted ids only is sent again safely; one naming a chosen id is not: its caller hears
UNAVAILABLE, and if it did not land the messages stay unread and are delivered again (at least once).
"""

from __future__ import annotations

from collections.abc import Iterable

from fabricd.core.ids import looks_minted


def resend_safe(message_ids: Iterable[str]) -> bool:
    """Whether an ack of `message_ids` may be sent again after its answer was lost (see the module docstring)."""
    return all(looks_minted(m) for m in message_ids)
