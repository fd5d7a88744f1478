"""A chat CLI's input area, its turns and its answers, by the shapes such CLIs share: the reading
of a CLI no profile knows, and the reader (``reader = "chat"``) of the data files of CLIs that need
no reader of their own (pi, Qwen Code, Continue's cn, GitHub Copilot CLI).

Every coding CLI seen so far (tests/fixtures/screens: Claude Code, Gemini CLI,
Qwen Code, pi, Kimi, Copilot CLI) draws its input area as a band of one to a few rows
between two full-width horizontal rules near the bottom of the screen, with
at most a few status rows under it (and at most a folder row right on it), and the
transcript above it.  That band
is what :func:`input_area` finds; with it, :class:`ChatProfile` reads such a
screen the way :class:`~.ai.AiProfile` reads a profiled CLI's:

* work: a sign of :mod:`signs` (a spinner before trailing words, a running
  timer, an interrupt hint) on the last row of text above the band or under it -
  where pi draws ``⠹ Working...`` and Qwen Code ``.  <phrase>... (2s · esc to
  cancel)``, and Cline ``⠋ Thinking... (esc to cancel)`` under its prompt's echo with
  the rest of the screen blank down to the band;
* a question: a menu inside the band or under it (a command list, a choice);
* a failed turn: the last block above the band is an error line or red;
* else ready.

What is typed waits in the band: the text left of the cursor after the
band's prompt glyph (``>``, ``❯``, ``›``, ``●``); a CLI draws its placeholder right
of the cursor with nothing left of it (Qwen Code's ``>   Type your message``).
One that hides the terminal's cursor draws nothing in an empty band (pi) or
its placeholder dim or italic (Continue's ``▋Ask anything…``).

A turn's echo is not known by a shape of its own (pi echoes a prompt as
plain text on a shaded row), so a :class:`ChatProfile` made for one prompt
(:func:`speaker` with ``asked``) knows its echo as the row that starts with
that prompt's words, after at most one glyph.  Its answer is the rows
between that echo and the input area, rendered as shown, the marks a CLI
puts before its blocks (``◆︎``, ``●``) and a scroll bar in the last column
left out.

Such a CLI signs no end of a turn, and some draw nothing while a stream
stalls: a turn is over only once the screen has held still for
:data:`SETTLE`, longer than the stalls a model's stream makes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import ClassVar

from ..core.status import Status
from ..screen.cells import text_width
from ..screen.snapshot import Snapshot
from . import menus, signs, unprofiled
from .ai import AiProfile, Frame
from .answer import fenced_flush, quoted, squash, tidy, unnumbered
from .base import Profile, Verdict, cursor_line, quote

BAND_ROWS = 3  # rows of text an idle or typed-into input area takes between its rules
FOOTER_ROWS = 12  # rows under the band: status rows, or a command list opened from the band
RULE_MIN = 20  # characters of a rule around an input area (they span the screen)
RULE_INDENT = 2  # columns a rule around an input area may start right of the screen's left edge
# an input area's prompt glyph (Qwen Code >, Continue ●), or an echo's
GLYPH = re.compile(r"^\s*[>❯›»●](?:\s+|$)")
# a non-ASCII mark before a block's first row
MARK = re.compile(r"^(?P<indent>\s*)[^\x00-\x7f\w\s][\ufe0e\ufe0f]?\s")
# an ASCII mark before a block's first row (Cline's '*'), told from a Markdown bullet by its colour:
# see _coloured_mark
ASCII_MARK = re.compile(r"^(?P<indent>\s*)\*\s(?=\S)")
ZERO_WIDTH = "\u200b"  # Qwen Code draws one after the typed text, where its cursor stands
# a turn's summary a CLI draws over or under its answer: a verb and how long it took, after a mark
# (Claude Code's "✻ Cogitated for 2s · done 1:47 AM" and "Thought for 1s (ctrl+o to expand)", Codex's
# "Worked for 27s • 05:46"); left out as an answer's first or last row only (an answer may quote one)
SUMMARY = re.compile(r"^\W*?\s*[A-Z][\w\u00c0-\u024f]+ for (?:\d+h\s*)?(?:\d+m\s*)?\d+(?:\.\d+)?s"
                     r"(?:\s+[·•][^\n]*|\s*\([^()\n]*\))?\s*$")
ECHO_MIN = 8  # characters of a prompt an echo row must show (all of a shorter prompt)
# a row of the working folder alone (a branch after it), drawn right on the input area's upper rule
# (Copilot CLI's "/home/me/project"): the input area's own, not the answer's last row
FOLDER_ROW = re.compile(r"^\s?[~/][^\s]*(?:\s+[\[(].*)?$")
# a scroll bar's cell at a transcript row's right end (Copilot CLI's ┃, Qwen Code's █, Cline's
# half blocks ▄ ▀ where its thumb ends within a cell)
SCROLL_GLYPHS = "┃█▐▕▌▓▒░▀▄▁▂▃▅▆▇"
SCROLL_CELL = re.compile(rf"\s+[{SCROLL_GLYPHS}]$")
SETTLE = 2.5  # seconds of stillness that end a turn: longer than a stream's stalls
START_SETTLE = 1.0  # seconds the first idle screen holds still (CLIs draw their start in stages)


CORNERS = "╭╮╰╯┌┐└┘├┤"


def _indent(row: str) -> int:
    return len(row) - len(row.lstrip())


def _rule(row: str) -> bool:
    """A long rule from the left edge, or a bare one (no corners) anywhere: a CLI may draw its
    input area in a column in the middle of the screen (Cline's empty start screen), but a dialog's
    box drawn there, corners at its ends, is no input area."""
    text = row.strip()
    if len(text) < RULE_MIN or not set(text.strip(CORNERS)) <= {"─", "━", "═"}:
        return False
    return _indent(row) <= RULE_INDENT or (text[0] not in CORNERS and text[-1] not in CORNERS)


def input_area(snap: Snapshot) -> tuple[int, int] | None:
    """The rows of the two rules around the input area (upper, lower), or None.

    The lower rule is the lowest long rule with at most :data:`FOOTER_ROWS`
    rows of text under it; the upper one the next rule above it, as long,
    with at most :data:`BAND_ROWS` rows between them.  The screen's width
    is no measure: the transcript read back with its history is as wide as
    its longest line.
    """
    lines = snap.lines
    texts = [y for y, row in enumerate(lines) if row.strip()]
    rules = [y for y in texts[-(FOOTER_ROWS + BAND_ROWS + 2):] if _rule(lines[y])]
    for lower in reversed(rules):
        if sum(1 for y in texts if y > lower) > FOOTER_ROWS:
            return None
        upper = next((y for y in reversed(rules) if y < lower), None)
        if upper is not None and 0 < lower - upper - 1 <= BAND_ROWS \
                and text_width(lines[upper].strip()) == text_width(lines[lower].strip()) \
                and _column(lines[upper], lines[lower]):
            return upper, lower
    return None


def _column(upper: str, lower: str) -> bool:
    """Two rules that bound one input area: from the left edge, or both from the same column (a
    column drawn in the middle of the screen)."""
    return max(_indent(upper), _indent(lower)) <= RULE_INDENT or _indent(upper) == _indent(lower)


@dataclass(frozen=True)
class ChatProfile(AiProfile):
    """A CLI read by its input area; ``asked`` is the prompt of the turn being driven ("" for none).

    It reads a CLI no profile knows, and is the reader (``reader = "chat"``)
    of the data files of CLIs that need no reader of their own (pi, Qwen
    Code): they add their dialogs, exit steps and, as sign ``busy``, what
    their status rows show while they work.  Where no input area shows,
    such a profile reads the screen as the generic profile does.
    """

    asked: str = ""
    settle: float = SETTLE
    start_settle: float = START_SETTLE
    READER: ClassVar[str] = "chat"
    OWN_FACE: ClassVar[bool] = False
    MAY_SIGN: ClassVar[Mapping[str, tuple[str, ...]]] = {"busy": ()}

    def classify(self, snap: Snapshot) -> Verdict | None:
        """Signs of work first (a spinner's key hint is no menu's), then a menu at the input area,
        then the reading every AI CLI gets (a command list, a failed turn, ready)."""
        frame = self.frame(snap)
        if frame is None:
            return self._unframed(snap)
        if sign := next(filter(None, map(signs.activity, frame.status)), None) \
                or self.busy(snap, frame) or _spinning_head(snap, frame):
            return self.verdict(Status.BUSY, f"{quote(sign)} shows work at the input area")
        if menu := menus.find_menu(snap, frame.top, exclude=frame.input):
            return self.verdict(Status.BLOCKED, f"a menu asks {quote(menu.question, 80)} at the "
                                f"input area; {quote(menu.selected, 40)} is selected (Enter takes "
                                "it)", menu.question, menu.options)
        return super().classify(snap)

    def in_front(self, snap: Snapshot) -> bool:
        return True  # the detector chose this speaker for the program in front

    def busy(self, snap: Snapshot, frame: Frame) -> str | None:
        """A status row showing the CLI's own sign of work (``busy`` in its data file)."""
        mark = self.sign_patterns.get("busy")
        if mark is None:
            return None
        return next((row.strip() for row in frame.status if mark.search(row)), None)

    def when_silent(self, snap: Snapshot) -> Verdict:
        return unprofiled.silent(self, snap)

    def _unframed(self, snap: Snapshot) -> Verdict | None:
        """No input area: the generic reading, a question of it named after this CLI's own
        dialog when its data file knows the dialog (Qwen Code's permission question).

        A dialog of the data file on a screen the generic reading finds no question on (nor
        work) is the question all the same: the input area gave way to it, and its answer keys
        are no menu's or button's (Cline's ``[y] Approve   [n] Deny``, its start-up offer's
        ``Press Enter to open, any other key to close`` in a box over the screen).  Left unread,
        a turn waited its whole timeout on it, and ``start`` never closed the offer.  Answers
        named after their keys (Cline's) are the question's options."""
        verdict = unprofiled.read(self, snap)
        known = self.find_dialog(snap.text)
        if known is None:
            return verdict
        if verdict is None or verdict.status in (Status.UNKNOWN, Status.READY):
            keyed = menus.find_keyed(snap)
            return self.verdict(Status.BLOCKED, f"the {known.name} dialog shows where the input area "
                                "was", known.question, keyed.options if keyed else ())
        if verdict.status != Status.BLOCKED:
            return verdict
        return replace(verdict, evidence=f"the {known.name} dialog: {verdict.evidence}",
                       question=f"{known.question}: {verdict.question}")

    def frame(self, snap: Snapshot) -> Frame | None:
        found = input_area(snap)
        if found is None:
            return None
        upper, lower = found
        lines = snap.lines
        above = next((lines[y] for y in range(upper - 1, -1, -1) if lines[y].strip()), "")
        status = tuple(r for r in (above, *lines[lower + 1:]) if r.strip())
        top = upper - 1 if upper > 0 and FOLDER_ROW.match(lines[upper - 1].rstrip()) else upper
        return Frame(top, upper + 1, _typed(snap, upper, lower), status)

    def echo(self, row: str) -> str | None:
        """The row's text when it starts with the asked prompt's words (after one glyph), else
        None."""
        want = squash(self.asked.strip().split("\n", 1)[0]) if self.asked.strip() else ""
        if not want:
            return None
        text = menus.strip_box(row)
        if (m := GLYPH.match(text)) and not squash(text).startswith(want[:1]):
            text = text[m.end():]
        got = squash(text)
        if len(got) < min(ECHO_MIN, len(want)):
            return None
        return text.strip() if want.startswith(got) or got.startswith(want) else None

    def failed(self, snap: Snapshot, frame: Frame, start: int | None) -> str | None:
        """The last block above the input area begins or ends with an error line or red text (a
        failed turn's message: Copilot CLI's ``✗ Authentication failed …`` heads a block of
        four rows); a row holding only a scroll bar's cell is no text."""
        rows = [y for y in range(frame.top - 1, -1, -1) if menus.strip_box(snap.lines[y])]
        if not rows:
            return None
        head = rows[0]
        for y in rows[1:]:
            if y != head - 1:
                break
            head = y
        for y in dict.fromkeys((rows[0], head)):
            text = menus.strip_box(snap.lines[y])
            if signs.is_red(snap, y) or signs.error_line(text):
                return quote(text, 80)
        return None

    def dialog(self, snap: Snapshot, frame: Frame | None) -> None:
        # a question with the input area drawn is read by classify, after the signs of work
        return None

    def cut(self, snap: Snapshot, rows: Sequence[str], y: int, end: int) -> str:
        """Rows ``[y, end)`` as drawn: a block's mark, a frame and a scroll bar left out, spinner
        rows too, and a turn's summary over or under the answer (:data:`SUMMARY`); a block quote's
        rows behind their bar written back as ``> text`` at the text's margin (Qwen Code draws the
        bar a column in: Markdown makes nothing of up to three spaces before a ``>``); a code
        block's line numbers left out, and a drawn fence's lines flush with it again."""
        kept: list[str] = []
        quotes: set[int] = set()
        words = [_unmarked(r) for r in rows[y:end] if r.strip() and not r.lstrip()[:1].isdigit()]
        numbered = unnumbered(rows, y, end, min(map(_indent, words), default=None))
        for at, row in enumerate(numbered[y:end], start=y):
            if text_width(row) >= snap.width:  # a scroll bar's cell in the screen's last column
                row = SCROLL_CELL.sub("", row)
            if (said := quoted(SCROLL_CELL.sub("", row))) is not None:
                quotes.add(len(kept))
                kept.append(said)
                continue
            if (mark := _coloured_mark(snap, at, row)) is not None:
                row = mark
            row = menus.unbox(row)
            if signs.activity(row, hints=False):
                continue
            kept.append(row)
        text = [i for i, row in enumerate(kept) if row.strip()]
        for i in {text[0], text[-1]} if text else ():
            if SUMMARY.match(kept[i]):
                kept[i] = ""
        kept = fenced_flush([_unmarked(row) for row in kept])
        margin = min((_indent(r) for i, r in enumerate(kept) if r.strip() and i not in quotes), default=0)
        return tidy([r[_indent(r) - margin:] if i in quotes and 0 < _indent(r) - margin <= 3 else r
                     for i, r in enumerate(kept)])


def _unmarked(row: str) -> str:
    """``row`` with a block's mark before it made blank (its text stays in its column)."""
    return MARK.sub(lambda m: m.group("indent") + " " * 2, row, count=1)


# a braille spinner cell as the mark of a block's first row, text after it (Cline's " ⠼ Plan")
SPINNING_HEAD = re.compile(r"^\s{0,2}[\u2801-\u28ff]\s+\S")


def _spinning_head(snap: Snapshot, frame: Frame) -> str | None:
    """The head of the last block above the input area (its nearest row that starts within
    :data:`RULE_INDENT` columns: a block's rows after its head are indented) when a braille
    spinner stands as its mark: the block is still being written.  Cline shows no other sign
    while an answer streams, and none while its stream stalls, so its stall read as a turn's
    end."""
    for y in range(frame.top - 1, -1, -1):
        row = snap.lines[y]
        if row.strip() and _indent(row) <= RULE_INDENT:
            return row.strip() if SPINNING_HEAD.match(row) else None
    return None


def _fg(snap: Snapshot, y: int, x: int) -> str:
    return next((s.fg for s in snap.spans(y) if s.start <= x < s.end), "default")


def _coloured_mark(snap: Snapshot, y: int, row: str) -> str | None:
    """``row`` with its block's ASCII mark blanked, when it starts with one: a ``*`` drawn in a
    colour other than the text after it (Cline's blue ``*`` before its white answer).  A
    Markdown bullet ``* item`` a CLI leaves as typed is drawn in its text's colour, and kept: the
    colour is the only difference, so without captured styles nothing is taken for a mark."""
    m = ASCII_MARK.match(row)
    if m is None or not snap.styles or not 0 <= y < len(snap.lines) \
            or not snap.lines[y].startswith(row[:m.end()]):
        return None
    indent = len(m.group("indent"))
    if _fg(snap, y, indent) == _fg(snap, y, m.end()):
        return None
    return m.group("indent") + " " * (m.end() - indent) + row[m.end():]


def _typed(snap: Snapshot, upper: int, lower: int) -> str:
    """The text typed into the band (see the module's note on placeholders)."""
    band = [menus.unbox(snap.lines[y]) if y < len(snap.lines) else ""
            for y in range(upper + 1, lower)]
    cl = cursor_line(snap)
    if upper < cl.row < lower:
        before = menus.unbox(cl.before)
        head = GLYPH.match(before) if cl.row == upper + 1 else None
        left = before[head.end():] if head else before
        band = band[: cl.row - upper - 1] + [left + (cl.after.rstrip() if left.strip() else "")]
    else:
        cut = [0] * len(band)
        if band and (head := GLYPH.match(band[0])):
            cut[0] = head.end()
        band = [row[at:] for y, row, at in zip(range(upper + 1, lower), band, cut, strict=True)
                if not signs.is_dim(snap, y,
                                    text_width(row[:at]) + len(row[at:]) - len(row[at:].lstrip()),
                                    text_width(row))]
    return "\n".join(text for row in band if (text := row.replace(ZERO_WIDTH, "").strip()))


def speaker(profile: Profile, asked: str = "") -> ChatProfile:
    """The chat reading of ``profile``'s program (for one prompt, when ``asked`` is given): the
    profile itself when a data file gives it the chat reader, else one that knows only its
    name."""
    if isinstance(profile, ChatProfile):
        return replace(profile, asked=asked)
    return ChatProfile(profile.name, (profile.name,), asked=asked)


def speaks(profile: Profile, snap: Snapshot | None) -> bool:
    """Whether ``profile`` is the generic one or a chat CLI's, and ``snap`` shows an input area it
    can drive as a chat."""
    chatty = profile.kind == "program" or isinstance(profile, ChatProfile)
    return chatty and snap is not None and input_area(snap) is not None


READERS = (ChatProfile,)

