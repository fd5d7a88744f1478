"""Claude Code (2.1.197 pinned, 2.1.332 newest; 2.1.330 recorded too), an Ink TUI.

Its face, bottom up (tests/fixtures/screens/claude/, claude-2.1.330/,
claude-2.1.332/, where 2.1.330's words hold; only its start-up question moved
to the bottom of the screen): a
footer row, a full-width rule, the input row ``❯`` (a no-break space after it
when empty; a dim placeholder such as "Resend your message to try again"
after a failure), a second rule; above that the transcript.  2.1.197 draws on
the normal screen; 2.1.330 on a fresh install draws a full-screen view on the
alternate one, where only the last screen of the transcript shows and older
rows are paged to with PageUp, under a sticky copy of their turn's echo.
``start`` launches it with ``CLAUDE_CODE_DISABLE_ALTERNATE_SCREEN=1`` (unless
the caller set it), so the transcript goes to the scrollback as in 2.1.197.
Busy shows in the footer as ``esc to interrupt`` (in 2.1.330 between mode and
agent hints) with a spinner row such as ``✽ Enchanting… (0s · thinking)``
above the box, for the whole turn, stalls included, while the empty box stays
drawn.  A finished turn ends with ``✻ <Verb>ed for Ns`` (2.1.330 adds ``· done
1:38 AM``) above the box; a failed one shows ``● API Error: …`` after the
echoed prompt.

Dialogs replace the box; they are menus with ``❯`` on the current choice -
numbered in 2.1.197, not numbered in 2.1.330 - found by :mod:`signs`.  The
trust question's default changed between them ("Yes, I trust this folder" is
first and marked in 2.1.197; "No, exit" is in 2.1.330), so it is accepted by
choosing the option, not by pressing Enter.  Typing ``/`` opens the command
palette below the box (2.1.197) or above it (2.1.330).  Answers are rendered
Markdown under ``●`` (a block quote's rows behind a dim ``▎``, in italics);
thinking is collapsed to ``Thought for Ns (ctrl+o to expand)`` and shown dim
while it streams; tool calls are ``● Tool(args)`` with ``⎿`` result rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from ..screen.snapshot import Snapshot
from . import menus, signs
from .ai import AiProfile, Frame

RESULT = "  ⎿"
NOTICE_INDENT = 20  # right-aligned notices above the box ("ctrl+y to paste deleted text")
MAX_INPUT_ROWS = 30
MAX_FOOTER_ROWS = 3


def _echo(row: str) -> str | None:
    """The prompt on an echo row (``❯ text``; the live input row has a no-break space)."""
    return row[2:] if row.startswith("❯ ") else None


def _status_row(lines: Sequence[str], top: int) -> str | None:
    """The row above the box where the spinner line stands, notices skipped."""
    for y in range(top - 1, max(-1, top - 4), -1):
        row = lines[y]
        if row.strip() and len(row) - len(row.lstrip()) < NOTICE_INDENT:
            return row
    return None


@dataclass(frozen=True)
class ClaudeProfile(AiProfile):
    """Claude Code's screens and how to drive it (its data: ``profiles/claude.toml``).

    Its signs: ``palette_row`` (a command of the palette), ``summary`` (the
    end-of-turn line), ``thinking`` (collapsed thinking), ``tool_call``.
    """

    READER: ClassVar[str] = "claude"
    SIGNS: ClassVar[dict[str, tuple[str, ...]]] = dict.fromkeys(
        ("palette_row", "summary", "thinking", "tool_call"), ())

    def frame(self, snap: Snapshot) -> Frame | None:
        """The ``❯`` rows between the last two rules, with only a footer or the
        command palette under them."""
        lines = snap.lines
        rules = [y for y, row in enumerate(lines) if menus.FULL_RULE.match(row)]
        if len(rules) < 2:
            return None
        top, bottom = rules[-2], rules[-1]
        if not (0 < bottom - top <= MAX_INPUT_ROWS + 1 and lines[top + 1].startswith("❯")):
            return None
        below = [row for row in lines[bottom + 1:] if row.strip()]
        palette = bool(below) and bool(self.sign("palette_row").match(below[0]))
        if not palette and len(below) > MAX_FOOTER_ROWS:
            return None
        rows = lines[top + 1:bottom]
        if signs.is_dim(snap, top + 1, 2):
            pending = ""
        else:
            pending = "\n".join([rows[0][1:].strip("\xa0 "),
                                 *(r.strip() for r in rows[1:])]).strip()
        status = [] if palette else below
        if (row := _status_row(lines, top)) is not None:
            status.append(row)
        return Frame(top, top + 1, pending, tuple(status), palette)

    def echo(self, row: str) -> str | None:
        return _echo(row)

    def failed(self, snap: Snapshot, frame: Frame, start: int | None) -> str | None:
        """An error block (``● API Error: …``, ``⎿  Not logged in``) anywhere in the last turn."""
        if start is None:
            return None
        for y in range(start + 1, frame.top):
            row = snap.lines[y]
            if row.startswith(("● ", RESULT)) and signs.error_line(row.lstrip(" ●⎿")):
                return repr(row.strip()[:80])
        return None

    def turn_open(self, snap: Snapshot, frame: Frame, start: int | None) -> str | None:
        """An answer after the last echoed prompt with no ``✻ <Verb>ed for Ns`` line below it.

        Claude Code replaces its ``esc to interrupt`` footer with notices for
        a while (``paste again to expand``, tmux hints), even mid-answer, so
        the footer alone cannot tell.  Local commands (``/…``) have no summary
        line; a turn cut short ends with a ``⎿`` note (interrupted).
        """
        lines = snap.lines
        if start is None or lines[start].startswith("❯ /"):
            return None
        rows = [row for row in lines[start + 1:frame.top] if row.strip()]
        summary = self.sign("summary")
        if any(summary.match(row) for row in rows) or (rows and rows[-1].startswith(RESULT)):
            return None
        return ("the answer has no '✻ … for Ns' line after it yet: the turn is still running (the "
                "footer shows a notice instead of 'esc to interrupt')")

    def finished(self, snap: Snapshot) -> bool:
        frame = self.frame(snap)
        if frame is None or frame.palette or any(signs.activity(r) for r in frame.status):
            return False
        row = _status_row(snap.lines, frame.top)
        return row is not None and bool(self.sign("summary").match(row))

    def answer_head(self, rows: Sequence[str], y: int, end: int) -> bool:
        return rows[y].startswith("● ") and not self._is_tool(rows, y, end) \
            and not self.sign("thinking").match(rows[y])

    def aside(self, snap: Snapshot, y: int) -> bool:
        row = snap.lines[y] if y < len(snap.lines) else ""
        return row.startswith(RESULT) or bool(self.sign("thinking").match(row)) \
            or bool(signs.is_dim(snap, y))

    def _is_tool(self, rows: Sequence[str], y: int, end: int) -> bool:
        """A ``● Name(args)`` block: a tool call, known by its shape or the ``⎿`` row under it."""
        if self.sign("tool_call").match(rows[y]):
            return True
        nxt = next((rows[i] for i in range(y + 1, end) if rows[i].strip()), "")
        return nxt.startswith(RESULT)


READERS = (ClaudeProfile,)

