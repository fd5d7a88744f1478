"""Continue's CLI's record: the session file it writes anew at each change, found by the prompt.

Continue's CLI (``@continuedev/cli`` 1.5.47, the command ``cn``) keeps each
session as one JSON file, ``<continue home>/sessions/<session id>.json``,
beside ``sessions.json``, its list of sessions.  The continue home is
``CONTINUE_GLOBAL_DIR``, taken against the working directory when relative,
else ``~/.continue``, as the running process has them (``/proc``: its
environment and working directory; cn first loads the ``.env`` of its working
directory into its environment, unseen by ``/proc``, without overriding what
is set).  Its arguments do not move the folder (``--config`` names the
settings only; ``--resume`` goes on in the newest file, ``--fork`` starts a new
one).  The session's id is in no argument and no open file (its log,
``logs/cn.log``, is opened only once something is logged): the file is
written with the first prompt, opened for each write only, and written anew,
whole, at every change of the session (a message, a tool's state, the title,
the token usage) - truncated, then written, so a read may catch it empty or
cut.  So the session's file is the one of that folder where this prompt
appears past the messages the file held when the ask began (a file made
since, from its start; the files there then are read once, while no earlier
turn found the file); it is remembered for the later turns.  Nothing is
added to the launch.

The file is ``{"sessionId", "title", "workspaceDirectory", "history",
"usage"}``; ``history`` holds ``{"message": {"role", "content", "toolCalls",
"usage"}, "contextItems", "toolCallStates", ...}`` in order.  A prompt is a
``user`` message, its text as typed (a paste expanded).  Each model step is one
``assistant`` message added once its stream is complete: nothing of an answer
is written while it streams or stalls.  A step that calls tools carries
``toolCalls``, and their progress and output in ``toolCallStates``
(``generated``, ``calling``, then ``done``, ``errored`` or ``canceled``).  cn
writes no question: it waits for a permission with the call ``generated``,
every call's first state, so a call in it while the screen shows the
question is the one asked about.  A step with no tool calls is the turn's
last: its ``content`` is the answer, exactly, and it ends the turn (one with
neither text nor tool calls is not written: that turn never ends in the
file).  A failed
request (after cn's own retries of 429, 502-504, ``server_error`` and broken
connections) is shown as a system message, which cn leaves out of the file:
the prompt stays without an answer, and the failure is the screen's to tell.
A history rewritten under the turn (a compaction's summary in place of its
messages) takes the prompt away: the turn is then the screen's too.
"""

from __future__ import annotations

import glob
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .journal import (
    Journal,
    Process,
    Rewritten,
    Turn,
    message_text,
    program,
    recalled,
    remember,
    same_prompt,
)

GLOBAL_DIR = "CONTINUE_GLOBAL_DIR"
LIST = "sessions.json"  # the list of sessions, beside their files
# a line of a .env file as cn's dotenv (16.6.1) reads it: a name, then a quoted or a bare value
DOTENV = re.compile(r"^\s*(?:export\s+)?([\w.-]+)(?:\s*=\s*?|:\s+?)(\s*'(?:\\'|[^'])*'|\s*\"(?:\\\"|[^\"])*\""
                    r"|\s*`(?:\\`|[^`])*`|[^#\r\n]+)?\s*(?:#.*)?$", re.MULTILINE | re.ASCII)
QUOTED = re.compile(r"^(['\"`])([\s\S]*)\1$", re.MULTILINE)


def dotenv(text: str, name: str) -> str | None:
    """The value a ``.env`` file's ``text`` gives ``name`` as dotenv reads it (the last line that
    names it; quotes taken off, ``\\n`` a newline in double quotes), None when it gives none."""
    found = None
    for match in DOTENV.finditer(text.replace("\r\n", "\n").replace("\r", "\n")):
        if match.group(1) == name:
            value = (match.group(2) or "").strip()
            found = QUOTED.sub(r"\2", value)
            if value.startswith('"'):
                found = found.replace("\\n", "\n").replace("\\r", "\r")
    return found


def sessions_folder(proc: Process) -> str:
    """The folder cn keeps its sessions in, as the process ``proc`` has it: ``CONTINUE_GLOBAL_DIR``
    of its environment, else of the ``.env`` of its working directory (which cn loads into its
    environment, unseen by ``/proc``), taken against that directory; else ``~/.continue``."""
    home = proc.env.get(GLOBAL_DIR)
    if home is None:
        try:
            with open(os.path.join(proc.cwd, ".env"), encoding="utf-8", errors="replace") as fh:
                home = dotenv(fh.read(), GLOBAL_DIR)
        except OSError:
            home = None
    if not home:
        home = os.path.join(proc.env.get("HOME") or os.path.expanduser("~"), ".continue")
    return os.path.normpath(os.path.join(proc.cwd, home, "sessions"))


def _files(sessions: str) -> list[str]:
    return [p for p in glob.glob(os.path.join(glob.escape(sessions), "*.json"))
            if os.path.basename(p) != LIST]


def _history(session: dict[str, Any] | None) -> list[Any]:
    history = session.get("history") if session is not None else None
    return history if isinstance(history, list) else []


def _message(item: object) -> dict[str, Any]:
    message = item.get("message") if isinstance(item, dict) else None
    return message if isinstance(message, dict) else {}


def _waiting(step: dict[str, Any]) -> str | None:
    """The tool call of a step that has not started (``generated``), as ``name arguments``: while
    the screen shows cn's question, the call it asks about; None when every call has started."""
    states = step.get("toolCallStates")
    for state in states if isinstance(states, list) else []:
        call = state.get("toolCall") if isinstance(state, dict) else None
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict) and state.get("status") == "generated":
            name, arguments = function.get("name"), function.get("arguments")
            return " ".join(a for a in (name, arguments) if isinstance(a, str)) or "a tool"
    return None


@dataclass(slots=True)
class CnReading:
    """One prompt's turn in the session file cn writes anew.  ``files``: the session files that
    may hold it, each with the number of messages it held when the ask began (a file made since:
    0); ``there``: every file there then (one of them not in ``files`` may hold only earlier
    prompts, as far as the tool can tell); ``known``: the file an earlier turn found."""

    prompt: str
    sessions: str
    folder: Path
    there: frozenset[str] = frozenset()
    files: dict[str, tuple[Rewritten, int]] = field(default_factory=dict)
    known: str | None = None
    record: Rewritten | None = None
    index: int = 0  # where the prompt is in the record's history
    done: Turn | None = None  # the end the record proved: a later rewrite does not undo it

    def turn(self) -> Turn:
        if self.done is not None:
            return self.done
        if self.record is None:
            self._look()
        if self.record is None:
            return Turn()
        history = _history(self.record.read())
        if self.index >= len(history) or not self._asks(history[self.index]):
            return Turn()  # the history was rewritten: the prompt is gone
        step: dict[str, Any] | None = None  # the turn's last step so far
        for item in history[self.index + 1:]:
            role = _message(item).get("role")
            if role == "user":
                break  # a next prompt
            if role == "assistant" and isinstance(item, dict):
                step = item
        if step is None:
            return Turn(started=True)
        message = _message(step)
        if message.get("toolCalls"):  # a step with tools: more follow
            return Turn(started=True, asking=_waiting(step))
        self.done = Turn(started=True, ended=True, answer=message_text(message.get("content")))
        return self.done

    def watched(self) -> Path | None:
        if self.record is not None:
            return self.record.path
        return Path(self.known) if self.known else None

    def _asks(self, item: object) -> bool:
        message = _message(item)
        return message.get("role") == "user" and same_prompt(message_text(message.get("content")), self.prompt)

    def _look(self) -> None:
        """Find the file where this prompt was added since the ask began: in a file there then,
        past the messages it held; in a file made since, anywhere."""
        for path in _files(self.sessions):
            if path not in self.there:
                self.files.setdefault(path, (Rewritten(Path(path)), 0))
        for path, (file, held) in self.files.items():
            history = _history(file.read())
            found = next((i for i in range(held, len(history)) if self._asks(history[i])), None)
            if found is not None:
                self.record, self.index = file, found
                remember(self.folder, session=path)
                return


class CnJournal(Journal):
    """cn read from its session file, in the folder its process names."""

    cli = "cn"
    records_failures = False

    def begin(self, folder: Path, prompt: str, pid: int) -> CnReading | None:
        proc = program(pid)
        if proc is None:
            return None
        sessions = sessions_folder(proc)
        there = _files(sessions)
        known = recalled(folder).get("session")
        known = known if known in there else None
        reading = CnReading(prompt, sessions, folder, frozenset(there), known=known)
        # the file an earlier turn found; else every file there (once per session of the tool)
        for path in [known] if known else there:
            file = Rewritten(Path(path))
            if (session := file.read()) is not None:  # one caught half-written stays out
                reading.files[path] = (file, len(_history(session)))
        return reading
