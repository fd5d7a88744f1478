"""Gemini API as Gemini CLI calls it with an API key (`/v1beta/models/<m>:<method>`)."""

from __future__ import annotations

import json
from typing import Any

from .script import SIDE_REPLY, ApiError, Reply, Script, Step
from .sink import EventSink
from .wire import Answer, Request, rough_tokens

_STATUS_NAMES = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED",
                 404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE"}


def answer(req: Request, script: Script) -> Answer | None:
    """Route one Gemini request; None when the path is not a Gemini model path."""
    is_method_call = "/models/" in req.path and ":" in req.path.rsplit("/", 1)[-1]
    if not (req.path.startswith(("/v1beta/", "/v1alpha/")) and "/models" in req.path) and not is_method_call:
        return None
    if req.method == "GET":
        return Answer("meta", body={"models": [{"name": "models/gemini-2.5-pro"}, {"name": "models/gemini-2.5-flash"}]})
    model_part, _, method = req.path.rpartition(":")
    model = model_part.rsplit("/", 1)[-1]
    body = req.body or {}
    if method == "countTokens":
        return Answer("meta", body={"totalTokens": rough_tokens(body)})
    if method == "embedContent":
        return Answer("meta", body={"embedding": {"values": [0.0] * 8}})
    if method not in ("generateContent", "streamGenerateContent"):
        return None
    config = body.get("generationConfig") or {}
    schema = config.get("responseJsonSchema") or config.get("responseSchema")
    main = bool(body.get("tools")) and method == "streamGenerateContent" and schema is None
    step: Step = script.take() if main else SIDE_REPLY
    if isinstance(step, ApiError):
        return error_answer(step, "main")
    if schema is not None:
        step = Reply(text=json.dumps(_filler(schema)))
    kind = "main" if main else "side"
    if method == "streamGenerateContent":
        return Answer(kind, stream=lambda sink: stream_reply(step, model, sink))
    return Answer(kind, body=whole_reply(step, model))


def error_answer(error: ApiError, kind: str) -> Answer:
    """Google's error envelope: `{"error": {"code", "message", "status"}}`."""
    body = {"error": {"code": error.status, "message": error.message,
                      "status": _STATUS_NAMES.get(error.status, "UNKNOWN")}}
    headers = {"retry-after": str(error.retry_after)} if error.retry_after is not None else {}
    return Answer(kind, status=error.status, body=body, headers=headers)


def _candidate(parts: list[dict], finish: str | None) -> dict:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish:
        candidate["finishReason"] = finish
    return candidate


def _chunk(parts: list[dict], model: str, finish: str | None = None, tokens: int = 0) -> dict:
    return {"candidates": [_candidate(parts, finish)], "modelVersion": model,
            "usageMetadata": {"promptTokenCount": 12, "candidatesTokenCount": tokens, "totalTokenCount": 12 + tokens}}


def _call_parts(reply: Reply) -> list[dict]:
    return [{"functionCall": {"name": call.name, "args": call.arguments, "id": call.call_id}} for call in reply.tool_calls]


def whole_reply(reply: Reply, model: str) -> dict:
    """A non-streamed `GenerateContentResponse`."""
    parts: list[dict] = []
    if reply.thinking:
        parts.append({"text": reply.thinking, "thought": True})
    if reply.text:
        parts.append({"text": reply.text})
    parts.extend(_call_parts(reply))
    return _chunk(parts, model, "STOP", rough_tokens(reply.text))


def stream_reply(reply: Reply, model: str, sink: EventSink) -> None:
    """`alt=sse` stream: one `data:` chunk per piece, the last one with `finishReason`."""
    if reply.thinking:
        sink.event(_chunk([{"text": reply.thinking, "thought": True}], model))
    for wait, piece in reply.pieces():
        sink.pause(wait)
        if piece:
            sink.event(_chunk([{"text": piece}], model))
    sink.event(_chunk(_call_parts(reply), model, "STOP", rough_tokens(reply.text)))


def _filler(schema: dict) -> Any:
    """A minimal value that satisfies a JSON schema of a side request (e.g. next-speaker check)."""
    kind = str(schema.get("type", "object")).lower()
    if "enum" in schema:
        values = list(schema["enum"])
        return "user" if "user" in values else values[0]
    if kind == "object":
        props = schema.get("properties") or {}
        return {name: ("user" if name == "next_speaker" else _filler(sub)) for name, sub in props.items()}
    if kind == "array":
        return []
    if kind == "boolean":
        return False
    if kind in ("number", "integer"):
        return 0
    return "scripted"

