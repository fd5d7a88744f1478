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

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from ..screen.snapshot import Snapshot
from . import menus
from .ai import AiProfile, Frame
from .base import quote

SPINNER_GAP = 3
ANSWER = "• "


@dataclass(frozen=True)
class KimiProfile(AiProfile):
    """Kimi CLI's screens and how to drive it (its data: ``profiles/kimi.toml``).

    Its signs: ``input_rule`` (the rule over the input area), ``command_row``
    (a command of the ``/`` list), ``busy_row`` (a spinner at column 0, or a
    retry), ``echo`` (a prompt, its ``text``), ``tool_use``.
    """

    READER: ClassVar[str] = "kimi"
    SIGNS: ClassVar[dict[str, tuple[str, ...]]] = {
        **dict.fromkeys(("input_rule", "command_row", "busy_row", "tool_use"), ()),
        "echo": ("text",)}

    def _busy_row(self, lines: Sequence[str], rule: int) -> str | None:
        for y in range(rule - 1, max(-1, rule - SPINNER_GAP - 1), -1):
            if self.sign("busy_row").match(lines[y]):
                return lines[y]
        return None

    def frame(self, snap: Snapshot) -> Frame | None:
        """The input area: the last ``── input ──`` rule, the rows down to the rule that
        closes it, and the command list under it when ``/`` was typed."""
        lines = snap.lines
        input_rule = self.sign("input_rule")
        rule = next((y for y in range(len(lines) - 1, -1, -1) if input_rule.match(lines[y])), None)
        if rule is None:
            return None
        close = next((y for y in range(rule + 1, len(lines)) if menus.FULL_RULE.match(lines[y])),
                     None)
        rows = lines[rule + 1:close if close is not None else len(lines)]
        pending = "\n".join(row.strip() for row in rows if row.strip())
        command_row = self.sign("command_row")
        palette = close is not None and any(command_row.match(row) for row in lines[close + 1:])
        busy = self._busy_row(lines, rule)
        return Frame(rule, rule + 1, pending, (busy,) if busy else (), palette)

    def echo(self, row: str) -> str | None:
        m = self.sign("echo").match(row)
        return m.group("text") if m else None

    def busy(self, snap: Snapshot, frame: Frame) -> str | None:
        """A moon-phase or braille glyph at column 0 right above the input area (alone while it
        waits), or ``Retrying after server error``."""
        return frame.status[0].strip() if frame.status else None

    def failed(self, snap: Snapshot, frame: Frame, start: int | None) -> str | None:
        """Kimi prints a failure as plain rows at column 0 after the echo (answers are ``•``)."""
        if start is None:
            return None
        row = next((r for r in snap.lines[start + 1:frame.top]
                    if r.strip() and not r.startswith((ANSWER, " "))), None)
        return quote(row, 80) if row else None

    def answer_head(self, rows: Sequence[str], y: int, end: int) -> bool:
        row = rows[y]
        return row.startswith(ANSWER) and not self.sign("tool_use").match(row) \
            and not self.sign("busy_row").match(row)


READERS = (KimiProfile,)
