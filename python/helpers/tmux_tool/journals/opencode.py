"""OpenCode's record: its SQLite database, found through the kernel.

OpenCode keeps every session in one SQLite database (``opencode.db`` under
its data folder, or where ``OPENCODE_DB`` says), open while the TUI runs:
the tool finds it among the files the process holds open (``/proc``) and
reads it through a read-only connection, so nothing is added to the launch.

A turn is a ``message`` row whose JSON ``data`` has ``role: user``, with a
``part`` row of ``type: text`` holding the prompt, and the ``assistant``
messages whose ``parentID`` is that user message: one per model step.  The
turn is over when the last of them has ``time.completed`` and a ``finish``
other than ``tool-calls``, or an ``error`` (an API error, an abort).  Its
text parts, in order, are the model's text exactly.  A permission OpenCode
waits for is not in the database: the screen tells that.

Kilo CLI (an OpenCode fork; read from ``@kilocode/cli`` 7.7.7) keeps the same
tables with the same JSON in ``kilo.db`` under its own data folder (or where
``KILO_DB`` says), so this reader serves it, given that file name.  What
differs (OpenCode 1.18.33 beside it) is out of the reader's way: Kilo
deletes a failed turn's assistant message, with its ``error``, when the next
prompt is sent (a failure is read while its turn is the last), and puts a
transient ``synthetic`` text part ("Initializing snapshot…") in a step,
deleted before the step ends.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .journal import Journal, Turn, open_files, recalled, remember, same_prompt

DATABASE = "opencode.db"
KILO_DATABASE = "kilo.db"  # Kilo CLI's, the same database
BUSY_MS = 200  # how long a read waits on a locked database before trying at the next look

# A row whose data is no JSON would make json_extract fail the whole query, and one stray row
# hide every turn: each field is read only from valid JSON (CASE, unlike AND, keeps that order).
_USERS = ("select m.id, p.data from message m join part p on p.message_id = m.id "
          "where m.time_created >= ? "
          "and case when json_valid(m.data) then json_extract(m.data, '$.role') end = 'user' "
          "and case when json_valid(p.data) then json_extract(p.data, '$.type') end = 'text' "
          "order by m.time_created, m.id, p.id")
_STEPS = ("select id, data from message "
          "where case when json_valid(data) then json_extract(data, '$.parentID') end = ? "
          "order by time_created, id")
_TEXTS = ("select data from part where message_id = ? "
          "and case when json_valid(data) then json_extract(data, '$.type') end = 'text' "
          "order by id")


def _json(data: object) -> dict[str, Any]:
    try:
        item = json.loads(data) if isinstance(data, str | bytes) else None
    except ValueError:
        return {}
    return item if isinstance(item, dict) else {}


def _databases(pid: int, filename: str) -> list[str]:
    return open_files(pid, lambda path: os.path.basename(path) == filename)


def _error(info: dict[str, Any]) -> str | None:
    error = info.get("error")
    if not isinstance(error, dict):
        return None
    data = error.get("data")
    said = data.get("message") if isinstance(data, dict) else None
    return f"{error.get('name') or 'error'}: {said}" if said \
        else str(error.get("name") or "the request failed")


@dataclass(slots=True)
class OpencodeReading:
    """The rows of one prompt's turn, read by query as OpenCode writes them (``filename``: the
    database's name, a fork's own)."""

    prompt: str
    pid: int
    folder: Path
    since_ms: int
    database: str | None = None
    user_id: str | None = None
    filename: str = DATABASE

    def turn(self) -> Turn:
        if self.database is None:
            found = _databases(self.pid, self.filename)
            if not found:
                return Turn()
            self.database = found[0]
            remember(self.folder, database=self.database)
        try:
            with sqlite3.connect(f"file:{self.database}?mode=ro", uri=True,
                                 timeout=BUSY_MS / 1000) as db:
                return self._read(db)
        except sqlite3.Error:
            return Turn(started=self.user_id is not None)

    def watched(self) -> Path | None:
        return Path(self.database + "-wal") if self.database else None  # written at every commit

    def _read(self, db: sqlite3.Connection) -> Turn:
        if self.user_id is None:
            self.user_id = next((ident for ident, data in db.execute(_USERS, (self.since_ms,))
                                 if same_prompt(_json(data).get("text"), self.prompt)), None)
            if self.user_id is None:
                return Turn()
        steps = db.execute(_STEPS, (self.user_id,)).fetchall()
        if not steps:
            return Turn(started=True)
        last, info = steps[-1][0], _json(steps[-1][1])
        error = _error(info)
        if error is not None:
            return Turn(started=True, ended=True, error=error)
        completed = isinstance(info.get("time"), dict) and "completed" in info["time"]
        if not completed or info.get("finish") in (None, "tool-calls"):
            return Turn(started=True)
        texts = [_json(data) for (data,) in db.execute(_TEXTS, (last,))]
        answer = "".join(t["text"] for t in texts
                         if isinstance(t.get("text"), str) and not t.get("synthetic"))
        return Turn(started=True, ended=True, answer=answer)


class OpencodeJournal(Journal):
    """OpenCode, or a fork that keeps OpenCode's database under a name of its own (``cli``, as
    messages name it; ``filename``), read from the database its process holds open."""

    def __init__(self, cli: str = "OpenCode", filename: str = DATABASE) -> None:
        self.cli = cli
        self.filename = filename

    def begin(self, folder: Path, prompt: str, pid: int) -> OpencodeReading | None:
        known = recalled(folder).get("database")
        return OpencodeReading(prompt, pid, folder, int(time.time() * 1000),
                               known if known and os.path.exists(known) else None,
                               filename=self.filename)
