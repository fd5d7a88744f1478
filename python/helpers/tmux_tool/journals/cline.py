"""Cline CLI's record: the session's messages file it writes again whole, found by its process.

Cline CLI (npm ``cline`` 3.0.65, a Bun-compiled binary over ``@cline/core``
0.0.86) keeps each session in ``<sessions>/<session id>/``: a manifest
``<id>.json`` and the conversation ``<id>.messages.json``, each written again
whole, in place, at every change; no file of it is held open.  The folder is
``<data>/sessions`` of the data folder ``--data-dir`` names (or
``CLINE_SANDBOX=1``: ``CLINE_SANDBOX_DATA_DIR``, else
``<tmp>/cline-sandbox``; relative to ``--cwd``), else
``CLINE_SESSION_DATA_DIR``, else ``CLINE_DATA_DIR/sessions``, else
``<cline dir>/data/sessions`` (cline dir: ``--config``, else ``CLINE_DIR``,
else ``~/.cline``), as the TUI process has them (``/proc``: its arguments,
environment and working directory).  Nothing is added to the launch.

Who writes it: the TUI that finds no hub running (its first start in a data
folder) starts one, ``cline --cline-hub-daemon`` in a session of its own, and
runs its own sessions itself; a TUI that finds a hub has the hub run them and
only draws.  The manifest's ``pid`` is the process that runs the session, so
the session of the CLI under the shell is one whose manifest names a process
under that shell or a hub daemon, and whose messages hold this prompt, written
after the ask began (a hub runs the sessions of every TUI that reaches it: the
prompt and its time tell them apart).  It is remembered: its manifest is
watched from the start of the session's next turn.

The manifest is ``{"session_id", "pid", "status", "cwd", "prompt" (the
session's first), "messages_path", "metadata", ...}``; ``status`` turns
``running`` when a prompt is submitted, before any message of its turn is
written, ``pending`` while a tool call waits for the user's approval, and
``idle`` once the turn is over (failed or cancelled too; ``completed``,
``failed`` or ``cancelled`` when the session ends), after the turn's last
messages.  So the messages are read first and the manifest after them: once
they hold this prompt, the status read is this turn's or a later one, never
the one before it.

The messages file is ``{"sessionId", "messages": [{"id", "role", "content":
[blocks], "ts" (epoch milliseconds), ...}], "system_prompt"}``.  A message is
written once it is complete: the prompt comes with the model's first whole
response (while the answer streams or stalls, neither is there).  A prompt
is a user message whose text is ``<user_input mode="act">PROMPT</user_input>``
(``plan``/``yolo`` modes alike; a mode switch adds a ``<mode_notice>``).  A
step that calls tools is an assistant message with ``tool_use`` blocks (its
``text`` the words before the call), followed by a user message of
``tool_result`` blocks, then the next step.  A failed request is an assistant
message with ``metadata.displayRole`` ``error`` whose text is the error (for
the scripted HTTP 400, "scripted failure"); a cancelled turn leaves the prompt
alone.  Cline 3 gives the model no ``attempt_completion`` tool (its tools are
``read_files``, ``run_commands``, ``editor``, ``ask_question``, ``spawn_agent``
and the like): a response without tool calls is the final one, and the answer
is its text, the model's exactly - what the screen shows as the answer.
"""

from __future__ import annotations

import glob
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .journal import (
    Journal,
    Process,
    Rewritten,
    Turn,
    message_text,
    processes,
    program,
    recalled,
    remember,
    same_prompt,
    written_after,
)

MESSAGES = ".messages.json"
HUB = "--cline-hub-daemon"  # the argument that makes a cline process the hub daemon
OVER = ("idle", "completed", "failed", "cancelled")  # a manifest's status once no turn runs
ASKING = "pending"
TYPED = re.compile(r"<user_input\b[^>]*>(.*?)</user_input>", re.DOTALL)
NOTICE = re.compile(r"<mode_notice>.*?</mode_notice>", re.DOTALL)


def _option(argv: list[str], *names: str) -> str | None:
    """The value of the last of ``names`` given in ``argv`` (``--name value`` or
    ``--name=value``), as the CLI's option parser takes it."""
    found = None
    for i, arg in enumerate(argv[1:], start=1):
        for name in names:
            if arg == name and i + 1 < len(argv):
                found = argv[i + 1]
            elif arg.startswith(name + "="):
                found = arg[len(name) + 1:]
    return found


def sessions_folder(proc: Process) -> str:
    """The folder the Cline CLI process ``proc`` keeps its sessions in."""
    env, argv = proc.env, proc.argv
    workdir = os.path.join(proc.cwd, _option(argv, "--cwd", "-c") or "")
    given = _option(argv, "--data-dir")
    if given is not None or env.get("CLINE_SANDBOX", "").strip() == "1":
        data = (given or "").strip() or env.get("CLINE_SANDBOX_DATA_DIR", "").strip() \
            or os.path.join(env.get("TMPDIR") or "/tmp", "cline-sandbox")
        return os.path.normpath(os.path.join(workdir, data, "sessions"))
    if chosen := env.get("CLINE_SESSION_DATA_DIR", "").strip():
        return os.path.normpath(os.path.join(proc.cwd, chosen))
    if data := env.get("CLINE_DATA_DIR", "").strip():
        return os.path.normpath(os.path.join(proc.cwd, data, "sessions"))
    home = env.get("HOME", "").strip()
    cline = (_option(argv, "--config") or "").strip() or env.get("CLINE_DIR", "").strip() \
        or os.path.join(home if home and home != "~" else os.path.expanduser("~"), ".cline")
    return os.path.normpath(os.path.join(proc.cwd, cline, "data", "sessions"))


def _hub(pid: int) -> bool:
    """Whether ``pid`` is a Cline hub daemon, by its arguments."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return HUB.encode() in fh.read().split(b"\0")
    except OSError:
        return False


def _typed(message: object) -> str | None:
    """What the user typed, when ``message`` is a prompt (None for any other message)."""
    if not isinstance(message, dict) or message.get("role") != "user":
        return None
    text = message_text(message.get("content"))
    found = TYPED.search(NOTICE.sub("", text)) if text is not None else None
    return found.group(1) if found else None


def _calls(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    return [b for b in content if isinstance(b, dict) and b.get("type") == "tool_use"] \
        if isinstance(content, list) else []


def _asked_for(calls: list[dict[str, Any]]) -> str:
    """What the tool calls waiting for approval would do: each tool's name, and its commands."""
    said = []
    for call in calls:
        name = call.get("name")
        given = call.get("input")
        commands = given.get("commands") if isinstance(given, dict) else None
        listed = [c for c in commands if isinstance(c, str)] if isinstance(commands, list) else []
        name = name if isinstance(name, str) else "a tool"
        said.append(f"{name}: {'; '.join(listed)}" if listed else name)
    return ", ".join(said) or "a tool call"


def asked_at(data: dict[str, Any] | None, prompt: str, since: float) -> int | None:
    """Where in a messages file's messages this prompt is, written after ``since`` (None when it
    is not there)."""
    messages = data.get("messages") if data is not None else None
    if not isinstance(messages, list):
        return None
    return next((i for i, m in enumerate(messages)
                 if same_prompt(_typed(m), prompt) and written_after(m, since, "ts")), None)


def turn_of(data: dict[str, Any] | None, prompt: str, since: float, status: object) -> Turn:
    """This prompt's turn, from the session's messages (``data``) and the manifest's ``status``
    read after them."""
    start = asked_at(data, prompt, since)
    if data is None or start is None:
        return Turn()
    turn: list[dict[str, Any]] = []
    for message in data["messages"][start + 1:]:
        if _typed(message) is not None:
            break  # the next prompt: this turn's messages are complete
        if isinstance(message, dict):
            turn.append(message)
    last = turn[-1] if turn else {}
    calls = _calls(last) if last.get("role") == "assistant" else []
    if status == ASKING and calls:
        return Turn(started=True, asking=_asked_for(calls))
    if status not in OVER:
        return Turn(started=True)
    if last.get("role") != "assistant" or calls:
        return Turn(started=True, ended=True)  # cancelled before an answer: none to give
    metadata = last.get("metadata")
    if isinstance(metadata, dict) and metadata.get("displayRole") == "error":
        return Turn(started=True, ended=True, error=message_text(last.get("content")) or "the request failed")
    return Turn(started=True, ended=True, answer=message_text(last.get("content")) or "")


@dataclass(slots=True)
class ClineReading:
    """One prompt's turn, read from the session files Cline CLI writes again at every change."""

    prompt: str
    pid: int
    folder: Path
    since: float
    known: Path | None = None  # the manifest of the session an earlier turn found
    messages: Rewritten | None = None
    manifest: Rewritten | None = None
    candidates: dict[str, Rewritten] = field(default_factory=dict)

    def turn(self) -> Turn:
        if self.messages is None:
            self._look()
        if self.messages is None or self.manifest is None:
            return Turn()
        data = self.messages.read()  # first: the manifest is written after the messages
        manifest = self.manifest.read()
        if data is None or not self.messages.whole:  # half-written this look
            return Turn(started=True)
        return turn_of(data, self.prompt, self.since, manifest.get("status") if manifest else None)

    def watched(self) -> Path | None:
        return self.manifest.path if self.manifest else self.known

    def _look(self) -> None:
        """The session, among those written since the ask began and run by a process under the
        shell or a hub daemon, whose messages hold this prompt."""
        proc = program(self.pid)
        if proc is None:
            return
        ours = processes(self.pid)
        pattern = os.path.join(glob.escape(sessions_folder(proc)), "*", "*" + MESSAGES)
        for path in glob.glob(pattern):
            ident = os.path.basename(path)[: -len(MESSAGES)]
            manifest = os.path.join(os.path.dirname(path), ident + ".json")
            try:
                fresh = os.stat(path).st_mtime >= self.since - 1
            except OSError:
                continue
            if not fresh or os.path.basename(os.path.dirname(path)) != ident:
                continue  # an older session, or a subagent's messages beside its parent's
            runner = (Rewritten(Path(manifest)).read() or {}).get("pid")
            if not isinstance(runner, int) or not (runner in ours or _hub(runner)):
                continue
            messages = self.candidates.setdefault(path, Rewritten(Path(path)))
            if asked_at(messages.read(), self.prompt, self.since) is not None:
                self.messages, self.manifest = messages, Rewritten(Path(manifest))
                remember(self.folder, session=manifest)
                return


class ClineJournal(Journal):
    """Cline CLI read from its session's messages and manifest."""

    cli = "Cline CLI"

    def begin(self, folder: Path, prompt: str, pid: int) -> ClineReading | None:
        known = recalled(folder).get("session")
        return ClineReading(prompt, pid, folder, time.time(),
                            Path(known) if known and os.path.exists(known) else None)
