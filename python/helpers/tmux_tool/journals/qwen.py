"""Qwen Code's record: the chat it saves as it goes, found by its process's pid.

Qwen Code (0.24.4, a Gemini CLI descendant) appends each session to
``<runtime>/projects/<project>/chats/<sessionId>.jsonl`` (runtime:
``QWEN_RUNTIME_DIR``, else the setting ``advanced.runtimeOutputDir``, else
``QWEN_HOME``, else ``~/.qwen``; project: the working directory with each
character other than a letter or digit made ``-``).  Beside it,
``<sessionId>.runtime.json`` names the process (``{"pid", "session_id",
"work_dir", ...}``), and ``<home>/sessions/<pid>.json`` names the session of
a running process (``{"pid", "sessionId", "cwd", ...}``; a ``/clear`` or
``/resume`` changes it).  So the chat of the CLI under the shell is the one of
the session a process under that shell says it runs, its ``runtime.json``
naming the same pid; the chat file itself appears with the first prompt.  When no process
says so (a release that stopped writing them), it is the chat file where this prompt appears, as
Gemini CLI's is found.  Nothing is added to the launch.

Records are ``{"uuid", "parentUuid", "sessionId", "timestamp", "type",
"message": {"role", "parts": [{"text"} | {"functionCall"} | ...]}, ...}``.  A
prompt is a ``user`` record (``provenance`` ``real_user``); each model
response is one ``assistant`` record written once it is complete - its text
exactly as the model sent it, fences, comments and trailing blank lines kept
(no partial records while it streams); tool results are ``tool_result``
records; ``system`` records carry snapshots and telemetry, among them the
failed request (``ui_telemetry``, ``uiEvent`` named ``qwen-code.api_error``,
with its ``error_message``), the only trace of a failed turn.  The answer is
the text of the last ``assistant`` record that has text.  Qwen Code records no
end of a turn and nothing while it waits for a permission: the screen tells.
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
    Feed,
    Journal,
    environ,
    holding_prompt,
    processes,
    recalled,
    remember,
    same_prompt,
    size,
    written_after,
)

API_ERROR = "qwen-code.api_error"


def _load(path: str) -> dict[str, Any]:
    """A small JSON file's object ({} when it is missing, odd or half-written)."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _folder(value: str, env: dict[str, str], cwd: str) -> str:
    """A folder as Qwen Code takes it from its environment: ``~`` is the home, a relative path is
    the working directory's."""
    if value == "~" or value.startswith("~/"):
        value = env.get("HOME", os.path.expanduser("~")) + value[1:]
    return os.path.normpath(os.path.join(cwd, value))


def homes(pid: int) -> list[str]:
    """The folders where the Qwen Code under the shell ``pid`` may keep its sessions and chats:
    its runtime folder first, then its home (``sessions/`` is under one of them)."""
    env = environ(pid)
    cwd = env.get("PWD", "/")
    home = env.get("QWEN_HOME") or ""
    qwen = _folder(home, env, cwd) if home else os.path.join(
        env.get("HOME") or os.path.expanduser("~"), ".qwen")
    found = [_folder(env["QWEN_RUNTIME_DIR"], env, cwd)] if env.get("QWEN_RUNTIME_DIR") else []
    advanced = _load(os.path.join(qwen, "settings.json")).get("advanced")
    configured = advanced.get("runtimeOutputDir") if isinstance(advanced, dict) else None
    if isinstance(configured, str) and configured:
        found.append(_folder(configured, env, cwd))
    return list(dict.fromkeys([*found, qwen]))


def chat_of(bases: list[str], pids: list[int]) -> Path | None:
    """The chat file of the session that one of ``pids`` runs, by ``sessions/<pid>.json`` under
    one of ``bases`` and the ``runtime.json`` beside the chat naming the same pid (the chat itself
    may not be written yet); None when no process says."""
    for pid in pids:
        for base in bases:
            session = _load(os.path.join(base, "sessions", f"{pid}.json"))
            ident = session.get("sessionId")
            if session.get("pid") != pid or not isinstance(ident, str) or not ident \
                    or os.sep in ident or ident.startswith("."):
                continue
            for home in bases:
                pattern = os.path.join(glob.escape(home), "projects", "*", "chats",
                                       glob.escape(ident) + ".runtime.json")
                for runtime in glob.glob(pattern):
                    if _load(runtime).get("pid") == pid:
                        return Path(runtime[: -len(".runtime.json")] + ".jsonl")
    return None


def _text(message: object) -> str | None:
    """The text parts of a record's message, joined (thoughts left out); None when it has none."""
    parts = message.get("parts") if isinstance(message, dict) else None
    if not isinstance(parts, list):
        return None
    texts = [p["text"] for p in parts
             if isinstance(p, dict) and isinstance(p.get("text"), str) and not p.get("thought")]
    return "".join(texts) if texts else None


def _failure(record: dict[str, Any]) -> str | None:
    """The error of a failed model request, from its telemetry record; None for any other."""
    payload = record.get("systemPayload")
    event = payload.get("uiEvent") if isinstance(payload, dict) else None
    if not isinstance(event, dict) or event.get("event.name") != API_ERROR:
        return None
    said = event.get("error_message")
    return said if isinstance(said, str) and said else "the model request failed"


@dataclass(slots=True)
class QwenReading(AppendedReading):
    """The chat records of one prompt's turn, read as Qwen Code appends them."""

    user_id: str | None = None

    def _look(self) -> None:
        """The chat the process names; else every chat written since the ask began, until one
        holds this prompt."""
        bases = homes(self.pid)
        named = chat_of(bases, processes(self.pid))
        if named is not None:
            self.record = Feed(named, 0)  # new since the ask began: its prompt is checked by time
        else:
            patterns = [os.path.join(glob.escape(b), "projects", "*", "chats", "*.jsonl")
                        for b in bases]
            for pattern in patterns:
                self.record = holding_prompt(self.feeds, pattern, self.since, self._take)
                if self.record is not None:
                    break
        if self.record is not None:
            remember(self.folder, chat=str(self.record.path))

    def _take(self, record: dict[str, Any]) -> bool:
        """Take one record; True when it is this prompt's own."""
        kind, ident = record.get("type"), str(record.get("uuid"))
        if kind == "user" and record.get("provenance", "real_user") == "real_user":
            text = _text(record.get("message"))
            if not self.started and written_after(record, self.since) \
                    and same_prompt(text, self.prompt):
                self.started, self.user_id = True, ident
                return True
            if self.started and text is not None and ident != self.user_id:
                self.closed = True  # a next prompt: this turn's records are complete
        elif not self.started or self.closed:
            return False
        elif kind == "assistant":
            text = _text(record.get("message"))
            self.error = None  # a response came after a failed request: it was tried again
            if text is not None:
                self.answer = text
        elif kind == "system" and (failed := _failure(record)) is not None:
            self.error = failed
        return False


class QwenJournal(Journal):
    """Qwen Code read from its saved chat."""

    cli = "Qwen Code"
    announces_end = False

    def begin(self, folder: Path, prompt: str, pid: int) -> QwenReading | None:
        reading = QwenReading(prompt, pid, folder, time.time())
        named = chat_of(homes(pid), processes(pid))
        known = str(named) if named is not None else recalled(folder).get("chat")
        if known and (named is not None or os.path.exists(known)):
            reading.record = Feed(Path(known), size(known))
            remember(folder, chat=known)
        return reading
