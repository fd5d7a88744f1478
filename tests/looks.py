"""A look at the human's pane (:class:`~python.helpers.tmux_tool.shared.look.Look`) as JSON, and back.

The judge and the guard are pure functions of one look, so a look taken at a
real moment (tests/fixtures/capture_looks.py) and written down is all a table
test needs to hold them to that moment, in milliseconds and without a shell.
Everything the judge reads is kept exactly as the look held it: the rendered
snapshot (rows, cursor, alternate screen, styles), tmux's facts, the kernel's
terminal with its processes, the shell's read count and the tool's records.
The tool's last injection (:class:`Sent`) is kept as the JSON the tool writes
into tmux and read back with the tool's own parser, as a live look reads it.
Where the kernel's facts were read is not kept: a recorded look is judged
here, with this machine's kernel for what the judge might still ask of it.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from python.helpers.tmux_tool.screen.snapshot import Snapshot, Span
from python.helpers.tmux_tool.shared import records
from python.helpers.tmux_tool.shared.look import Look
from python.helpers.tmux_tool.shared.records import Sent
from python.helpers.tmux_tool.transport import kernel
from python.helpers.tmux_tool.transport.kernel import Proc, Terminal
from python.helpers.tmux_tool.transport.panes import PaneFacts


def dump(lk: Look) -> dict[str, Any]:
    """``lk`` as JSON-able data (lists for tuples); :func:`load` gives back an equal look."""
    snap = lk.snap
    return {
        "snap": {"lines": list(snap.lines), "width": snap.width, "height": snap.height, "cursor": list(snap.cursor),
                 "alternate": snap.alternate, "program": snap.program,
                 "styles": [[dataclasses.asdict(s) for s in row] for row in snap.styles]},
        "facts": dataclasses.asdict(lk.facts),
        "term": dataclasses.asdict(lk.term),
        "rchar": lk.rchar,
        "book": dict(lk.book),
        "sent": json.loads(records.dump(lk.sent)),
        "owned": list(lk.owned),
    }


def load(d: dict[str, Any]) -> Look:
    """The look :func:`dump` wrote."""
    s = d["snap"]
    snap = Snapshot(tuple(s["lines"]), s["width"], s["height"], _pair(s["cursor"]), s["alternate"], s["program"],
                    tuple(tuple(Span(**span) for span in row) for row in s["styles"]))
    facts = PaneFacts(**{**d["facts"], "cursor": _pair(d["facts"]["cursor"])})
    return Look(snap, facts, _terminal(d["term"]), d["rchar"], dict(d["book"]), Sent.parse(json.dumps(d["sent"])),
                list(d["owned"]), kernel.HERE)


def _pair(value: list[int]) -> tuple[int, int]:
    """A JSON list of two numbers as the tuple the dataclasses hold."""
    x, y = value
    return int(x), int(y)


def _proc(value: dict[str, Any] | None) -> Proc | None:
    return None if value is None else Proc(**value)


def _terminal(t: dict[str, Any]) -> Terminal:
    """The kernel's terminal: its processes as :class:`Proc`, its size as a tuple (or None)."""
    procs = {k: _proc(t[k]) for k in ("shell", "front", "leader", "asker")}
    size = None if t["size"] is None else _pair(t["size"])
    return Terminal(**{**t, **procs, "size": size})
