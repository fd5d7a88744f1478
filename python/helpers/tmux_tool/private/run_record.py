"""What a private session last ran: its record in the session's tmux options.

A run's record (its command, where its output starts in the pane log, when
it started) is written in the same tmux line that types the command, and
the id of the last run whose result was given is written when it is given.
The next call may come from another process, so this is the only memory.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

from ..core.errors import NoServer, NoTarget
from ..transport import options
from ..transport.tmux import SEP
from .markers import Mark
from .server import PrivateServer

RUN_OPTION = options.RUN
COLLECTED_OPTION = options.COLLECTED


@dataclass(frozen=True, slots=True)
class RunRecord:
    """The command most recently submitted in a session (kept in the session's tmux options)."""

    id: str
    command: str
    offset: int
    started: float
    collected: bool = False


def load_record(srv: PrivateServer, name: str) -> RunRecord | None:
    """The last run submitted in session ``name``, if any."""
    try:
        raw = srv.tmux.display(f"={name}:", f"#{{{RUN_OPTION}}}{SEP}#{{{COLLECTED_OPTION}}}")
    except (NoServer, NoTarget):
        return None
    record, _, collected = raw.partition(SEP)
    try:
        data = json.loads(record)
        return RunRecord(**data, collected=bool(collected) and collected == data.get("id"))
    except (ValueError, TypeError):
        return None


def running_record(srv: PrivateServer, name: str, mark: Mark) -> RunRecord:
    """What runs in session ``name`` since its start mark ``mark``.

    The last run's record when that mark is its own (a run not yet
    delivered, started at or before the mark); otherwise the command was
    typed another way (``send``): a record without a command, starting at the
    mark, which nothing owes.
    """
    rec = load_record(srv, name)
    if rec is not None and not rec.collected and rec.offset <= mark.start:
        return rec
    return RunRecord("", "", mark.start, 0.0, collected=True)


def describe(rec: RunRecord) -> str:
    """The running command in a sentence: its text and age, or how it came."""
    if not rec.command:
        return "a command typed into the session"
    return f"`{short(rec.command)}` (started {time.time() - rec.started:.0f}s ago)"


def short(command: str, limit: int = 80) -> str:
    """A command on one line, cut to ``limit`` characters for a sentence."""
    one = " ".join(command.split())
    return one if len(one) <= limit else one[: limit - 1] + "…"
