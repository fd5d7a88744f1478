"""The two ways an answer leaves the server: a whole JSON body or an SSE stream.

Protocol modules only describe events; this seam keeps socket details (chunked
transfer encoding, flushing after every event) in one place.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any, Protocol


class EventSink(Protocol):
    """Where a protocol writes the events of one streamed answer."""

    def event(self, data: Any, name: str | None = None) -> None:
        """Send one SSE event; `data` is JSON-encoded unless it is already a string."""

    def pause(self, seconds: float) -> None:
        """Wait between events (the scripted timing)."""


def encode_event(data: Any, name: str | None = None) -> bytes:
    """One SSE frame: optional `event:` line, one `data:` line, blank line."""
    payload = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
    head = f"event: {name}\n" if name else ""
    return f"{head}data: {payload}\n\n".encode()


class ListSink:
    """Collects events in memory; lets tests read a stream without sockets or waits."""

    def __init__(self) -> None:
        self.events: list[tuple[str | None, Any]] = []
        self.waited = 0.0

    def event(self, data: Any, name: str | None = None) -> None:
        self.events.append((name, data))

    def pause(self, seconds: float) -> None:
        self.waited += seconds


class WriterSink:
    """Streams events to an HTTP response as they are produced."""

    def __init__(self, write_chunk: Callable[[bytes], None], sleep: Callable[[float], None] = time.sleep) -> None:
        self._write_chunk = write_chunk
        self._sleep = sleep

    def event(self, data: Any, name: str | None = None) -> None:
        self._write_chunk(encode_event(data, name))

    def pause(self, seconds: float) -> None:
        if seconds > 0:
            self._sleep(seconds)
