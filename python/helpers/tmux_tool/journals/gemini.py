"""Gemini CLI's record: the chat it saves as it goes, found by the prompt.

Gemini CLI appends each session to a JSON-lines chat file,
``<home>/.gemini/tmp/<project>/chats/session-<time>-<id>.jsonl`` (home:
``GEMINI_CLI_HOME``, else ``HOME``, as the running process has them), and
opens it for each write only.  So the file of a session is the one of that
folder where this prompt appears, as a ``user`` record written after the ask
began; it is remembered for the session's later turns.  Nothing is added to
the launch: Gemini CLI takes hooks only from settings files (the user's, or
a system file that must belong to root), and the tool changes neither.

Records are ``{"id", "timestamp", "type": "user" | "gemini" | "error" |
"info", "content", "toolCalls"}``; a ``gemini`` record is written again
under its id when its tool calls finish, and ``{"$set": ...}`` lines update
the session (their ``messages`` hold records too).  The answer is the last
``gemini`` record's ``content``: the model's text as Gemini CLI saves it,
without leading and trailing blank lines, HTML comments and zero-width
characters (the result says so).  Gemini CLI
records no end of a turn: the screen says when it is over.
"""

from __future__ import annotations

import glob
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .journal import (
    AppendedReading,
    Journal,
    environ,
    holding_prompt,
    remember,
    same_prompt,
    written_after,
)

TRIMMED = ("Gemini CLI saves an answer without its leading and trailing blank lines, HTML comments "
           "(<!-- -->) and zero-width characters")


def _chats(pid: int) -> str:
    env = environ(pid)
    home = env.get("GEMINI_CLI_HOME") or env.get("HOME") or os.path.expanduser("~")
    return os.path.join(glob.escape(home), ".gemini", "tmp", "*", "chats", "session-*.jsonl")


def _text(content: object) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [b["text"] for b in content
                 if isinstance(b, dict) and isinstance(b.get("text"), str)]
        return "".join(texts) if texts else None
    return None


@dataclass(slots=True)
class GeminiReading(AppendedReading):
    """The chat records of one prompt's turn, read as Gemini CLI appends them."""

    user_id: str | None = None
    NOTE = TRIMMED

    def _look(self) -> None:
        """Read every chat file written since the ask began until one holds this prompt."""
        self.record = holding_prompt(self.feeds, _chats(self.pid), self.since, self._take)
        if self.record is not None:
            remember(self.folder, chat=str(self.record.path))

    def _take(self, line: dict[str, Any]) -> bool:
        """Take one line; True when it is this prompt's own record."""
        updates = line.get("$set")
        if not isinstance(updates, dict):
            return self._record(line)
        messages = updates.get("messages")
        records = [r for r in messages if isinstance(r, dict)] if isinstance(messages, list) else []
        if self.started:  # the whole list again: only what follows this turn's prompt is news
            ids = [str(r.get("id")) for r in records]
            records = records[ids.index(self.user_id) + 1:] if self.user_id in ids else []
        found = False
        for record in records:
            found = self._record(record) or found
        return found

    def _record(self, record: dict[str, Any]) -> bool:
        kind, ident = record.get("type"), str(record.get("id"))
        if kind == "user":
            text = _text(record.get("content"))
            if not self.started and written_after(record, self.since) \
                    and same_prompt(text, self.prompt):
                self.started, self.user_id = True, ident
                return True
            if self.started and text is not None and ident != self.user_id:
                self.closed = True  # a next prompt: this turn's records are complete
        elif self.started and not self.closed and kind == "gemini":
            text = _text(record.get("content"))
            if text is not None:
                self.answer = text
        elif self.started and not self.closed and kind == "error":
            self.error = _text(record.get("content")) or "the request failed"
        return False


class GeminiJournal(Journal):
    """Gemini CLI read from its saved chat."""

    cli = "Gemini CLI"
    announces_end = False

    def begin(self, folder: Path, prompt: str, pid: int) -> GeminiReading | None:
        return GeminiReading(prompt, pid, folder, time.time()).resume("chat")
