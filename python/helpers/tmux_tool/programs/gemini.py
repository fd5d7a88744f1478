"""Gemini CLI (0.61.0, also the newest), an Ink TUI on the normal screen (tmux names it ``node``).

Its face, bottom up (tests/fixtures/screens/gemini/): two status rows
(``workspace (/directory) … sandbox … /model``), the input row `` > `` (`` * ``
with ``--yolo``) with the placeholder ``Type your message or @path/to/file``
when empty, the mode row ``Shift+Tab to accept edits``, a full-width rule
and, right above it, the status line: ``? for shortcuts`` when idle, a
braille spinner with ``(esc to cancel, Ns)`` while a turn runs - streaming
and stalls included.  The input box is drawn from the first frame on and
stays drawn while busy.

A finished answer starts with ``✦``; its code blocks have their lines
numbered (``ui.showLineNumbers``, on by default), which the answer leaves
out.  A failed turn shows ``✕ [API Error: …]`` (and an ``ℹ This request
failed…`` note) after the echoed prompt.
Dialogs are boxes with a numbered menu and no input box (trust,
authentication, tool confirmation), found by :mod:`signs`.  ``/`` lists
commands under the input row with a ``(1/42)`` counter.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from ..screen.snapshot import Snapshot
from . import menus, signs
from .ai import AiProfile, Frame
from .answer import unnumbered

STATUS_ROWS = 3
RULE_GAP = 4
PALETTE_SPAN = 14
ANSWER = "✦ "
FAILED = "✕ "
MARGIN = 2  # the answer's text starts two columns in, under the text after "✦ "


@dataclass(frozen=True)
class GeminiProfile(AiProfile):
    """Gemini CLI's screens and how to drive it (its data: ``profiles/gemini.toml``).

    Its signs: ``input`` (the input row, its ``text``), ``placeholder`` (the
    empty input row's text), ``suggestion`` (the counter under the command list).
    """

    READER: ClassVar[str] = "gemini"
    SIGNS: ClassVar[dict[str, tuple[str, ...]]] = {"input": ("text",), "placeholder": (),
                                                   "suggestion": ()}

    def frame(self, snap: Snapshot) -> Frame | None:
        """The input row: the last `` > `` row with a rule a few rows above it and at most
        the status rows (or the command suggestions) below it.  The transcript ends at
        the status line above the rule."""
        lines = snap.lines
        placeholder = self.sign("placeholder")
        for y in range(len(lines) - 1, -1, -1):
            m = self.sign("input").match(lines[y])
            if not m:
                continue
            rule = next((r for r in range(y - 1, max(-1, y - RULE_GAP), -1)
                         if menus.FULL_RULE.match(lines[r])), None)
            if rule is None:
                return None
            below = [row for row in lines[y + 1:] if row.strip()]
            palette = any(self.sign("suggestion").match(row) for row in below[:PALETTE_SPAN])
            # Ink sometimes leaves a stale copy of the status rows under the live ones.
            if not palette and len(set(below)) > STATUS_ROWS:
                return None
            text = m.group("text")
            pending = "" if placeholder.match(text) or signs.is_dim(snap, y, 3) else text.strip()
            status = (lines[rule - 1],) if rule > 0 else ()
            return Frame(max(rule - 1, 0), y, pending, status, palette)
        return None

    def echo(self, row: str) -> str | None:
        m = self.sign("input").match(row)
        placeholder = self.sign("placeholder")
        return m.group("text") if m and not placeholder.match(m.group("text")) else None

    def failed(self, snap: Snapshot, frame: Frame, start: int | None) -> str | None:
        if start is None:
            return None
        row = next((r for r in snap.lines[start + 1:frame.top] if r.startswith(FAILED)), None)
        return repr(row.strip()[:80]) if row else None

    def finished(self, snap: Snapshot) -> bool:
        frame = self.frame(snap)
        return frame is not None and not frame.palette and bool(frame.status) and not any(
            signs.activity(r) for r in frame.status)

    def answer_head(self, rows: Sequence[str], y: int, end: int) -> bool:
        return rows[y].startswith(ANSWER)

    def cut(self, snap: Snapshot, rows: Sequence[str], y: int, end: int) -> str:
        """The answer, with the numbers Gemini CLI puts in front of a code block's lines taken
        off."""
        return super().cut(snap, unnumbered(rows, y, end, MARGIN), y, end)


READERS = (GeminiProfile,)
