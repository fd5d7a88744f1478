"""What the scripted model says: replies, tool calls, API errors and their timing.

Tests need an AI CLI to be busy, to stream, to stall mid-answer and to fail on
demand, so every answer is a value queued in advance instead of a model's whim.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ToolCall:
    """A tool the model asks the CLI to run (names differ per CLI: `Bash`, `run_shell_command`, ...)."""

    name: str
    arguments: dict[str, Any]
    call_id: str = "call_0001"


@dataclass(frozen=True)
class Reply:
    """One scripted answer and how it trickles out.

    `first_delay` is the silence before the first byte (the CLI shows its busy
    spinner), `chunk_size`/`chunk_delay` shape the stream, and `pauses` holds
    `(character offset, seconds)` stalls in the middle of the text so a test can
    see a busy screen whose output does not change.
    """

    text: str = ""
    chunk_size: int = 16
    chunk_delay: float = 0.02
    first_delay: float = 0.0
    pauses: tuple[tuple[int, float], ...] = ()
    thinking: str = ""
    tool_calls: tuple[ToolCall, ...] = ()

    def pieces(self) -> Iterator[tuple[float, str]]:
        """Yield `(seconds to wait before sending, text piece)` for the answer text.

        An empty text still yields one empty piece so `first_delay` is honoured
        before a tool call.
        """
        if not self.text:
            yield self.first_delay, ""
            return
        stops = sorted({offset for offset, _ in self.pauses if 0 < offset < len(self.text)})
        pause_at = {offset: 0.0 for offset in stops}
        for offset, seconds in self.pauses:
            if offset in pause_at:
                pause_at[offset] += seconds
        bounds = [0, *stops, len(self.text)]
        wait = self.first_delay
        for start, end in itertools.pairwise(bounds):
            size = max(1, self.chunk_size)
            for cut in range(start, end, size):
                yield wait + (self.chunk_delay if cut else 0.0), self.text[cut : min(cut + size, end)]
                wait = 0.0
            wait = pause_at.get(end, 0.0)


@dataclass(frozen=True)
class ApiError:
    """An HTTP error answer; `count` consecutive main requests get it (CLIs retry)."""

    status: int = 500
    message: str = "scripted server error"
    count: int = 1
    retry_after: int | None = None


Step = Reply | ApiError

DEFAULT_REPLY = Reply(text="(the scripted model has nothing queued)")
SIDE_REPLY = Reply(text="Scripted session", chunk_delay=0.0)


@dataclass
class Script:
    """Thread-safe queue of steps consumed by main conversation turns only.

    Side calls a CLI makes on its own (titles, quota probes, next-speaker
    checks) get `SIDE_REPLY` and never consume a step, so a test's queue lines
    up with the prompts it sends.
    """

    steps: deque[Step] = field(default_factory=deque)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _changed: threading.Condition = field(init=False)
    _served: int = 0

    def __post_init__(self) -> None:
        self._changed = threading.Condition(self._lock)

    def push(self, *steps: Step) -> None:
        """Queue steps for the next main turns."""
        with self._lock:
            self.steps.extend(steps)
            self._changed.notify_all()

    def clear(self) -> None:
        """Drop every queued step."""
        with self._lock:
            self.steps.clear()

    def take(self) -> Step:
        """The step for the main turn being served now."""
        with self._lock:
            self._served += 1
            self._changed.notify_all()
            if not self.steps:
                return DEFAULT_REPLY
            step = self.steps[0]
            if isinstance(step, ApiError) and step.count > 1:
                self.steps[0] = ApiError(step.status, step.message, step.count - 1, step.retry_after)
            else:
                self.steps.popleft()
            return step

    @property
    def served(self) -> int:
        """How many main turns were answered so far."""
        with self._lock:
            return self._served

    def wait_served(self, count: int, timeout: float) -> bool:
        """Block until `count` main turns were served, or the timeout passes."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while self._served < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._changed.wait(left)
            return True
