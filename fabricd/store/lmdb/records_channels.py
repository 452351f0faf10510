"""Channel, member and post records of the LMDB store (see fabricd.store.lmdb.tx_channels for the keys).

A channel or member record is JSON (few, small, read whole); a post is its size (u64) and the post's
fabricd.v1.Message encoding, so a read hands the message to the wire without a second format.
"""

from __future__ import annotations

import json

from fabricd import wire
from fabricd.core.model_channels import Channel, Delivery, Member, Post, Retention
from fabricd.store.lmdb import keys
from fabricd.v1 import types_pb2 as pb


def encode_channel(c: Channel) -> bytes:
    r = c.retention
    return json.dumps({"name": c.name, "uid": c.uid, "description": c.description, "open": c.open,
                       "retention": [r.max_messages, r.max_bytes, r.max_age_ns], "creator": c.creator,
                       "create_ns": c.create_ns, "last_seq": c.last_seq, "first_seq": c.first_seq,
                       "count": c.count, "size": c.size, "members": c.members}).encode()


def decode_channel(raw: bytes) -> Channel:
    d = json.loads(bytes(raw))
    return Channel(d["name"], d["uid"], d["description"], d["open"], Retention(*d["retention"]), d["creator"],
                   d["create_ns"], d["last_seq"], d["first_seq"], d["count"], d["size"], d["members"])


def encode_member(m: Member) -> bytes:
    return json.dumps({"agent_id": m.agent_id, "delivery": int(m.delivery), "join_ns": m.join_ns,
                       "joined_after_seq": m.joined_after_seq}).encode()


def decode_member(channel: str, raw: bytes) -> Member:
    d = json.loads(bytes(raw))
    return Member(channel, d["agent_id"], Delivery(d["delivery"]), d["join_ns"], d["joined_after_seq"])


def encode_post(p: Post) -> bytes:
    return keys.u64(p.size) + wire.message_out(p.message).SerializeToString()


def decode_post(channel: str, seq: int, raw: bytes) -> Post:
    raw = bytes(raw)
    return Post(channel, seq, wire.message_in(pb.Message.FromString(raw[8:])), keys.read_u64(raw))
