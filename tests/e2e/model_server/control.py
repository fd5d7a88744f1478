"""Steps as JSON, so a server running in another process can be scripted by hand.

`POST /_control/push` with `{"steps": [...]}` queues steps; each step is
`{"text": ..., "chunk_size": ..., ...}` for a reply (tool calls as
`{"tool_calls": [{"name": ..., "arguments": {...}}]}`) or `{"error": 500,
"message": ..., "count": ...}` for an API error. `GET /_control/requests`
returns the request log. Used for exploring a CLI by hand before a capture is
written down as code.
"""

from __future__ import annotations

from typing import Any

from .script import ApiError, Reply, Step, ToolCall


def step_from_json(data: dict[str, Any]) -> Step:
    """Build one script step from its JSON form."""
    if "error" in data:
        return ApiError(int(data["error"]), str(data.get("message", "scripted server error")),
                        int(data.get("count", 1)), data.get("retry_after"))
    calls = tuple(ToolCall(str(c["name"]), dict(c.get("arguments", {})), str(c.get("call_id", f"call_{i:04d}")))
                  for i, c in enumerate(data.get("tool_calls", [])))
    pauses = tuple((int(offset), float(seconds)) for offset, seconds in data.get("pauses", []))
    return Reply(text=str(data.get("text", "")), chunk_size=int(data.get("chunk_size", 16)),
                 chunk_delay=float(data.get("chunk_delay", 0.02)), first_delay=float(data.get("first_delay", 0.0)),
                 pauses=pauses, thinking=str(data.get("thinking", "")), tool_calls=calls)
