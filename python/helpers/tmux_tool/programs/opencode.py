"""OpenCode (1.18.33), a full-screen TUI on the alternate screen.

Its face, bottom up (tests/fixtures/screens/opencode/): the footer row -
``■⬝⬝⬝  esc interrupt … ctrl+p commands`` while a turn runs (streaming and
stalls included), else the directory, token count and ``ctrl+p commands``
(or the version on the home screen); the input box, a ``┃`` block ending
with the agent and model (``┃  Build · Scripted Model Scripted``) and a
``╹▀▀▀`` edge; above it the session.  Prompts are echoed as ``┃`` blocks,
answers are indented five columns and each turn ends with ``▣  Build ·
<model> · <duration>`` - without the duration when the turn failed, the
error then standing in a ``┃`` block of its own.

A tool permission replaces the input box with ``△ Permission required`` and
the choices ``Allow once   Allow always   Reject``.  ``/`` opens a command
list above the input.  The alternate screen has no scrollback, so a long
answer is read by paging the session up (PageUp) and back down (End).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..screen.snapshot import Snapshot
from .ai import AiProfile, echo_rows, is_dim, last_echo, strip_box, tidy
from .base import Dialog, Verdict, quote

EDGE = re.compile(r"^\s*╹▀{10,}$")
BLOCK = re.compile(r"^\s*┃")
BUSY = re.compile(r"\besc interrupt\b")
TURN_END = re.compile(r"^\s+▣\s+\S")
DURATION = re.compile(r"· (?:\d+m\s*)?\d+(?:\.\d+)?(?:ms|s|m)\s*$")
PERMISSION = re.compile(r"△ Permission required")
CHOICES = re.compile(r"\bAllow once\s+Allow always\s+Reject\b")
COMMAND_ROW = re.compile(r"^\s*┃ /[\w-]+\s{2,}\S.*┃$")
ECHO = re.compile(r"^ {2}┃ {2}(?P<text>\S.*)$")
ANSWER_INDENT = "     "
PLACEHOLDER = re.compile(r"^Ask anything… ")


@dataclass(frozen=True, slots=True)
class _Box:
    top: int
    edge: int


def _box(lines: Sequence[str]) -> _Box | None:
    """The input box: the ``┃`` block that ends at the last ``╹▀▀▀`` edge (the command
    list, drawn as a boxed block right on top of it, not included).  On wide
    terminals a side panel (session title, context, LSP) fills the columns right
    of the box's edge."""
    edge = next((y for y in range(len(lines) - 1, -1, -1) if EDGE.match(lines[y])), None)
    if edge is None:
        return None
    top = edge
    while top > 0 and BLOCK.match(lines[top - 1]) and not COMMAND_ROW.match(lines[top - 1]):
        top -= 1
    return _Box(top, edge) if top < edge else None


def _footer(lines: Sequence[str]) -> str:
    return next((row for row in reversed(lines) if row.strip()), "")


def _last_turn_end(lines: Sequence[str], stop: int) -> int | None:
    return next((y for y in range(stop - 1, -1, -1) if TURN_END.match(lines[y])), None)


def _echo(row: str) -> str | None:
    m = ECHO.match(row)
    return m.group("text") if m else None


@dataclass(frozen=True)
class OpencodeProfile(AiProfile):
    """OpenCode's screens and how to drive it."""

    def classify(self, snap: Snapshot) -> Verdict | None:
        if not self.in_front(snap):
            return self.ended(snap)
        lines = snap.lines
        asked = next((y for y in range(len(lines) - 1, max(-1, len(lines) - 20), -1)
                      if PERMISSION.search(lines[y])), None)
        if asked is not None and any(CHOICES.search(row) for row in lines[asked:]):
            what = " ".join(strip_box(row) for row in lines[asked + 1:asked + 4] if strip_box(row))
            question = f"Permission required: {what}".strip()
            return self.verdict("blocked", f"OpenCode asks {quote(question, 80)}", question,
                                ("Allow once", "Allow always", "Reject"))
        box = _box(lines)
        if box is None:
            return None
        footer = _footer(lines)
        if m := BUSY.search(footer):
            return self.verdict("busy", f"the footer shows {quote(m.group())}")
        if box.top > 0 and COMMAND_ROW.match(lines[box.top - 1]):
            return self.verdict("blocked", "the command list is open above the input box",
                                "which command? (Escape closes the list)", ("Escape",))
        end = _last_turn_end(lines, box.top)
        if end is not None and not DURATION.search(lines[end]):
            return self.verdict("error", f"the last turn ended without a duration ({quote(lines[end])}): "
                                "it failed")
        return self.verdict("ready", "the input box is idle and the footer shows no 'esc interrupt'")

    def echo(self, row: str) -> str | None:
        return _echo(row)

    def pending_input(self, snap: Snapshot) -> str | None:
        box = _box(snap.lines)
        if box is None:
            return None
        width = self.transcript_width(snap)
        rows = [strip_box(row[:width]) for row in snap.lines[box.top:box.edge - 1]]
        text = "\n".join(row for row in rows if row).strip()
        return "" if PLACEHOLDER.match(text) else text

    def finished(self, snap: Snapshot) -> bool:
        box = _box(snap.lines)
        if box is None or BUSY.search(_footer(snap.lines)):
            return False
        end = _last_turn_end(snap.lines, box.top)
        return end is not None and bool(DURATION.search(snap.lines[end]))

    def transcript_end(self, snap: Snapshot) -> int:
        box = _box(snap.lines)
        return box.top if box else len(snap.lines)

    def transcript_width(self, snap: Snapshot) -> int:
        edge = next((row for row in reversed(snap.lines) if EDGE.match(row)), None)
        return len(edge) + 1 if edge else super().transcript_width(snap)

    def answer_from(self, snap: Snapshot, prompt: str | None) -> str | None:
        width = self.transcript_width(snap)
        rows = [row[:width].rstrip() for row in snap.lines]
        end = self.transcript_end(snap)
        start = last_echo(rows, end, _echo, prompt, strict=True)
        if start is None:
            return None
        y = start + echo_rows(rows, start, prompt, lambda r: strip_box(r))
        stop = _last_turn_end(rows, end)
        stop = stop if stop is not None and stop >= y else end
        kept: list[str] = []
        for row_index in range(y, stop):
            row = rows[row_index]
            if not row.strip():
                kept.append("")
            elif row.startswith(ANSWER_INDENT) and not is_dim(snap, row_index):
                kept.append(row)
        return tidy(kept)


PROFILES = (
    OpencodeProfile(
        "opencode",
        ("opencode", ".opencode"),
        "ai",
        paste=True,
        submit=("Enter",),
        exit_steps=(("text", "/exit"), ("keys", "Enter")),
        dialogs=(
            Dialog("permission", PERMISSION, ("Enter",), False, "OpenCode asks permission to run a tool"),
        ),
        command=("opencode",),
        rank=10,
        skip_permission_args=("--auto",),
        settle=0.6,
        start_settle=1.0,
        page_keys=("PageUp", "End"),
    ),
)
