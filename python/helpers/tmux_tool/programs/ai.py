"""What the AI coding CLIs have in common: one way of reading their screens, one way of cutting
answers.

Claude Code, Codex, Gemini CLI, OpenCode, Kimi and Aider all draw a
transcript above an input area anchored to the bottom of the screen, with
chrome around it (rules, footers, a spinner row).  :meth:`AiProfile.classify`
is the one reading of such a screen, in this order:

1. the CLI is no longer in front: it ended (a crash word above the shell
   prompt inside its dead frame);
2. a dialog at the bottom - a menu with one marked choice, curses buttons, a
   key hint with no input box, a "press Enter" notice - is ``blocked`` with
   its question and options (trust, theme, login, key entry, permission);
3. no input area at all: no verdict of its own (the detector then asks
   :meth:`AiProfile.when_silent`, which calls a blank screen, a spinner or a
   working word, or output the launch is still printing ``busy``: start-up);
4. a command palette open over the input area: ``blocked``;
5. a sign of work in the CLI's own chrome - a spinner before trailing words,
   a running timer, an interrupt hint - or the CLI's own busy sign: ``busy``
   (it wins over the idle-looking box, which Ink TUIs keep drawn);
6. the last turn's final block is an error (the CLI's own failure mark, an
   error line, red text): ``error``;
7. an answer without the CLI's end-of-turn sign (some CLIs show nothing at
   all while a stream stalls): ``busy``;
8. otherwise ``ready``.

Steps 2, 3, 5 and 6 rest on :mod:`signs`, which do not drift between
releases; a CLI module supplies only its own parse of the screen
(:meth:`AiProfile.frame`) and the few hooks that are really its own.

The answer of a turn is cut out of the transcript between the echo of the
prompt and the CLI's end-of-turn chrome, leaving out thinking (dim or
collapsed), tool blocks and tips (:meth:`AiProfile.answer_from`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from ..core.status import Status
from ..screen.cells import text_width
from ..screen.snapshot import Snapshot
from . import menus, signs
from .answer import echo_rows, last_echo, plain_snapshot, quoted, squash, tidy
from .base import Kind, Profile, Verdict, cursor_line, quote
from .questions import PRESS_KEY
from .shell import split_prompt

DIALOG_ROWS = 30  # a dialog without an input box is drawn within this many rows of the bottom
HINT_ROWS = 6
PALETTE_ROW = re.compile(r"^\s*(?:[❯›>]\s*)?/?[\w:-]+\s{2,}\S")
PALETTE_ROWS = 3
LAST_BLOCK_ROWS = 4

__all__ = ["AiProfile", "Frame", "squash"]


@dataclass(frozen=True, slots=True)
class Frame:
    """A CLI's screen as its profile parsed it.

    ``top`` is the first row of the bottom chrome (the input area and all
    below it): the transcript is everything above.  ``input`` is the row the
    input text starts on.  ``pending`` is the text
    waiting in the input area ("" when empty or showing a placeholder).
    ``status`` holds the CLI's own status rows (footer, spinner row, status
    line), where signs of work are read - never the transcript, which may
    quote them.  ``palette`` says a command list is open.
    """

    top: int
    input: int
    pending: str = ""
    status: tuple[str, ...] = ()
    palette: bool = False


def _indent(row: str) -> int:
    return len(row) - len(row.lstrip(" "))


@dataclass(frozen=True)
class AiProfile(Profile):
    """An AI coding CLI: a :class:`Profile` read through :meth:`frame` and a few hooks.

    ``settle`` is how long a ready screen must hold still after a turn when
    the screen shows no end-of-turn sign of the CLI's own; with the sign
    (:meth:`finished`) a short quiet spell is enough.  ``start_settle`` is
    the same for the first screen after launch, which several CLIs draw in
    stages, and ``first_settle`` the least any end of the first turn must
    hold still (a CLI may lay out its first answer again once its Markdown
    parser has loaded).  ``page_keys`` (up, back to the bottom) are set for CLIs on the
    alternate screen, whose transcript has no tmux scrollback.  Every CLI
    takes its prompt by bracketed paste.

    A CLI's profile is a data file (``profiles/<name>.toml``, :mod:`.schema`)
    naming its reader: a subclass registered under :attr:`READER`, whose
    sign patterns (:attr:`SIGNS`, required, and :attr:`MAY_SIGN`, optional,
    each with the named groups it reads) the file gives in ``[signs]``;
    :meth:`sign` hands them to the reader's code.
    """

    kind: Kind = "ai"
    paste: bool = True
    settle: float = 1.0
    start_settle: float = 1.0
    first_settle: float = 0.0
    page_keys: tuple[str, ...] = ()
    sign_patterns: Mapping[str, re.Pattern[str]] = field(default_factory=dict, compare=False,
                                                         hash=False)
    strict_echo: ClassVar[bool] = False  # True: only an echo of this very prompt starts its answer
    READER: ClassVar[str] = ""  # the name data files give as their reader ("" for none)
    SIGNS: ClassVar[Mapping[str, tuple[str, ...]]] = {}  # sign -> named groups read: required
    MAY_SIGN: ClassVar[Mapping[str, tuple[str, ...]]] = {}  # the same, optional

    def sign(self, name: str) -> re.Pattern[str]:
        """The pattern of sign ``name`` as the profile's data file gives it."""
        return self.sign_patterns[name]

    # ---- what each CLI supplies -------------------------------------------------------------

    def frame(self, snap: Snapshot) -> Frame | None:
        """The input area and its chrome, or None when no input area is drawn."""
        return None

    def echo(self, row: str) -> str | None:
        """The prompt on a row that echoes a submitted prompt, else None."""
        return None

    def busy(self, snap: Snapshot, frame: Frame) -> str | None:
        """A sign of work only this CLI shows (beyond :func:`signs.activity` in its status rows)."""
        return None

    def failed(self, snap: Snapshot, frame: Frame, start: int | None) -> str | None:
        """This CLI's own mark of a failed last turn (rows ``start``..``frame.top``), else None."""
        return None

    def turn_open(self, snap: Snapshot, frame: Frame, start: int | None) -> str | None:
        """Why the last turn has not ended although no busy sign shows, else None."""
        return None

    def finished(self, snap: Snapshot) -> bool:
        """Whether the screen shows the CLI's own sign that the last turn ended."""
        return False

    def answer_head(self, rows: Sequence[str], y: int, end: int) -> bool:
        """Whether the block starting at column 0 on row ``y`` is answer text."""
        return False

    def aside(self, snap: Snapshot, y: int) -> bool:
        """Whether indented row ``y`` starts something inside an answer that is not
        answer text (thinking, a tool result, a tip); rows deeper than it go too."""
        return bool(signs.is_dim(snap, y))

    def turn_end(self, rows: Sequence[str], start: int, end: int) -> int:
        """Where the answer that starts at ``start`` ends (its end-of-turn line), at most
        ``end``."""
        return end

    # ---- the one reading of a screen --------------------------------------------------------

    def classify(self, snap: Snapshot) -> Verdict | None:
        if not self.in_front(snap):
            return self.ended(snap)
        frame = self.frame(snap)
        if dialog := self.dialog(snap, frame):
            return dialog
        if frame is None:
            return self.without_frame(snap)
        if frame.palette or self._palette(snap, frame):
            return self.verdict(Status.BLOCKED, "a command list is open at the input area",
                                "which command? (Escape closes the list)", ("Escape",))
        if sign := self.busy(snap, frame) \
                or next(filter(None, map(signs.activity, frame.status)), None):
            return self.verdict(Status.BUSY, f"the CLI's status shows {quote(sign)}")
        start = last_echo(snap.lines, frame.top, self.echo, None)
        if why := self.failed(snap, frame, start) or self._error_block(snap, frame, start):
            return self.verdict(Status.ERROR, f"the last turn failed: {why}")
        if why := self.turn_open(snap, frame, start):
            return self.verdict(Status.BUSY, why)
        return self.verdict(Status.READY, "the input area is idle and no sign of work shows")

    def knows(self, snap: Snapshot) -> bool:
        """Its own input area, or one of its own dialogs: a menu alone is any program's."""
        return self.frame(snap) is not None or self.find_dialog(snap.text) is not None

    def in_front(self, snap: Snapshot) -> bool:
        """Whether this CLI is the foreground program (or tmux did not say)."""
        return snap.program is None or self.runs_as(snap.program)

    def ended(self, snap: Snapshot) -> Verdict | None:
        """The CLI is gone: the shell's prompt is back inside its last frame, with a crash
        word just above it (see :func:`signs.died_under_prompt`)."""
        cl = cursor_line(snap)
        if word := signs.died_under_prompt(snap, cl.before, cl.row):
            return self.verdict(Status.ERROR, f"{self.name} has ended: {word!r} above the shell's "
                                "prompt, which is back at the cursor")
        return None

    def dialog(self, snap: Snapshot, frame: Frame | None) -> Verdict | None:
        """A question drawn over or instead of the input area, by the generic signs."""
        lines = snap.lines
        low = frame.top if frame else max(0, len(lines) - DIALOG_ROWS)
        menu = menus.find_menu(snap, low, exclude=frame.input if frame else None)
        after = next((a for r in lines[menu.last_row + 1:]
                      if (a := signs.activity(r, hints=False))), None) if menu else None
        if after:  # the menu was answered and stays drawn above what the program does now
            return self.verdict(Status.BUSY,
                                f"{quote(after)} below a menu that was already answered")
        if menu is not None:
            known = self.find_dialog(snap.text)
            what = f"the {known.name} dialog" if known else "a menu"
            question = f"{known.question}: {menu.question}" if known else menu.question
            return self.verdict(Status.BLOCKED, f"{what} asks {quote(menu.question, 80)}; "
                                f"{quote(menu.selected, 40)} is selected (Enter takes it)",
                                question, menu.options)
        if frame is not None:
            return None
        if overlay := menus.find_overlay(snap):
            return self.verdict(Status.BLOCKED, f"a dialog {quote(overlay[0], 40)} is open over "
                                "the screen (esc closes it)", overlay[0], overlay[1])
        if buttons := menus.find_buttons(snap):
            return self.verdict(Status.BLOCKED, f"a dialog asks {quote(buttons.question, 80)} with "
                                f"buttons {', '.join(buttons.labels)}", buttons.question,
                                buttons.items or buttons.labels)
        texts = [y for y, row in enumerate(lines) if row.strip()]
        last = lines[texts[-1]] if texts else ""
        if PRESS_KEY.search(last):
            return self.verdict(Status.BLOCKED,
                                f"{quote(last)} is the last row: a notice waits for a key",
                                last.strip(), ("Enter",))
        hint = next((y for y in reversed(texts[-HINT_ROWS:]) if menus.HINT.search(lines[y])), None)
        if hint is not None and not signs.activity(lines[hint]):
            question = _asked_above(lines, hint)
            return self.verdict(Status.BLOCKED, f"{quote(menus.plain(lines[hint]))} tells which "
                                f"keys answer {quote(question, 60)}",
                                question, ("Enter", "Escape"))
        return None

    def without_frame(self, snap: Snapshot) -> Verdict | None:
        """A sign of this CLI's own on a screen without its input area (a line-oriented CLI
        writing its answer), else None."""
        return None

    def when_silent(self, snap: Snapshot) -> Verdict:
        """The CLI is known to be in front but shows no input area, dialog or sign of its
        own: while it starts it draws a blank screen, a spinner, or the output of its
        launch; anything else is a screen no rule here knows."""
        texts = [row for row in snap.lines if row.strip()]
        if not texts:
            return self.verdict(Status.BUSY, f"{self.name} is in front and the screen is still "
                                "blank: starting")
        for row in texts[-HINT_ROWS:]:
            if sign := signs.activity(row):
                return self.verdict(Status.BUSY, f"{quote(sign)} with no input area yet: starting")
        first = next(y for y, row in enumerate(snap.lines) if row.strip())
        launch = split_prompt(snap.lines[first].strip())
        if launch and launch[1] and all(row.strip() for row in snap.lines[first:]):
            return self.verdict(Status.BUSY, f"only the shell line that launched {self.name} is on "
                                "the screen: starting")
        x, y = snap.cursor
        if x == 0 and y >= len(snap.lines) and not snap.alternate:
            return self.verdict(Status.BUSY, f"{self.name} is printing on the normal screen (the "
                                "cursor is at the start of the row below its output) and has drawn "
                                "no input area yet: starting")
        return self.verdict(Status.UNKNOWN, f"{self.name} shows none of its known screens")

    def _palette(self, snap: Snapshot, frame: Frame) -> bool:
        """A ``/`` typed in the input area with rows of commands and descriptions next to it."""
        if not frame.pending.startswith("/"):
            return False
        rows = snap.lines
        near = [*rows[max(0, frame.top - 12):frame.top], *rows[frame.top:]]
        return sum(bool(PALETTE_ROW.match(menus.unbox(r))) for r in near) >= PALETTE_ROWS

    def _error_block(self, snap: Snapshot, frame: Frame, start: int | None) -> str | None:
        """An error as the final block of the last turn: an error line or red text."""
        if start is None:
            return None
        block: list[int] = []
        for y in range(frame.top - 1, start, -1):
            if not snap.lines[y].strip():
                if block:
                    break
                continue
            block.append(y)
            if len(block) > LAST_BLOCK_ROWS:
                return None
        for y in reversed(block):
            text = menus.strip_box(snap.lines[y])
            if signs.is_red(snap, y) or signs.error_line(text):
                return quote(text, 80)
        return None

    # ---- driving a turn ---------------------------------------------------------------------

    def pending_input(self, snap: Snapshot) -> str | None:
        """The text in the input area ("" when empty or showing its placeholder),
        or None when no input area is visible."""
        frame = self.frame(snap)
        return frame.pending if frame else None

    def shows_echo(self, snap: Snapshot, prompt: str) -> bool:
        """Whether the transcript shows the echo of this very ``prompt`` (its first rows)."""
        return last_echo(snap.lines, self.transcript_end(snap), self.echo, prompt,
                         strict=True) is not None

    def transcript_end(self, snap: Snapshot) -> int:
        """The first row of the bottom chrome: the transcript is everything above it."""
        frame = self.frame(snap)
        return frame.top if frame else len(snap.lines)

    def transcript_width(self, snap: Snapshot) -> int:
        """How many columns from the left the transcript takes (a side panel may sit right of
        it)."""
        return max(snap.width, max((text_width(row) for row in snap.lines), default=0))

    def answer_from(self, snap: Snapshot, prompt: str | None) -> str | None:
        """The answer to ``prompt`` cut out of a transcript (rows with styles when known)."""
        width = self.transcript_width(snap)
        rows = [row[:width].rstrip() for row in snap.lines]
        end = self.transcript_end(snap)
        start = last_echo(rows, end, self.echo, prompt, strict=self.strict_echo)
        if start is None:
            return None
        y = start + echo_rows(rows, start, prompt, lambda r: self.echo(r) or menus.strip_box(r))
        return self.cut(snap, rows, y, self.turn_end(rows, y, end))

    def cut(self, snap: Snapshot, rows: Sequence[str], y: int, end: int) -> str:
        """The answer rows in ``[y, end)``: blocks at column 0 kept when :meth:`answer_head`
        says so (their bullet taken off), indented rows of kept blocks kept unless
        :meth:`aside` says they are something else; a block quote's rows, however
        dim, are answer (written back as ``> text``)."""
        kept: list[str] = []
        skipping = False
        aside: int | None = None
        for i in range(y, end):
            row = rows[i]
            if not row.strip():
                kept.append("")
                continue
            if row[0] != " ":
                skipping, aside = not self.answer_head(rows, i, end), None
                if not skipping:
                    kept.append("  " + row[2:])
                continue
            if aside is not None and _indent(row) > aside:
                continue
            aside = None
            if skipping:
                continue
            if (quote := quoted(row)) is not None:
                kept.append(quote)
                continue
            if self.aside(snap, i):
                aside = _indent(row)
                continue
            kept.append(row)
        return tidy(kept)

    def extract_answer(self, lines: Sequence[str], prompt: str | None) -> str | None:
        return self.answer_from(plain_snapshot(lines), prompt)


def _asked_above(lines: Sequence[str], hint: int) -> str:
    """What a screen with a key hint asks: the nearest row above it that asks (``?``), else
    the nearest row of text that is no option, description or other hint."""
    texts = [(lines[y], menus.plain(lines[y])) for y in range(hint - 1, max(-1, hint - 16), -1)]
    texts = [(row, t) for row, t in texts if t and not menus.is_rule(t)]
    for _, t in texts:
        if "?" in t:
            return t
    for row, t in texts:
        option = menus.MARKED.match(menus.unbox(row)) or menus.NUMBERED.match(t)
        if not (option or menus.HINT.search(t) or len(row) - len(row.lstrip()) > 4):
            return t
    return texts[-1][1] if texts else menus.strip_box(lines[hint])
