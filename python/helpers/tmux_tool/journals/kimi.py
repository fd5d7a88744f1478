"""Kimi CLI's record: the session's wire file, found through the kernel.

Kimi CLI keeps each session in ``<share>/sessions/<md5 of the working
directory>/<session id>/`` (share: ``KIMI_SHARE_DIR``, else ``~/.kimi``).
Its process renames itself and blanks its environment as ``/proc`` shows it,
but it holds its log, ``<share>/logs/kimi.log``, open: that names the share
folder, and the process's working directory names the project.  The session
files are opened for each write only, and ``wire.jsonl`` appears with the
first prompt, so the session's file is the one of that folder where this
prompt appears, written after the ask began; it is remembered for the later
turns.  Nothing is added to the launch.

``wire.jsonl`` lines are ``{"timestamp": <epoch seconds>, "message": {"type",
"payload"}}``.  A turn is ``TurnBegin`` (the prompt in ``user_input``), steps
(``StepBegin``; ``ContentPart`` text - the model's text, exactly; tool calls
and their results; ``StepRetry`` for a request tried again), then
``TurnEnd``, also after a failed step (``StepInterrupted``).  The answer is
the text of the last step.  Kimi writes nothing while it waits for an
approval: the screen tells that.
"""

from __future__ import annotations

import glob
import hashlib
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .journal import (
    Feed,
    Journal,
    Turn,
    holders,
    holding_prompt,
    recalled,
    remember,
    same_prompt,
    size,
)

LOG = os.path.join("logs", "kimi.log")
WIRE = "wire.jsonl"
FAILED = ("the turn was interrupted: its model request failed after Kimi CLI's retries, or it was "
          "cancelled (the screen shows which)")


def _wires(pid: int) -> str | None:
    """The pattern of the wire files of the project Kimi runs in under the shell ``pid``."""
    for holder, path in holders(pid, lambda p: p.endswith(os.sep + LOG)):
        try:
            cwd = os.readlink(f"/proc/{holder}/cwd")
        except OSError:
            continue
        share = path[: -len(LOG) - 1]
        project = hashlib.md5(cwd.encode("utf-8", "surrogateescape"),
                              usedforsecurity=False).hexdigest()
        return os.path.join(glob.escape(share), "sessions", project, "*", WIRE)
    return None


def _prompt(payload: dict[str, Any]) -> str | None:
    parts = payload.get("user_input")
    if isinstance(parts, str):
        return parts
    if not isinstance(parts, list):
        return None
    texts = [p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)]
    return "".join(texts) if texts else None


@dataclass(slots=True)
class KimiReading:
    """The wire lines of one prompt's turn, read as Kimi CLI appends them."""

    prompt: str
    pid: int
    folder: Path
    since: float
    feeds: list[Feed] = field(default_factory=list)
    wire: Feed | None = None
    started: bool = False
    ended: bool = False
    answer: str = ""
    error: str | None = None

    def turn(self) -> Turn:
        if self.wire is None:
            self._look()
        if self.wire is not None:
            for line in self.wire:
                self._take(line)
        if not self.started:
            return Turn()
        if self.ended and self.error is not None:
            return Turn(started=True, ended=True, error=self.error)
        return Turn(started=True, ended=self.ended, answer=self.answer if self.ended else None)

    def watched(self) -> Path | None:
        return self.wire.path if self.wire else None

    def _look(self) -> None:
        """Read every wire file written since the ask began until one holds this prompt."""
        self.wire = holding_prompt(self.feeds, _wires(self.pid), self.since, self._take)
        if self.wire is not None:
            remember(self.folder, wire=str(self.wire.path))

    def _take(self, line: dict[str, Any]) -> bool:
        """Take one line; True when it begins this prompt's turn."""
        message = line.get("message")
        stamp = line.get("timestamp")
        if not isinstance(message, dict) or not isinstance(payload := message.get("payload"), dict):
            return False
        kind = message.get("type")
        if kind == "TurnBegin":
            if not self.started and isinstance(stamp, (int, float)) and stamp >= self.since \
                    and same_prompt(_prompt(payload), self.prompt):
                self.started = True
                return True
            if self.started:
                self.ended = True  # a next turn began: this one is over
        elif not self.started or self.ended:
            return False
        elif kind == "StepBegin":
            self.answer, self.error = "", None
        elif kind == "ContentPart" and payload.get("type") == "text" \
                and isinstance(payload.get("text"), str):
            self.answer += payload["text"]
        elif kind == "StepInterrupted":
            self.error = FAILED
        elif kind == "TurnEnd":
            self.ended = True
        return False


class KimiJournal(Journal):
    """Kimi CLI read from its session's wire file."""

    cli = "Kimi CLI"

    def begin(self, folder: Path, prompt: str, pid: int) -> KimiReading | None:
        known = recalled(folder).get("wire")
        reading = KimiReading(prompt, pid, folder, time.time())
        if known and os.path.exists(known):
            reading.wire = Feed(Path(known), size(known))
        return reading
