"""The earlier turns of a continued ticket as JSON text: one encoding for every backend's ticket record."""

from __future__ import annotations

import base64
import json

from fabricd.core.model import Turn


def encode(turns: list[Turn]) -> str:
    """JSON of the turns (bytes as base64); "[]" for a ticket never continued."""
    if not turns:
        return "[]"
    return json.dumps([{"task": t.task, "data": base64.b64encode(t.data).decode(), "headers": t.headers,
                        "result": t.result, "result_data": base64.b64encode(t.result_data).decode(),
                        "result_headers": t.result_headers, "followup_key": t.followup_key} for t in turns],
                      ensure_ascii=False)


def decode(text: str) -> list[Turn]:
    if not text or text == "[]":
        return []
    return [Turn(task=t["task"], data=base64.b64decode(t["data"]), headers=t["headers"], result=t["result"],
                 result_data=base64.b64decode(t["result_data"]), result_headers=t["result_headers"],
                 followup_key=t["followup_key"]) for t in json.loads(text)]
