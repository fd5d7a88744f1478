"""Signs of state any program shows, whoever made it: work going on, errors, styles.

Terminal programs change their words with every release, but not the shapes
a person reads them by:

* **activity**: a spinner glyph in front of a word that goes on
  (``⠋ Thinking…``), a running timer or retry counter in parentheses
  (``(12s · esc to cancel)``), or an interrupt hint (``esc to interrupt``);
  and, with two looks, a row that changed only in a spinner glyph or digits;
* an **error line**: ``Error:``/``API Error``/``failed to``/``not logged in``
  and their kin, or text drawn red;
* **dim** text: thinking, placeholders, hints.

Menus, key hints and dialog buttons are in :mod:`.menus`.  Profiles refine
these with what is really their own; they do not replace them.  Every
function here is pure and total: odd input gives "no sign".
"""

from __future__ import annotations

import re

from ..screen.cells import char_width
from ..screen.snapshot import Snapshot

SPINNER_GLYPHS = "⠁-⣿◐◓◑◒◴◷◶◵✶✢✽✻✳⏺◯◉⬝■🌑🌒🌓🌔🌕🌖🌗🌘"
SPINNER = re.compile(rf"^\s*[{SPINNER_GLYPHS}·*•◦]\s*\S[^\n]*?(?:…|\.\.\.)")
TIMER = re.compile(r"\((?:[^()\n]*?[\s,·•])?(?:\d+h\s*)?(?:\d+m\s*)?\d+(?:\.\d+)?s\b[^()\n]*\)")
INTERRUPT = re.compile(r"(?i)\b(?:esc|escape|ctrl\+c)\s+(?:to\s+)?(?:interrupt|stop)\b")
CANCEL = re.compile(r"(?i)\b(?:esc|escape)\s+(?:to\s+)?cancel\b")
ESC_HINT = re.compile(r"(?i)\b(?:esc|escape)\b(?:\s+(?:esc|escape)\b)?(?:\s+to)?\s+\w+")  # "esc esc edit"
# a status row that starts with a working word after at most a glyph ("● Working esc esc edit prompt")
LEADING_WORK = re.compile(r"(?i)^\W{0,3}(?:retrying|reconnecting|working|thinking|generating|compacting)\b")
WORKING = re.compile(
    r"(?i)\b(?:retrying|reconnecting|restarting|waiting for|connecting|starting|booting|loading"
    r"|initiali[sz]ing|thinking|working|generating|compacting|attempt \d+(?:/| of )\d+)\b"
)
ERROR_HEAD = re.compile(
    r"(?i)^[^\w\[]{0,4}\[?(?:api error|error|failed|failure|unable to|could ?n[o']t|not logged in"
    r"|login required|please (?:run )?/?log ?in|authentication"
    r"|authori[sz]ation (?:failed|error|required)|unauthori[sz]ed|forbidden"
    r"|invalid api key|missing api key|no api key"
    r"|connection (?:error|refused|failed|reset|lost|closed)"
    r"|network error|request failed|fetch failed|fatal|panic|stream (?:error|disconnected)"
    r"|unexpected status|rate limit|quota|timed out)\b"
)
ERROR_ANY = re.compile(
    r"(?i)\b(?:api|connection|network|auth\w*|request|stream|server)\s+error\b|\berror:\s"
    r"|\bECONN[A-Z]+\b|\bENOTFOUND\b|\bstatus:? [45]\d\d\b|\bnot logged in\b|\bplease run /login\b"
    r"|\b(?:401|403|429|500|502|503|504)\b[^\n]{0,12}\b(?:unauthori[sz]ed|forbidden"
    r"|too many requests|internal server error|bad gateway|service unavailable|gateway timeout)\b"
)
EXIT_ERROR = re.compile(
    r"(?i)\b(?:error|exception)\b|\bfailed\b|\bfailure\b|\bnot logged in\b|\bunable to\b"
    r"|\bcould(?:n't| not)\b|\bcannot\b|\bcan't\b|\brefused\b|\bdenied\b|\bnot found\b"
    r"|\bno such\b|\binvalid\b|\bunauthori[sz]ed\b|\bis required\b|\bare you root\b"
    r"|\bnot permitted\b|\btimed out\b|\bECONN[A-Z]+\b|\b(?:fatal|panic|abort)\w*\b"
    r"|\bkilled\b|\bsegmentation fault\b|\bcore dumped\b|\btraceback\b|\bterminated\b|\bbus error\b"
    r"|\billegal instruction\b|^\s*E:\s|\*\*\*|\bStop\.$|^usage:|\b[A-Z_]*NOT_FOUND\b"
    r"|^\s+at \S.*:\d+:\d+\)?\s*\{?$|(?-i:^\s*(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception)\b)"
)
CRASH = re.compile(r"(?i)\b(?:killed|segmentation fault|core dumped|aborted|terminated)")
CRASH_ROWS = 3
SHELL_PROMPT_END = ("$", "#", "%")
WARNING = re.compile(r"(?i)^\W{0,3}(?:\w+:\s*)?warn(?:ing)?\b")
RED_NAMES = {"red", "brightred"}


def activity(text: str, *, hints: bool = True) -> str | None:
    """What in ``text`` (one status row) says the program is at work, or None.

    A spinner glyph before words that go on (``✽ Thinking…``), a running
    timer in parentheses (``(12s · ↓ 40 tokens)``, ``(esc to cancel, 3s)``),
    an interrupt hint, or a working word trailing off (``Retrying…``).
    A finished turn's summary (``✻ Worked for 12s``) has none of these.
    "Esc to cancel" is a sign of work only beside a working word (``Waiting
    for startup · esc cancel``); beside "Enter to submit" it closes a dialog.
    Any other Esc hint is one after a working word that leads the row
    (Copilot CLI's ``◎ Working esc esc edit prompt``).
    Without ``hints`` an interrupt hint alone does not count.
    """
    stripped = text.strip()
    if not stripped:
        return None
    for sign in (INTERRUPT, TIMER) if hints else (TIMER,):
        if m := sign.search(stripped):
            return m.group()
    if hints and (m := CANCEL.search(stripped)) and WORKING.search(stripped):
        return m.group()
    if hints and (m := ESC_HINT.search(stripped)) and LEADING_WORK.match(stripped):
        return m.group()
    if SPINNER.search(stripped):
        return stripped[:60]
    if (m := WORKING.search(stripped)) \
            and re.search(r"(?:…|\.\.\.)\s*(?:\(.*\))?$|\battempt\b", stripped):
        return m.group()
    return None


def error_line(text: str) -> bool:
    """Whether one row of a turn's last block reads as an error message: it starts as
    one (``API Error: …``, ``✕ Failed to …``) or names one (``Connection error``,
    ``ECONNREFUSED``, ``401 Unauthorized``)."""
    return bool(ERROR_HEAD.match(text) or ERROR_ANY.search(text))


def exit_error(text: str) -> bool:
    """Whether a row a program printed before it exited reads as a failure or crash
    (a warning, however alarming its words, is not one): an error word, an exception's
    class name (``TypeError:``, ``java.io.IOException``), a stack frame."""
    # indentation may matter (a stack frame), the rest is read without it
    stripped = text.strip()
    return bool(EXIT_ERROR.search(text) or EXIT_ERROR.search(stripped)) \
        and not WARNING.match(stripped)


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


def is_dim(snap: Snapshot, y: int, start: int = 0, end: int | None = None) -> bool | None:
    """Whether all text of row ``y`` from cell ``start`` on (up to cell ``end``) is dim or italic
    (thinking lines, placeholders, hints); None when styles were not captured.  A reverse-video
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
        if start <= cells < (end if end is not None else cells + 1) and not ch.isspace() \
                and not any(s.reverse for s in here):
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


def died_under_prompt(snap: Snapshot, before: str, row: int) -> str | None:
    """The crash word (``Killed``, ``Segmentation fault``) right above a shell prompt that is
    back at the cursor, or None.

    A killed full-screen program leaves its frame on the screen; the shell
    prints its prompt (and bash its ``Killed``) over it, often on a row that
    still holds the frame's text right of the cursor, where no shell rule
    sees a prompt.  A prompt left of the cursor and a crash word on the rows
    just above it mean the program died.  ``before`` is the text left of
    the cursor, on the screen's row ``row`` (the cursor's).
    """
    if not before.rstrip().endswith(SHELL_PROMPT_END):
        return None
    for y in range(row, max(-1, row - CRASH_ROWS), -1):
        if m := CRASH.search(snap.lines[y] if 0 <= y < len(snap.lines) else ""):
            return m.group()
    return None
