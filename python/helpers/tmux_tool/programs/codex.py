"""Codex CLI (0.169.0 pinned, 0.171.0 newest), a Rust TUI started through a Node wrapper (tmux names it ``node``).

Its face, bottom up (tests/fixtures/screens/codex/, codex-0.171.0/): a footer
(``← for agents · ? for shortcuts``, warnings), the model line (``gpt-5-codex
default · ~/project``; 0.171.0 ends it with the session's first prompt, its
title), the composer ``› `` with a dim placeholder (``Ask Codex to do
anything``) when empty; above it the transcript.  Busy shows as ``• Working
(Ns • esc to interrupt)`` while it waits for the model, ``Booting MCP
server`` and ``Waiting for startup · esc cancel`` while it starts - but NOT
while text streams or stalls: then the screen looks idle.  What tells a
finished turn is the dim ``Worked for Ns • HH:MM`` line Codex prints after
it; a failed turn ends with a red ``■ …`` line instead (an interrupted one
with ``■ Conversation interrupted``, which is no failure).  So after an
echoed prompt, an answer without either line below it is a turn still
running.

Dialogs replace the composer with a numbered menu (trust, sign-in, command
approval), found by :mod:`signs`.  ``/`` opens the command popup above the
composer.  Launched with ``--no-alt-screen`` so the transcript stays in
tmux's scrollback (the fixtures show the default alternate screen, which
this profile reads the same way) and ``--no-daemon`` so no background server
outlives the session.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..screen.snapshot import Snapshot
from . import signs
from .ai import AiProfile, Frame
from .base import Dialog, typed

COMPOSER = re.compile(r"^› (?P<text>.*)$")
OPTION = re.compile(r"^› \d{1,2}\. ")
POPUP_ROW = re.compile(r"^(?:› | {2})/[\w-]+\s{2,}\S")
FOOTER_ROWS = 3
STATUS_ROWS = 6
HEADER = re.compile(r"^\s*(?:│\s*)?>_ OpenAI Codex \(v")
WORKED = re.compile(r"^\s{0,2}Worked for [<\d][^•]*• \d{1,2}:\d{2}\s*$")
ENDED = re.compile(r"^■ (?P<interrupted>Conversation interrupted\b)?")  # failed, or interrupted (no failure)
NESTED = "  └ "
TOOL_CELL = re.compile(r"^• (?:Ran|Running) ")
TIP = re.compile(r"^\s+└ Tip: ")


def _composer(lines: Sequence[str]) -> int | None:
    """The composer row: the last ``› `` row (not a numbered option) with at most the
    model line and footer under it."""
    for y in range(len(lines) - 1, -1, -1):
        if COMPOSER.match(lines[y]):
            below = [row for row in lines[y + 1:] if row.strip()]
            return y if len(below) <= FOOTER_ROWS and not OPTION.match(lines[y]) else None
    return None


def _echo(row: str) -> str | None:
    m = COMPOSER.match(row)
    return m.group("text") if m and m.group("text").strip() else None


def _last_content(lines: Sequence[str], composer: int) -> int | None:
    """The last row with text above the composer (a busy line excluded)."""
    for y in range(composer - 1, -1, -1):
        if lines[y].strip() and not _status_like(lines[y]):
            return y
    return None


def _worked(snap: Snapshot, y: int) -> bool:
    return bool(WORKED.match(snap.lines[y])) and signs.is_dim(snap, y) is not False


@dataclass(frozen=True)
class CodexProfile(AiProfile):
    """Codex's screens and how to drive it."""

    def frame(self, snap: Snapshot) -> Frame | None:
        lines = snap.lines
        composer = _composer(lines)
        if composer is None:
            return None
        m = COMPOSER.match(lines[composer])
        pending = "" if signs.is_dim(snap, composer, 2) or not m else m.group("text").strip()
        popup = composer - 1
        while popup >= 0 and not lines[popup].strip():
            popup -= 1
        palette = popup >= 0 and bool(POPUP_ROW.match(lines[popup])) and pending.startswith("/")
        above = tuple(r for r in lines[max(0, composer - STATUS_ROWS):composer] if _status_like(r))
        return Frame(composer, composer, pending, above + tuple(lines[composer + 1:]), palette)

    def echo(self, row: str) -> str | None:
        return _echo(row)

    def failed(self, snap: Snapshot, frame: Frame, start: int | None) -> str | None:
        last = _last_content(snap.lines, frame.top)
        m = ENDED.match(snap.lines[last]) if last is not None else None
        if m and not m.group("interrupted"):
            return repr(m.string.strip()[:80])
        return None

    def turn_open(self, snap: Snapshot, frame: Frame, start: int | None) -> str | None:
        lines = snap.lines
        last = _last_content(lines, frame.top)
        ended = ENDED.match(lines[last]) if last is not None else None
        if last is None or HEADER.match(lines[last]) or _worked(snap, last) or (ended and ended.group("interrupted")):
            return None
        if start is None and any(HEADER.match(r) for r in lines[:last]):
            return None
        return "an answer is on the screen without Codex's 'Worked for' line: the turn is still streaming or stalled"

    def finished(self, snap: Snapshot) -> bool:
        frame = self.frame(snap)
        last = _last_content(snap.lines, frame.top) if frame else None
        return last is not None and _worked(snap, last)

    def turn_end(self, rows: Sequence[str], start: int, end: int) -> int:
        return next((i for i in range(end - 1, start - 1, -1) if WORKED.match(rows[i])), end)

    def answer_head(self, rows: Sequence[str], y: int, end: int) -> bool:
        row = rows[y]
        return row.startswith("• ") and not TOOL_CELL.match(row) and not _status_like(row)

    def aside(self, snap: Snapshot, y: int) -> bool:
        row = snap.lines[y] if y < len(snap.lines) else ""
        return row.startswith(NESTED) or bool(TIP.match(row))


STARTING = re.compile(r"(?i)^\s*\W{0,2}\s*(?:waiting for|booting|starting|connecting|reconnecting|retrying)\b")


def _status_like(row: str) -> bool:
    """A row of Codex's own status above the composer (``◦ Working (0s • esc to interrupt)``,
    ``Waiting for startup · esc cancel``): at column 0, or opening with a start-up word,
    with a timer or a cancel hint.  An answer quoting one is indented under its ``•``."""
    busy = signs.TIMER.search(row) or signs.INTERRUPT.search(row) or (
        signs.CANCEL.search(row) and signs.WORKING.search(row))
    return (row[:1].strip() != "" or bool(STARTING.match(row))) and bool(busy)


PROFILES = (
    CodexProfile(
        "codex", ("codex", "codex-*", "node"), exit_steps=typed("/quit"),
        command=("codex", "--no-daemon", "--no-alt-screen"), rank=10,
        dialogs=(
            Dialog("trust", re.compile(r"Trust this folder\?|Do you trust the contents of this directory\?"),
                   ("Enter",), False, "Codex asks whether to trust this folder",
                   re.compile(r"(?i)\b(?:trust and continue|yes, (?:allow|continue))\b")),
            Dialog("login", re.compile(r"Sign in with ChatGPT"), (), False,
                   "Codex has no credentials and asks how to sign in"),
            Dialog("permission", re.compile(r"Would you like to run the following command\?"), ("y",), False,
                   "Codex asks permission to run a command"),
        ),
        skip_permission_args=("--dangerously-bypass-approvals-and-sandbox",), settle=1.0, start_settle=1.0,
    ),
)
