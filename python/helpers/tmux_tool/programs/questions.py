"""Questions any program may ask at the cursor: passwords, yes/no, "press a key".

A program waiting on a question looks, to a terminal, exactly like a program
that printed part of a line and went on working.  So a question is only
recognised by its *shape* at the end of the text left of the cursor, with
nothing typed after it: a label naming a secret ending in ``:`` (a password, a
passphrase, a token, in the words of :mod:`..screen.secrets`); a yes/no
choice in brackets (``[Y/n]``, ``(yes/no/[fingerprint])``); "press ENTER /
RETURN / any key"; answers with their key letter in brackets (``[y]es, [n]o,
[r]ename:``); a sentence ending in ``?`` (optionally followed by a default in
brackets); the row of a prompt library's question, which starts with ``? ``
whatever follows it (``? Project name (my-app)``, ``? Enable telemetry? › no
/ yes``); a label that asks for input (``Enter ...:``,
``Username for ...:``); or an input field: a label with its default in
parentheses or brackets (``package name: (demo-app)``, ``Enter file in which
to save the key (/root/.ssh/id_ed25519):``, ``Name [bob]:``).

A question right under a list numbered from 1, one entry a row (bash's
``select`` and its ``#?``), offers the entries; each is chosen by its number
(:func:`typed_answer` says what any option of a question takes).

A label ending in ``:`` that holds a question word (``Deploy to which
host:``) is a question without its question mark.  A bare ``read -p 'Name: '``
matches none of these on purpose: "Name: " is equally the start of a progress
line from a command still running.  Such a
screen is reported busy; it becomes visible to the agent as a screen that
stays still while ``wait`` runs out, with the text on it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ..core.status import Status
from ..screen import secrets
from ..screen.snapshot import Snapshot
from .base import Verdict, cursor_line, quote, row

PRESS_KEY = re.compile(r"(?i)\b(?:press|hit)\s+(?:<?enter>?|<?return>?|any key|a key)\b")
YES_NO = re.compile(r"(?i)([\[(]\s*(?:y|yes|n|no)\s*/[^\n]{0,40}?[\])])[\s?:]*$")
CHOICE_GROUP = re.compile(r"[\[(]([^\])]+)[\])][\s?:]*$")
# Answers spelled out with their key letter in brackets: "[y]es, [n]o, [A]ll, [N]one, [r]ename: ".
LETTERED = re.compile(r"(?:\[\w\]\w*[\s,/|]+(?:or\s+)?)+\[\w\]\w*\s*[:?]?\s*$")
LETTERED_ANSWER = re.compile(r"\[(\w)\](\w*)")


def _options(group: str) -> tuple[str, ...]:
    """Choices inside ``[Y/n]`` / ``(yes/no/[fingerprint])`` / ``[nyae]``."""
    inner = group.strip("[]() ")
    if inner.lower() in ("yes", "no", "ok", "y", "n"):
        return (inner,)  # the default answer, not a list of letters
    if "/" in inner:
        return tuple(part.strip("[]() ") for part in inner.split("/") if part.strip("[]() "))
    if inner.isalpha() and inner.islower() and len(inner) <= 8:
        return tuple(inner)
    return ()


def _lettered(before: str) -> tuple[str, ...]:
    """The answers of ``[y]es, [n]o, [r]ename``, each without its brackets."""
    m = LETTERED.search(before)
    return tuple(a + rest for a, rest in LETTERED_ANSWER.findall(m.group())) if m else ()


def _grouped(before: str) -> tuple[str, ...]:
    """The choices of the bracketed group that ends the question, if any."""
    group = CHOICE_GROUP.search(before)
    return _options(group.group(1)) if group else ()


@dataclass(frozen=True, slots=True)
class Shape:
    """One way a question looks at the cursor, and the answers it shows.

    ``strong`` shapes are ones nobody types by accident, so they win even
    over a shell prompt on the same row.
    """

    what: str
    pattern: re.Pattern[str]
    strong: bool
    options: Callable[[str], tuple[str, ...]] = lambda before: ()


# Any word for a secret (sudo's German "Passwort für", getpass's "Token: "), as the secret
# judgement reads it.
SECRET = Shape("a password prompt",
               re.compile(rf"(?:{secrets.WORDS})(?:[^:\n]|'[^'\n]*')*:\s*$",
                          re.IGNORECASE | re.VERBOSE), True)
SHAPES = (
    SECRET,
    Shape("a yes/no question", YES_NO, True,
          lambda before: _options(m.group(1)) if (m := YES_NO.search(before)) else ()),
    Shape("a request for a key", PRESS_KEY, True, lambda before: ("Enter",)),
    Shape("a choice of answers", LETTERED, True, _lettered),
    Shape("a question", re.compile(r"\?\s*(?:[\[(][^\])\n]{0,40}[\])])?\s*:?\s*$"), False,
          _grouped),
    # Inquirer.js, questionary, InquirerPy and prompts start the row they ask on with "? "; the
    # field follows (a default, a mask, "› no / yes"), so the row need not end in a question mark.
    Shape("a prompt's question", re.compile(r"^\s*\?\s+\w"), False),
    Shape("a request for input", re.compile(
        r"(?i)^\s*(?:enter|type|choose|select|please|input|provide|pick|confirm|username"
        r"|user name|login|e-?mail)\b[^\n]*:\s*$"), False),
    # A question asked without its question mark: "Deploy to which host: ".
    Shape("a question",
          re.compile(r"(?i)\b(?:what|which|where|who|whom|whose|how many|how much)\b[^\n]*:\s*$"),
          False),
    Shape("an input field with a default", re.compile(
        r"\w[^\n]{0,80}?(?::\s*[\[(][^\[\]()\n]{0,80}[\])]|[\[(][^\[\]()\n]{0,80}[\])]\s*:)"
        r"\s*$"), False),
)


NUMBERED_ROW = re.compile(r"^\s*(\d{1,3})[.)]\s+\S")
NUMBER = re.compile(r"^\s*(\d{1,3})[.)]\s")


def numbered_above(snap: Snapshot, row: int) -> tuple[str, ...]:
    """The list numbered from 1, one entry a row, right above the question's ``row`` (bash's
    ``select`` under its ``#?``, a script's menu), each entry as drawn; () when there is none.  An
    entry is chosen by typing its number."""
    found: list[tuple[int, str]] = []
    y = row - 1
    while 0 <= y < len(snap.lines) and (m := NUMBERED_ROW.match(snap.lines[y])):
        found.append((int(m.group(1)), snap.lines[y].strip()))
        y -= 1
    found.reverse()
    if len(found) < 2 or [n for n, _ in found] != list(range(1, len(found) + 1)):
        return ()
    return tuple(text for _, text in found)


def _shape(snap: Snapshot, strong_only: bool) -> tuple[Shape, str] | None:
    """The shape of the question at the cursor and the text left of the cursor, or None."""
    cl = cursor_line(snap)
    if cl.after.strip():
        return None
    before = cl.before.rstrip()
    if not before:
        return None
    for shape in SHAPES:
        if strong_only and not shape.strong:
            return None
        if shape.pattern.search(before):
            return shape, before
    return None


def typed_answer(snap: Snapshot, option: str) -> tuple[str, tuple[str, ...]] | None:
    """What to type to give ``option`` to the question at the cursor: (text, keys after it), or
    None for a secret's question (only the human's own keys answer one) or an option it does not
    offer.

    A "press a key" question takes Enter; an entry of a numbered list its number; an answer spelled
    with its key letter (``[r]ename``) that letter; any other the option as shown; each followed by
    Enter, as the programs that ask them read a line.
    """
    found = _shape(snap, strong_only=False)
    if found is None or found[0] is SECRET:
        return None
    shape, before = found
    if option not in (shape.options(before) or numbered_above(snap, cursor_line(snap).row)):
        return None
    if shape.pattern is PRESS_KEY:
        return "", ("Enter",)
    if m := NUMBER.match(option):
        return m.group(1), ("Enter",)
    return (option[0] if shape.pattern is LETTERED else option), ("Enter",)


def ask(snap: Snapshot, program: str | None, *, strong_only: bool = False) -> Verdict | None:
    """A question at the cursor (nothing typed after it), or None.

    ``strong_only`` keeps to the shapes nobody types by accident (password
    labels, bracketed yes/no choices, "press a key"), for callers that must
    weigh a question against a prompt on the same row.

    >>> from ..screen.snapshot import Snapshot
    >>> print(ask(Snapshot(("package name: (demo-app)",), 80, 24, (25, 0)), "npm").status)
    blocked
    """
    found = _shape(snap, strong_only)
    if found is None:
        return None
    shape, before = found
    text = before.strip()
    options = shape.options(before) or (
        () if shape is SECRET else numbered_above(snap, cursor_line(snap).row))
    return Verdict(Status.BLOCKED, program, f"{shape.what} {quote(text)} is at the cursor", text,
                   options)


RAIL = "│┃╎┆|└╰┗"
RAIL_END = "└╰┗"
FRAME_ROWS = 4
ASKS = re.compile(r"[?:]\s*$")
LEAD_GLYPH = re.compile(r"^[^\w\s]\s+")  # the step's mark before the question ("◆  ")


def ask_in_frame(snap: Snapshot, program: str | None) -> Verdict | None:
    """A question whose field is drawn on a rail below it, the cursor on the rail (``◆  What
    is your project named?`` / ``│  ./my-app`` / ``└``, as @clack/prompts draws it), or None.

    The cursor row (or, with the cursor parked on the blank row under it, the
    rail's end) and every row between it and the question start with a rail
    glyph and hold at most the field; the question row itself is off the rail
    and ends in ``?`` or ``:``.
    """
    cl = cursor_line(snap)
    here, start = cl.text.strip(), cl.row
    if not here and 0 < cl.row <= len(snap.lines):  # parked on the blank row under the rail's end
        start, here = cl.row - 1, row(snap, cl.row - 1).strip()
        if here[:1] not in RAIL_END:
            return None
    # the cursor may stand on the rail glyph
    if not here or here[0] not in RAIL or len(cl.after.strip()) > 1:
        return None
    for y in range(start - 1, max(-1, start - 1 - FRAME_ROWS), -1):
        text = row(snap, y).strip()
        if text[:1] in RAIL and text:
            continue
        if not text or not ASKS.search(text):
            return None
        question = LEAD_GLYPH.sub("", text)
        return Verdict(Status.BLOCKED, program, f"a question {quote(question)} waits for its field "
                       "on the rail below it, the cursor there", question)
    return None
