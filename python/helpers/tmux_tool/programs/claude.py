"""Claude Code (2.1.197), an Ink TUI on the normal screen.

Its face, bottom up (tests/fixtures/screens/claude/): a footer row, a
full-width rule, the input row ``❯`` (a no-break space after it when empty),
a second rule; above that the transcript.  Busy shows in the footer as
``esc to interrupt`` (with a spinner line such as ``✽ Enchanting… (0s ·
thinking)`` above the box) for the whole turn, stalls included, while the
empty box stays drawn.  A finished turn ends with ``✻ <Verb>ed for Ns`` above
the box; a failed one shows ``● API Error: …`` after the echoed prompt.

Dialogs have no input box: the theme picker, the API-key question (its
default is ``2. No (recommended)``: Enter rejects the key), the trust-folder
question (default ``1. Yes, I trust this folder``), tool permissions
(``Do you want to proceed?``).  Typing ``/`` opens the command palette below
the box.  Answers are rendered Markdown under ``●``; thinking is collapsed to
``Thought for Ns (ctrl+o to expand)`` and shown dim while it streams; tool
calls are ``● Tool(args)`` with ``⎿`` result rows.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..screen.snapshot import Snapshot
from .ai import AiProfile, echo_rows, find_menu, is_dim, last_echo, menu_verdict, notice, tidy
from .base import Dialog, Verdict, quote
from .questions import PRESS_KEY

RULE = re.compile(r"^─{20,}$")
PALETTE_ROW = re.compile(r"^/[\w:-]+\s{2,}\S")
BUSY_FOOTER = re.compile(r"\besc to interrupt\b")
SPINNER = re.compile(r"^\S \S[^()]*…(?: \(.*\))?$")
SUMMARY = re.compile(r"^✻ \S+ for \d")
API_ERROR = re.compile(r"^● API Error\b")
THINKING = re.compile(r"^\s*(?:● )?(?:Thinking|Thought) for .*\(ctrl\+o to expand\)$")
TOOL_CALL = re.compile(r"^● [\w.:-]+\(.*\)?$")
RESULT = "  ⎿"
MAX_INPUT_ROWS = 30
MAX_FOOTER_ROWS = 3


@dataclass(frozen=True, slots=True)
class _Box:
    top: int
    bottom: int
    palette: bool
    footer: str


def _box(lines: Sequence[str]) -> _Box | None:
    """The input box: ``❯`` rows between the last two rules, with only a footer
    or the command palette under it."""
    rules = [y for y, row in enumerate(lines) if RULE.match(row)]
    if len(rules) < 2:
        return None
    top, bottom = rules[-2], rules[-1]
    if not (0 < bottom - top <= MAX_INPUT_ROWS + 1 and lines[top + 1].startswith("❯")):
        return None
    below = [row for row in lines[bottom + 1:] if row.strip()]
    palette = bool(below) and bool(PALETTE_ROW.match(below[0]))
    if not palette and len(below) > MAX_FOOTER_ROWS:
        return None
    return _Box(top, bottom, palette, "\n".join(below) if not palette else "")


def _turn_open(lines: Sequence[str], start: int | None, top: int) -> bool:
    """A turn that has not ended: an answer after the last echoed prompt with no
    ``✻ <Verb>ed for Ns`` line below it.

    Claude Code replaces its ``esc to interrupt`` footer with notices for a
    while (``paste again to expand``, tmux hints), even mid-answer, so the
    footer alone cannot tell.  Local commands (``/…``) have no summary line;
    a turn cut short ends with a ``⎿`` note (interrupted, not logged in).
    """
    if start is None or lines[start].startswith("❯ /"):
        return False
    rows = [row for row in lines[start + 1:top] if row.strip()]
    if any(SUMMARY.match(row) for row in rows):
        return False
    return not rows or not rows[-1].startswith(RESULT)


def _echo(row: str) -> str | None:
    """The prompt on an echo row (``❯ text``; the live input row has a no-break space)."""
    return row[2:] if row.startswith("❯ ") else None


@dataclass(frozen=True)
class ClaudeProfile(AiProfile):
    """Claude Code's screens and how to drive it."""

    def classify(self, snap: Snapshot) -> Verdict | None:
        if not self.in_front(snap):
            return self.ended(snap)
        lines = snap.lines
        box = _box(lines)
        if box is None:
            menu = find_menu(lines)
            if menu is None:
                return notice(self, snap)
            return menu_verdict(self, menu, self.find_dialog(snap.text))
        if box.palette:
            return self.verdict("blocked", "the slash-command palette is open under the input box",
                                "which command? (Escape closes the palette)", ("Escape",))
        if m := BUSY_FOOTER.search(box.footer):
            return self.verdict("busy", f"the footer says {quote(m.group())}")
        above = [y for y in range(box.top - 1, max(-1, box.top - 4), -1) if lines[y].strip()]
        if above and SPINNER.match(lines[above[0]]) and not SUMMARY.match(lines[above[0]]):
            return self.verdict("busy", f"spinner line {quote(lines[above[0]])} above the input box")
        start = last_echo(lines, box.top, _echo, None)
        if start is not None:
            failed = next((lines[y] for y in range(start + 1, box.top) if API_ERROR.match(lines[y])), None)
            if failed:
                return self.verdict("error", f"the last turn failed: {quote(failed, 80)}")
        if _turn_open(lines, start, box.top):
            return self.verdict("busy", "the answer has no '✻ … for Ns' line after it yet: the turn is still "
                                "running (the footer shows a notice instead of 'esc to interrupt')")
        return self.verdict("ready", "the input box is idle (no 'esc to interrupt' in the footer)")

    def pending_input(self, snap: Snapshot) -> str | None:
        box = _box(snap.lines)
        if box is None:
            return None
        rows = snap.lines[box.top + 1:box.bottom]
        if rows and is_dim(snap, box.top + 1, 2):
            return ""
        text = "\n".join([rows[0][1:].strip("\xa0 "), *(r.strip() for r in rows[1:])]) if rows else ""
        return text.strip()

    def finished(self, snap: Snapshot) -> bool:
        box = _box(snap.lines)
        if box is None or box.palette or BUSY_FOOTER.search(box.footer):
            return False
        above = [y for y in range(box.top - 1, max(-1, box.top - 4), -1) if snap.lines[y].strip()]
        return bool(above) and bool(SUMMARY.match(snap.lines[above[0]]))

    def transcript_end(self, snap: Snapshot) -> int:
        box = _box(snap.lines)
        return box.top if box else len(snap.lines)

    def answer_from(self, snap: Snapshot, prompt: str | None) -> str | None:
        rows = snap.lines
        end = self.transcript_end(snap)
        start = last_echo(rows, end, _echo, prompt)
        if start is None:
            return None
        y = start + echo_rows(rows, start, prompt, lambda r: r.removeprefix("❯ "))
        kept: list[str] = []
        skipping = False
        while y < end:
            row = rows[y]
            if not row.strip():
                kept.append("")
                y += 1
                continue
            if row[0] != " ":
                skipping = not row.startswith("● ") or _is_tool(rows, y, end) or bool(THINKING.match(row))
                if not skipping:
                    row = "  " + row[2:]
            elif row.startswith(RESULT) or THINKING.match(row) or is_dim(snap, y):
                skipping = True
            elif skipping and not row.startswith("   "):
                skipping = False
            if not skipping:
                kept.append(row)
            y += 1
        return tidy(kept)


def _is_tool(rows: Sequence[str], y: int, end: int) -> bool:
    """A ``● Name(args)`` block: a tool call, known by its shape or the ``⎿`` row under it."""
    if TOOL_CALL.match(rows[y]):
        return True
    nxt = next((rows[i] for i in range(y + 1, end) if rows[i].strip()), "")
    return nxt.startswith(RESULT)


PROFILES = (
    ClaudeProfile(
        "claude",
        ("claude",),
        "ai",
        paste=True,
        submit=("Enter",),
        exit_steps=(("text", "/exit"), ("keys", "Enter")),
        dialogs=(
            Dialog("theme", re.compile(r"Choose the text style that looks best with your terminal"),
                   ("Enter",), True, "Claude Code's first-run theme picker: which text style?"),
            Dialog("api-key", re.compile(r"Do you want to use this API key\?"), ("Up", "Enter"), False,
                   "Claude Code found an API key in the environment: use it? (the default answer is No)"),
            Dialog("trust", re.compile(r"Is this a project you created or one you trust\?"), ("Enter",), False,
                   "Claude Code asks whether you trust the files in this folder"),
            Dialog("permission", re.compile(r"Do you want to proceed\?"), ("Enter",), False,
                   "Claude Code asks permission to run a tool"),
            Dialog("notice", PRESS_KEY, ("Enter",), True, "Claude Code shows a notice (security notes, ...)"),
        ),
        command=("claude",),
        rank=10,
        skip_permission_args=("--dangerously-skip-permissions",),
        settle=0.6,
        start_settle=1.0,
    ),
)
