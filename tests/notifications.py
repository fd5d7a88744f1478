"""A receiver of the tool's notifications for tests: Apprise's ``json://`` posts to a small HTTP server here.

A test module that uses the ``receiver`` fixture says ``pytest_plugins =
["tests.notifications"]`` (as for tests/accounts.py); the test sets
``TMUX_TOOL_NOTIFY`` to ``receiver.url`` where the tool should tell.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from python.helpers.tmux_tool.core import notify

from .conftest import poll


@dataclass
class Receiver:
    """An HTTP server that keeps what Apprise's ``json://`` posts; its answers wait while ``gate`` is shut."""

    port: int
    posts: list[dict[str, Any]] = field(default_factory=list)
    entered: threading.Event = field(default_factory=threading.Event)
    gate: threading.Event = field(default_factory=threading.Event)

    @property
    def url(self) -> str:
        return f"json://127.0.0.1:{self.port}/"

    @staticmethod
    def sending() -> list[int]:
        return notifiers()

    @staticmethod
    def done() -> None:
        notifiers_done()

    def asks(self) -> list[dict[str, Any]]:
        return [p for p in self.posts if p.get("title", "").endswith(" needs you") and "no longer" not in p["title"]]

    def answers(self) -> list[dict[str, Any]]:
        return [p for p in self.posts if p.get("title", "").endswith(" no longer needs you")]


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    box = Receiver(port=0)
    box.gate.set()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            box.entered.set()
            box.gate.wait(timeout=60)
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            box.posts.append(json.loads(body))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    box.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield box
    box.gate.set()
    notifiers_done()
    server.shutdown()
    server.server_close()


def notifiers() -> list[int]:
    """The notifying children this process started that still work (the tool's calls run in-process)."""
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            state, parent = (proc / "stat").read_text().rpartition(")")[2].split()[:2]
            if int(parent) == os.getpid() and state != "Z" and b"notify.py" in (proc / "cmdline").read_bytes():
                found.append(int(proc.name))
        except (OSError, ValueError):
            continue  # gone meanwhile
    return found


def notifiers_done() -> None:
    """Every notification the calls so far decided on is sent: no thread of ours is about to start a
    child, and no child is left."""
    def done() -> bool:
        return not any(t.name == notify.THREAD for t in threading.enumerate()) and not notifiers()

    assert poll(done, timeout=60, step=0.05), "a notifier is still at work"


__all__ = ["Receiver", "notifiers", "notifiers_done", "receiver"]
