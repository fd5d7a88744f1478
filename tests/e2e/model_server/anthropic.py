"""Anthropic Messages API as Claude Code calls it (`/v1/messages`, SSE when `stream`)."""

from __future__ import annotations

import json

from .script import SIDE_REPLY, ApiError, Reply, Script, Step
from .sink import EventSink
from .wire import Answer, Request, new_id, rough_tokens

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
    529: "overloaded_error",
}


def is_anthropic(req: Request) -> bool:
    """Claude Code always sends `anthropic-version`; the path tells the rest."""
    return "anthropic-version" in req.headers or req.path.endswith(("/v1/messages", "/v1/messages/count_tokens"))


def answer(req: Request, script: Script) -> Answer | None:
    """Route one Anthropic request; None when the path is not an Anthropic one."""
    if req.method == "GET" and req.path.endswith("/v1/models"):
        return Answer("meta", body=_model_list())
    if req.method != "POST":
        return None
    if req.path.endswith("/v1/messages/count_tokens"):
        return Answer("meta", body={"input_tokens": rough_tokens(req.body)})
    if not req.path.endswith("/v1/messages"):
        return None
    body = req.body or {}
    main = bool(body.get("tools"))
    step: Step = script.take() if main else SIDE_REPLY
    if isinstance(step, ApiError):
        return error_answer(step, "main")
    model = str(body.get("model", "claude-scripted"))
    kind = "main" if main else "side"
    if body.get("stream"):
        return Answer(kind, stream=lambda sink: stream_reply(step, model, sink),
                      headers={"Content-Type": "text/event-stream"})
    return Answer(kind, body=whole_reply(step, model))


def error_answer(error: ApiError, kind: str) -> Answer:
    """The JSON error body Anthropic sends with a non-200 status."""
    headers = {"retry-after": str(error.retry_after)} if error.retry_after is not None else {}
    body = {"type": "error", "error": {"type": _ERROR_TYPES.get(error.status, "api_error"), "message": error.message}}
    return Answer(kind, status=error.status, body=body, headers=headers)


def _content(reply: Reply) -> list[dict]:
    blocks: list[dict] = []
    if reply.thinking:
        blocks.append({"type": "thinking", "thinking": reply.thinking, "signature": "scripted"})
    if reply.text:
        blocks.append({"type": "text", "text": reply.text})
    blocks.extend({"type": "tool_use", "id": call.call_id, "name": call.name, "input": call.arguments}
                  for call in reply.tool_calls)
    return blocks


def _stop_reason(reply: Reply) -> str:
    return "tool_use" if reply.tool_calls else "end_turn"


def whole_reply(reply: Reply, model: str) -> dict:
    """A non-streamed `message` object."""
    return {
        "id": new_id("msg"), "type": "message", "role": "assistant", "model": model,
        "content": _content(reply), "stop_reason": _stop_reason(reply), "stop_sequence": None,
        "usage": {"input_tokens": 12, "output_tokens": rough_tokens(reply.text)},
    }


def stream_reply(reply: Reply, model: str, sink: EventSink) -> None:
    """The Messages SSE sequence: start, blocks with deltas, message_delta, stop."""
    sink.event({"type": "message_start", "message": {
        "id": new_id("msg"), "type": "message", "role": "assistant", "model": model, "content": [],
        "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 12, "output_tokens": 1}}},
        "message_start")
    sink.event({"type": "ping"}, "ping")
    index = 0
    if reply.thinking:
        _block(sink, index, {"type": "thinking", "thinking": "", "signature": ""},
               [{"type": "thinking_delta", "thinking": reply.thinking},
                {"type": "signature_delta", "signature": "scripted"}])
        index += 1
    text_open = False
    for wait, piece in reply.pieces():
        sink.pause(wait)
        if not piece:
            continue
        if not text_open:
            sink.event({"type": "content_block_start", "index": index,
                        "content_block": {"type": "text", "text": ""}}, "content_block_start")
            text_open = True
        sink.event({"type": "content_block_delta", "index": index,
                    "delta": {"type": "text_delta", "text": piece}}, "content_block_delta")
    if text_open:
        sink.event({"type": "content_block_stop", "index": index}, "content_block_stop")
        index += 1
    for call in reply.tool_calls:
        _block(sink, index, {"type": "tool_use", "id": call.call_id, "name": call.name, "input": {}},
               [{"type": "input_json_delta", "partial_json": json.dumps(call.arguments)}])
        index += 1
    sink.event({"type": "message_delta", "delta": {"stop_reason": _stop_reason(reply), "stop_sequence": None},
                "usage": {"output_tokens": rough_tokens(reply.text)}}, "message_delta")
    sink.event({"type": "message_stop"}, "message_stop")


def _block(sink: EventSink, index: int, start: dict, deltas: list[dict]) -> None:
    sink.event({"type": "content_block_start", "index": index, "content_block": start}, "content_block_start")
    for delta in deltas:
        sink.event({"type": "content_block_delta", "index": index, "delta": delta}, "content_block_delta")
    sink.event({"type": "content_block_stop", "index": index}, "content_block_stop")


def _model_list() -> dict:
    names = ["claude-sonnet-4-5", "claude-opus-4-1", "claude-haiku-4-5"]
    data = [{"type": "model", "id": name, "display_name": name, "created_at": "2025-01-01T00:00:00Z"} for name in names]
    return {"data": data, "has_more": False, "first_id": names[0], "last_id": names[-1]}
