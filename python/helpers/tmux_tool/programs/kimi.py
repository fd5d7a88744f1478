"""Kimi CLI (kimi-cli 1.50.0), a prompt_toolkit TUI on the normal screen (tmux names it ``Kimi``).

Its face, bottom up (tests/fixtures/screens/kimi/): the status row ``agent
(<model> ○)  <dir>  <hints>`` with the context use, a closing rule, the input
rows (one text row, then blank rows however tall the terminal is) under a
``── input ──`` rule; above it the transcript.  Busy is a spinner at column
0 a row or two above the input rule - a moon phase (``🌑``) while waiting,
a braille glyph with ``Composing... Ns · N tokens`` while text streams or
stalls - or ``Retrying after server error · attempt 2/3`` (no spinner).

Prompts are echoed as ``✨ <text>``, answers are ``• `` paragraphs (tool uses
``• Used <Tool> (…)``); a failed turn leaves plain error rows at column 0
(``Authorization failed…``, ``Server: Error code: 401 …``).  A tool approval
replaces the input area with a ``╭─ approval ─`` box (``→ [1] Approve
once`` …); ``/`` lists commands under the input area.

Kimi has no end-of-turn line of its own, and it draws an answer's last
Markdown block only after the spinner is gone, so a turn counts as done
only once the screen has held still for the profile's settle time.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..screen.snapshot import Snapshot
from .ai import AiProfile, echo_rows, find_menu, is_dim, last_echo, menu_verdict, tidy
from .base import Dialog, Verdict, quote

INPUT_RULE = re.compile(r"^── input ─")
RULE = re.compile(r"^─{20,}")
SPINNER = re.compile(r"^[⠁-⣿🌑🌒🌓🌔🌕🌖🌗🌘](?: |$)")
RETRYING = re.compile(r"^Retrying after server error\b")
COMMAND_ROW = re.compile(r"^\s+/[\w-]+\s{2,}\S")
ECHO = re.compile(r"^✨ (?P<text>.*)$")
ANSWER = "• "
TOOL_USE = re.compile(r"^• Used \w+ \(")
SPINNER_GAP = 3


@dataclass(frozen=True, slots=True)
class _Area:
    rule: int
    close: int | None


def _area(lines: Sequence[str]) -> _Area | None:
    """The input area: the last ``── input ──`` rule and the rule that closes it."""
    rule = next((y for y in range(len(lines) - 1, -1, -1) if INPUT_RULE.match(lines[y])), None)
    if rule is None:
        return None
    close = next((y for y in range(rule + 1, len(lines)) if RULE.match(lines[y])), None)
    return _Area(rule, close)


def _echo(row: str) -> str | None:
    m = ECHO.match(row)
    return m.group("text") if m else None


def _busy_row(lines: Sequence[str], rule: int) -> str | None:
    for y in range(rule - 1, max(-1, rule - SPINNER_GAP - 1), -1):
        if SPINNER.match(lines[y]) or RETRYING.match(lines[y]):
            return lines[y]
    return None


@dataclass(frozen=True)
class KimiProfile(AiProfile):
    """Kimi CLI's screens and how to drive it."""

    def classify(self, snap: Snapshot) -> Verdict | None:
        if not self.in_front(snap):
            return self.ended(snap)
        lines = snap.lines
        area = _area(lines)
        if area is None:
            menu = find_menu(lines, max(0, len(lines) - 24))
            if menu is not None:
                return menu_verdict(self, menu, self.find_dialog(snap.text))
            last = next((row for row in reversed(lines) if row.strip()), "")
            if SPINNER.match(last):
                return self.verdict("busy", f"starting: {quote(last)}")
            return None
        if area.close is not None and any(COMMAND_ROW.match(row) for row in lines[area.close + 1:]):
            return self.verdict("blocked", "the command list is open under the input area",
                                "which command? (Escape closes the list)", ("Escape",))
        if busy := _busy_row(lines, area.rule):
            return self.verdict("busy", f"{quote(busy)} above the input area")
        start = last_echo(lines, area.rule, _echo, None)
        if start is not None:
            failed = next((row for row in lines[start + 1:area.rule]
                           if row.strip() and not row.startswith((ANSWER, " "))), None)
            if failed:
                return self.verdict("error", f"the last turn failed: {quote(failed, 80)}")
        return self.verdict("ready", "the input area is idle (no spinner above it)")

    def echo(self, row: str) -> str | None:
        return _echo(row)

    def pending_input(self, snap: Snapshot) -> str | None:
        area = _area(snap.lines)
        if area is None:
            return None
        rows = snap.lines[area.rule + 1:area.close if area.close is not None else len(snap.lines)]
        return "\n".join(row.strip() for row in rows if row.strip())

    def transcript_end(self, snap: Snapshot) -> int:
        area = _area(snap.lines)
        return area.rule if area else len(snap.lines)

    def answer_from(self, snap: Snapshot, prompt: str | None) -> str | None:
        rows = snap.lines
        end = self.transcript_end(snap)
        start = last_echo(rows, end, _echo, prompt)
        if start is None:
            return None
        y = start + echo_rows(rows, start, prompt, lambda r: _echo(r) or r)
        kept: list[str] = []
        skipping = False
        for i in range(y, end):
            row = rows[i]
            if not row.strip():
                kept.append("")
            elif row[0] != " ":
                skipping = not row.startswith(ANSWER) or bool(TOOL_USE.match(row) or SPINNER.match(row))
                if not skipping:
                    kept.append("  " + row[2:])
            elif not skipping and not is_dim(snap, i):
                kept.append(row)
        return tidy(kept)


PROFILES = (
    KimiProfile(
        "kimi",
        ("Kimi", "kimi"),
        "ai",
        paste=True,
        submit=("Enter",),
        exit_steps=(("text", "/exit"), ("keys", "Enter")),
        dialogs=(
            Dialog("permission", re.compile(r"is requesting approval to run"), ("Enter",), False,
                   "Kimi asks approval to run a tool"),
        ),
        command=("kimi",),
        rank=12,
        skip_permission_args=("--yolo",),
        settle=0.8,
        start_settle=1.0,
    ),
)
