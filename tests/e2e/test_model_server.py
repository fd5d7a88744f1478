"""Wire formats of the scripted model server, checked over real HTTP on 127.0.0.1.

The CLIs only work against the server if every stream parses the way their
SDKs parse it, so these tests read the raw SSE bytes back and rebuild the
answer from the events, the way a client does.
"""

from __future__ import annotations

import http.client
import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.model_server import ApiError, ModelServer, Reply, Script, ToolCall

TIMEOUT = 10


@pytest.fixture
def server() -> Iterator[ModelServer]:
    with ModelServer() as running:
        yield running


def _post(server: ModelServer, path: str, body: Any, headers: dict[str, str] | None = None) -> tuple[int, dict, bytes]:
    host, port = server.url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=TIMEOUT)
    try:
        conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json", **(headers or {})})
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        conn.close()


def _get(server: ModelServer, path: str) -> tuple[int, Any]:
    host, port = server.url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=TIMEOUT)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, json.loads(response.read())
    finally:
        conn.close()


def _sse(raw: bytes) -> list[tuple[str | None, str]]:
    """Split an SSE body into (event name, data) pairs."""
    events = []
    for frame in raw.decode().split("\n\n"):
        if not frame.strip():
            continue
        name = None
        data = []
        for line in frame.split("\n"):
            if line.startswith("event: "):
                name = line[len("event: "):]
            elif line.startswith("data: "):
                data.append(line[len("data: "):])
        events.append((name, "\n".join(data)))
    return events


ANTHROPIC_HEADERS = {"anthropic-version": "2023-06-01", "x-api-key": "k"}
TOOL = [{"name": "Bash", "input_schema": {"type": "object"}}]


def test_anthropic_stream_rebuilds_text_and_ends_with_message_stop(server: ModelServer) -> None:
    server.script.push(Reply(text="Hello **there**\n$ ", chunk_size=3, chunk_delay=0.0))
    status, headers, raw = _post(server, "/v1/messages?beta=true",
                                 {"model": "claude-x", "stream": True, "tools": TOOL, "messages": []},
                                 ANTHROPIC_HEADERS)
    assert status == 200
    assert headers["Content-Type"].startswith("text/event-stream")
    events = _sse(raw)
    names = [name for name, _ in events]
    assert names[0] == "message_start" and names[-2:] == ["message_delta", "message_stop"]
    for name, data in events:
        assert json.loads(data)["type"] == name
    text = "".join(json.loads(data)["delta"]["text"] for name, data in events
                   if name == "content_block_delta" and json.loads(data)["delta"]["type"] == "text_delta")
    assert text == "Hello **there**\n$ "
    assert json.loads(events[-2][1])["delta"]["stop_reason"] == "end_turn"
    assert server.calls("main")[0].query == {"beta": "true"}


def test_anthropic_tool_use_streams_input_json(server: ModelServer) -> None:
    server.script.push(Reply(text="", tool_calls=(ToolCall("Bash", {"command": "touch f"}, "toolu_1"),)))
    _, _, raw = _post(server, "/v1/messages", {"model": "m", "stream": True, "tools": TOOL, "messages": []},
                      ANTHROPIC_HEADERS)
    events = [json.loads(data) for _, data in _sse(raw)]
    start = next(e for e in events if e["type"] == "content_block_start")
    assert start["content_block"] == {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {}}
    partial = "".join(e["delta"]["partial_json"] for e in events
                      if e["type"] == "content_block_delta" and e["delta"]["type"] == "input_json_delta")
    assert json.loads(partial) == {"command": "touch f"}
    assert next(e for e in events if e["type"] == "message_delta")["delta"]["stop_reason"] == "tool_use"


def test_anthropic_side_call_does_not_consume_the_script(server: ModelServer) -> None:
    server.script.push(Reply(text="for the main turn"))
    status, _, raw = _post(server, "/v1/messages", {"model": "haiku", "messages": [], "max_tokens": 20},
                           ANTHROPIC_HEADERS)
    assert status == 200
    assert json.loads(raw)["content"][0]["type"] == "text"
    assert len(server.script.steps) == 1
    assert server.calls("side") and not server.calls("main")


def test_anthropic_count_tokens_and_models(server: ModelServer) -> None:
    status, _, raw = _post(server, "/v1/messages/count_tokens", {"messages": [{"role": "user", "content": "hi"}]},
                           ANTHROPIC_HEADERS)
    assert status == 200 and json.loads(raw)["input_tokens"] >= 1
    status, body = _get(server, "/v1/models")
    assert status == 200 and body["data"]


@pytest.mark.parametrize(("code", "kind"), [(500, "api_error"), (401, "authentication_error"),
                                            (429, "rate_limit_error")])
def test_anthropic_scripted_error_repeats_for_retries(server: ModelServer, code: int, kind: str) -> None:
    server.script.push(ApiError(code, "scripted failure", count=2, retry_after=1), Reply(text="after"))
    for _ in range(2):
        status, headers, raw = _post(server, "/v1/messages", {"stream": True, "tools": TOOL, "messages": []},
                                     ANTHROPIC_HEADERS)
        assert status == code
        assert json.loads(raw) == {"type": "error", "error": {"type": kind, "message": "scripted failure"}}
        assert headers["retry-after"] == "1"
    status, _, _ = _post(server, "/v1/messages", {"stream": True, "tools": TOOL, "messages": []}, ANTHROPIC_HEADERS)
    assert status == 200


def test_gemini_stream_sse_chunks_and_finish_reason(server: ModelServer) -> None:
    server.script.push(Reply(text="one two three", chunk_size=4, chunk_delay=0.0, thinking="hmm"))
    status, _, raw = _post(server, "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
                           {"contents": [], "tools": [{"functionDeclarations": []}]})
    assert status == 200
    chunks = [json.loads(data) for _, data in _sse(raw)]
    parts = [part for chunk in chunks for part in chunk["candidates"][0]["content"]["parts"]]
    assert parts[0] == {"text": "hmm", "thought": True}
    assert "".join(p["text"] for p in parts if "text" in p and not p.get("thought")) == "one two three"
    assert chunks[-1]["candidates"][0]["finishReason"] == "STOP"
    assert all(chunk["candidates"][0]["content"]["role"] == "model" for chunk in chunks)
    assert server.calls("main")[0].query == {"alt": "sse"}


def test_gemini_function_call_and_generate_content(server: ModelServer) -> None:
    server.script.push(Reply(tool_calls=(ToolCall("run_shell_command", {"command": "ls"}),)))
    _, _, raw = _post(server, "/v1beta/models/m:streamGenerateContent?alt=sse",
                      {"contents": [], "tools": [{"functionDeclarations": []}]})
    last = json.loads(_sse(raw)[-1][1])
    assert last["candidates"][0]["content"]["parts"][0]["functionCall"]["name"] == "run_shell_command"
    status, _, raw = _post(server, "/v1beta/models/m:generateContent", {"contents": []})
    assert status == 200 and json.loads(raw)["candidates"][0]["content"]["parts"][0]["text"]


def test_gemini_json_side_call_gets_a_schema_shaped_answer(server: ModelServer) -> None:
    schema = {"type": "object", "properties": {"reasoning": {"type": "string"},
                                               "next_speaker": {"type": "string", "enum": ["user", "model"]}}}
    status, _, raw = _post(server, "/v1beta/models/flash:generateContent",
                           {"contents": [], "generationConfig": {"responseMimeType": "application/json",
                                                                 "responseJsonSchema": schema}})
    answer = json.loads(json.loads(raw)["candidates"][0]["content"]["parts"][0]["text"])
    assert status == 200 and answer == {"reasoning": "scripted", "next_speaker": "user"}


def test_gemini_error_envelope_and_count_tokens(server: ModelServer) -> None:
    server.script.push(ApiError(429, "quota"))
    status, _, raw = _post(server, "/v1beta/models/m:streamGenerateContent?alt=sse",
                           {"contents": [], "tools": [{}]})
    assert status == 429
    assert json.loads(raw) == {"error": {"code": 429, "message": "quota", "status": "RESOURCE_EXHAUSTED"}}
    status, _, raw = _post(server, "/v1beta/models/m:countTokens", {"contents": []})
    assert status == 200 and json.loads(raw)["totalTokens"] >= 1


def test_responses_stream_event_order_and_text(server: ModelServer) -> None:
    server.script.push(Reply(text="abc def", chunk_size=2, chunk_delay=0.0,
                             tool_calls=(ToolCall("exec_command", {"cmd": "ls"}, "call_9"),)))
    status, _, raw = _post(server, "/v1/responses", {"model": "gpt", "stream": True, "tools": [{"name": "x"}]})
    assert status == 200
    events = _sse(raw)
    for name, data in events:
        assert json.loads(data)["type"] == name
    names = [name for name, _ in events]
    assert names[0] == "response.created" and names[-1] == "response.completed"
    deltas = "".join(json.loads(d)["delta"] for n, d in events if n == "response.output_text.delta")
    assert deltas == "abc def"
    completed = json.loads(events[-1][1])["response"]
    assert completed["status"] == "completed" and completed["usage"]["total_tokens"] > 0
    assert [item["type"] for item in completed["output"]] == ["message", "function_call"]
    assert completed["output"][1]["call_id"] == "call_9"
    assert json.loads(completed["output"][1]["arguments"]) == {"cmd": "ls"}


def test_chat_completions_stream_ends_with_done(server: ModelServer) -> None:
    server.script.push(Reply(text="x" * 10, chunk_size=4, chunk_delay=0.0,
                             tool_calls=(ToolCall("bash", {"command": "ls"}),)))
    status, _, raw = _post(server, "/v1/chat/completions",
                           {"model": "m", "stream": True, "stream_options": {"include_usage": True},
                            "tools": [{"type": "function"}], "messages": [{"role": "user", "content": "hi"}]})
    assert status == 200
    events = [data for _, data in _sse(raw)]
    assert events[-1] == "[DONE]"
    chunks = [json.loads(data) for data in events[:-1]]
    text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"])
    assert text == "x" * 10
    finishes = [c["choices"][0]["finish_reason"] for c in chunks if c["choices"]]
    assert finishes[-1] == "tool_calls"
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["total_tokens"] > 0


def test_chat_title_request_is_a_side_call(server: ModelServer) -> None:
    server.script.push(Reply(text="main"))
    status, _, raw = _post(server, "/v1/chat/completions",
                           {"model": "m", "messages": [{"role": "system", "content": "You are a title generator."},
                                                       {"role": "user", "content": "hi"}]})
    assert status == 200 and json.loads(raw)["choices"][0]["message"]["content"]
    assert len(server.script.steps) == 1


@pytest.mark.parametrize(("path", "body", "headers"), [
    ("/v1/messages", {"model": "claude-x", "stream": True, "tools": TOOL, "messages": [
        {"role": "user", "content": "first question"}, {"role": "assistant", "content": "first answer"},
        {"role": "user", "content": [{"type": "text", "text": "<system-reminder>x</system-reminder>"},
                                     {"type": "text", "text": "the second prompt"}]}]}, ANTHROPIC_HEADERS),
    ("/v1beta/models/gemini-2.5-pro:streamGenerateContent", {"tools": [{}], "contents": [
        {"role": "user", "parts": [{"text": "first question"}]}, {"role": "model", "parts": [{"text": "a"}]},
        {"role": "user", "parts": [{"text": "the second prompt"}]}]}, None),
    ("/v1/responses", {"model": "gpt", "stream": True, "tools": [{"name": "x"}], "input": [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "first question"}]},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "the second prompt"}]}]},
     None),
    ("/v1/chat/completions", {"model": "m", "stream": True, "tools": [{"type": "function"}], "messages": [
        {"role": "user", "content": "first question"}, {"role": "assistant", "content": "a"},
        {"role": "user", "content": "the second prompt"}]}, None),
], ids=["anthropic", "gemini", "responses", "chat"])
def test_the_record_holds_the_prompt_and_when_the_last_byte_left(server: ModelServer, path: str, body: dict,
                                                                 headers: dict[str, str] | None) -> None:
    """Each main request is logged with its last user message and the moment its answer ended."""
    server.script.push(Reply(text="the answer", chunk_size=3, chunk_delay=0.05))
    started = time.monotonic()
    status, _, _ = _post(server, path, body, headers)
    returned = time.monotonic()
    assert status == 200
    (entry,) = server.calls("main")
    assert entry.prompt is not None and entry.prompt.endswith("the second prompt")
    assert "first question" not in entry.prompt
    assert entry.ended is not None and started <= entry.received < entry.ended <= returned
    assert entry.ended - entry.received >= 0.05 * 3  # four pieces, three waits between them


def test_stream_timing_honours_first_delay_and_pauses(server: ModelServer) -> None:
    server.script.push(Reply(text="abcdef", chunk_size=2, chunk_delay=0.0, first_delay=0.3, pauses=((4, 1.2),)))
    started = time.monotonic()
    _post(server, "/v1/chat/completions", {"stream": True, "tools": [{}], "messages": []})
    elapsed = time.monotonic() - started
    assert 1.4 <= elapsed < 5


def test_stalled_flag_is_set_only_during_long_pauses(server: ModelServer) -> None:
    server.script.push(Reply(text="abcd", chunk_size=2, pauses=((2, 1.5),)))
    done = threading.Event()
    threading.Thread(target=lambda: (_post(server, "/v1/responses", {"stream": True, "tools": [{}]}), done.set()),
                     daemon=True).start()
    assert server.stalled.wait(TIMEOUT)
    assert done.wait(TIMEOUT)
    assert not server.stalled.is_set()


def test_unknown_route_is_a_logged_404(server: ModelServer) -> None:
    status, _, _ = _post(server, "/nowhere", {})
    assert status == 404
    assert server.calls("unknown")[0].path == "/nowhere"


def test_control_push_queues_json_steps(server: ModelServer) -> None:
    status, _, raw = _post(server, "/_control/push", {"steps": [{"text": "hi", "chunk_size": 1},
                                                               {"error": 401, "message": "bad key"}]})
    assert status == 200 and json.loads(raw) == {"queued": 2}
    assert server.script.steps[0] == Reply(text="hi", chunk_size=1)
    assert server.script.steps[1] == ApiError(401, "bad key")


def test_reply_pieces_cover_text_with_pauses() -> None:
    reply = Reply(text="0123456789", chunk_size=4, chunk_delay=0.1, first_delay=2.0, pauses=((5, 3.0),))
    pieces = list(reply.pieces())
    assert "".join(text for _, text in pieces) == "0123456789"
    assert pieces[0] == (2.0, "0123")
    assert (3.1, "5678") in pieces


def test_empty_script_answers_with_a_default_reply() -> None:
    assert isinstance(Script().take(), Reply)
