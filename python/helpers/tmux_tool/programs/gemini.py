"""Gemini CLI (0.61.0), an Ink TUI on the normal screen (tmux names it ``node``).

Its face, bottom up (tests/fixtures/screens/gemini/): two status rows
(``workspace (/directory) … sandbox … /model``), the input row `` > `` (`` * ``
with ``--yolo``) with the placeholder ``Type your message or @path/to/file``
when empty, the mode row ``Shift+Tab to accept edits``, a full-width rule
and, right above it, the
status line: ``? for shortcuts`` when idle, a braille spinner with
``(esc to cancel, Ns)`` while a turn runs - streaming and stalls included.
The input box is drawn from the first frame on and stays drawn while busy.

A finished answer starts with ``✦``; a failed turn shows ``✕ [API Error:
…]`` (and an ``ℹ This request failed…`` note) after the echoed prompt.
Dialogs are boxes with a numbered menu and no input box: trust (``Do you
trust the files in this folder?``), authentication (``How would you like to
authenticate for this project?``, default ``1. Sign in with Google``), tool
confirmation (``Allow execution of [Shell]?``).  ``/`` lists commands under
the input row with a ``(1/42)`` counter.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..screen.snapshot import Snapshot
from .ai import AiProfile, echo_rows, find_menu, is_dim, last_echo, menu_verdict, tidy
from .base import Dialog, Verdict, quote

RULE = re.compile(r"^─{20,}$")
INPUT = re.compile(r"^ [>*] (?P<text>.*)$")
PLACEHOLDER = re.compile(r"^\s+Type your message or @path/to/file$")
BUSY = re.compile(r"\(esc to cancel, [^)]*\)")
FAILED = re.compile(r"^✕ ")
ANSWER = "✦ "
SUGGESTION = re.compile(r"^ \(\d+/\d+\)$")
STATUS_ROWS = 3
RULE_GAP = 4
PALETTE_SPAN = 14


@dataclass(frozen=True, slots=True)
class _Box:
    rule: int
    input: int
    palette: bool


def _box(lines: Sequence[str]) -> _Box | None:
    """The input row: the last `` > `` row with a rule a few rows above it and at most
    the status rows (or the command suggestions) below it."""
    for y in range(len(lines) - 1, -1, -1):
        if not INPUT.match(lines[y]):
            continue
        rule = next((r for r in range(y - 1, max(-1, y - RULE_GAP), -1) if RULE.match(lines[r])), None)
        if rule is None:
            return None
        below = [row for row in lines[y + 1:] if row.strip()]
        palette = any(SUGGESTION.match(row) for row in below[:PALETTE_SPAN])
        # Ink sometimes leaves a stale copy of the status rows under the live ones.
        if not palette and len(set(below)) > STATUS_ROWS:
            return None
        return _Box(rule, y, palette)
    return None


def _echo(row: str) -> str | None:
    m = INPUT.match(row)
    return m.group("text") if m and not PLACEHOLDER.match(m.group("text")) else None


@dataclass(frozen=True)
class GeminiProfile(AiProfile):
    """Gemini CLI's screens and how to drive it."""

    def classify(self, snap: Snapshot) -> Verdict | None:
        if not self.in_front(snap):
            return self.ended(snap)
        lines = snap.lines
        box = _box(lines)
        if box is None:
            menu = find_menu(lines, max(0, len(lines) - 30))
            if menu is None:
                return None
            return menu_verdict(self, menu, self.find_dialog(snap.text))
        if box.palette:
            return self.verdict("blocked", "the command suggestions are open under the input row",
                                "which command? (Escape closes the list)", ("Escape",))
        status = lines[box.rule - 1] if box.rule > 0 else ""
        if m := BUSY.search(status):
            return self.verdict("busy", f"the status line shows {quote(status.strip()[:60])} ({m.group()})")
        start = last_echo(lines, box.rule, _echo, None)
        if start is not None:
            failed = next((lines[y] for y in range(start + 1, box.rule) if FAILED.match(lines[y])), None)
            if failed:
                return self.verdict("error", f"the last turn failed: {quote(failed, 80)}")
        return self.verdict("ready", "the input row is idle and the status line shows no spinner")

    def echo(self, row: str) -> str | None:
        return _echo(row)

    def pending_input(self, snap: Snapshot) -> str | None:
        box = _box(snap.lines)
        if box is None:
            return None
        m = INPUT.match(snap.lines[box.input])
        if not m or PLACEHOLDER.match(m.group("text")) or is_dim(snap, box.input, 3):
            return ""
        return m.group("text").strip()

    def finished(self, snap: Snapshot) -> bool:
        box = _box(snap.lines)
        if box is None or box.palette or box.rule == 0:
            return False
        return not BUSY.search(snap.lines[box.rule - 1])

    def transcript_end(self, snap: Snapshot) -> int:
        box = _box(snap.lines)
        return box.rule - 1 if box else len(snap.lines)

    def answer_from(self, snap: Snapshot, prompt: str | None) -> str | None:
        rows = snap.lines
        end = self.transcript_end(snap)
        start = last_echo(rows, end, _echo, prompt)
        if start is None:
            return None
        y = start + echo_rows(rows, start, prompt, lambda r: _echo(r) or r)
        kept: list[str] = []
        skipping = False
        while y < end:
            row = rows[y]
            if not row.strip():
                kept.append("")
            elif row[0] != " ":
                skipping = not row.startswith(ANSWER)
                if not skipping:
                    kept.append("  " + row[2:])
            elif not skipping and not is_dim(snap, y):
                kept.append(row)
            y += 1
        return tidy(kept)


PROFILES = (
    GeminiProfile(
        "gemini",
        ("gemini", "node"),
        "ai",
        paste=True,
        submit=("Enter",),
        exit_steps=(("text", "/quit"), ("keys", "Enter")),
        dialogs=(
            Dialog("trust", re.compile(r"Do you trust the files in this folder\?"), ("Enter",), False,
                   "Gemini CLI asks whether to trust the files in this folder"),
            Dialog("auth", re.compile(r"How would you like to authenticate for this project\?"), (),
                   False, "Gemini CLI asks how to authenticate (the default is Sign in with Google)"),
            Dialog("permission", re.compile(r"Allow execution of \["), ("Enter",), False,
                   "Gemini CLI asks permission to run a tool"),
        ),
        command=("gemini",),
        rank=11,
        skip_permission_args=("--yolo",),
        settle=0.6,
        start_settle=1.5,
    ),
)
