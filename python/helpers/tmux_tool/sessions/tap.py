"""One tap: the human answers a question of an agent's terminal from the page, and the agent hears of it.

The page shows the options of a session that is ``blocked`` on a question
(``[y/N]``, a numbered list, a menu, an AI CLI's permission dialog) as
buttons.  Between the page's look and the press, the program may have moved
on, or the agent may have answered; a key typed then would land in whatever
asks next.  So :func:`answer` looks again, and types only inside one
``if-shell -F`` whose condition (:func:`still_asked`) tmux checks at the
keystroke: the cursor, the history and the size as the look saw them, and
each row of the question (its options too) still where it was, found by
tmux's own search of the screen (``#{C/r:^row$}`` gives the first row that
matches).  The keys are the ones the tool knows for that kind of question
(:func:`..programs.menus.keys_to`, :func:`..programs.questions.typed_answer`).

A secret's question has no buttons: only the human's own keys type a secret.

What was chosen is written to the audit trail and kept on the session
(:data:`ANSWERED`); the agent's next ``status`` or ``wait`` of the session
reports it once as ``answered_by_human`` (:func:`..judgement.human.heard`).
The page's own looks (which judge sessions with ``status`` too) leave it
there (:func:`..judgement.human.page_looks`).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path

from ..core.status import Status
from ..judgement import human
from ..judgement.state import State
from ..programs import menus, questions
from ..screen.snapshot import Snapshot
from ..shared import audit
from ..transport import protocol
from ..transport.panes import PaneFacts
from ..transport.target import Target

ANSWERED = human.ANSWERED
MENU_ROWS = 24  # rows of a menu (with its question) checked at the keystroke, at most
ERE_SPECIAL = re.compile(r"([.\[\]()*+?{}|^$\\])")
REFUSED = "tt-refused"
CHANGED = "the question changed before the keystroke: nothing was typed"


@dataclass(frozen=True, slots=True)
class Tapped:
    """How a press ended: typed (with what), or why nothing was."""

    typed: bool
    why: str = ""
    text: str = ""
    keys: tuple[str, ...] = ()


def choice(st: State, option: str) -> tuple[str, tuple[str, ...], tuple[int, ...]] | None:
    """How to give ``option`` to the question ``st`` shows: the text and keys to type and the rows that
    hold the question, or None when the tool does not know how to type that answer.

    A menu (an AI CLI's dialog among them) is answered by moving its marker and Enter; a question at
    the cursor as :func:`..programs.questions.typed_answer` says.
    """
    snap = st.snap
    if snap is None or option not in st.options:
        return None
    menu = menus.find_menu(snap)
    if menu is not None and menu.options == st.options:
        top = next((y for y in range(menu.first_row - 1, max(-1, menu.first_row - menus.QUESTION_LOOKBACK), -1)
                    if menus.strip_box(snap.lines[y]) == menu.question), menu.first_row)
        rows = range(max(top, menu.last_row + 1 - MENU_ROWS), menu.last_row + 1)
        return "", menus.keys_to(menu, menu.options.index(option)), (*rows, snap.cursor[1])
    typed = questions.typed_answer(snap, option)
    if typed is None:
        return None
    listed = questions.numbered_above(snap, snap.cursor[1])
    return typed[0], typed[1], tuple(range(snap.cursor[1] - len(listed), snap.cursor[1] + 1))


def still_asked(snap: Snapshot, facts: PaneFacts, rows: tuple[int, ...]) -> str:
    """The condition tmux checks at the keystroke: the screen still shows the question as ``snap`` did.

    The cursor, the history's length and the pane's size are what the look saw, the pane lives, and each
    of ``rows`` (blank ones aside) is the first row of the screen that reads exactly as it did.
    """
    seen = f"{facts.cursor[0]}/{facts.cursor[1]}/{facts.history_size}/{facts.width}x{facts.height}"
    cond = ("#{&&:#{==:#{cursor_x}/#{cursor_y}/#{history_size}/#{pane_width}x#{pane_height}," + seen
            + "},#{?pane_dead,0,1}}")
    lines = [line.rstrip() for line in snap.lines]
    for y in sorted(set(rows)):
        if not 0 <= y < len(lines) or not lines[y]:
            continue
        first = lines.index(lines[y]) + 1
        cond = "#{&&:" + cond + ",#{==:#{C/r:" + _format_text("^" + ERE_SPECIAL.sub(r"\\\1", lines[y]) + "$") \
            + "}," + str(first) + "}}"
    return cond


def _format_text(text: str) -> str:
    """``text`` as literal characters inside a tmux format's argument (``#``, ``,`` and ``}`` escaped)."""
    return text.replace("#", "##").replace(",", "#,").replace("}", "#}")


def answer(target: Target, st: State, question: str, option: str, log: Path) -> Tapped:
    """Type ``option`` as the answer to ``question`` if ``st`` (a fresh look) still asks it, and tmux
    finds it still asked at the keystroke; record it in the audit trail ``log``."""
    if st.needs_human:
        return Tapped(False, "a secret is typed by the human's own keys, never by a button")
    if (st.status != Status.BLOCKED or st.question != question or option not in st.options or st.snap is None
            or st.facts is None):
        return Tapped(False, CHANGED)
    found = choice(st, option)
    if found is None:
        return Tapped(False, f"the tool does not know how to type {option!r} here: answer in the terminal")
    text, keys, rows = found
    pane = target.pane
    actions = []
    if text:
        actions.append(f"send-keys -t {protocol.quote(pane)} -l {protocol.quote(text)}")
    actions.append(f"send-keys -t {protocol.quote(pane)} " + " ".join(protocol.quote(k) for k in keys))
    actions.append(f"set-option -t {protocol.quote(f'={target.name}:')} {ANSWERED} {protocol.quote(option)}")
    out = target.tmux.cmd("if-shell", "-F", "-t", pane, still_asked(st.snap, st.facts, rows),
                          " ; ".join(actions), f"display-message -p {REFUSED}")
    if REFUSED in out:
        return Tapped(False, CHANGED)
    audit.record_answer(log, {"time": time.time(), "action": "answered by the human", "session": target.name,
                              "question": question, "option": option, "text": text, "keys": list(keys)})
    return Tapped(True, text=text, keys=keys)
