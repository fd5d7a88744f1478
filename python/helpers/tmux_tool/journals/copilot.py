"""GitHub Copilot CLI's record: the session's event log, found through the kernel.

Copilot CLI (``@github/copilot`` 1.0.102) keeps each session in a folder
``<home>/.copilot/session-state/<session id>/`` (``COPILOT_HOME`` moves the
home): ``events.jsonl``, appended as the session goes (opened for each
write), beside ``workspace.yaml`` and a pair ``inuse.<pid>.lock`` /
``inuse.<pid>.hold`` of the process that has the session open.  That
process (the native program under the Node loader) holds the ``.hold`` file
open while it runs, so the session of this CLI is the folder of the hold
file its process tree has open (``/proc``): no guess from a clock, a folder
or a prompt.  A new session in the same process (``/new``, ``/clear``)
brings a new folder: it is looked for until the prompt shows, and its file
read from its start, a prompt taken only if written after the ask began.
Nothing is added to the launch.

Lines are ``{"type", "data", "id", "timestamp", "parentId"}``.  A prompt's
turn, as 1.0.102 writes it:

* ``user.message`` - ``data.content`` the prompt as typed, ``messageId``;
* per model call, ``assistant.turn_start`` (``turnId`` "0", "1", ...), then
  ``assistant.message`` - ``content``, the model's text of that call exactly
  as it streamed (no deltas are written: the message comes whole, once), and
  ``toolRequests``, the tools it asks for - then ``assistant.turn_end``;
* a tool's ``tool.execution_start`` / ``tool.execution_complete``, and
  between them, when it asks, ``permission.requested`` (``fullCommandText``,
  ``intention``) and ``permission.completed``.

So the answer is the ``content`` of the last ``assistant.message`` of the
prompt, and the turn is over at the ``assistant.turn_end`` of a call whose
message asked for no tool.  A failed request writes ``assistant.turn_end``
with no message, then ``session.error`` (``message``, e.g. "400 scripted
failure", ``originatingMessageId`` the prompt's ``messageId``) a moment
later: a call that ended without a message is read on for
:data:`ERROR_LAG` before it counts as ended with no answer.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .journal import (
    Feed,
    Journal,
    Turn,
    open_files,
    recalled,
    remember,
    same_prompt,
    size,
    written_after,
)

EVENTS = "events.jsonl"  # in the session's folder
HOLD = re.compile(r"/session-state/[^/]+/inuse\.\d+\.hold$")
ERROR_LAG = 1.0  # seconds a session.error may trail the end of a call that wrote no message


def _sessions(pid: int) -> list[str]:
    """The event files of the sessions the Copilot CLI under ``pid`` has open."""
    holds = open_files(pid, lambda path: HOLD.search(path) is not None)
    return [os.path.join(os.path.dirname(path), EVENTS) for path in holds]


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


@dataclass(slots=True)
class CopilotReading:
    """The events of one prompt's turn, read as Copilot CLI appends them."""

    prompt: str
    pid: int
    folder: Path
    since: float
    feeds: list[Feed] = field(default_factory=list)
    message_id: str | None = None
    started: bool = False
    closed: bool = False
    answer: str | None = None
    said: bool = False  # the current model call wrote its message
    tools: bool = False  # that message asked for tools: more calls follow
    ended: bool = False
    bare_end: float | None = None  # when a call ended without a message (an error may follow)
    error: str | None = None
    asking: str | None = None

    def turn(self) -> Turn:
        if not self.started:
            self._look_for_new_files()
        for feed in self.feeds:
            for line in feed:
                self._take(line)
        if not self.started:
            return Turn()
        if self.error is not None:
            return Turn(started=True, ended=True, error=self.error)
        if self.ended:
            return Turn(started=True, ended=True, answer=self.answer)
        if self.bare_end is not None:
            if time.monotonic() - self.bare_end < ERROR_LAG:
                return Turn(started=True, ending=True)
            return Turn(started=True, ended=True, answer=self.answer)
        return Turn(started=True, asking=self.asking)

    def watched(self) -> Path | None:
        return self.feeds[-1].path if self.feeds else None

    def _look_for_new_files(self) -> None:
        """A session Copilot CLI opened since (its first, or a new one after /new)."""
        known = {str(f.path) for f in self.feeds}
        for path in _sessions(self.pid):
            if path not in known:
                self.feeds.append(Feed(Path(path), 0))
                remember(self.folder, events=path)

    def _take(self, line: dict[str, Any]) -> None:
        kind, data = line.get("type"), line.get("data")
        if not isinstance(data, dict) or self.closed:
            return
        if kind == "user.message":
            if not self.started and written_after(line, self.since) \
                    and same_prompt(data.get("content"), self.prompt):
                self.started, self.message_id = True, _str(data.get("messageId"))
            elif self.started:
                self.closed = True  # the next prompt: this turn's events are complete
        elif not self.started:
            return
        elif kind == "assistant.turn_start":
            self.bare_end, self.said, self.tools, self.ended = None, False, False, False
        elif kind == "assistant.message":
            content = data.get("content")
            requests = data.get("toolRequests")
            self.tools = isinstance(requests, list) and len(requests) > 0
            self.said = True
            if isinstance(content, str) and not self.tools:
                self.answer = content
        elif kind == "assistant.turn_end":
            if not self.said:
                self.bare_end = time.monotonic()
            elif not self.tools:
                self.ended = True
        elif kind == "session.error":
            origin = data.get("originatingMessageId")
            if origin is None or origin == self.message_id:
                self.error = _str(data.get("message")) or "the request failed"
        elif kind == "permission.requested":
            request = data.get("permissionRequest")
            request = request if isinstance(request, dict) else {}
            self.asking = (_str(request.get("fullCommandText")) or _str(request.get("intention"))
                           or "a permission")
        elif kind == "permission.completed":
            self.asking = None


class CopilotJournal(Journal):
    """Copilot CLI read from the session event log whose hold file its process keeps open."""

    cli = "Copilot CLI"

    def begin(self, folder: Path, prompt: str, pid: int) -> CopilotReading | None:
        paths = dict.fromkeys([*_sessions(pid), *filter(None, [recalled(folder).get("events")])])
        return CopilotReading(prompt, pid, folder, time.time(),
                              [Feed(Path(p), size(p)) for p in paths if os.path.exists(p)])
