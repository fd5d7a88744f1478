"""Codex CLI (0.169.0 pinned, 0.171.0 newest), a Rust TUI started through a Node wrapper (tmux
names it ``node``).

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

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from ..screen.snapshot import Snapshot
from . import signs
from .ai import AiProfile, Frame

FOOTER_ROWS = 3
STATUS_ROWS = 6
NESTED = "  └ "


@dataclass(frozen=True)
class CodexProfile(AiProfile):
    """Codex's screens and how to drive it (its data: ``profiles/codex.toml``).

    Its signs: ``composer`` (the input row, its ``text``), ``option`` (a
    numbered option, no composer), ``popup_row`` (a command of the ``/``
    popup), ``header`` (the session's box), ``worked`` (the end of a turn),
    ``ended`` (a failed turn's line, or an ``interrupted`` one),
    ``tool_cell``, ``tip``, ``starting`` (a start-up word of its status).
    """

    READER: ClassVar[str] = "codex"
    SIGNS: ClassVar[dict[str, tuple[str, ...]]] = {
        **dict.fromkeys(("option", "popup_row", "header", "worked", "tool_cell", "tip",
                         "starting"), ()),
        "composer": ("text",), "ended": ("interrupted",)}

    def frame(self, snap: Snapshot) -> Frame | None:
        lines = snap.lines
        composer = self._composer(lines)
        if composer is None:
            return None
        m = self.sign("composer").match(lines[composer])
        pending = "" if signs.is_dim(snap, composer, 2) or not m else m.group("text").strip()
        popup = composer - 1
        while popup >= 0 and not lines[popup].strip():
            popup -= 1
        palette = popup >= 0 and bool(self.sign("popup_row").match(lines[popup])) \
            and pending.startswith("/")
        above = tuple(r for r in lines[max(0, composer - STATUS_ROWS):composer]
                      if self._status_like(r))
        return Frame(composer, composer, pending, above + tuple(lines[composer + 1:]), palette)

    def echo(self, row: str) -> str | None:
        m = self.sign("composer").match(row)
        return m.group("text") if m and m.group("text").strip() else None

    def failed(self, snap: Snapshot, frame: Frame, start: int | None) -> str | None:
        last = self._last_content(snap.lines, frame.top)
        m = self.sign("ended").match(snap.lines[last]) if last is not None else None
        if m and not m.group("interrupted"):
            return repr(m.string.strip()[:80])
        return None

    def turn_open(self, snap: Snapshot, frame: Frame, start: int | None) -> str | None:
        lines = snap.lines
        last = self._last_content(lines, frame.top)
        ended = self.sign("ended").match(lines[last]) if last is not None else None
        header = self.sign("header")
        if last is None or header.match(lines[last]) or self._worked(snap, last) \
                or (ended and ended.group("interrupted")):
            return None
        if start is None and any(header.match(r) for r in lines[:last]):
            return None
        return ("an answer is on the screen without Codex's 'Worked for' line: the turn is still "
                "streaming or stalled")

    def finished(self, snap: Snapshot) -> bool:
        frame = self.frame(snap)
        last = self._last_content(snap.lines, frame.top) if frame else None
        return last is not None and self._worked(snap, last)

    def turn_end(self, rows: Sequence[str], start: int, end: int) -> int:
        worked = self.sign("worked")
        return next((i for i in range(end - 1, start - 1, -1) if worked.match(rows[i])), end)

    def answer_head(self, rows: Sequence[str], y: int, end: int) -> bool:
        row = rows[y]
        return row.startswith("• ") and not self.sign("tool_cell").match(row) \
            and not self._status_like(row)

    def aside(self, snap: Snapshot, y: int) -> bool:
        row = snap.lines[y] if y < len(snap.lines) else ""
        return row.startswith(NESTED) or bool(self.sign("tip").match(row))


    def _composer(self, lines: Sequence[str]) -> int | None:
        """The composer row: the last ``› `` row (not a numbered option) with at most the
        model line and footer under it."""
        for y in range(len(lines) - 1, -1, -1):
            if self.sign("composer").match(lines[y]):
                below = [row for row in lines[y + 1:] if row.strip()]
                return y if len(below) <= FOOTER_ROWS and not self.sign("option").match(lines[y]) \
                    else None
        return None

    def _last_content(self, lines: Sequence[str], composer: int) -> int | None:
        """The last row with text above the composer (a busy line excluded)."""
        for y in range(composer - 1, -1, -1):
            if lines[y].strip() and not self._status_like(lines[y]):
                return y
        return None

    def _worked(self, snap: Snapshot, y: int) -> bool:
        return bool(self.sign("worked").match(snap.lines[y])) and signs.is_dim(snap, y) is not False

    def _status_like(self, row: str) -> bool:
        """A row of Codex's own status above the composer (``◦ Working (0s • esc to interrupt)``,
        ``Waiting for startup · esc cancel``): at column 0, or opening with a start-up word,
        with a timer or a cancel hint.  An answer quoting one is indented under its ``•``."""
        busy = signs.TIMER.search(row) or signs.INTERRUPT.search(row) or (
            signs.CANCEL.search(row) and signs.WORKING.search(row))
        return (row[:1].strip() != "" or bool(self.sign("starting").match(row))) and bool(busy)


READERS = (CodexProfile,)
