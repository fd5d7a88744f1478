"""Menus and dialogs any program draws, whoever made it: marked options, key hints, curses buttons.

A program waiting for a choice shows it by shapes that do not change with its
release or its words:

* a **menu**: two or more option rows in one column, exactly one of them
  marked as the current choice (``❯ › > ● → ▶``), numbered or not, with the
  question above them;
* a **key hint**: a row that names keys and what they do (``Enter to confirm
  · Esc to cancel``, ``↑↓ to select``, ``press enter to continue``);
* **buttons**: two or more bracketed labels on one row (``<Ok>  <Cancel>``,
  ``< Yes >``), the face of curses dialogs (whiptail, dialog, debconf);
* **key-named answers**: two or more answers on one row, each after the key that takes
  it in brackets (``[y] Approve   [n] Deny``).

Every function here is pure and total: odd input gives "no dialog".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..screen.cells import char_width
from ..screen.snapshot import Snapshot
from . import signs

BOX_EDGES = "│┃║"
SCROLL_BAR = re.compile(r"\s{2,}[█▐▕▌▓▒░]$")
RULE_CHARS = set("─━═╌┄╍┅-—_▀▄ ")
MARKS = "❯›>●→▶▸➜◉"
MARKED = re.compile(rf"^(?P<pad>\s*)(?P<mark>[{MARKS}])\s+(?P<label>\S.*)$")
# The other options of a radio list or checklist carry an empty glyph in the marker's column
# ("● TypeScript" over "○ JavaScript"); an inline choice shows both on one row ("● Yes / ○ No").
UNMARKED = re.compile(r"^(?:[○◯◻□◇]|\[ \]|\( \))\s+(?=\S)")
FILLED, EMPTY = "●◉◼■", "○◯◻□"
TOGGLE = re.compile(rf"[{FILLED}]\s+\w[^\n]*?\s[/|·•]\s+[{EMPTY}]\s+\w"
                    rf"|[{EMPTY}]\s+\w[^\n]*?\s[/|·•]\s+[{FILLED}]\s+\w")
NUMBERED = re.compile(r"^(?:\d{1,2}[.)]|\[\d{1,2}\])\s+\S")
FIRST = re.compile(r"^(?:1[.)]|\[1\])\s")
MENU_SPAN = 16  # rows an option list may take, descriptions and gaps included
QUESTION_LOOKBACK = 12
HINT = re.compile(
    r"(?i)(?:\b(?:enter|return|esc|escape|tab|space|ctrl\+\w|y/n)\b|[↑↓←→⇆▲▼↵⏎])"
    r"[^\n]{0,24}?\b(?:to\s+)?(?:confirm|cancel|select|choose|continue|submit|navigate|toggle"
    r"|go back|back|approve|deny|reject|skip|move|proceed|close|dismiss|save|apply|next|retry)\b"
)
# an option that names the key taking it, in parentheses at its end (cn's "Continue (tab)",
# "Continue + don't ask again (shift+tab)", Qwen Code's "No, suggest changes (esc)")
OWN_KEY = re.compile(r"(?i)\((?:(?:shift|ctrl|alt|meta|cmd)\+)*"
                     r"(?:tab|esc|escape|enter|return|space)\)$")
BUTTON = re.compile(r"<\s*[A-Za-z][\w .'-]{0,18}?\s*>")
BOX_CHARS = re.compile(r"[│┃║┌┐└┘├┤┬┴┼─━╭╮╰╯▒▮░█↑↓]")
# a full-width separator, as Ink and prompt_toolkit TUIs draw it
FULL_RULE = re.compile(r"^─{20,}$")
# a dialog's title, its close key right
TITLE_BAR = re.compile(r"^\s*(?P<title>\S(?:.{0,40}?\S)?)\s{8,}esc$")


def unbox(row: str) -> str:
    """A row with the frame drawn around it (``│ … │``, ``┃ …``) turned to spaces, columns kept,
    and without a scroll bar's cell after padding at its right end (Qwen Code's ``█``)."""
    text = SCROLL_BAR.sub("", row.rstrip())
    stripped = text.lstrip()
    if stripped[:1] in BOX_EDGES:
        text = text[: len(text) - len(stripped)] + " " + stripped[1:]
    if text[-1:] in BOX_EDGES:
        text = text[:-1]
    return text.rstrip()


def plain(row: str) -> str:
    """A row's words without any box drawing around or inside them (nested boxes too)."""
    return " ".join(BOX_CHARS.sub(" ", row).split())


def strip_box(row: str) -> str:
    """A row without the box borders drawn around it, and without outer spaces."""
    return unbox(row).strip()


def is_rule(text: str) -> bool:
    """A row drawn only of line characters (a separator, a box edge)."""
    body = text.strip().strip("╭╮╰╯┌┐└┘├┤")
    return len(body) >= 3 and set(body) <= RULE_CHARS


def _indent(text: str) -> int:
    return sum(char_width(c) for c in text[: len(text) - len(text.lstrip())])


@dataclass(frozen=True, slots=True)
class Menu:
    """A list of choices at the bottom of the screen, one of them marked as the current one."""

    question: str
    options: tuple[str, ...]
    selected: str
    first_row: int
    last_row: int
    numbered: bool


def _siblings(rows: Sequence[str], y: int, mark_col: int, label_col: int, step: int,
              stop: int, numbered: bool) -> tuple[list[int], int]:
    """Option rows next to the marked one, walking by ``step`` until the list ends, and
    how many blank rows lie between them.

    A sibling starts in the marked row's label column (give or take a
    two-cell check mark); deeper rows are descriptions of the option above;
    one blank row may separate options; anything at or left of the marker's
    column ends the list, except an option of a radio list or checklist whose
    empty glyph (``○``, ``[ ]``) stands in that column.  Options of a
    ``numbered`` list are numbered: a row without a number in that column is
    the question or a note, and the list starts at its ``1.``.
    """
    found: list[int] = []
    blanks = 0
    gaps = 0
    i = y + step
    while 0 <= i < stop and abs(i - y) <= MENU_SPAN:
        text = unbox(rows[i])
        if is_rule(text):
            break  # options never cross a rule: past it lies the input box or the footer
        if not text.strip():
            blanks += 1
            if blanks > 1:
                break
            i += step
            continue
        if MARKED.match(text):
            return [], 0  # a second marked row: a transcript, not a menu with one current choice
        indent = _indent(text)
        if indent == mark_col and not numbered and UNMARKED.match(text.strip()):
            # an unchosen option of a radio list, its empty glyph where the marker is
            found.append(i)
            gaps += blanks
            blanks = 0
            i += step
            continue
        if indent <= mark_col:
            break
        if label_col - 1 <= indent <= label_col + 2 and not HINT.search(text):
            label = text.strip()
            if numbered and not NUMBERED.match(label):
                break
            found.append(i)
            gaps += blanks
            blanks = 0
            if numbered and step < 0 and FIRST.match(label):
                break
        elif indent <= label_col + 2:
            break
        i += step
    return found, gaps


def find_menu(snap: Snapshot, start: int = 0, stop: int | None = None, *,
              exclude: int | None = None) -> Menu | None:
    """The menu whose marked row is lowest in ``[start, stop)``, or None.

    A marked row alone proves nothing (Claude Code echoes prompts as ``❯
    text``, Codex draws its composer as ``› …`` above its status rows); it
    needs option siblings aligned with it, and then one of: its options are
    numbered, a key hint follows it, an option names the key that takes it
    (cn's ``> Continue (tab)``, whose box has a status row under it), or - options packed
    without blank rows
    between them - the cursor sits on the marked row or nothing but blank
    rows and hints lies below it.
    Row ``exclude`` (an input row showing typed text) is never a marked option.
    """
    rows = snap.lines
    stop = len(rows) if stop is None else max(0, min(stop, len(rows)))
    for y in range(stop - 1, max(start, 0) - 1, -1):
        text = unbox(rows[y])
        m = MARKED.match(text)
        if not m or y == exclude:
            continue
        mark_col = _indent(m.group("pad"))
        label_col = sum(char_width(c) for c in text[: m.start("label")])
        first = bool(NUMBERED.match(m.group("label")))
        above, gaps_above = _siblings(rows, y, mark_col, label_col, -1, stop, first) \
            if not FIRST.match(m.group("label")) else ([], 0)
        below, gaps_below = _siblings(rows, y, mark_col, label_col, 1, stop, first)
        members = sorted([*above, y, *below])
        if len(members) < 2:
            continue
        labels = [unbox(rows[i]).strip() for i in members]
        labels = [m.group("label").strip() if i == y else UNMARKED.sub("", text)
                  for i, text in zip(members, labels, strict=True)]
        numbered = all(NUMBERED.match(label) for label in labels)
        last = members[-1]
        tail = [unbox(r).strip() for r in rows[last + 1 : stop]]
        hinted = any(_hint(t) for t in tail[:6])
        bottom = all(not t or _hint(t) or is_rule(t) for t in tail)
        on_cursor = snap.cursor[1] == y
        keyed = any(OWN_KEY.search(label) for label in labels)
        if numbered or hinted or keyed or ((on_cursor or bottom) and not gaps_above + gaps_below):
            question = _question_above(rows, members[0], max(start, 0))
            return Menu(question, tuple(labels), m.group("label").strip(), members[0], last,
                        numbered)
    return None


def keys_to(menu: Menu, wanted: int) -> tuple[str, ...]:
    """The keys that choose option ``wanted`` of ``menu``: Up or Down from the marked option to
    it, then Enter.  A caller that looks again after each key
    (:meth:`.base.Profile.accept_keys`) presses the first."""
    here = menu.options.index(menu.selected) if menu.selected in menu.options else 0
    return ("Down" if wanted > here else "Up",) * abs(wanted - here) + ("Enter",)


def _hint(row: str) -> bool:
    """A row that tells which keys answer a menu - not a spinner's row, whose key hint
    (``(2s · esc to cancel)``) says how to stop work going on."""
    return bool(HINT.search(row)) and not signs.activity(row)


def find_toggle(snap: Snapshot, rows: int = 4) -> Menu | None:
    """An inline choice among the lowest ``rows`` rows of text (``● Yes / ○ No``), as a
    menu of one row with the question above it, or None."""
    for y in reversed(snap.text_rows(rows)):
        if TOGGLE.search(snap.lines[y]):
            parts = [part.strip() for part in re.split(r"\s[/|·•]\s", plain(snap.lines[y]))]
            chosen = next((part for part in parts if part[:1] in FILLED), parts[0])
            options = tuple(part.lstrip(FILLED + EMPTY).strip() for part in parts)
            return Menu(_question_above(snap.lines, y, 0), options, chosen.lstrip(FILLED).strip(),
                        y, y, False)
    return None


def _question_above(rows: Sequence[str], first: int, start: int) -> str:
    """The row above the options that asks (holds a ``?``), else the first row of the
    paragraph right above them."""
    texts = [strip_box(rows[y])
             for y in range(first - 1, max(start, first - QUESTION_LOOKBACK) - 1, -1)]
    texts = ["" if is_rule(t) else t for t in texts]
    for t in texts:
        if "?" in t:
            return t
    block: list[str] = []
    for t in texts:
        if t:
            block.append(t)
        elif block:
            break
    return block[-1] if block else "a menu waits for a choice"


@dataclass(frozen=True, slots=True)
class Buttons:
    """A curses-style dialog: a row of bracketed buttons, what it asks, the items it lists."""

    row: int
    labels: tuple[str, ...]
    question: str
    items: tuple[str, ...]


TITLE = re.compile(r"┤\s*(?P<title>[^├┤]*?\S)\s*├")


def find_buttons(snap: Snapshot) -> Buttons | None:
    """Two or more ``<Label>`` buttons on one of the lowest rows of text: a curses dialog
    (whiptail, dialog, debconf).  Its question is the row inside the box that asks (ends
    in ``:`` or holds ``?``), else its first row of text, after the box's title; the rows
    between the question and the buttons are the items to choose from."""
    rows = snap.lines
    texts = [y for y in range(len(rows)) if rows[y].strip()]
    for y in reversed(texts[-8:]):
        labels = BUTTON.findall(rows[y])
        if len(labels) < 2 or len(BUTTON.sub("", rows[y]).strip(" │┃║─┤├")) > 2:
            continue
        block = y
        while block > 0 and rows[block - 1].strip() and y - block < 40:
            block -= 1
        top = next((i for i in range(block, y) if re.search(r"[┌╭]─", rows[i])), block)
        title = m.group("title") if (m := TITLE.search(rows[top])) else ""
        inner = [(i, plain(rows[i])) for i in range(top + 1, y)]
        inner = [(i, t) for i, t in inner if t]
        asked = next(((i, t) for i, t in inner if t.endswith(":") or "?" in t),
                     inner[0] if inner else (top, title))
        question = f"{title}: {asked[1]}" if title and title != asked[1] \
            else asked[1] or "a dialog waits"
        items = tuple(t for i, t in inner if i > asked[0])
        return Buttons(y, tuple(" ".join(label.strip("<> ").split()) for label in labels),
                       question, items)
    return None


# an answer taken by the key named in brackets before it (its words one space apart), beside the
# next one or at the row's end
KEYED = re.compile(r"\[(\w)\] (\S+(?: \S+)*)(?=\s{2,}\[\w\] |$)")


@dataclass(frozen=True, slots=True)
class Keyed:
    """A row of answers, each taken by the key named in brackets before it (Cline's ``[y] Approve
    [n] Deny``): the answers as shown, their keys, and the row."""

    row: int
    options: tuple[str, ...]
    keys: tuple[str, ...]


def find_keyed(snap: Snapshot) -> Keyed | None:
    """The lowest row made only of two or more key-named answers, or None: the key alone answers,
    as the row says, where a menu's marker or an Enter would not."""
    for y in range(len(snap.lines) - 1, -1, -1):
        text = strip_box(snap.lines[y])
        found = KEYED.findall(text)
        if len(found) >= 2 and not KEYED.sub("", text).strip():
            return Keyed(y, tuple(f"[{key}] {label}" for key, label in found),
                         tuple(key for key, _ in found))
    return None


def find_overlay(snap: Snapshot) -> tuple[str, tuple[str, ...]] | None:
    """A dialog drawn over the screen whose title bar ends in its close key (``Commands   esc``):
    the title and the first entries listed under it, or None."""
    for y, row in enumerate(snap.lines):
        if m := TITLE_BAR.match(row):
            entries = [re.split(r"\s{2,}", strip_box(r))[0] for r in snap.lines[y + 1:]]
            return m.group("title"), tuple(e for e in entries if e and not is_rule(e))[:8]
    return None
