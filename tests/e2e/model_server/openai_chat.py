"""OpenAI chat completions as OpenAI-compatible clients call it (OpenCode, Aider, Kimi)."""

from __future__ import annotations

import json
import time

from .openai_responses import error_answer
from .script import SIDE_REPLY, ApiError, Reply, Script, Step
from .sink import EventSink
from .wire import Answer, Request, new_id, rough_tokens


def answer(req: Request, script: Script) -> Answer | None:
    """Route `POST .../chat/completions`; main turns are the ones that offer tools."""
    if req.method != "POST" or not req.path.endswith("/chat/completions"):
        return None
    body = req.body or {}
    main = bool(body.get("tools")) or _is_chat_without_tools(body)
    step: Step = script.take() if main else SIDE_REPLY
    if isinstance(step, ApiError):
        return error_answer(step, "main")
    model = str(body.get("model", "scripted-model"))
    kind = "main" if main else "side"
    if body.get("stream"):
        usage = bool((body.get("stream_options") or {}).get("include_usage"))
        return Answer(kind, stream=lambda sink: stream_reply(step, model, sink, usage))
    return Answer(kind, body=whole_reply(step, model))


def _is_chat_without_tools(body: dict) -> bool:
    """Clients with no tool calling (Aider) mark their turns by a system prompt and a user message.

    Title generators send a short system prompt asking for a title; those stay side calls.
    """
    messages = body.get("messages") or []
    system = " ".join(str(m.get("content", "")) for m in messages if m.get("role") == "system").lower()
    return bool(messages) and "title" not in system and len(system) > 200


def _chunk(chunk_id: str, model: str, delta: dict, finish: str | None = None) -> dict:
    return {"id": chunk_id, "object": "chat.completion.chunk", "created": int(time.time()), "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def _calls(reply: Reply) -> list[dict]:
    return [{"id": call.call_id, "type": "function",
             "function": {"name": call.name, "arguments": json.dumps(call.arguments)}} for call in reply.tool_calls]


def whole_reply(reply: Reply, model: str) -> dict:
    """A non-streamed `chat.completion`."""
    message: dict = {"role": "assistant", "content": reply.text or None}
    if reply.tool_calls:
        message["tool_calls"] = _calls(reply)
    tokens = rough_tokens(reply.text)
    return {"id": new_id("chatcmpl"), "object": "chat.completion", "created": int(time.time()), "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if reply.tool_calls else "stop"}],
            "usage": {"prompt_tokens": 12, "completion_tokens": tokens, "total_tokens": 12 + tokens}}


def stream_reply(reply: Reply, model: str, sink: EventSink, usage: bool = False) -> None:
    """Role chunk, content deltas, tool-call deltas, finish chunk, optional usage chunk, `[DONE]`."""
    chunk_id = new_id("chatcmpl")
    sink.event(_chunk(chunk_id, model, {"role": "assistant", "content": ""}))
    if reply.thinking:
        sink.event(_chunk(chunk_id, model, {"reasoning_content": reply.thinking}))
    for wait, piece in reply.pieces():
        sink.pause(wait)
        if piece:
            sink.event(_chunk(chunk_id, model, {"content": piece}))
    for index, call in enumerate(_calls(reply)):
        sink.event(_chunk(chunk_id, model, {"tool_calls": [{"index": index, **call}]}))
    sink.event(_chunk(chunk_id, model, {}, "tool_calls" if reply.tool_calls else "stop"))
    if usage:
        tokens = rough_tokens(reply.text)
        sink.event({"id": chunk_id, "object": "chat.completion.chunk", "created": int(time.time()), "model": model,
                    "choices": [], "usage": {"prompt_tokens": 12, "completion_tokens": tokens,
                                             "total_tokens": 12 + tokens}})
    sink.event("[DONE]")
