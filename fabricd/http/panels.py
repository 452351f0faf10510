"""The overseer's panels beyond the built-in parts: channels (their members and live log), and the live leases.

Each is a fabricd.http.live.Panel: the wake-up keys it follows, the RPC whose access rule decides who sees it,
how it reads its part (again only for what moved) and what an agent identity may not see of it.

Channels: a post wakes its channel's key, so a channel's log is re-read when it moves; creating a channel or
joining one wakes nothing, so the listing (names, member counts) is re-read with the directory every
live.TICK_S too. An agent sees every channel's name, description and counts (ListChannels is anyone's), and
the members and posts of the channels it is a member of only (ReadChannel's and ListMembers' rule,
fabricd.core.channels.may_read).

Leases: every grant, renewal, release and written end wakes fabricd.core.leases.LEASES, so the live leases are
re-read whole when it moves (the daemon's sweep writes the ends that are due). ListLeases is anyone's: an agent
sees them all, as it would over gRPC.
"""

from __future__ import annotations

from typing import Any

from fabricd.core import channels as channel_rules
from fabricd.core.channel_service import Channels
from fabricd.core.directory import DIRECTORY
from fabricd.core.lease_service import Leases
from fabricd.core.leases import LEASES
from fabricd.core.model_channels import Channel, Post
from fabricd.core.model_leases import Lease
from fabricd.http.live import Panel

CHANNELS_SHOWN = 100
POSTS_SHOWN = 20
MEMBERS_SHOWN = 100
LEASES_SHOWN = 100
_CHANNEL = channel_rules.wake_key("")


def _post(p: Post) -> dict[str, Any]:
    m = p.message
    return {"seq": p.seq, "id": m.id, "sender": m.sender.agent_id, "text": m.text, "thread_id": m.thread_id,
            "send_ms": m.send_time_ns // 1_000_000}


def channels_panel(service: Channels) -> Panel:
    async def read_one(c: Channel, was: dict[str, Any] | None, log_moved: bool) -> dict[str, Any]:
        if was is not None and not log_moved and was["last_seq"] == c.last_seq:
            posts = was["posts"]
        else:
            read, _ = await service.read(c.name, None, max(c.first_seq - 1, c.last_seq - POSTS_SHOWN), POSTS_SHOWN)
            posts = [_post(p) for p in read]
        if was is not None and was["members"] == c.members and not log_moved:
            member_ids = was["member_ids"]
        else:
            listed = await service.members(c.name, None, MEMBERS_SHOWN, "")
            member_ids = [m.agent_id for m in listed.items]
        return {"name": c.name, "description": c.description, "open": c.open, "creator": c.creator,
                "members": c.members, "member_ids": member_ids, "last_seq": c.last_seq, "count": c.count,
                "posts": posts}

    async def read(was: Any, moved: set[str] | None) -> dict[str, Any]:
        listed = await service.listed(CHANNELS_SHOWN, "")
        before = {c["name"]: c for c in (was or {}).get("channels", ())}
        shown = [await read_one(c, None if moved is None else before.get(c.name),
                                moved is None or channel_rules.wake_key(c.name) in moved) for c in listed.items]
        return {"channels": shown, "more": bool(listed.next_page_token)}

    def withhold(data: dict[str, Any], agent_id: str) -> dict[str, Any]:
        return {**data, "channels": [c if agent_id in c["member_ids"] else {**c, "member_ids": [], "posts": []}
                                     for c in data["channels"]]}

    return Panel("channels", "ListChannels", lambda key: key.startswith(_CHANNEL) or key == DIRECTORY, read,
                 withhold)


def _lease(lease: Lease) -> dict[str, Any]:
    return {"lease_id": lease.lease_id, "agent": lease.agent_id, "session_name": lease.session_name,
            "resources": list(lease.resources), "mode": lease.mode.name, "fencing_token": lease.fencing_token,
            "reason": lease.reason, "expire_ms": lease.expire_ns // 1_000_000,
            "renew_with_presence": lease.renew_with_presence}


def leases_panel(service: Leases) -> Panel:
    async def read(was: Any, moved: set[str] | None) -> dict[str, Any]:
        live = sorted(await service.live(), key=lambda lease: lease.fencing_token)
        return {"leases": [_lease(lease) for lease in live[:LEASES_SHOWN]], "more": len(live) > LEASES_SHOWN}

    return Panel("leases", "ListLeases", lambda key: key == LEASES, read)
