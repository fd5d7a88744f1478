"""Codex CLI (0.169.0), a Rust TUI started through a Node wrapper (tmux names it ``node``).

Its face, bottom up (tests/fixtures/screens/codex/): a footer (``← for agents
· ? for shortcuts``, warnings), the model line (``gpt-5-codex default ·
~/project``), the composer ``› `` with a dim placeholder (``Ask Codex to do
anything``) when empty; above it the transcript.  Busy shows as ``• Working
(Ns • esc to interrupt)`` while it waits for the model - but NOT while text
streams or stalls: then the screen looks idle.  What tells a finished turn
is the dim ``Worked for Ns • HH:MM`` line Codex prints after it; a failed
turn ends with a red ``■ …`` line instead (an interrupted one with ``■
Conversation interrupted``, which is no failure).  So after an echoed prompt, an
answer without either line below it is a turn still running.

Dialogs replace the composer with a numbered menu: trust (``Trust this
folder?`` / ``› 1. Trust and continue``), sign-in (``> 1. Sign in with
ChatGPT``), command approval (``Would you like to run the following
command?`` / ``› 1. Yes, proceed (y)``).  ``/`` opens the command popup above
the composer.  Launched with ``--no-alt-screen`` so the transcript stays in
tmux's scrollback (the fixtures show the default alternate screen, which
this profile reads the same way) and ``--no-daemon`` so no background server
outlives the session.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..screen.snapshot import Snapshot
from .ai import AiProfile, echo_rows, find_menu, is_dim, last_echo, menu_verdict, tidy
from .base import Dialog, Verdict, quote

COMPOSER = re.compile(r"^› (?P<text>.*)$")
FOOTER_ROWS = 3
BUSY = re.compile(r"\bWorking \(.*\besc to interrupt\)")
WORKED = re.compile(r"^\s{0,2}Worked for [<\d][^•]*• \d{1,2}:\d{2}\s*$")
FAILED = re.compile(r"^■ ")
INTERRUPTED = re.compile(r"^■ Conversation interrupted\b")
HEADER = re.compile(r"^\s*(?:│\s*)?>_ OpenAI Codex \(v")
POPUP_ROW = re.compile(r"^(?:› | {2})/[\w-]+\s{2,}\S")
TOOL_CELL = re.compile(r"^• (?:Ran|Running) ")
APPROVED = re.compile(r"^✔ You approved ")
TIP = re.compile(r"^\s+└ Tip: ")
NESTED = "  └ "


def _composer(lines: Sequence[str]) -> int | None:
    """The composer row: the last ``› `` row with at most the model line and footer under it."""
    for y in range(len(lines) - 1, -1, -1):
        if COMPOSER.match(lines[y]):
            below = [row for row in lines[y + 1:] if row.strip()]
            return y if len(below) <= FOOTER_ROWS else None
    return None


def _echo(row: str) -> str | None:
    m = COMPOSER.match(row)
    return m.group("text") if m and m.group("text").strip() else None


def _last_content(lines: Sequence[str], composer: int) -> int | None:
    """The last row with text above the composer (the busy line excluded)."""
    for y in range(composer - 1, -1, -1):
        if lines[y].strip() and not BUSY.search(lines[y]):
            return y
    return None


@dataclass(frozen=True)
class CodexProfile(AiProfile):
    """Codex's screens and how to drive it."""

    def classify(self, snap: Snapshot) -> Verdict | None:
        if not self.in_front(snap):
            return self.ended(snap)
        lines = snap.lines
        menu = find_menu(lines, max(0, len(lines) - 24))
        composer = _composer(lines)
        if menu is not None and (composer is None or menu.first_row >= composer):
            return menu_verdict(self, menu, self.find_dialog(snap.text))
        if composer is None:
            return None
        popup = composer - 1
        while popup >= 0 and not lines[popup].strip():
            popup -= 1
        if popup >= 0 and POPUP_ROW.match(lines[popup]) and lines[composer].startswith("› /"):
            return self.verdict("blocked", "the slash-command popup is open above the composer",
                                "which command? (Escape closes the popup)", ("Escape",))
        for y in range(composer - 1, max(-1, composer - 6), -1):
            if BUSY.search(lines[y]):
                return self.verdict("busy", f"{quote(lines[y].strip())} above the composer")
        last = _last_content(lines, composer)
        if last is None or HEADER.match(lines[last]):
            return self.verdict("ready", "the composer is idle and no turn has run yet")
        if WORKED.match(lines[last]) and is_dim(snap, last) is not False:
            return self.verdict("ready", f"the last turn ended: {quote(lines[last])}")
        if INTERRUPTED.match(lines[last]):
            return self.verdict("ready", f"the last turn was interrupted: {quote(lines[last], 80)}")
        if FAILED.match(lines[last]):
            return self.verdict("error", f"the last turn failed: {quote(lines[last], 80)}")
        if last_echo(lines, composer, _echo, None) is None and any(HEADER.match(r) for r in lines[:last]):
            return self.verdict("ready", "the composer is idle and no turn has run yet")
        return self.verdict("busy", "an answer is on the screen without Codex's 'Worked for' line: the turn "
                            "is still streaming or stalled")

    def echo(self, row: str) -> str | None:
        return _echo(row)

    def pending_input(self, snap: Snapshot) -> str | None:
        composer = _composer(snap.lines)
        if composer is None:
            return None
        if is_dim(snap, composer, 2):
            return ""
        text = COMPOSER.match(snap.lines[composer])
        return text.group("text").strip() if text else ""

    def finished(self, snap: Snapshot) -> bool:
        composer = _composer(snap.lines)
        if composer is None:
            return False
        last = _last_content(snap.lines, composer)
        return last is not None and bool(WORKED.match(snap.lines[last])) and is_dim(snap, last) is not False

    def transcript_end(self, snap: Snapshot) -> int:
        composer = _composer(snap.lines)
        return composer if composer is not None else len(snap.lines)

    def answer_from(self, snap: Snapshot, prompt: str | None) -> str | None:
        rows = snap.lines
        end = self.transcript_end(snap)
        start = last_echo(rows, end, _echo, prompt)
        if start is None:
            return None
        y = start + echo_rows(rows, start, prompt, lambda r: _echo(r) or r)
        stop = next((i for i in range(end - 1, y - 1, -1)
                     if WORKED.match(rows[i]) and is_dim(snap, i) is not False), end)
        kept: list[str] = []
        skipping = False
        for i in range(y, stop):
            row = rows[i]
            if not row.strip():
                kept.append("")
            elif row[0] != " ":
                skipping = not row.startswith("• ") or bool(TOOL_CELL.match(row) or BUSY.search(row))
                if not skipping:
                    kept.append("  " + row[2:])
            elif row.startswith(NESTED) or TIP.match(row):
                skipping = True
            elif not skipping:
                kept.append(row)
        return tidy(kept)


PROFILES = (
    CodexProfile(
        "codex",
        ("codex", "codex-*", "node"),
        "ai",
        paste=True,
        submit=("Enter",),
        exit_steps=(("text", "/quit"), ("keys", "Enter")),
        dialogs=(
            Dialog("trust", re.compile(r"Trust this folder\?"), ("Enter",), False,
                   "Codex asks whether to trust this folder"),
            Dialog("login", re.compile(r"Sign in with ChatGPT"), (), False,
                   "Codex has no credentials and asks how to sign in"),
            Dialog("permission", re.compile(r"Would you like to run the following command\?"), ("y",), False,
                   "Codex asks permission to run a command"),
        ),
        command=("codex", "--no-daemon", "--no-alt-screen"),
        rank=10,
        skip_permission_args=("--dangerously-bypass-approvals-and-sandbox",),
        settle=1.0,
        start_settle=1.0,
    ),
)
