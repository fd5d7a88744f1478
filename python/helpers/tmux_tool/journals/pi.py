"""pi's record: the session file it appends as it goes, found by the prompt.

pi (``@mariozechner/pi-coding-agent``, as of 0.73.1) keeps each session as a
JSON-lines file ``<folder>/<start time>_<session id>.jsonl``.  The folder is
``--session-dir``, else ``PI_CODING_AGENT_SESSION_DIR``, else the
``sessionDir`` of its settings (the project's ``.pi/settings.json`` over the
agent folder's), else ``<agent folder>/sessions/--<cwd, / as ->--`` (agent
folder: ``PI_CODING_AGENT_DIR``, else ``~/.pi/agent``), as the running
process has them (``/proc``: its arguments, environment, working directory).
pi opens the file for each append only, and writes it first with the
session's first answer (the header, the prompt and the answer at once): the
session's file is the one of that folder where this prompt appears, written
after the ask began; it is remembered for the later turns.  Nothing is added
to the launch.

Lines are a ``session`` header, then entries ``{"type", "id", "parentId",
"timestamp"}``; a ``message`` entry holds ``message: {"role": "user" |
"assistant" | "toolResult", "content"}`` (a string, or blocks ``text`` /
``toolCall`` / ``thinking``), an assistant's with its ``stopReason`` and, for
a failure, ``errorMessage``.  Each message is appended once, whole, when it
is complete: an answer that streams (or stalls) is not in the file before
its last byte.  A step that calls tools ends ``toolUse`` and is followed by
its ``toolResult`` messages and the next step.  The answer is the text of
the turn's last assistant message, ended ``stop`` (or ``length``); ``error``
or ``aborted`` is a failed turn.  pi tries some failures again itself
(overloaded, 5xx, network: the failed step stays in the file, the retried
one follows) and records no end of a turn: the screen says when it is over.
"""

from __future__ import annotations

import glob
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .journal import (
    AppendedReading,
    Journal,
    Process,
    holding_prompt,
    message_text,
    program,
    remember,
    same_prompt,
    written_after,
)

FAILED = ("error", "aborted")  # an assistant message's stopReason for a failed step
SESSION_DIR = "PI_CODING_AGENT_SESSION_DIR"
AGENT_DIR = "PI_CODING_AGENT_DIR"


def _home(path: str, env: dict[str, str]) -> str:
    """``~`` and ``~/...`` expanded against the process's HOME, as pi does."""
    home = env.get("HOME") or os.path.expanduser("~")
    return home + path[1:] if path == "~" or path.startswith("~/") else path


def _setting(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return None
    found = data.get("sessionDir") if isinstance(data, dict) else None
    return found if isinstance(found, str) and found else None


def session_files(proc: Process) -> str:
    """The pattern of the session files of the folder pi saves this session in."""
    agent = _home(proc.env.get(AGENT_DIR) or "~/.pi/agent", proc.env)
    argv = proc.argv
    given = next((argv[i + 1] for i, a in enumerate(argv[:-1]) if a == "--session-dir"), None)
    chosen = proc.env.get(SESSION_DIR)
    folder = given or (_home(chosen, proc.env) if chosen else None)
    if folder is None:
        setting = _setting(os.path.join(proc.cwd, ".pi", "settings.json")) \
            or _setting(os.path.join(agent, "settings.json"))
        folder = _home(setting, proc.env) if setting else None
    if folder is None:
        project = "--" + proc.cwd.lstrip("/").replace("/", "-").replace(":", "-") + "--"
        folder = os.path.join(agent, "sessions", project)
    return os.path.join(glob.escape(os.path.join(proc.cwd, folder)), "*.jsonl")


@dataclass(slots=True)
class PiReading(AppendedReading):
    """The session entries of one prompt's turn, read as pi appends them."""

    def _look(self) -> None:
        """Read every session file written since the ask began until one holds this prompt."""
        proc = program(self.pid)
        pattern = session_files(proc) if proc is not None else None
        self.record = holding_prompt(self.feeds, pattern, self.since, self._take)
        if self.record is not None:
            remember(self.folder, session=str(self.record.path))

    def _take(self, line: dict[str, Any]) -> bool:
        """Take one line; True when it is this prompt's own message."""
        message = line.get("message")
        if line.get("type") != "message" or not isinstance(message, dict):
            return False
        role = message.get("role")
        if role == "user":
            if not self.started and written_after(line, self.since) \
                    and same_prompt(message_text(message.get("content")), self.prompt):
                self.started = True
                return True
            if self.started:
                self.closed = True  # a next prompt: this turn's messages are complete
        elif self.started and not self.closed and role == "assistant":
            self._step(message)
        return False

    def _step(self, message: dict[str, Any]) -> None:
        """An assistant message: a step with tools leaves the turn open, a last one answers it or
        says it failed (a retried step follows a failed one, and replaces it)."""
        stop = message.get("stopReason")
        self.answer = self.error = None
        if stop in FAILED:
            said = message.get("errorMessage")
            self.error = said if isinstance(said, str) and said else f"the step ended {stop}"
        elif stop != "toolUse":
            self.answer = message_text(message.get("content")) or ""


class PiJournal(Journal):
    """pi read from its session file."""

    cli = "pi"
    announces_end = False

    def begin(self, folder: Path, prompt: str, pid: int) -> PiReading | None:
        return PiReading(prompt, pid, folder, time.time()).resume("session")
