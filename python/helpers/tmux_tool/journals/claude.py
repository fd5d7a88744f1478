"""Claude Code's record: its hooks and its session transcript.

Started by the tool, Claude Code gets hooks in ``--settings`` (a file in
the session's folder: the user's own settings files stay untouched) that
hand each event's JSON to ``hook.py``:

* ``UserPromptSubmit`` - the prompt as submitted, its ``prompt_id`` and the
  ``transcript_path`` (a JSON-lines file per session);
* ``Stop`` - the turn of that ``prompt_id`` is over; ``last_assistant_message``
  is the model's final text with its trailing blank lines stripped;
* ``StopFailure`` - the turn ended on an API error (``error``);
* ``Notification`` with ``notification_type`` ``permission_prompt`` - it
  waits for a permission.

The exact answer is read from the transcript: the user entry with the
turn's ``promptId``, then the text blocks of the last assistant message
after it (entries of subagents, ``isSidechain``, are not the answer).  The
transcript may be written a moment after the Stop event, so it is read on
until the answer shows, for at most :data:`TRANSCRIPT_LAG`; then the Stop
event's own copy is taken, and the result says so.
"""

from __future__ import annotations

import json
import os
import shlex
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .journal import (
    EVENTS,
    Feed,
    Journal,
    Setup,
    Turn,
    events,
    hook_argv,
    last_event,
    same_prompt,
    size,
)

SETTINGS = "claude-settings.json"  # in the session's folder: the hooks, passed with --settings
HOOKED = ("SessionStart", "UserPromptSubmit", "Stop", "StopFailure", "Notification")
TRANSCRIPT_LAG = 1.0  # seconds the transcript may trail the Stop event


def _text_of(message: object) -> str | None:
    """The text blocks of an assistant message, joined; None when it has none."""
    if not isinstance(message, dict):
        return None
    content = message.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    texts = [b["text"] for b in content if isinstance(b, dict) and b.get("type") == "text"
             and isinstance(b.get("text"), str)]
    return "\n\n".join(texts) if texts else None


@dataclass(slots=True)
class ClaudeReading:
    """The events of one prompt's turn and, once it ended, its part of the transcript."""

    prompt: str
    feed: Feed
    transcript: Feed | None
    prompt_id: str | None = None
    started: bool = False
    ended_at: float | None = None
    last_message: str | None = None
    error: str | None = None
    asking: str | None = None
    found_user: bool = False
    closed: bool = False
    answer_id: str | None = None
    answer_parts: list[str] = field(default_factory=list)

    def turn(self) -> Turn:
        for event in events(self.feed):
            self._take(event)
        if not self.started:
            return Turn()
        if self.error is not None:
            return Turn(started=True, ended=True, error=self.error)
        if self.ended_at is None:
            return Turn(started=True, asking=self.asking)
        if self.transcript is not None:
            for entry in self.transcript:
                self._read(entry)
        answer = "".join(self.answer_parts) if self.answer_id is not None else None
        last = self.last_message
        if answer is not None and (last is None or answer.rstrip() == last.rstrip()):
            return Turn(started=True, ended=True, answer=answer)
        if time.monotonic() - self.ended_at < TRANSCRIPT_LAG:
            # the transcript trails the event: look again soon
            return Turn(started=True, ending=True)
        return Turn(started=True, ended=True, answer=last,
                    note="the transcript did not show this turn's answer; it is the Stop hook's "
                    "copy, without trailing blank lines")

    def watched(self) -> Path | None:
        return self.feed.path

    def _take(self, event: dict[str, Any]) -> None:
        name = event.get("hook_event_name")
        path = event.get("transcript_path")
        if isinstance(path, str) and (self.transcript is None
                                      or Path(path) != self.transcript.path):
            # a new transcript (the first one, or after /clear)
            self.transcript = Feed(Path(path), 0)
        if name == "UserPromptSubmit" and not self.started \
                and same_prompt(event.get("prompt"), self.prompt):
            self.started, self.prompt_id = True, _str(event.get("prompt_id"))
        elif not self.started:
            return
        elif name == "Stop" and self._ours(event):
            self.ended_at = time.monotonic()
            self.last_message = _str(event.get("last_assistant_message"))
        elif name == "StopFailure" and self._ours(event):
            self.error = _str(event.get("error")) or "the request failed"
        elif name == "Notification" and event.get("notification_type") == "permission_prompt":
            self.asking = _str(event.get("message")) or "a permission"

    def _ours(self, event: dict[str, Any]) -> bool:
        given = event.get("prompt_id")
        return given is None or self.prompt_id is None or given == self.prompt_id

    def _read(self, entry: dict[str, Any]) -> None:
        """Take one transcript entry: find this prompt's user entry, then its last answer."""
        if entry.get("isSidechain") or self.closed:
            return
        kind, message = entry.get("type"), entry.get("message")
        prompted = kind == "user" and isinstance(entry.get("promptId"), str) \
            and isinstance(message, dict) and isinstance(message.get("content"), str)
        if prompted and entry.get("promptId") == self.prompt_id:
            self.found_user, self.answer_id, self.answer_parts = True, None, []
        elif prompted and self.found_user:
            self.closed = True  # the next prompt's turn: this one's answer is complete
        elif kind == "assistant" and self.found_user:
            text = _text_of(message)
            if text is None:
                return
            ident = _str(message.get("id")) if isinstance(message, dict) else None
            if ident != self.answer_id or ident is None:
                self.answer_id, self.answer_parts = ident or "", []
            elif self.answer_parts:
                text = "\n\n" + text  # one message written as several entries, one per text block
            self.answer_parts.append(text)


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


class ClaudeJournal(Journal):
    """Claude Code told to report by hooks passed in ``--settings``."""

    cli = "Claude Code"

    def setup(self, folder: Path) -> Setup:
        command = shlex.join(hook_argv(folder))
        hooks = {name: [{"hooks": [{"type": "command", "command": command}]}] for name in HOOKED}
        path = folder / SETTINGS
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump({"hooks": hooks}, fh)
        return Setup(args=("--settings", str(path)))

    def begin(self, folder: Path, prompt: str, pid: int) -> ClaudeReading | None:
        if not (folder / EVENTS).exists():
            return None
        last = last_event(folder) or {}
        path = last.get("transcript_path")
        transcript = Feed(Path(path), size(path)) if isinstance(path, str) else None
        return ClaudeReading(prompt, Feed(folder / EVENTS, size(folder / EVENTS)), transcript)

