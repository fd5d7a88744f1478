"""A trace of what the tool did: every tmux and ssh command, every judgement, every refusal.

A scenario that fails under load is diagnosed from what the tool sent and
what it concluded, in order, with times - not from a copy of the code with
prints added.  ``TMUX_TOOL_TRACE=PATH`` appends one JSON object per line to
PATH: ``{"t", "pid", "thread", "kind", ...}`` where ``kind`` is ``tmux``
(the commands, seconds, bytes out, the error), ``process`` (a process the
tool ran: ssh, a dump on a host), ``state`` (a session judged: status and
evidence), ``refused`` (nothing typed, and why) or ``result`` (an action's
answer).  Text goes through :func:`..core.masking.mask` first: a trace is a
log, and no secret goes into a log.

Off (the default), :func:`on` is one dictionary lookup and nothing else runs
(bench/trace_bench.py measures it).
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Sequence
from typing import Any

SWITCH = "TMUX_TOOL_TRACE"
# characters of one text field: a command's text, an evidence; a screen is never traced
_LIMIT = 2000
_lock = threading.Lock()


def on() -> bool:
    """Is a trace asked for (in this process's environment, now)?"""
    return bool(os.environ.get(SWITCH))


def event(kind: str, **fields: Any) -> None:
    """Append one event, if a trace is asked for; a trace that cannot be written is given up
    silently (it must never change what the tool does)."""
    path = os.environ.get(SWITCH)
    if not path:
        return
    from .masking import mask

    line = {
        "t": round(time.time(), 6),
        "pid": os.getpid(),
        "thread": threading.current_thread().name,
        "kind": kind,
        **{k: _plain(v, mask) for k, v in fields.items()},
    }
    data = json.dumps(line, ensure_ascii=False) + "\n"
    try:
        with _lock, open(path, "a", encoding="utf-8") as f:
            f.write(data)
    except OSError:
        pass


def commands(cmds: Sequence[Sequence[str]]) -> list[list[str]]:
    """tmux commands as lists of their words, for :func:`event`."""
    return [list(c) for c in cmds]


def _plain(value: Any, mask: Any) -> Any:
    if isinstance(value, str):
        return mask(value[:_LIMIT])
    if isinstance(value, (list, tuple)):
        return [_plain(v, mask) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v, mask) for k, v in value.items()}
    if value is None or isinstance(value, (bool, int, float)):
        return value
    return mask(str(value)[:_LIMIT])
