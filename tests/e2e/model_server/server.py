"""The HTTP server: one loopback port that speaks every wire format the CLIs use.

It runs in a daemon thread of the test process (or of the capture script) so a
test can push script steps and read the request log while a CLI talks to it.
"""

from __future__ import annotations

import gzip
import json
import sys
import threading
import time
import zlib
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Self
from urllib.parse import parse_qsl, urlsplit

from . import anthropic, gemini, openai_chat, openai_responses
from .control import step_from_json
from .script import Script
from .sink import WriterSink
from .wire import Answer, Request, last_user_text


@dataclass
class LoggedRequest:
    """What a CLI asked and how the server read it; kept for assertions and README facts.

    ``prompt`` is the text of the request's last user message; ``received``
    and ``ended`` (``time.monotonic()``) say when the request came in and
    when the last byte of its answer left, so a test can tell which prompt
    a CLI sent and whether a tool returned before the answer was complete.
    """

    at: float
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: Any
    kind: str = "unknown"
    status: int = 0
    finished: bool = False
    prompt: str | None = None
    received: float = 0.0
    ended: float | None = None


def route(req: Request, script: Script) -> Answer:
    """Pick the protocol by path and headers; unknown calls get a 404 the CLI can survive."""
    if req.path == "/_control/push" and req.method == "POST":
        steps = [step_from_json(item) for item in (req.body or {}).get("steps", [])]
        script.push(*steps)
        return Answer("control", body={"queued": len(steps)})
    for candidate in (gemini.answer, anthropic.answer, openai_responses.answer, openai_chat.answer):
        if candidate is anthropic.answer and not anthropic.is_anthropic(req):
            continue
        found = candidate(req, script)
        if found is not None:
            return found
    return Answer("unknown", status=404, body={"error": {"message": f"no scripted route for {req.method} {req.path}"}})


def _decode_body(raw: bytes, encoding: str) -> Any:
    if encoding == "gzip":
        raw = gzip.decompress(raw)
    elif encoding == "deflate":
        raw = zlib.decompress(raw)
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return raw.decode("utf-8", "replace")


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        """Silence stderr; the request log is the record."""

    def _read_raw(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            parts = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    return b"".join(parts)
                parts.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _serve(self) -> None:
        split = urlsplit(self.path)
        headers = {key.lower(): value for key, value in self.headers.items()}
        body = _decode_body(self._read_raw(), headers.get("content-encoding", "").lower())
        req = Request(self.command, split.path, dict(parse_qsl(split.query)), headers, body)
        if req.path == "/_control/requests":
            self._send_json(Answer("control", body=[vars(entry) for entry in self.server.owner.calls()]))
            return
        received = time.monotonic()
        answer = route(req, self.server.owner.script)
        entry = LoggedRequest(time.time(), req.method, req.path, req.query, headers, body, answer.kind, answer.status,
                              prompt=last_user_text(body), received=received)
        self.server.owner.record(entry)
        try:
            if answer.stream is not None and answer.status == 200:
                self._send_stream(answer, entry)
            else:
                self._send_json(answer, entry)
            entry.finished = True
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _send_json(self, answer: Answer, entry: LoggedRequest | None = None) -> None:
        data = json.dumps(answer.body if answer.body is not None else {}).encode()
        self.send_response(answer.status)
        self.send_header("Content-Type", "application/json")
        for key, value in answer.headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if entry is not None:
            entry.ended = time.monotonic()  # stamped before the last byte: no client sees it earlier
        self.wfile.write(data)
        self.wfile.flush()

    def _send_stream(self, answer: Answer, entry: LoggedRequest) -> None:
        assert answer.stream is not None
        self.send_response(200)
        headers = {"Content-Type": "text/event-stream", "Cache-Control": "no-cache", **answer.headers}
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.wfile.flush()

        def write_chunk(data: bytes) -> None:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()

        answer.stream(WriterSink(write_chunk, self.server.owner.sleep))
        entry.ended = time.monotonic()  # stamped before the closing chunk: no client sees the end earlier
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _serve


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    owner: ModelServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A CLI hanging up mid-stream (Ctrl+C, kill) is normal here; anything else is reported."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@dataclass
class ModelServer:
    """A scripted model on 127.0.0.1 at a free port.

    Use as a context manager; `url` is the base to hand to a CLI, `script`
    takes the queued replies, `requests` is every call received, and
    `log_path` (optional) gets one JSON line per request for later study.
    """

    script: Script = field(default_factory=Script)
    log_path: Path | None = None
    host: str = "127.0.0.1"
    port: int = 0
    requests: list[LoggedRequest] = field(default_factory=list)
    _httpd: _Server | None = None
    _thread: threading.Thread | None = None
    _stopping: threading.Event = field(default_factory=threading.Event)
    stalled: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        """Base URL without a trailing slash, e.g. `http://127.0.0.1:40123`."""
        if self._httpd is None:
            raise RuntimeError("the model server is not started")
        return f"http://{self.host}:{self._httpd.server_address[1]}"

    def start(self) -> Self:
        """Bind and serve in a daemon thread."""
        self._httpd = _Server((self.host, self.port), _Handler)
        self._httpd.owner = self
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="model-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; streams in their pauses end early instead of holding the port."""
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()

    def sleep(self, seconds: float) -> None:
        """Scripted waits; cut short when the server stops.

        Waits of a second or more set `stalled` while they last, so a capture
        can take its "output is not moving" frames inside the stall.
        """
        if seconds < 1.0:
            self._stopping.wait(seconds)
            return
        self.stalled.set()
        try:
            self._stopping.wait(seconds)
        finally:
            self.stalled.clear()

    def record(self, entry: LoggedRequest) -> None:
        """Keep a request in memory and, when asked, in the JSON-lines log."""
        with self._lock:
            self.requests.append(entry)
            if self.log_path is not None:
                with self.log_path.open("a", encoding="utf-8") as handle:
                    handle.write(json.dumps({"at": entry.at, "kind": entry.kind, "status": entry.status,
                                             "method": entry.method, "path": entry.path, "query": entry.query,
                                             "headers": entry.headers, "body": entry.body}) + "\n")

    def calls(self, kind: str | None = None) -> list[LoggedRequest]:
        """A snapshot of the log, optionally only one kind (`main`, `side`, `meta`, `unknown`)."""
        with self._lock:
            return [entry for entry in self.requests if kind is None or entry.kind == kind]
