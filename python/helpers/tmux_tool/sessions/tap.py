"""One tap: the human answers a question of an agent's terminal from the page, and the agent hears
of it.

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
A question in the same words may ask about something else (Claude Code asks
"Do you want to proceed?" about every command): the rows that say what it is
about belong to the question, and the press carries a digest of them
(:func:`asked`), so a press made for one command never answers the next.

A secret's question has no buttons: only the human's own keys type a secret.

What was chosen is written to the audit trail and kept on the session
(:data:`ANSWERED`); the agent's next ``status`` or ``wait`` of the session
reports it once as ``answered_by_human`` (:func:`..judgement.human.heard`).
The page's own looks (which judge sessions with ``status`` too) leave it
there (:func:`..judgement.human.page_looks`).
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..core.clock import Deadline
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
MOVED = ("the question changed while its menu's marker was moved to the option: it was not chosen; "
         "look at the terminal")
STEP_SHOWN = 3.0  # seconds a menu has to show its marker moved by one key
STEP_POLL = 0.02


@dataclass(frozen=True, slots=True)
class Tapped:
    """How a press ended: typed (with what), or why nothing was."""

    typed: bool
    why: str = ""
    text: str = ""
    keys: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Choice:
    """How to give an option to the question a screen shows: the ``text`` and ``keys`` to type, the
    ``rows`` checked at the keystroke, and the rows that say what is asked (``subject``: without a
    menu's own rows, whose marker moves as it is answered)."""

    text: str
    keys: tuple[str, ...]
    rows: tuple[int, ...]
    subject: tuple[int, ...]
    menu: bool


def choice(st: State, option: str) -> Choice | None:
    """How to give ``option`` to the question ``st`` shows, or None when the tool does not know how
    to type that answer.

    A menu (an AI CLI's dialog among them) is answered by moving its marker and Enter; answers named
    after their keys (Cline's ``[y] Approve   [n] Deny``) by the key alone; a question at the cursor
    as :func:`..programs.questions.typed_answer` says.
    """
    snap = st.snap
    if snap is None or option not in st.options:
        return None
    menu = menus.find_menu(snap)
    if menu is not None and menu.options == st.options:
        top = next(
            (
                y
                for y in range(
                    menu.first_row - 1, max(-1, menu.first_row - menus.QUESTION_LOOKBACK), -1
                )
                if menus.strip_box(snap.lines[y]) == menu.question
            ),
            menu.first_row,
        )
        first = max(_subject(snap, top), menu.last_row + 1 - MENU_ROWS)
        return Choice(
            "",
            menus.keys_to(menu, menu.options.index(option)),
            (*range(first, menu.last_row + 1), snap.cursor[1]),
            tuple(range(first, menu.first_row)),
            True,
        )
    keyed = menus.find_keyed(snap)
    if keyed is not None and keyed.options == st.options:
        first = max(0, keyed.row - menus.QUESTION_LOOKBACK)  # what is asked: the rows above
        return Choice("", (keyed.keys[keyed.options.index(option)],),
                      (*range(first, keyed.row + 1), snap.cursor[1]), tuple(range(first, keyed.row)),
                      False)
    typed = questions.typed_answer(snap, option)
    if typed is None:
        return None
    listed = questions.numbered_above(snap, snap.cursor[1])
    rows = tuple(range(snap.cursor[1] - len(listed), snap.cursor[1] + 1))
    return Choice(typed[0], typed[1], rows, rows, False)


def _subject(snap: Snapshot, top: int) -> int:
    """The first row of what a menu's question is about: a dialog drawn under a rule (or in a box)
    says it between the rule and the question (Claude Code: the command it asks to run, above "Do
    you want to proceed?", the same words for every command).  ``top`` itself when no rule is near
    above."""
    for y in range(top - 1, max(-1, top - menus.QUESTION_LOOKBACK), -1):
        if menus.is_rule(menus.strip_box(snap.lines[y])):
            return y + 1
    return top


def asked(st: State) -> str:
    """What tells this question from another one in the same words: a digest of the rows that ask it
    and of its options, "" when there is no question to answer here.

    The page shows it with the question and sends it back with a press, which then types only into
    the question it was made for: Claude Code asks "Do you want to proceed?" about every command.
    """
    if st.snap is None or not st.options or (found := choice(st, st.options[0])) is None:
        return ""
    lines = st.snap.lines
    text = "\n".join(
        [*(lines[y].rstrip() for y in found.subject if 0 <= y < len(lines)), *st.options]
    )
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def still_asked(snap: Snapshot, facts: PaneFacts, rows: tuple[int, ...]) -> str:
    """The condition tmux checks at the keystroke: the screen still shows the question as ``snap``
    did.

    The cursor, the history's length and the pane's size are what the look saw, the pane lives, and
    each of ``rows`` (blank ones aside) is the first row of the screen that reads exactly as it did.
    """
    seen = f"{facts.cursor[0]}/{facts.cursor[1]}/{facts.history_size}/{facts.width}x{facts.height}"
    cond = ("#{&&:#{==:#{cursor_x}/#{cursor_y}/#{history_size}/#{pane_width}x#{pane_height}," + seen
            + "},#{?pane_dead,0,1}}")
    lines = [line.rstrip() for line in snap.lines]
    for y in sorted(set(rows)):
        if not 0 <= y < len(lines) or not lines[y]:
            continue
        first = lines.index(lines[y]) + 1
        cond = (
            "#{&&:"
            + cond
            + ",#{==:#{C/r:"
            + _format_text("^" + ERE_SPECIAL.sub(r"\\\1", lines[y]) + "$")
            + "},"
            + str(first)
            + "}}"
        )
    return cond


def _format_text(text: str) -> str:
    """``text`` as literal characters inside a tmux format's argument (``#``, ``,`` and ``}``
    escaped)."""
    return text.replace("#", "##").replace(",", "#,").replace("}", "#}")


def answer(
    target: Target,
    st: State,
    question: str,
    option: str,
    log: Path,
    *,
    look: Callable[[], State],
    seen: str | None = None,
) -> Tapped:
    """Type ``option`` as the answer to ``question`` if ``st`` (a fresh look) still asks it
    (``seen``: the question's :func:`asked` as the press saw it, when it says), and tmux finds it
    still asked at the keystroke; record it in the audit trail ``log``.

    A menu's marker is moved one key at a time, each typed only if the screen is the one ``look``
    saw after the key before (an Ink CLI reads Down+Enter sent at once as one unknown sequence, and
    Enter then takes the option that was marked); Enter, last, tells the agent the human answered.
    """
    if st.needs_human:
        return Tapped(False, "a secret is typed by the human's own keys, never by a button")
    wanted = asked(st) if seen is None else seen
    if not _asks(st, question, option, wanted):
        return Tapped(False, CHANGED)
    pressed: list[str] = []
    for _ in range(len(st.options) + 1):  # a move of the marker each round, the answer in the last
        found = choice(st, option)
        if found is None:
            return Tapped(
                False, f"the tool does not know how to type {option!r} here: answer in the terminal"
            )
        last = not found.menu or len(found.keys) == 1
        keys = found.keys if last else found.keys[:1]
        if not _type(target, st, found, keys, option if last else None):
            return Tapped(False, CHANGED if not pressed else MOVED)
        pressed.extend(keys)
        if last:
            audit.record_answer(
                log,
                {
                    "time": time.time(),
                    "action": "answered by the human",
                    "session": target.name,
                    "question": question,
                    "option": option,
                    "text": found.text,
                    "keys": pressed,
                },
            )
            return Tapped(True, text=found.text, keys=tuple(pressed))
        moved = _moved(look, st, question, option, wanted)
        if moved is None:
            return Tapped(False, MOVED)
        st = moved
    return Tapped(False, MOVED)


def _asks(st: State, question: str, option: str, wanted: str) -> bool:
    """``st`` is blocked on ``question`` (the one of digest ``wanted``) with ``option`` among its
    options."""
    return (st.status == Status.BLOCKED and st.question == question and option in st.options
            and st.snap is not None and st.facts is not None and asked(st) == wanted)


def _type(
    target: Target, st: State, found: Choice, keys: tuple[str, ...], option: str | None
) -> bool:
    """Type ``found``'s text (if any) and ``keys`` only if the screen is still ``st``'s at the
    keystroke; ``option``: the answer given, kept on the session for the agent's next result."""
    assert st.snap is not None and st.facts is not None
    pane = target.pane
    actions = []
    if found.text:
        actions.append(f"send-keys -t {protocol.quote(pane)} -l {protocol.quote(found.text)}")
    actions.append(
        f"send-keys -t {protocol.quote(pane)} " + " ".join(protocol.quote(k) for k in keys)
    )
    if option is not None:
        actions.append(
            f"set-option -t {protocol.quote(f'={target.name}:')} {ANSWERED} "
            f"{protocol.quote(option)}"
        )
    out = target.tmux.cmd("if-shell", "-F", "-t", pane, still_asked(st.snap, st.facts, found.rows),
                          " ; ".join(actions), f"display-message -p {REFUSED}")
    return REFUSED not in out


def _moved(
    look: Callable[[], State], before: State, question: str, option: str, wanted: str
) -> State | None:
    """The look once the menu shows its marker moved by the key just typed, the same question asked;
    None if it did not within :data:`STEP_SHOWN`."""
    assert before.snap is not None
    menu = menus.find_menu(before.snap)
    marked = menu.selected if menu else None
    for _ in Deadline(STEP_SHOWN).ticks(STEP_POLL):
        st = look()
        now = menus.find_menu(st.snap) if st.snap is not None else None
        if now is not None and now.selected != marked and _asks(st, question, option, wanted):
            return st
    return None
