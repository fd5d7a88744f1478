"""The profile of a program no other profile knows: ``npm init``, ``apt-get``, ``ssh``, a curses
menu.

It reads only the signs every program shows (:mod:`signs`, :mod:`questions`):

* an input area between two rules at the bottom (a coding CLI no profile
  knows: pi, Qwen Code) is read as a chat by :mod:`chat` - busy while it
  shows work, a menu there ``blocked``, else ``ready`` - before anything
  else, since text typed into it may look like a question;
* its own REPL prompt at the cursor - one that names it (``(gdb)``) or
  counts its inputs (``DB<1>``, ``In [2]:`` after ``In [1]:``) - is ``ready``;
* a question at the cursor (password, yes/no, ``label: (default)``,
  ``Username for …:``, a prompt library's ``? `` row) or over a rail field
  is ``blocked``, the question quoted;
* a dialog - a menu with one marked option, an inline choice (``● Yes / ○
  No``), curses buttons (``<Ok>`` ``<Cancel>``), a key hint (``Enter to
  confirm``) - is ``blocked``;
* a spinner, a running timer or a progress percentage is ``busy``;
* on the full screen, a bar of shortcuts (``^X Exit``) under the text the
  cursor is in is an editor waiting for keys, ``ready``, and a label at the
  cursor right above that bar (``Search:``) its question, ``blocked``; a
  status row telling which entry of how many is shown (``commit 1 of 3
  100%``) is a browser waiting for a key like a pager, ``blocked``;
* anything else says nothing (the detector then decides from the facts:
  a full screen it cannot read is ``unknown``, a line program without a
  question is ``busy``).

Callers that need a profile for any program get this one instead of
``None`` (:func:`registry.profile_or_generic`), so driving code needs no
"if there is a profile" branches: it submits with Enter, sends text by
bracketed paste (the terminal passes it through when the program never
asked for it) and leaves with ``C-d`` - pressed again when the program asks
for it again (:meth:`GenericProfile.asks_again`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..core.status import Status
from ..screen.snapshot import Snapshot
from . import chat, menus, signs
from .base import Profile, Verdict, cursor_line, last_text_row, quote
from .questions import ask, ask_in_frame

PERCENT = re.compile(r"(?<![\w.])\d{1,3}(?:\.\d+)?%")
BAR = re.compile(r"[#=█▓▒░■━>]{5,}|\beta\b|\[Working\]", re.IGNORECASE)
NAMED_PROMPT = re.compile(r"^\((?P<a>[\w.-]+)\)$|^(?P<b>[\w.-]+)\s?>$")
PROMPT_MAX = 24
ANGLE_COUNT = re.compile(r"^[A-Za-z]\w{0,11}<\d{1,5}>$")
SQUARE_COUNT = re.compile(r"^(?P<word>[A-Za-z]\w{0,11}) \[(?P<n>\d{1,5})\]:$")
KEY = re.compile(r"(?:\^|\bM-)\S{1,2} [A-Za-z]")
KEYS_IN_BAR = 4
KEY_BAR_ROWS = 3
POSITION = re.compile(r"\b\d+\s*(?:of|/)\s*\d+\b[^\n]*?\s\d{1,3}%\s*$")
POSITION_ROWS = 2
LOOK_ROWS = 6
# Qwen Code's "Press Ctrl+D again to exit.", Claude Code's "Press Ctrl-D again to exit"
AGAIN = re.compile(r"(?i)\bpress\s+(?:ctrl\s*[+-]\s*|\^)(?P<key>[cd])\s+again\s+to\s+(?:exit|quit)\b")
DIALOG_ROWS = 30


@dataclass(frozen=True)
class GenericProfile(Profile):
    """Any program, judged by the signs all programs share."""

    def classify(self, snap: Snapshot) -> Verdict | None:
        if chat.input_area(snap) is not None and (v := chat.speaker(self.name).classify(snap)):
            return v
        if prompt := _repl_prompt(snap, (self.name, snap.program)):
            return self.verdict(Status.READY, f"{self.name}'s own prompt {quote(prompt)} is at the "
                                "cursor with nothing typed")
        if q := ask(snap, self.name):
            return q
        menu = menus.find_menu(snap, max(0, len(snap.lines) - DIALOG_ROWS))
        if menu is not None:
            return self.verdict(Status.BLOCKED, f"a menu asks {quote(menu.question, 80)}; "
                                f"{quote(menu.selected, 40)} is selected (Enter takes it)",
                                menu.question, menu.options)
        if buttons := menus.find_buttons(snap):
            return self.verdict(Status.BLOCKED, f"a dialog asks {quote(buttons.question, 80)} with "
                                f"buttons {', '.join(buttons.labels)}", buttons.question,
                                buttons.items or buttons.labels)
        if toggle := menus.find_toggle(snap):
            return self.verdict(Status.BLOCKED, f"{quote(toggle.question, 80)} offers "
                                f"{' / '.join(toggle.options)}; {quote(toggle.selected, 40)} is "
                                "chosen", toggle.question, toggle.options)
        if q := ask_in_frame(snap, self.name):
            return q
        texts = [row for row in snap.lines if row.strip()][-LOOK_ROWS:]
        for row in reversed(texts):
            if sign := signs.activity(row):
                return self.verdict(Status.BUSY, f"{quote(sign)} shows work in progress")
            if m := _progress(row):
                return self.verdict(Status.BUSY, f"a progress figure {quote(m)} is on the screen")
        return _full_screen(self, snap) if snap.alternate else None

    @staticmethod
    def asks_again(snap: Snapshot) -> str | None:
        """The key a program asks to be pressed again to leave it (``Press Ctrl+D again to
        exit.``), or None."""
        # Gemini CLI writes it over its input band, its hints and two status rows: the 7th row up
        texts = [snap.lines[y] for y in snap.text_rows(2 * LOOK_ROWS)]
        m = next((m for row in texts if (m := AGAIN.search(row))), None)
        return f"C-{m.group('key').lower()}" if m else None

    def when_silent(self, snap: Snapshot) -> Verdict:
        if snap.alternate:
            return self.verdict(Status.UNKNOWN, f"{self.name} holds the full screen and shows no "
                                "question, dialog or sign of work")
        return self.verdict(Status.BUSY,
                            f"{self.name} is running and shows no question at the cursor")


def _repl_prompt(snap: Snapshot, names: tuple[str | None, ...]) -> str | None:
    """The prompt of a REPL or debugger alone at the cursor, nothing typed after it, or None.

    Three shapes say "prompt" whoever drew them: the program's own name as the
    prompt (``(gdb)``, ``mysql>``), a prompt that counts its inputs in angle
    brackets (``DB<1>``), and one that counts them in square brackets
    (``In [2]:``) when the same word with a lower count heads an earlier row -
    alone, ``Port [8080]:`` is a field with its default.  A program's output
    that merely looks like some other REPL's prompt (``sqlite>`` printed by a
    script) names neither the program nor its history.
    """
    cl = cursor_line(snap)
    text = cl.before.strip()
    if cl.after.strip() or not text or len(text) > PROMPT_MAX:
        return None
    named = NAMED_PROMPT.match(text)
    if named and (named.group("a") or named.group("b")).lower() in {n.lower() for n in names if n}:
        return text
    if ANGLE_COUNT.match(text):
        return text
    if m := SQUARE_COUNT.match(text):
        for y in range(cl.row - 1, -1, -1):
            head = SQUARE_COUNT.match(snap.lines[y].split(":", 1)[0].strip() + ":")
            if head and head.group("word") == m.group("word") \
                    and int(head.group("n")) < int(m.group("n")):
                return text
    return None


def _full_screen(profile: GenericProfile, snap: Snapshot) -> Verdict | None:
    """A full-screen program's key bar (an editor, or its question right above the bar)
    or its entry-of-count status row (a browser), or None."""
    if (bar := _key_bar(snap)) is not None:
        # Such a program asks on the row right above its bar ("Search:", "File Name to
        # Write:"); a cursor higher up is in the text being edited.
        cl = cursor_line(snap)
        asked = cl.before.strip()
        if cl.row == bar - 1 and asked.endswith((":", "?")) and not cl.after.strip():
            return profile.verdict(Status.BLOCKED, f"{profile.name} asks {quote(asked)} on the row "
                                   "above its key bar", asked)
        if cl.row < bar - 1:
            return profile.verdict(Status.READY, f"{profile.name} shows its key bar "
                                   f"{quote(snap.lines[bar], 40)} and the cursor in its text: it "
                                   "waits for keys, like an editor")
    if where := _position(snap):
        return profile.verdict(Status.BLOCKED, f"{profile.name} shows where it stands in a list "
                               f"{quote(where)} and waits for a key, like a pager",
                               f"{profile.name} waits for a key", ("q",))
    return None


def _key_bar(snap: Snapshot) -> int | None:
    """The top row of the bar of shortcuts at the bottom of a full-screen program (``^G
    Help  ^O Write Out  ^X Exit``, as nano and pico draw it), or None."""
    return next((y for y in snap.text_rows(KEY_BAR_ROWS)
                 if len(KEY.findall(snap.lines[y])) >= KEYS_IN_BAR), None)


def _position(snap: Snapshot) -> str | None:
    """A status row at the bottom telling which entry is shown of how many, and how far
    down that is (``commit 1 of 3  100%``), or None."""
    last = last_text_row(snap)
    if last < snap.height - POSITION_ROWS:
        return None
    m = POSITION.search(snap.lines[last])
    return m.group().strip() if m else None


def _progress(row: str) -> str | None:
    """A percentage that measures work going on: beside a bar or an ETA, or alone in its
    box (a gauge) - not a figure in a status line ("410 (0%)" of a context window)."""
    m = PERCENT.search(row)
    if m is None:
        return None
    alone = menus.strip_box(row).strip() == m.group()
    return m.group() if alone or BAR.search(row) else None


def generic(name: str | None) -> GenericProfile:
    """The generic profile speaking for ``name`` (an executable or a command's first word)."""
    label = (name or "program").rsplit("/", 1)[-1] or "program"
    return GenericProfile(label, (label,), "program", paste=True, exit_steps=(("keys", "C-d"),),
                          rank=99)
