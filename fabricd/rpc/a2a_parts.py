"""A2A message parts as a fabric task's text, data and headers, and back.

A fabric task (or reply) is text, plus optional bytes (`data`) and headers. An A2A
message's parts map onto them so that a fabric agent reads plain fields and an A2A
client gets its parts back, in the task's history and in the reply artifact:

- text parts are the text, joined by newlines (a text part's metadata is not kept);
- one raw part: `data` holds its bytes; headers `a2a-part: raw`, `content-type` (its
  media type, else application/octet-stream) and `a2a-filename` when it has one;
- one data part: `data` holds its JSON (UTF-8); headers `a2a-part: data`,
  `content-type: application/json`;
- one url part: no data; headers `a2a-part: url`, `a2a-url`, `a2a-filename` and
  `content-type` (its media type) when given;
- several non-text parts, or one with metadata (or a data part with a media type): `data` holds the JSON array of the
  parts in A2A's JSON form (raw bytes base64); headers `a2a-part: parts`,
  `content-type: application/json`.
A message with no text part gets a placeholder text (the core needs one) and the
header `a2a-text: none`, so the way back shows no text part.

Back (a reply from a fabric agent, or a task in history): a text part when there is
text, then the parts the headers say; data without an `a2a-part` header (a fabric
agent replying with bytes) is one raw part with the `content-type` header as its media type
(a raw part sent without a media type comes back as application/octet-stream).
"""

from __future__ import annotations

import json

from google.protobuf import json_format
from google.protobuf.message import Message

from fabricd.a2a import a2a_pb2 as a2a

PART, URL, FILENAME, TEXT, CONTENT_TYPE = "a2a-part", "a2a-url", "a2a-filename", "a2a-text", "content-type"


def _as_json(message: Message) -> object:
    """A part (or its data) as JSON; ValueError when JSON cannot hold it (a NaN or Infinity number in a Struct,
    which protobuf's json_format refuses with an error of its own, not a ValueError)."""
    try:
        return json_format.MessageToDict(message)
    except (ValueError, json_format.Error) as exc:
        raise ValueError(f"a part's data or metadata cannot be kept as JSON: {exc} (JSON numbers are finite)") from None


def split(parts: list[a2a.Part]) -> tuple[str, bytes, dict[str, str]]:
    """(text, data, headers) of a message's parts, as the module docstring says; ValueError for an empty one."""
    texts = [p.text for p in parts if p.WhichOneof("content") == "text"]
    others = [p for p in parts if p.WhichOneof("content") not in ("text", None)]
    if not texts and not others:
        raise ValueError("the message has no text, raw, data or url part: a task needs some content")
    data, headers = b"", {}
    plain = len(others) == 1 and not others[0].HasField("metadata") and not (
        others[0].WhichOneof("content") == "data" and others[0].media_type)
    if plain:
        part = others[0]
        kind = part.WhichOneof("content")
        headers[PART] = kind
        if part.filename:
            headers[FILENAME] = part.filename
        if kind == "raw":
            data = part.raw
            headers[CONTENT_TYPE] = part.media_type or "application/octet-stream"
        elif kind == "data":
            data = json.dumps(_as_json(part.data), ensure_ascii=False).encode()
            headers[CONTENT_TYPE] = "application/json"
        else:
            headers[URL] = part.url
            if part.media_type:
                headers[CONTENT_TYPE] = part.media_type
    elif others:
        data = json.dumps([_as_json(p) for p in others], ensure_ascii=False).encode()
        headers.update({PART: "parts", CONTENT_TYPE: "application/json"})
    text = "\n".join(texts)
    if not texts:
        kinds = ", ".join(p.WhichOneof("content") for p in others)
        text = f"(no text: the task is in the message's data and headers: {kinds} part(s))"
        headers[TEXT] = "none"
    return text, data, headers


def join(text: str, data: bytes, headers: dict[str, str]) -> list[a2a.Part]:
    """The A2A parts of a fabric text, data and headers (the inverse of `split`)."""
    out = [] if headers.get(TEXT) == "none" or (not text and (data or PART in headers)) else [a2a.Part(text=text)]
    kind = headers.get(PART, "")
    filename = headers.get(FILENAME, "")
    if kind == "parts":
        for raw in json.loads(data.decode()):
            out.append(json_format.ParseDict(raw, a2a.Part()))
    elif kind == "data":
        part = a2a.Part(filename=filename)
        json_format.Parse(data.decode() or "null", part.data)
        out.append(part)
    elif kind == "url":
        out.append(a2a.Part(url=headers.get(URL, ""), filename=filename, media_type=headers.get(CONTENT_TYPE, "")))
    elif kind == "raw" or data:
        out.append(a2a.Part(raw=data, filename=filename,
                            media_type=headers.get(CONTENT_TYPE, "application/octet-stream")))
    return out or [a2a.Part(text=text)]
