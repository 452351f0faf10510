"""Checks of request fields. Each failure is an InvalidArgument naming the field.

Sizes are UTF-8 bytes, never characters (a character is up to 4 bytes): every
stored field has a byte limit, and a whole directory entry is bounded too
(`Limits.max_entry_bytes`), so no list page or watch event can be blown up by
one registration. Ids keep a character limit (FIELD_TOO_LONG); everything
else is FIELD_TOO_LARGE with the field and the limit in bytes.

Free text kept in a store's text field (a ticket's task, result and reason, a
directory entry's cwd, capabilities and metadata, a fan-out reply) may not hold
NUL (`stored_text`): PostgreSQL's text and jsonb cannot, and every backend
answers alike. Message text, data and headers are stored as bytes and keep it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping

from fabricd.core.errors import InvalidArgument, ResourceExhausted
from fabricd.core.limits import Limits
from fabricd.core.model import Capability, Message


def utf8_size(value: str) -> int:
    """The UTF-8 size of a str (cheap for ASCII)."""
    return len(value) if value.isascii() else len(value.encode("utf-8", "surrogatepass"))


def too_large(field: str, size: int, limit: int, what: str = "") -> InvalidArgument:
    return InvalidArgument(f"{field} is {size} bytes{' ' + what if what else ''}; the limit is {limit} bytes",
                           reason="FIELD_TOO_LARGE", field=field, limit=limit, size=size)


def text_bytes(value: str, field: str, limit: int) -> int:
    """FIELD_TOO_LARGE when `value` is over `limit` bytes in UTF-8; its size otherwise."""
    if len(value) > limit // 4 or not value.isascii():
        size = utf8_size(value)
        if size > limit:
            raise too_large(field, size, limit)
        return size
    return len(value)


def stored_text(value: str, field: str) -> str:
    """INVALID_CHARACTERS when `value` holds a NUL (U+0000), which no store text field can keep."""
    if "\0" in value:
        raise InvalidArgument(f"{field} contains a NUL character (U+0000), which the daemon cannot store; remove it",
                              reason="INVALID_CHARACTERS", field=field)
    return value


def text_field(value: str, field: str, limits: Limits, *, required: bool) -> str:
    """An id-like string: 1..max_id_chars characters (0 allowed when not required)."""
    n = len(value)
    if n == 0:
        if required:
            raise InvalidArgument(f"{field} is required", reason="MISSING_FIELD", field=field)
        return value
    if n > limits.max_id_chars:
        raise InvalidArgument(
            f"{field} is {n} characters; the limit is {limits.max_id_chars}",
            reason="FIELD_TOO_LONG",
            field=field,
            limit=limits.max_id_chars,
        )
    if not value.isprintable():
        raise InvalidArgument(
            f"{field} contains control characters; use printable text",
            reason="INVALID_CHARACTERS",
            field=field,
        )
    return value


def normalized(value: str, field: str) -> str:
    """INVALID_CHARACTERS when a name is not in Unicode NFC: 'é' written as 'e' and a combining accent would be
    a second name that looks the same as the precomposed one, and no lookup would find the other."""
    if not value.isascii() and not unicodedata.is_normalized("NFC", value):
        raise InvalidArgument(
            f"{field} {ascii(value)} is not in Unicode normalization form C (it has a decomposed character, such "
            f"as a letter followed by a combining accent); send it normalized: {ascii(unicodedata.normalize('NFC', value))}",
            reason="INVALID_CHARACTERS", field=field)
    return value


_INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f"
    "\u2800\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0000-\U000e0fff]")
"""Unicode's Default_Ignorable_Code_Point characters (variation selectors, Hangul fillers, the combining grapheme
joiner, zero-width and bidi controls: shown as nothing) and U+2800 BRAILLE PATTERN BLANK (shown as a blank)."""


def visible(value: str, field: str) -> str:
    """INVALID_CHARACTERS when a name holds a character that shows as nothing: 'bob' followed by U+3164 HANGUL
    FILLER would read as 'bob' without being it, and no look-alike skeleton maps such characters away.
    `text_field` refuses the unprintable ones (zero-width, bidi); these are the printable ones it lets by."""
    found = None if value.isascii() else _INVISIBLE.search(value)
    if found is not None:
        char = found[0]
        raise InvalidArgument(
            f"{field} {ascii(value)} holds U+{ord(char):04X} ({unicodedata.name(char, 'an unassigned character')}), "
            "which shows as nothing, so the name would read as another; remove it",
            reason="INVALID_CHARACTERS", field=field)
    return value


def name(value: str, field: str) -> str:
    """A name a person reads (an agent id, a session name, a channel's or a directory agent's name): in NFC and
    with no character that shows as nothing."""
    return visible(normalized(value, field), field)


def agent_id(value: str, limits: Limits, field: str = "agent_id") -> str:
    return name(text_field(value, field, limits, required=True), field)


def session_name(value: str, limits: Limits) -> str:
    name(text_field(value, "session_name", limits, required=False), "session_name")
    if "/" in value:
        raise InvalidArgument(
            "session_name may not contain '/': 'name/suffix' is how peers pick one of several agents",
            reason="INVALID_CHARACTERS",
            field="session_name",
        )
    return value


def limit(value: int, limits: Limits) -> int:
    if value == 0:
        return limits.default_limit
    if value < 0 or value > limits.max_limit:
        raise InvalidArgument(
            f"limit must be between 0 (default {limits.default_limit}) and {limits.max_limit}, got {value}",
            reason="LIMIT_OUT_OF_RANGE",
            field="limit",
            limit=limits.max_limit,
        )
    return value


def response_bytes(value: int, limits: Limits) -> int:
    """The bytes of messages a peek or drain answer may hold: 0 is the default, more than the most is the most."""
    return min(value or limits.default_response_bytes, limits.max_response_bytes)


def string_map(values: Mapping[str, str], field: str, max_bytes: int) -> int:
    """Check a string map's keys; return its size in bytes."""
    size = 0
    for key, value in values.items():
        if not key:
            raise InvalidArgument(f"{field} has an empty key", reason="INVALID_FIELD", field=field)
        size += utf8_size(key) + utf8_size(value)
    if size > max_bytes:
        raise too_large(field, size, max_bytes)
    return size


def capabilities(values: tuple[Capability, ...], limits: Limits) -> tuple[Capability, ...]:
    if len(values) > limits.max_capabilities:
        raise InvalidArgument(
            f"{len(values)} capabilities; the limit is {limits.max_capabilities}",
            reason="TOO_MANY_ITEMS",
            field="capabilities",
            limit=limits.max_capabilities,
        )
    seen: set[str] = set()
    for i, cap in enumerate(values):
        text_field(cap.name, f"capabilities[{i}].name", limits, required=True)
        if cap.name in seen:
            raise InvalidArgument(
                f"capability {cap.name!r} is listed twice", reason="DUPLICATE_ITEM", field=f"capabilities[{i}].name"
            )
        seen.add(cap.name)
        text_bytes(stored_text(cap.description, f"capabilities[{i}].description"), f"capabilities[{i}].description",
                   limits.max_entry_bytes)
        text_bytes(stored_text(cap.payload, f"capabilities[{i}].payload"), f"capabilities[{i}].payload",
                   limits.max_entry_bytes)
    return values


MAX_CWD_BYTES = 4096


def entry(capabilities_: tuple[Capability, ...], metadata: Mapping[str, str], cwd: str, limits: Limits) -> int:
    """Check what Register stores (capabilities, metadata, cwd) and bound the whole entry; its size in bytes."""
    capabilities(capabilities_, limits)
    for key, value in metadata.items():
        stored_text(key, "metadata")
        stored_text(value, "metadata")
    parts = {
        "capabilities": sum(utf8_size(c.name) + utf8_size(c.description) + utf8_size(c.payload) + 8
                            for c in capabilities_),
        "metadata": string_map(metadata, "metadata", limits.max_metadata_bytes),
        "cwd": text_bytes(stored_text(cwd, "cwd"), "cwd", MAX_CWD_BYTES),
    }
    size = sum(parts.values())
    if size > limits.max_entry_bytes:
        largest = max(parts, key=lambda k: parts[k])
        detail = ", ".join(f"{k} {v}" for k, v in parts.items())
        raise too_large(largest, size, limits.max_entry_bytes,
                        f"with the rest of the directory entry ({detail}): shrink {largest}")
    return size


def headers(values: Mapping[str, str], field: str, limits: Limits) -> int:
    """At most `max_headers` headers, keys of at most `max_id_chars` bytes; their size in bytes."""
    if len(values) > limits.max_headers:
        raise InvalidArgument(f"{field} has {len(values)} headers; the limit is {limits.max_headers}",
                              reason="TOO_MANY_ITEMS", field=field, limit=limits.max_headers)
    for key in values:
        text_bytes(key, f"{field}[{key[:32]!r}] key", limits.max_id_chars)
    return string_map(values, field, limits.max_message_bytes)


RESERVED_HEADER_PREFIX = "fabricd-"
"""Headers the daemon sets (fabricd-ticket-id, fabricd-requester, fabricd-outbox-key, ...); clients may not."""


def reserved(msg: Message) -> None:
    """INVALID_ARGUMENT (RESERVED_FIELD) for a field only the daemon sets: a forged task must not pass for a real one."""
    if msg.ticket_id:
        raise InvalidArgument("message.ticket_id is set by the daemon when it delivers a rendezvous ticket; "
                              "leave it empty (to ask, use Ask or EnqueueTicket)",
                              reason="RESERVED_FIELD", field="message.ticket_id")
    for key in msg.headers:
        if key.lower().startswith(RESERVED_HEADER_PREFIX):
            raise InvalidArgument(f"header {key!r}: headers starting with {RESERVED_HEADER_PREFIX!r} are set by "
                                  "the daemon only; rename it", reason="RESERVED_FIELD", field="message.headers",
                                  header=key)


def message(msg: Message, limits: Limits) -> Message:
    """Check a message as a client sent it (server-assigned seq and send_time are ignored; reserved fields refused)."""
    reserved(msg)
    if msg.id:
        text_field(msg.id, "message.id", limits, required=False)
    text_field(msg.recipient.agent_id, "message.recipient.agent_id", limits, required=True)
    if msg.recipient.session_id:
        text_field(msg.recipient.session_id, "message.recipient.session_id", limits, required=False)
    if msg.sender.agent_id:
        text_field(msg.sender.agent_id, "message.sender.agent_id", limits, required=False)
    if msg.sender.session_id:
        text_field(msg.sender.session_id, "message.sender.session_id", limits, required=False)
    for i, addr in enumerate(msg.reply_to):
        text_field(addr.agent_id, f"message.reply_to[{i}].agent_id", limits, required=True)
        text_field(addr.session_id, f"message.reply_to[{i}].session_id", limits, required=False)
    if msg.thread_id:
        text_field(msg.thread_id, "message.thread_id", limits, required=False)
    if msg.hops < 0:
        raise InvalidArgument("message.hops may not be negative", reason="INVALID_FIELD", field="message.hops")
    text = msg.text
    # A str is at most 4 UTF-8 bytes a character: encode only when the limit could be near.
    size = len(msg.data) + (len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass")))
    if len(msg.headers) > limits.max_headers:
        raise InvalidArgument(f"message.headers has {len(msg.headers)} headers; the limit is {limits.max_headers}: "
                              "put the rest in the text or data", reason="TOO_MANY_ITEMS", field="message.headers",
                              limit=limits.max_headers)
    if msg.headers:
        size += headers(msg.headers, "message.headers", limits)
    payload_size(size, "message", limits, what="text, data and headers")
    return msg


def payload_size(size: int, field: str, limits: Limits, what: str = "") -> None:
    """RESOURCE_EXHAUSTED past the size limit, saying what would fit: the retry hint."""
    if size > limits.max_message_bytes:
        raise ResourceExhausted(
            f"{field} is {size} bytes{' of ' + what if what else ''}; the limit is {limits.max_message_bytes}: "
            f"resend it split into parts of at most that, or raise limits.max_message_bytes",
            reason="MESSAGE_TOO_LARGE",
            field=field,
            size=size,
            limit=limits.max_message_bytes,
        )
