"""Signs any program shows, whoever made it: menus, key hints, buttons, spinners, timers, errors.

Terminal programs change their words with every release, but not the shapes
a person reads them by.  These are those shapes, judged at the bottom of the
screen where a program draws what it waits for:

* a **menu**: two or more option rows in one column, exactly one of them
  marked as the current choice (``❯ › > ● → ▶``), numbered or not, with the
  question above them;
* a **key hint**: a row that names keys and what they do (``Enter to confirm
  · Esc to cancel``, ``↑↓ to select``, ``press enter to continue``);
* **buttons**: two or more bracketed labels on one row (``<Ok>  <Cancel>``,
  ``< Yes >``), the face of curses dialogs (whiptail, dialog, debconf);
* **activity**: a spinner glyph in front of a word that goes on
  (``⠋ Thinking…``), a running timer or retry counter in parentheses
  (``(12s · esc to cancel)``), or an interrupt hint (``esc to interrupt``);
* an **error line**: ``Error:``/``API Error``/``failed to``/``not logged in``
  and their kin, or text drawn red.

Profiles refine these with what is really their own; they do not replace
them.  Every function here is pure and total: odd input gives "no sign".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..screen.cells import char_width
from ..screen.snapshot import Snapshot

BOX_EDGES = "│┃║"
RULE_CHARS = set("─━═╌┄╍┅-—_▀▄ ")
MARKS = "❯›>●→▶▸➜◉"
MARKED = re.compile(rf"^(?P<pad>\s*)(?P<mark>[{MARKS}])\s+(?P<label>\S.*)$")
NUMBERED = re.compile(r"^(?:\d{1,2}[.)]|\[\d{1,2}\])\s+\S")
MENU_SPAN = 16  # rows an option list may take, descriptions and gaps included
QUESTION_LOOKBACK = 12
HINT = re.compile(
    r"(?i)(?:\b(?:enter|return|esc|escape|tab|space|ctrl\+\w|y/n)\b|[↑↓←→⇆▲▼↵⏎])"
    r"[^\n]{0,24}?\b(?:to\s+)?(?:confirm|cancel|select|choose|continue|submit|navigate|toggle|go back|back"
    r"|approve|deny|reject|skip|move|proceed|close|dismiss)\b"
)
BUTTON = re.compile(r"<\s*[A-Za-z][\w .'-]{0,18}?\s*>")
SPINNER_GLYPHS = "⠁-⣿◐◓◑◒◴◷◶◵✶✢✽✻✳⏺◯◉⬝■🌑🌒🌓🌔🌕🌖🌗🌘"
SPINNER = re.compile(rf"^\s*[{SPINNER_GLYPHS}·*•◦]\s*\S[^\n]*?(?:…|\.\.\.)")
TIMER = re.compile(r"\((?:[^()\n]*?[\s,·•])?(?:\d+h\s*)?(?:\d+m\s*)?\d+(?:\.\d+)?s\b[^()\n]*\)")
INTERRUPT = re.compile(r"(?i)\b(?:esc|escape|ctrl\+c)\s+(?:to\s+)?(?:interrupt|cancel|stop)\b")
WORKING = re.compile(
    r"(?i)\b(?:retrying|reconnecting|restarting|waiting for|connecting|starting|booting|loading|initiali[sz]ing"
    r"|thinking|working|generating|compacting|attempt \d+(?:/| of )\d+)\b"
)
ERROR_HEAD = re.compile(
    r"(?i)^[^\w\[]{0,4}\[?(?:api error|error|failed|failure|unable to|could ?n[o']t|not logged in|login required"
    r"|please (?:run )?/?log ?in|authentication|authori[sz]ation (?:failed|error|required)|unauthori[sz]ed|forbidden"
    r"|invalid api key|missing api key|no api key|connection (?:error|refused|failed|reset|lost|closed)"
    r"|network error|request failed|fetch failed|fatal|panic|stream (?:error|disconnected)|unexpected status"
    r"|rate limit|quota|timed out)\b"
)
ERROR_ANY = re.compile(
    r"(?i)\b(?:api|connection|network|auth\w*|request|stream|server)\s+error\b|\berror:\s|\bECONN[A-Z]+\b"
    r"|\bENOTFOUND\b|\bstatus:? [45]\d\d\b|\bnot logged in\b|\bplease run /login\b"
    r"|\b(?:401|403|429|500|502|503|504)\b[^\n]{0,12}\b(?:unauthori[sz]ed|forbidden|too many requests"
    r"|internal server error|bad gateway|service unavailable|gateway timeout)\b"
)
EXIT_ERROR = re.compile(
    r"(?i)\b(?:error|exception)\b|\bfailed\b|\bfailure\b|\bnot logged in\b|\bunable to\b|\bcould(?:n't| not)\b"
    r"|\bcannot\b|\bcan't\b|\brefused\b|\bdenied\b|\bnot found\b|\bno such\b|\binvalid\b|\bunauthori[sz]ed\b"
    r"|\bis required\b|\bare you root\b|\bnot permitted\b|\btimed out\b|\bECONN[A-Z]+\b|\b(?:fatal|panic|abort)\w*\b"
    r"|\bkilled\b|\bsegmentation fault\b|\bcore dumped\b|\btraceback\b|\bterminated\b|\bbus error\b"
    r"|\billegal instruction\b|^\s*E:\s|\*\*\*|\bStop\.$|^usage:|\b[A-Z_]*NOT_FOUND\b"
    r"|^\s+at \S.*:\d+:\d+\)?\s*\{?$"
)
WARNING = re.compile(r"(?i)^\W{0,3}(?:\w+:\s*)?warn(?:ing)?\b")
RED_NAMES = {"red", "brightred"}


def unbox(row: str) -> str:
    """A row with the frame drawn around it (``│ … │``, ``┃ …``) turned to spaces, columns kept."""
    text = row.rstrip()
    stripped = text.lstrip()
    if stripped[:1] in BOX_EDGES:
        text = text[: len(text) - len(stripped)] + " " + stripped[1:]
    if text[-1:] in BOX_EDGES:
        text = text[:-1]
    return text.rstrip()


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


def _siblings(rows: Sequence[str], y: int, mark_col: int, label_col: int, step: int, stop: int) -> list[int]:
    """Option rows next to the marked one, walking by ``step`` until the list ends.

    A sibling starts in the marked row's label column (give or take a
    two-cell check mark); deeper rows are descriptions of the option above;
    one blank row may separate options; anything at or left of the marker's
    column ends the list.
    """
    found: list[int] = []
    blanks = 0
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
            return []  # a second marked row: a transcript, not a menu with one current choice
        indent = _indent(text)
        if indent <= mark_col:
            break
        if label_col - 1 <= indent <= label_col + 2 and not HINT.search(text):
            found.append(i)
            blanks = 0
        elif indent <= label_col + 2:
            break
        i += step
    return found


def find_menu(snap: Snapshot, start: int = 0, stop: int | None = None, *, exclude: int | None = None) -> Menu | None:
    """The menu whose marked row is lowest in ``[start, stop)``, or None.

    A marked row alone proves nothing (Claude Code echoes prompts as ``❯
    text``); it needs option siblings aligned with it, and then one of: its
    options are numbered, a key hint follows it, the cursor sits on the
    marked row, or nothing but blank rows and hints lies below it.
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
        above = _siblings(rows, y, mark_col, label_col, -1, stop)
        below = _siblings(rows, y, mark_col, label_col, 1, stop)
        members = sorted([*above, y, *below])
        if len(members) < 2:
            continue
        labels = [unbox(rows[i]).strip() for i in members]
        labels = [m.group("label").strip() if i == y else text for i, text in zip(members, labels, strict=True)]
        numbered = all(NUMBERED.match(label) for label in labels)
        last = members[-1]
        tail = [unbox(r).strip() for r in rows[last + 1 : stop]]
        hinted = any(HINT.search(t) for t in tail[:6])
        bottom = all(not t or HINT.search(t) or is_rule(t) for t in tail)
        on_cursor = snap.cursor[1] == y
        if numbered or hinted or on_cursor or bottom:
            question = _question_above(rows, members[0], max(start, 0))
            return Menu(question, tuple(labels), m.group("label").strip(), members[0], last, numbered)
    return None


def _question_above(rows: Sequence[str], first: int, start: int) -> str:
    """The row above the options that asks (holds a ``?``), else the first row of the
    paragraph right above them."""
    texts = [strip_box(rows[y]) for y in range(first - 1, max(start, first - QUESTION_LOOKBACK) - 1, -1)]
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


def hint_row(snap: Snapshot, start: int = 0) -> int | None:
    """The lowest row from ``start`` that tells which keys answer (``Enter to confirm``)."""
    for y in range(len(snap.lines) - 1, max(start, 0) - 1, -1):
        if HINT.search(snap.lines[y]):
            return y
    return None


@dataclass(frozen=True, slots=True)
class Buttons:
    """A curses-style dialog: a row of bracketed buttons, what it asks, the items it lists."""

    row: int
    labels: tuple[str, ...]
    question: str
    items: tuple[str, ...]


BOX_CHARS = re.compile(r"[│┃║┌┐└┘├┤┬┴┼─━╭╮╰╯▒▮░█↑↓]")
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
        inner = [(i, " ".join(BOX_CHARS.sub(" ", rows[i]).split())) for i in range(top + 1, y)]
        inner = [(i, t) for i, t in inner if t]
        asked = next(((i, t) for i, t in inner if t.endswith(":") or "?" in t), inner[0] if inner else (top, title))
        question = f"{title}: {asked[1]}" if title and title != asked[1] else asked[1] or "a dialog waits"
        items = tuple(t for i, t in inner if i > asked[0])
        return Buttons(y, tuple(" ".join(label.strip("<> ").split()) for label in labels), question, items)
    return None


def activity(text: str) -> str | None:
    """What in ``text`` (one status row) says the program is at work, or None.

    A spinner glyph before words that go on (``✽ Thinking…``), a running
    timer in parentheses (``(12s · ↓ 40 tokens)``, ``(esc to cancel, 3s)``),
    an interrupt hint, or a working word trailing off (``Retrying…``).
    A finished turn's summary (``✻ Worked for 12s``) has none of these.
    """
    stripped = text.strip()
    if not stripped:
        return None
    for sign in (INTERRUPT, TIMER):
        if m := sign.search(stripped):
            return m.group()
    if SPINNER.search(stripped):
        return stripped[:60]
    if (m := WORKING.search(stripped)) and re.search(r"(?:…|\.\.\.)\s*(?:\(.*\))?$|\battempt\b", stripped):
        return m.group()
    return None


def error_line(text: str) -> bool:
    """Whether one row of a turn's last block reads as an error message: it starts as
    one (``API Error: …``, ``✕ Failed to …``) or names one (``Connection error``,
    ``ECONNREFUSED``, ``401 Unauthorized``)."""
    return bool(ERROR_HEAD.match(text) or ERROR_ANY.search(text))


def exit_error(text: str) -> bool:
    """Whether a row a program printed before it exited reads as a failure or crash
    (a warning, however alarming its words, is not one)."""
    return bool(EXIT_ERROR.search(text)) and not WARNING.match(text)


def _reddish(colour: str) -> bool:
    """A foreground colour a person reads as red (basic, 256-colour or truecolour)."""
    if colour in RED_NAMES:
        return True
    if colour.startswith("38;5;"):
        n = colour[5:]
        return n in {"1", "9", "124", "160", "196", "197", "161", "203", "167", "174", "210"}
    if len(colour) == 6:
        try:
            r, g, b = int(colour[0:2], 16), int(colour[2:4], 16), int(colour[4:6], 16)
        except ValueError:
            return False
        return r >= 0xb0 and g <= 0x70 and b <= 0x70
    return False


def is_red(snap: Snapshot, y: int) -> bool:
    """Whether most letters of row ``y`` are drawn red (False when styles were not captured)."""
    row = snap.lines[y] if 0 <= y < len(snap.lines) else ""
    spans = snap.spans(y)
    if not spans:
        return False
    letters = red = 0
    cells = 0
    for ch in row:
        if ch.isalpha():
            letters += 1
            if any(s.start <= cells < s.end and _reddish(s.fg) for s in spans):
                red += 1
        cells += max(char_width(ch), 0)
    return letters >= 3 and red * 2 > letters


def is_dim(snap: Snapshot, y: int, start: int = 0) -> bool | None:
    """Whether all text of row ``y`` from cell ``start`` on is dim or italic (thinking
    lines, placeholders, hints); None when styles were not captured.  A reverse-video
    cell is the drawn cursor over a placeholder's first letter, and counts for nothing."""
    if not snap.styles:
        return None
    row = snap.lines[y] if 0 <= y < len(snap.lines) else ""
    total = shaded = 0
    cells = 0
    spans = snap.spans(y)
    for ch in row:
        width = max(char_width(ch), 0)
        here = [s for s in spans if s.start <= cells < s.end]
        if cells >= start and not ch.isspace() and not any(s.reverse for s in here):
            total += width
            if any(s.dim or s.italic for s in here):
                shaded += width
        cells += width
    return total > 0 and shaded == total


SPINNING = re.compile(rf"[{SPINNER_GLYPHS}·*•◦✦⬝■0-9]")


def moving(before: Snapshot, after: Snapshot) -> str | None:
    """A row that changed between two looks only in spinner glyphs or digits (a spinner
    turning, a timer counting), or None.  Two looks tell what one cannot."""
    if len(before.lines) != len(after.lines):
        return None
    changed = [(a, b) for a, b in zip(before.lines, after.lines, strict=True) if a != b]
    if not changed or len(changed) > 3:
        return None
    for old, new in changed:
        if SPINNING.sub("", old) != SPINNING.sub("", new):
            return None
    return changed[-1][1].strip()[:60]
