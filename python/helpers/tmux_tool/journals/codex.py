"""Codex's record: the session's rollout file, found through the kernel.

Codex writes each session ("thread") to a JSON-lines rollout file,
``rollout-<time>-<thread id>.jsonl`` under its home's ``sessions`` folder,
made when the first prompt is submitted and held open while the TUI runs.
Its name holds the local time of day, so it is not rebuilt from a clock:
the file is the one the Codex process has open (``/proc``), remembered
once found.  Only a prompt written after the ask began is this turn's: a
file first found mid-turn is read from its start, where an earlier turn
may have had the same prompt.  Nothing is
added to the launch: a notify program or hooks set by the tool would
replace the user's own, and hooks from the command line must be trusted
first, which would also let the project's untrusted hooks run.

Lines are ``{"type": ..., "payload": {...}}``.  A turn is:

* ``event_msg`` ``task_started`` with its ``turn_id``;
* ``response_item`` ``message`` ``role: user``, the prompt as
  ``input_text``, tied to the turn by
  ``internal_chat_message_metadata_passthrough.turn_id``;
* ``response_item`` ``message`` ``role: assistant`` with ``output_text``
  blocks - the model's text, exactly (the last of them is the answer);
* ``event_msg`` ``task_complete`` (``error`` set when it failed) or
  ``turn_aborted`` (interrupted, or an approval refused).

Codex writes no line while it waits for an approval: the screen tells that.
"""

from __future__ import annotations

import fnmatch
import os
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

ROLLOUT = "rollout-*.jsonl"


def _rollouts(pid: int) -> list[str]:
    return open_files(pid, lambda path: fnmatch.fnmatchcase(os.path.basename(path), ROLLOUT))


def _texts(payload: dict[str, Any], kind: str) -> str | None:
    content = payload.get("content")
    if not isinstance(content, list):
        return None
    texts = [b["text"] for b in content if isinstance(b, dict) and b.get("type") == kind
             and isinstance(b.get("text"), str)]
    return "".join(texts) if texts else None


def _turn_of(payload: dict[str, Any]) -> str | None:
    meta = payload.get("internal_chat_message_metadata_passthrough")
    turn = meta.get("turn_id") if isinstance(meta, dict) else None
    return turn if isinstance(turn, str) else None


@dataclass(slots=True)
class CodexReading:
    """The rollout lines of one prompt's turn, read as Codex appends them."""

    prompt: str
    pid: int
    folder: Path
    since: float
    feeds: list[Feed] = field(default_factory=list)
    turn_id: str | None = None
    answer: str | None = None
    ended: bool = False
    error: str | None = None

    def turn(self) -> Turn:
        if self.turn_id is None:
            self._look_for_new_files()
        for feed in self.feeds:
            for line in feed:
                self._take(line)
        if self.turn_id is None:
            return Turn()
        if self.error is not None:
            return Turn(started=True, ended=True, error=self.error)
        return Turn(started=True, ended=self.ended,
                    answer=(self.answer or "") if self.ended else None)

    def watched(self) -> Path | None:
        return self.feeds[-1].path if self.feeds else None

    def _look_for_new_files(self) -> None:
        """A rollout Codex opened since (its first prompt, or a new thread after /new)."""
        known = {str(f.path) for f in self.feeds}
        for path in _rollouts(self.pid):
            if path not in known:
                self.feeds.append(Feed(Path(path), 0))
                remember(self.folder, rollout=path)

    def _take(self, line: dict[str, Any]) -> None:
        payload = line.get("payload")
        if not isinstance(payload, dict):
            return
        kind, what = line.get("type"), payload.get("type")
        if kind == "response_item" and what == "message":
            role, turn = payload.get("role"), _turn_of(payload)
            if role == "user" and self.turn_id is None and written_after(line, self.since) \
                    and same_prompt(_texts(payload, "input_text"), self.prompt):
                self.turn_id = turn
            elif role == "assistant" and turn is not None and turn == self.turn_id:
                text = _texts(payload, "output_text")
                if text is not None:
                    self.answer = text
        elif kind == "event_msg" and self.turn_id is not None \
                and payload.get("turn_id") == self.turn_id:
            if what == "task_complete":
                self.ended = True
                error = payload.get("error")
                if isinstance(error, dict):
                    self.error = str(error.get("message") or "the request failed")
            elif what == "turn_aborted":
                self.ended, self.error = True, ("the turn was aborted "
                                                f"({payload.get('reason') or 'interrupted'})")


class CodexJournal(Journal):
    """Codex read from the rollout file its process holds open."""

    cli = "Codex"

    def begin(self, folder: Path, prompt: str, pid: int) -> CodexReading | None:
        paths = dict.fromkeys([*_rollouts(pid), *filter(None, [recalled(folder).get("rollout")])])
        return CodexReading(prompt, pid, folder, time.time(),
                            [Feed(Path(p), size(p)) for p in paths])
