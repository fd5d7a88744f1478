"""OpenAI Responses API as Codex calls it (`POST /responses`, SSE events)."""

from __future__ import annotations

import json
from typing import Any

from .script import SIDE_REPLY, ApiError, Reply, Script, Step
from .sink import EventSink
from .wire import Answer, Request, new_id, rough_tokens


def answer(req: Request, script: Script) -> Answer | None:
    """Route `/responses` and the OpenAI-style model listing."""
    if req.method == "GET" and req.path.endswith("/models"):
        return Answer("meta", body=model_list())
    if req.method != "POST" or not req.path.endswith("/responses"):
        return None
    body = req.body or {}
    main = bool(body.get("tools"))
    step: Step = script.take() if main else SIDE_REPLY
    if isinstance(step, ApiError):
        return error_answer(step, "main")
    model = str(body.get("model", "gpt-scripted"))
    kind = "main" if main else "side"
    if body.get("stream", True):
        return Answer(kind, stream=lambda sink: stream_reply(step, model, sink))
    return Answer(kind, body=_response(new_id("resp"), model, "completed", _items(step, new_id("msg"))))


def error_answer(error: ApiError, kind: str) -> Answer:
    """OpenAI's error envelope."""
    codes = {401: "invalid_api_key", 429: "rate_limit_exceeded", 500: "server_error"}
    body = {"error": {"message": error.message, "type": codes.get(error.status, "server_error"),
                      "param": None, "code": codes.get(error.status)}}
    headers = {"retry-after": str(error.retry_after)} if error.retry_after is not None else {}
    return Answer(kind, status=error.status, body=body, headers=headers)


def model_list() -> dict:
    """`GET /models` in OpenAI's shape (Codex and OpenCode may ask)."""
    names = ["gpt-5-codex", "gpt-5", "scripted-model"]
    return {"object": "list", "data": [{"id": name, "object": "model", "created": 1700000000,
                                        "owned_by": "scripted"} for name in names]}


def _message_item(item_id: str, text: str, status: str) -> dict:
    content = [{"type": "output_text", "text": text, "annotations": []}] if status == "completed" else []
    return {"type": "message", "id": item_id, "role": "assistant", "status": status, "content": content}


def _call_items(reply: Reply) -> list[dict]:
    return [{"type": "function_call", "id": f"fc_{call.call_id}", "call_id": call.call_id, "name": call.name,
             "arguments": json.dumps(call.arguments), "status": "completed"} for call in reply.tool_calls]


def _items(reply: Reply, message_id: str) -> list[dict]:
    items = [_message_item(message_id, reply.text, "completed")] if reply.text else []
    return items + _call_items(reply)


def _response(response_id: str, model: str, status: str, output: list[dict]) -> dict:
    response: dict[str, Any] = {"id": response_id, "object": "response", "created_at": 1700000000,
                                "status": status, "model": model, "output": output}
    if status == "completed":
        tokens = rough_tokens(output)
        response["usage"] = {"input_tokens": 12, "input_tokens_details": {"cached_tokens": 0},
                             "output_tokens": tokens, "output_tokens_details": {"reasoning_tokens": 0},
                             "total_tokens": 12 + tokens}
    return response


def stream_reply(reply: Reply, model: str, sink: EventSink) -> None:
    """created, (reasoning), message item with text deltas, function-call items, completed."""
    response_id, message_id = new_id("resp"), new_id("msg")
    sink.event({"type": "response.created", "response": _response(response_id, model, "in_progress", [])},
               "response.created")
    index = 0
    if reply.thinking:
        reasoning = {"type": "reasoning", "id": new_id("rs"),
                     "summary": [{"type": "summary_text", "text": reply.thinking}]}
        sink.event({"type": "response.output_item.added", "output_index": index, "item": {**reasoning, "summary": []}},
                   "response.output_item.added")
        sink.event({"type": "response.reasoning_summary_text.delta", "item_id": reasoning["id"],
                    "output_index": index, "summary_index": 0, "delta": reply.thinking},
                   "response.reasoning_summary_text.delta")
        sink.event({"type": "response.output_item.done", "output_index": index, "item": reasoning},
                   "response.output_item.done")
        index += 1
    opened = False
    for wait, piece in reply.pieces():
        sink.pause(wait)
        if not piece:
            continue
        if not opened:
            sink.event({"type": "response.output_item.added", "output_index": index,
                        "item": _message_item(message_id, "", "in_progress")}, "response.output_item.added")
            sink.event({"type": "response.content_part.added", "item_id": message_id, "output_index": index,
                        "content_index": 0, "part": {"type": "output_text", "text": "", "annotations": []}},
                       "response.content_part.added")
            opened = True
        sink.event({"type": "response.output_text.delta", "item_id": message_id, "output_index": index,
                    "content_index": 0, "delta": piece}, "response.output_text.delta")
    output: list[dict] = []
    if opened:
        sink.event({"type": "response.output_text.done", "item_id": message_id, "output_index": index,
                    "content_index": 0, "text": reply.text}, "response.output_text.done")
        done = _message_item(message_id, reply.text, "completed")
        sink.event({"type": "response.output_item.done", "output_index": index, "item": done},
                   "response.output_item.done")
        output.append(done)
        index += 1
    for item in _call_items(reply):
        sink.event({"type": "response.output_item.added", "output_index": index, "item": item},
                   "response.output_item.added")
        sink.event({"type": "response.output_item.done", "output_index": index, "item": item},
                   "response.output_item.done")
        output.append(item)
        index += 1
    sink.event({"type": "response.completed", "response": _response(response_id, model, "completed", output)},
               "response.completed")
