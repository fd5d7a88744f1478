"""Aider (0.86.2), a line-oriented prompt_toolkit chat that scrolls like a shell (tmux names it
``python3``).

Its face (tests/fixtures/screens/aider/): a full-width ``─`` rule, the names
of the files in the chat (if any), and the prompt ``> `` on the cursor row.
A turn echoes ``> <prompt>``, shows ``Waiting for <model>`` with a sliding
block spinner until the first token, then streams the rendered answer with
no busy sign at all and no prompt; it ends with ``Tokens: … sent, …
received.``, a rule and a new prompt.  A failed turn shows ``litellm.<Kind>
Error: …`` before the rule.  Questions are asked at the cursor (``Create
new file? (Y)es/(N)o [Yes]:``); ``/`` opens a completion grid under the
prompt row.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from ..core.status import Status
from ..screen.snapshot import Snapshot
from . import menus
from .ai import AiProfile, Frame
from .answer import tidy
from .base import Verdict, cursor_line, quote
from .questions import ask

PROMPT = "> "
FILE_ROWS = 6


def _prompt_row(snap: Snapshot) -> int | None:
    """The cursor row when it is aider's prompt right under a rule (files in the chat between)."""
    cl = cursor_line(snap)
    if not cl.before.startswith(PROMPT.rstrip()) \
            or not (cl.before + cl.after).startswith((PROMPT, ">")):
        return None
    for y in range(cl.row - 1, max(-1, cl.row - FILE_ROWS - 1), -1):
        if menus.FULL_RULE.match(snap.lines[y] if y < len(snap.lines) else ""):
            return cl.row
    return None


def _rule_above(lines: Sequence[str], row: int) -> int:
    return next((y for y in range(row - 1, -1, -1) if menus.FULL_RULE.match(lines[y])), row)


def _echo(row: str) -> str | None:
    return row[len(PROMPT):] if row.startswith(PROMPT) else None


@dataclass(frozen=True)
class AiderProfile(AiProfile):
    """Aider's screens and how to drive it (its data: ``profiles/aider.toml``).

    Its signs: ``yes_no`` (a question at the cursor), ``waiting`` (before the
    first token), ``failed`` (a failed turn's line), ``tokens`` (the end of a
    turn), ``completion_row`` (the grid ``/`` opens), ``launch`` (the shell
    line that started it) and ``banner`` (its first line).
    """

    READER: ClassVar[str] = "aider"
    SIGNS: ClassVar[dict[str, tuple[str, ...]]] = dict.fromkeys(
        ("yes_no", "waiting", "failed", "tokens", "completion_row", "launch", "banner"), ())

    def _only_launched(self, lines: Sequence[str]) -> bool:
        """Nothing of aider's on the screen yet: only the shell line that started it (wrapped)."""
        rows = [y for y, row in enumerate(lines) if row.strip()]
        return bool(rows) and bool(self.sign("launch").match(lines[rows[0]])) \
            and rows[-1] - rows[0] + 1 == len(rows) \
            and not any(self.sign("banner").match(lines[y]) for y in rows)

    def frame(self, snap: Snapshot) -> Frame | None:
        row = _prompt_row(snap)
        if row is None:
            return None
        text = snap.lines[row][len(PROMPT):].strip() if row < len(snap.lines) else ""
        palette = any(self.sign("completion_row").match(r) for r in snap.lines[row + 1:])
        return Frame(_rule_above(snap.lines, row), row, text, (), palette)

    def echo(self, row: str) -> str | None:
        return _echo(row)

    def dialog(self, snap: Snapshot, frame: Frame | None) -> Verdict | None:
        """Aider asks line by line at the cursor (``Create new file? (Y)es/(N)o [Yes]:``)."""
        cl = cursor_line(snap)
        if self.sign("yes_no").search(cl.before) and not cl.after.strip():
            return self.verdict(Status.BLOCKED, f"aider asks {quote(cl.before)} at the cursor",
                                cl.before.strip(), ("y", "n"))
        return None

    def without_frame(self, snap: Snapshot) -> Verdict | None:
        waiting = next((r for r in reversed(snap.lines) if self.sign("waiting").search(r)), None)
        if waiting:
            return self.verdict(Status.BUSY, f"{quote(waiting.strip())} below the prompt")
        # Only tmux's word that aider is in front makes a screen without its prompt aider's - and
        # tmux says `python3` for every Python program: one asking at the cursor (input()) is not
        # aider.
        if snap.program is None or self._only_launched(snap.lines) \
                or ask(snap, self.name) is not None:
            return None
        return self.verdict(Status.BUSY, "no prompt at the cursor: aider is writing its answer")

    def failed(self, snap: Snapshot, frame: Frame, start: int | None) -> str | None:
        if start is None:
            return None
        failed = self.sign("failed")
        row = next((r for r in snap.lines[start + 1:frame.top] if failed.match(r)), None)
        return quote(row, 80) if row else None

    def finished(self, snap: Snapshot) -> bool:
        return _prompt_row(snap) is not None

    def transcript_end(self, snap: Snapshot) -> int:
        """Above the rule over the last prompt row (read from the rows, so scrollback handed
        over as text, without a cursor, is cut the same way)."""
        rows = snap.lines
        end = len(rows)
        while end > 0 and not rows[end - 1].strip():
            end -= 1
        if end and rows[end - 1].startswith(PROMPT.rstrip()):
            end = _rule_above(rows, end - 1)
        return end

    def turn_end(self, rows: Sequence[str], start: int, end: int) -> int:
        return next((i for i in range(start, end) if self.sign("tokens").match(rows[i])), end)

    def cut(self, snap: Snapshot, rows: Sequence[str], y: int, end: int) -> str:
        return tidy(rows[y:end])


READERS = (AiderProfile,)
