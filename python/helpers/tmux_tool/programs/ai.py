"""What the AI coding CLIs have in common: input boxes, menus, turns and answers.

Claude Code, Codex, Gemini CLI and OpenCode all draw a full-width TUI: a
transcript, then an input box with chrome around it (rules, footers, status
rows), anchored to the bottom of the screen however tall the terminal is.
Each profile finds its own input box from the bottom up; everything else is
judged relative to it:

* no input box, but a numbered choice list with a selection marker at the
  bottom: a dialog or menu (trust, theme, login, key approval, permission) -
  ``blocked``, with the question and the options as shown;
* the input box with a busy sign in the CLI's own chrome (spinner line,
  "esc to interrupt" footer): ``busy`` - it wins over the idle-looking box,
  which Ink TUIs keep drawn while they work;
* the input box below an answer that lacks the CLI's end-of-turn line
  (Codex's ``Worked for``, Claude's ``✻ … for Ns``): ``busy`` too - some
  CLIs show no busy sign at all while a stream stalls;
* the input box after a turn whose last block is an error: ``error``;
* otherwise ``ready``.

The answer of a turn is cut out of the transcript between the echo of the
prompt and the CLI's end-of-turn chrome, leaving out thinking lines (dim or
collapsed), tool-call blocks and the CLI's tips.

:class:`AiProfile` adds what ``start``/``ask`` need beyond a verdict: the
text waiting in the input box, whether the screen shows the CLI's own
end-of-turn sign, how long a screen must hold still, and for CLIs on the
alternate screen (no scrollback) the keys that page through the transcript.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..screen.cells import char_width, text_width
from ..screen.snapshot import Snapshot
from .base import Dialog, Profile, Verdict, cursor_line, quote
from .questions import PRESS_KEY

BOX_EDGE = "│┃"
# One option of a numbered menu: an optional selection marker, then "1." or "[1]".
OPTION = re.compile(r"^(?P<mark>[❯›>●→]\s*)?(?P<label>(?:\d{1,2}\.|\[\d{1,2}\])\s+\S.*)$")
MENU_SPAN = 14  # rows from the first option to the last one, descriptions included
QUESTION_LOOKBACK = 12
SHELL_PROMPT_END = ("$", "#", "%")
CRASH = re.compile(r"(?i)\b(?:killed|segmentation fault|core dumped|aborted|terminated)")
CRASH_ROWS = 3


def strip_box(row: str) -> str:
    """A row without the box borders (``│ ... │``, ``┃ ...``) drawn around it."""
    text = row.strip()
    if text[:1] in BOX_EDGE:
        text = text[1:]
    if text[-1:] in BOX_EDGE:
        text = text[:-1]
    return text.strip()


def is_dim(snap: Snapshot, y: int, start: int = 0) -> bool | None:
    """Whether all text of row ``y`` from cell ``start`` on is dim or italic (thinking
    lines, placeholders, Codex's "Worked for"); None when styles were not captured."""
    if not snap.styles:
        return None
    row = snap.lines[y] if y < len(snap.lines) else ""
    total = shaded = 0
    cells = 0
    spans = snap.spans(y)
    for ch in row:
        width = max(char_width(ch), 0)
        if cells >= start and not ch.isspace():
            total += width
            if any(s.start <= cells < s.end and (s.dim or s.italic) for s in spans):
                shaded += width
        cells += width
    return total > 0 and shaded == total


@dataclass(frozen=True, slots=True)
class Menu:
    """A numbered choice list at the bottom of the screen."""

    question: str
    options: tuple[str, ...]
    selected: str | None
    first_row: int


def find_menu(lines: Sequence[str], start: int = 0, stop: int | None = None) -> Menu | None:
    """The numbered menu in ``[start, stop)`` whose last option is nearest the bottom.

    A menu needs two or more options numbered from 1 and exactly one marked
    as selected (``❯ 2.``, ``› 1.``, ``> 1.``, ``● 1.``, ``→ [1]``); an
    answer's numbered list has no such marker.  The question is the nearest
    row above the options that holds a ``?``, else the first row of the
    paragraph right above them.
    """
    stop = len(lines) if stop is None else min(stop, len(lines))
    found: list[tuple[int, str, bool]] = []
    for y in range(stop - 1, max(start, 0) - 1, -1):
        m = OPTION.match(strip_box(lines[y]))
        if not m:
            if found and found[-1][0] - y > MENU_SPAN:
                break
            continue
        found.append((y, m.group("label").strip(), bool(m.group("mark"))))
        if m.group("label").startswith(("1.", "[1]")):
            break
    found.reverse()
    if len(found) < 2 or not found[0][1].startswith(("1.", "[1]")):
        return None
    marked = [label for _, label, mark in found if mark]
    if len(marked) != 1:
        return None
    first = found[0][0]
    return Menu(_question_above(lines, first, start), tuple(label for _, label, _ in found), marked[0], first)


def _question_above(lines: Sequence[str], first: int, start: int) -> str:
    """The row above the options that asks (holds a ``?``), else the first row of the
    paragraph right above them."""
    rows = [strip_box(lines[y]) for y in range(first - 1, max(start, first - QUESTION_LOOKBACK) - 1, -1)]
    rows = ["" if set(t) <= set("─━╌═╭╮╰╯") else t for t in rows]
    for t in rows:
        if "?" in t:
            return t
    block: list[str] = []
    for t in rows:
        if t:
            block.append(t)
        elif block:
            break
    return block[-1] if block else "a menu waits for a choice"


def notice(profile: Profile, snap: Snapshot) -> Verdict | None:
    """A screen that only waits for a key (``Press Enter to continue…`` on its last row)."""
    last = next((row for row in reversed(snap.lines) if row.strip()), "")
    if PRESS_KEY.search(last):
        return profile.verdict("blocked", f"{quote(last)} is the last row: a notice waits for a key",
                               last.strip(), ("Enter",))
    return None


def menu_verdict(profile: Profile, menu: Menu, dialog: Dialog | None = None) -> Verdict:
    """``blocked`` on a menu, naming the question, the options and the selected one.

    A known dialog is named and asks its own, clearer question.
    """
    what = f"the {dialog.name} dialog" if dialog else "a menu"
    question = f"{dialog.question}: {menu.question}" if dialog else menu.question
    return profile.verdict(
        "blocked",
        f"{what} asks {quote(menu.question, 80)}; {quote(menu.selected or '', 40)} is selected "
        "(Enter takes it)",
        question,
        menu.options,
    )


def squash(text: str) -> str:
    """Text without any whitespace, for comparing wrapped echoes with what was sent."""
    return "".join(text.split())


def echo_rows(rows: Sequence[str], start: int, prompt: str | None, content: Callable[[str], str]) -> int:
    """How many rows from ``start`` the echo of ``prompt`` takes.

    ``content`` strips the CLI's echo decoration from a row.  Rows are taken
    while their text continues the prompt (a wrapped or multi-line echo);
    blank rows inside a multi-line prompt are taken too.  A CLI that shows a
    long paste shortened takes one row.
    """
    want = squash(prompt or "")
    got = squash(content(rows[start]))
    i = start + 1
    while want and len(got) < len(want) and i < len(rows):
        more = squash(content(rows[i]))
        if more and not want.startswith(got + more):
            break
        got += more
        i += 1
    return i - start


def last_echo(rows: Sequence[str], stop: int, is_echo: Callable[[str], str | None],
              prompt: str | None, *, strict: bool = False) -> int | None:
    """The last echo row above ``stop`` that starts ``prompt``.

    Without ``strict`` the last echo row of any prompt stands in when none
    starts ``prompt`` (a CLI may show a long paste shortened).
    """
    want = squash(prompt or "")
    fallback = None
    for y in range(stop - 1, -1, -1):
        text = is_echo(rows[y])
        if text is None:
            continue
        got = squash(text)
        if not want or (got and (want.startswith(got) or got.startswith(want[: len(got)]))):
            return y
        if fallback is None and not strict:
            fallback = y
    return fallback


def tidy(rows: Sequence[str]) -> str:
    """Answer rows as text: common indentation removed, outer blank rows dropped,
    runs of blank rows (left where chrome was cut out) made one."""
    out: list[str] = []
    for r in rows:
        r = r.rstrip()
        if not r and (not out or not out[-1]):
            continue
        out.append(r)
    while out and not out[-1]:
        out.pop()
    indents = [len(r) - len(r.lstrip(" ")) for r in out if r]
    cut = min(indents, default=0)
    return "\n".join(r[cut:] for r in out)


def plain_snapshot(lines: Sequence[str]) -> Snapshot:
    """A style-less snapshot of text rows (scrollback handed over as strings)."""
    rows = tuple(line.rstrip() for line in lines)
    width = max((text_width(r) for r in rows), default=1)
    return Snapshot(rows, max(width, 1), max(len(rows), 1))


@dataclass(frozen=True)
class AiProfile(Profile):
    """An AI coding CLI: a :class:`Profile` plus what driving a turn needs.

    ``settle`` is how long a ready screen must hold still after a turn when
    the screen shows no end-of-turn sign of the CLI's own; with the sign
    (:meth:`finished`) a short quiet spell is enough.  ``start_settle`` is
    the same for the first screen after launch, which several CLIs draw in
    stages.  ``page_keys`` (up, back to the bottom) are set for CLIs on the
    alternate screen, whose transcript has no tmux scrollback.
    """

    settle: float = 1.0
    start_settle: float = 1.0
    page_keys: tuple[str, ...] = ()

    def in_front(self, snap: Snapshot) -> bool:
        """Whether this CLI is the foreground program (or tmux did not say)."""
        return snap.program is None or self.runs_as(snap.program)

    def ended(self, snap: Snapshot) -> Verdict | None:
        """The CLI is gone and the shell's prompt is back inside its last frame.

        A killed TUI leaves its frame on the screen; the shell prints its
        prompt (and bash its ``Killed``) over it, often on a row that still
        holds the frame's text right of the cursor, where no shell rule can
        see a prompt.  The CLI's profile knows the frame: a prompt left of
        the cursor and a crash word on the rows just above it mean the CLI
        died.
        """
        cl = cursor_line(snap)
        if not cl.before.rstrip().endswith(SHELL_PROMPT_END):
            return None
        for y in range(cl.row, max(-1, cl.row - CRASH_ROWS), -1):
            text = snap.lines[y] if y < len(snap.lines) else ""
            if m := CRASH.search(text):
                return self.verdict("error", f"{self.name} has ended: {m.group()!r} above the shell's prompt, "
                                    f"which is back at the cursor")
        return None

    def pending_input(self, snap: Snapshot) -> str | None:
        """The text in the input box ("" when empty or showing its placeholder),
        or None when no input box is visible."""
        return None

    def finished(self, snap: Snapshot) -> bool:
        """Whether the screen shows the CLI's own sign that the last turn ended."""
        return False

    def echo(self, row: str) -> str | None:
        """The prompt shown on ``row`` when it is the echo of a submitted prompt, else None.

        Only rows of the transcript (above :meth:`transcript_end`) are asked:
        the live input row may look the same.  ``ask`` finds its own turn
        by it - the first echo after the rows the transcript ended with
        before the prompt was sent.
        """
        return None

    def transcript_end(self, snap: Snapshot) -> int:
        """The first row of the bottom chrome (input box and below): the transcript
        is everything above it."""
        return len(snap.lines)

    def transcript_width(self, snap: Snapshot) -> int:
        """How many columns from the left the transcript takes (a side panel may sit right of it)."""
        return max(snap.width, max((text_width(row) for row in snap.lines), default=0))

    def answer_from(self, snap: Snapshot, prompt: str | None) -> str | None:
        """The answer to ``prompt`` cut out of a transcript (rows with styles when known)."""
        return None

    def extract_answer(self, lines: Sequence[str], prompt: str | None) -> str | None:
        return self.answer_from(plain_snapshot(lines), prompt)
