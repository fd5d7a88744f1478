"""OpenCode (1.18.33, also the newest), a full-screen TUI on the alternate screen; and Kilo CLI
(7.7.7), an OpenCode fork that draws the same screens with its own words (``profiles/kilo.toml``).

Its face, bottom up (tests/fixtures/screens/opencode/): the footer row -
``■⬝⬝⬝  esc interrupt … ctrl+p commands`` while a turn runs (streaming and
stalls included), else the directory, token count and ``ctrl+p commands``
(or the version on the home screen); the input box, a ``┃`` block ending
with the agent and model (``┃  Build · Scripted Model Scripted``) and a
``╹▀▀▀`` edge; above it the session.  Prompts are echoed as ``┃`` blocks,
answers are indented five columns (a block quote's rows behind ``│``) and
each turn ends with ``▣  Build ·
<model>`` - with its duration (``· 14.6s``) once it is done.  A failed turn
shows the error as a ``┃`` block of its own (red edge) right under the
prompt's, with no answer between; that shape, not a missing duration, is
what tells a failure.

A tool permission replaces the input box with ``△ Permission required`` and
the choices ``Allow once   Allow always   Reject``.  ``/`` opens a command
list above the input; ``ctrl+p`` a command palette over the session.  The
alternate screen has no scrollback, so a long answer is read by paging the
session up (PageUp) and back down (End).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from ..core.status import Status
from ..screen.snapshot import Snapshot
from . import menus, signs
from .ai import AiProfile, Frame
from .answer import quoted, tidy
from .base import Verdict, quote

ANSWER_INDENT = "     "
PERMISSION_ROWS = 20


def _bare_quote(rows: Sequence[str]) -> bool:
    """Whether an answer's rows hold a block quote that is all bars and no text."""
    block: list[str] = []
    for row in [*rows, ""]:
        quote = quoted(row) if row.startswith(ANSWER_INDENT) else None
        if quote is not None:
            block.append(quote.strip())
        elif block:
            if all(q == ">" for q in block):
                return True
            block = []
    return False


@dataclass(frozen=True)
class OpencodeProfile(AiProfile):
    """OpenCode's screens and how to drive it (its data: ``profiles/opencode.toml``).

    Its signs: ``edge`` (the input box's lower edge), ``block`` (a ``┃``
    row), ``command_row`` (a command of the ``/`` list), ``placeholder``,
    ``echo`` (a prompt's block, its ``text``), ``turn_end`` (a turn's ``▣``
    line), ``duration`` (on it once the turn is done), ``permission`` (the
    question) and ``choices`` (its options' row).
    """

    strict_echo: ClassVar[bool] = True
    READER: ClassVar[str] = "opencode"
    SIGNS: ClassVar[dict[str, tuple[str, ...]]] = {
        **dict.fromkeys(("edge", "block", "command_row", "placeholder", "turn_end", "duration",
                         "permission", "choices"), ()),
        "echo": ("text",)}

    def _edge(self, lines: Sequence[str]) -> int | None:
        return next((y for y in range(len(lines) - 1, -1, -1) if self.sign("edge").match(lines[y])),
                    None)

    def _last_turn_end(self, lines: Sequence[str], stop: int) -> int | None:
        turn_end = self.sign("turn_end")
        return next((y for y in range(stop - 1, -1, -1) if turn_end.match(lines[y])), None)

    def dialog(self, snap: Snapshot, frame: Frame | None) -> Verdict | None:
        """The permission question inside the input area, with its three choices on one row."""
        lines = snap.lines
        asked = next((y for y in range(len(lines) - 1, max(-1, len(lines) - PERMISSION_ROWS), -1)
                      if self.sign("permission").search(lines[y])), None)
        if asked is not None and any(self.sign("choices").search(row) for row in lines[asked:]):
            what = " ".join(menus.strip_box(row) for row in lines[asked + 1:asked + 4]
                            if menus.strip_box(row))
            question = f"Permission required: {what}".strip()
            # Kilo CLI, an OpenCode fork, draws the same question: the data file's own words name who asks
            asker = next((d.question for d in self.dialogs if d.name == "permission"), "OpenCode asks")
            return self.verdict(Status.BLOCKED, f"{asker}: {quote(question, 80)}", question,
                                ("Allow once", "Allow always", "Reject"))
        return super().dialog(snap, frame)

    def frame(self, snap: Snapshot) -> Frame | None:
        """The input box: the ``┃`` block that ends at the last ``╹▀▀▀`` edge (the command
        list, drawn as a boxed block right on top of it, not included).  On wide
        terminals a side panel (session title, context, LSP) fills the columns right
        of the box's edge."""
        lines = snap.lines
        edge = self._edge(lines)
        if edge is None:
            return None
        top = edge
        block, command_row = self.sign("block"), self.sign("command_row")
        while top > 0 and block.match(lines[top - 1]) and not command_row.match(lines[top - 1]):
            top -= 1
        if top == edge:
            return None
        width = self.transcript_width(snap)
        rows = [menus.strip_box(row[:width]) for row in lines[top:edge - 1]]
        text = "\n".join(row for row in rows if row).strip()
        pending = "" if self.sign("placeholder").match(text) else text
        footer = next((row for row in reversed(lines) if row.strip()), "")
        palette = top > 0 and bool(command_row.match(lines[top - 1]))
        return Frame(top, top, pending, (footer,), palette)

    def echo(self, row: str) -> str | None:
        m = self.sign("echo").match(row)
        return m.group("text") if m else None

    def failed(self, snap: Snapshot, frame: Frame, start: int | None) -> str | None:
        """The last turn ended (its ``▣`` line) without a duration and without any answer
        row, and shows a ``┃`` block besides its prompt's: that block is the error.  (A
        toast box may overlap the blocks; a red edge says the same where styles are known.)"""
        width = self.transcript_width(snap)  # a side panel may stand right of the session
        lines = [row[:width] for row in snap.lines]
        end = self._last_turn_end(lines, frame.top)
        if end is None or self.sign("duration").search(lines[end]):
            return None
        begin = self._last_turn_end(lines, end)
        turn = range(begin + 1 if begin is not None else 0, end)
        if any(lines[y].startswith(ANSWER_INDENT) and lines[y].strip()[:1] not in ("", "┃")
               for y in turn):
            return None
        texts = [(y, menus.strip_box(lines[y])) for y in turn if self.sign("block").match(lines[y])]
        texts = [(y, t) for y, t in texts if t]
        if len(texts) < 2 and not any(signs.is_red(snap, y) for y, _ in texts):
            return None
        return quote(" ".join(t for _, t in texts[1:]) or texts[0][1], 80)

    def turn_open(self, snap: Snapshot, frame: Frame, start: int | None) -> str | None:
        """A prompt echoed with no ``▣`` line under it yet: OpenCode draws that line as soon
        as the turn begins, so the turn was only just submitted.  Or an answer whose block
        quote stands without its text: in the first turn of a session OpenCode draws the
        quote's bar and its duration first, and the quote's text up to 0.3 s later."""
        end = self._last_turn_end(snap.lines, frame.top)
        if start is None:
            return None
        if end is None or end < start:
            return ("the prompt is echoed but no '▣' line follows it yet: the turn has only just "
                    "begun")
        width = self.transcript_width(snap)
        if _bare_quote([row[:width] for row in snap.lines[start + 1:end]]):
            return ("a block quote of the answer stands without its text yet: OpenCode is still "
                    "drawing the answer")
        return None

    def finished(self, snap: Snapshot) -> bool:
        frame = self.frame(snap)
        if frame is None or any(signs.activity(r) for r in frame.status):
            return False
        end = self._last_turn_end(snap.lines, frame.top)
        return end is not None and bool(self.sign("duration").search(snap.lines[end]))

    def transcript_width(self, snap: Snapshot) -> int:
        edge = next((row for row in reversed(snap.lines) if self.sign("edge").match(row)), None)
        return len(edge) + 1 if edge else super().transcript_width(snap)

    def turn_end(self, rows: Sequence[str], start: int, end: int) -> int:
        stop = self._last_turn_end(rows, end)
        return stop if stop is not None and stop >= start else end

    def cut(self, snap: Snapshot, rows: Sequence[str], y: int, end: int) -> str:
        """Answers are the rows indented five columns: a block quote's (``│``, written
        back as ``> text``) and those not dim."""
        kept: list[str] = []
        for i in range(y, end):
            row = rows[i]
            if not row.strip():
                kept.append("")
            elif row.startswith(ANSWER_INDENT) and (quote := quoted(row)) is not None:
                kept.append(quote)
            elif row.startswith(ANSWER_INDENT) and not signs.is_dim(snap, i):
                kept.append(row)
        return tidy(kept)


READERS = (OpencodeProfile,)
