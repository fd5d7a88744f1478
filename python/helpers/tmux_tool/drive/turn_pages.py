"""An AI CLI's transcript read back: where it ended, where a new turn starts, the pages above.

The transcript is everything above a CLI's input box.  A CLI on the normal
screen (Claude Code, Codex, Gemini CLI) leaves it in tmux's scrollback; one
on the alternate screen (OpenCode) has no scrollback, so the rows above the
screen are read by paging the CLI's own view up and stitching the pages by
their overlap.

A turn is found by where it starts, never by what it says: before a prompt
is sent, the last rows of the transcript are kept as an :class:`Anchor`;
the new turn is the first echo of a prompt *after* those rows.  The same
prompt asked twice, or an answer equal to the one before, cannot be taken
for the new turn, because their rows lie above the anchor (or, for an
answer, are not followed by an echo).  Only when the transcript held no
echo at all before the prompt (the CLI's first turn, or a page that showed
only the end of a long answer) does the last echo stand for the new turn:
everything that appeared since lies below what was there.  Once the new
echo was seen below the anchor, the turn is the last one in the transcript
(nothing else is sent while it runs): :func:`last_turn` cuts it from there,
however the CLI redraws the rows above it later.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .. import screen
from ..core.clock import Deadline
from ..programs.ai import AiProfile, squash
from ..programs.chat import SCROLL_GLYPHS
from ..screen.cells import text_width
from ..screen.snapshot import Snapshot, Span
from ..transport import keyboard, panes
from ..transport.target import Target

ANCHOR_ROWS = 12  # non-blank rows that mark where the transcript ended before a prompt
MIN_MATCH = 2  # rows of the anchor that must be found when the CLI redrew or scrolled away the rest
MAX_ANCHOR_ROWS = 200  # an anchor grows until it is found only once (repeated identical turns)
# history lines read while a turn starts (far more than scroll between two looks)
RECENT_LINES = 400
# history lines read first for an answer; all of it when the turn starts higher up
HISTORY_LINES = 3000
MAX_PAGES = 60
BACK_TRIES = 3  # presses of the key back to the end, for a CLI still scrolling up when it comes
PAGE_SHOWN = 5.0  # seconds for a page to move after a page key (a busy machine draws late)
# OpenCode 1.18 draws a scrolled page as one frame 5-12 ms after the key (measured at 80x24 and
# 200x50): a page is looked for every PAGE_POLL and read once it has held still for PAGE_STILL.
PAGE_STILL = 0.03
PAGE_POLL = 0.01
WRAP_MARGIN = 2  # columns at the right some CLIs leave free when they break a line
QUOTE = "> "  # how an answer's block-quote rows start (programs.answer.quoted)
SCROLL_BAR = frozenset("│" + SCROLL_GLYPHS)  # a scroll bar's track and thumb

Row = tuple[str, tuple[Span, ...]]


@dataclass(frozen=True, slots=True)
class Anchor:
    """Where the transcript ended before a prompt was sent.

    ``tail`` is the run of last non-blank rows looked for afterwards;
    ``prior`` all non-blank rows read then, to tell a piece of the tail that
    occurred only once from one that also occurs higher up; ``firm`` is how
    far into the tail a piece must reach (past the tail's last echo), so that
    no echo of an earlier turn lies in the part given up; ``echoed`` says
    whether any echo was read before the prompt at all.
    """

    tail: tuple[str, ...]
    prior: tuple[str, ...]
    firm: int
    echoed: bool


def rows(snap: Snapshot, profile: AiProfile) -> list[str]:
    """The transcript rows of a snapshot: above the input box, cut at the transcript's width."""
    width = profile.transcript_width(snap)
    return [
        snap.lines[y][:width].rstrip()
        for y in range(min(profile.transcript_end(snap), len(snap.lines)))
    ]


def anchor(transcript: Sequence[str], profile: AiProfile, *, whole: bool = False) -> Anchor:
    """Where ``transcript`` ends, to find the turn that a prompt sent now will start.

    The tail is at least :data:`ANCHOR_ROWS` rows long and grows until it
    occurs nowhere else: after turns that repeat each other exactly, a short
    tail would also match one turn higher up, where an old echo follows it.
    With ``whole`` it is every row given (the screen of a full-screen CLI,
    whose older pages are read back later and may repeat a short tail).
    """
    prior = tuple(r for r in transcript if r.strip())
    size = len(prior) if whole else min(ANCHOR_ROWS, len(prior))
    while size < min(len(prior), MAX_ANCHOR_ROWS) and _count(prior, prior[len(prior) - size:]) > 1:
        size += 1
    tail = prior[len(prior) - size:]
    firm = 1 + max((i for i, r in enumerate(tail) if profile.echo(r) is not None), default=-1)
    return Anchor(tail, prior, firm, any(profile.echo(r) is not None for r in prior))


def _count(rows_: Sequence[str], run: Sequence[str]) -> int:
    """How often ``run`` occurs in ``rows_``."""
    size, run = len(run), tuple(run)
    if not size:
        return 0
    return sum(
        1
        for i in range(len(rows_) - size + 1)
        if rows_[i] == run[0] and tuple(rows_[i : i + size]) == run
    )


def matches(shown: str, prompt: str) -> bool:
    """Whether an echo row shows (the start of) ``prompt``, or a CLI's short stand-in for a long
    paste."""
    got, want = squash(shown), squash(prompt)
    if not got or not want:
        return False
    return (
        want.startswith(got)
        or got.startswith(want)
        or ("[Pasted" in shown and len(want) > len(got))
    )


def find_turn(
    transcript: Sequence[str], mark: Anchor, profile: AiProfile, *, whole: bool = False
) -> int | None:
    """The row of the echo that starts the turn after ``mark``, or None when it is not (yet) there.

    Where the transcript ended is where a piece of the anchor's tail is
    found highest up: each piece counted occurred only once before the
    prompt, so a copy can only lie in what came since, below it.  A piece
    is a run of the tail's rows, as long as the rows allow: the CLI may
    have redrawn some since (Gemini CLI writes the next echo over the last
    rows of a long answer; OpenCode drops the end line of a failed turn and
    lays a notice over its top rows; a full-screen CLI scrolls its top rows
    away).  The new turn's echo is the first echo after the piece.

    When no piece is found and no echo was above the tail, the last echo is
    the new one: everything that appeared since lies below the old rows.
    With ``whole`` only the whole tail counts: what is read reaches above
    what was read before the prompt, where a short piece may occur again.
    """
    echoes = [y for y, r in enumerate(transcript) if profile.echo(r) is not None]
    if not echoes:
        return None
    filled = [y for y, r in enumerate(transcript) if r.strip()]
    place = _place([transcript[y] for y in filled], mark, whole) if mark.tail else None
    if place is None:
        return None if mark.echoed and mark.tail else echoes[-1]
    return next((y for y in echoes if y > filled[place - 1]), None)


def _place(texts: Sequence[str], mark: Anchor, whole: bool) -> int | None:
    """The index after the highest piece of the anchor's tail found in ``texts``, or None.

    A piece is a longest run of rows equal in ``texts`` and in the tail,
    at least :data:`MIN_MATCH` rows (or the whole tail), reaching past the
    tail's last echo, and found only once before the prompt.
    """
    tail = mark.tail
    need = len(tail) if whole else min(MIN_MATCH, len(tail))
    at: dict[str, list[int]] = {}
    for i, row in enumerate(tail):
        at.setdefault(row, []).append(i)
    longest: dict[int, tuple[int, int]] = {}  # start in texts -> (length, end in the tail)
    runs: dict[int, int] = {}  # end in the tail -> length of the run ending at the current row
    for j, row in enumerate(texts):
        runs = {i + 1: runs.get(i, 0) + 1 for i in at.get(row, ())}
        for end, length in runs.items():
            start = j - length + 1
            if length > longest.get(start, (0, 0))[0]:
                longest[start] = (length, end)
    for start in sorted(longest):
        length, end = longest[start]
        if length >= need and end >= mark.firm and _count(mark.prior, tail[end - length:end]) == 1:
            return start + length
    return None


def capture(target: Target, lines: int | None, *, styled: bool = False) -> Snapshot:
    """History (the last ``lines``, or all of it) plus the screen as one snapshot.

    Lines tmux wrapped itself are joined (``-J``); ``styled`` keeps per-cell
    styles, which answers need to leave out dim thinking rows.
    """
    start = "-" if lines is None else f"-{max(1, lines)}"
    flags = ["-p", "-J", *(["-e"] if styled else [])]
    out = target.tmux.cmd("capture-pane", *flags, "-S", start, "-t", target.pane)
    height = out.count("\n") + 1
    return screen.snapshot_from_capture(out, width=10_000, height=height)


def cut(snap: Snapshot, start: int, stop: int, chrome: int) -> Snapshot:
    """Rows ``start`` up to ``stop`` of a transcript, then the chrome (from row ``chrome`` on).

    A profile finds the input box in what it is given, so the box and the
    rows under it stay; the rows of other turns do not.
    """
    keep = [*range(max(0, start), min(stop, len(snap.lines))), *range(chrome, len(snap.lines))]
    return Snapshot(tuple(snap.lines[y] for y in keep), snap.width, max(len(keep), 1),
                    styles=tuple(snap.spans(y) for y in keep) if snap.styles else ())


def turn_of(
    snap: Snapshot, mark: Anchor, profile: AiProfile, *, whole: bool = False
) -> Snapshot | None:
    """The new turn in ``snap``: from its echo to the next echo (if any), with the chrome below."""
    transcript = rows(snap, profile)
    y = find_turn(transcript, mark, profile, whole=whole)
    if y is None:
        return None
    nxt = next(
        (i for i in range(y + 1, len(transcript)) if profile.echo(transcript[i]) is not None),
        len(transcript),
    )
    return cut(snap, y, nxt, len(transcript))


def last_turn(snap: Snapshot, profile: AiProfile) -> Snapshot | None:
    """The last turn in ``snap``: from the last echo down, with the chrome below; None without an
    echo."""
    found = rows(snap, profile)
    y = max((i for i, r in enumerate(found) if profile.echo(r) is not None), default=None)
    return None if y is None else cut(snap, y, len(found), len(found))


def page_back(target: Target, profile: AiProfile, first: Snapshot,
              found: Callable[[Snapshot], bool]) -> Snapshot | None:
    """Scroll a full-screen CLI's transcript up page by page until ``found`` holds for
    the pages stitched so far (with the chrome of the first page under them);
    then scroll back to the end and wait until it shows, so that the next look
    sees the end again.  None when the pages end first, or a page does not
    overlap the one below it."""
    up, back = profile.page_keys
    end = profile.transcript_end(first)
    width = profile.transcript_width(first)
    rows_so_far: list[Row] = _page_rows(first, end, width)
    chrome: list[Row] = [(first.lines[y], first.spans(y)) for y in range(end, len(first.lines))]
    shown = first.digest
    try:
        for _ in range(MAX_PAGES):
            page = None
            for key in up.split():  # one by one: a burst may read as one unknown sequence
                keyboard.press(target.tmux, target.pane, [key])
                page = next_screen(target, shown)
                if page is None:
                    return None
                shown = page.digest
            if page is None:
                return None
            stitched = _stitch(_page_rows(page, profile.transcript_end(page), width), rows_so_far)
            if stitched is None:
                return None
            rows_so_far = stitched
            joined = _joined(rows_so_far + chrome, first)
            if found(joined):
                return joined
    finally:
        _back_to_end(target, back, first, shown)
    return None


def _back_to_end(target: Target, back: str, first: Snapshot, shown: str) -> None:
    """Press ``back`` and wait until the end (the ``first`` page) shows again before anyone looks:
    a CLI that scrolls smoothly (Kilo) may still be moving up when the key arrives and settle on a
    page above, so the key is pressed again, a few times at most, while it settles elsewhere."""
    for _ in range(BACK_TRIES):
        keyboard.press(target.tmux, target.pane, back.split())
        if shown == first.digest:
            return
        page = next_screen(target, shown)
        if page is None or page.digest == first.digest:
            return
        shown = page.digest


def _page_rows(snap: Snapshot, end: int, width: int) -> list[Row]:
    """The transcript rows of a page, cut at the transcript's width: a side panel
    stays put while the transcript scrolls, so it must not take part in the overlap;
    nor does a scroll bar's cell in the screen's last column (Qwen Code's track
    ``│`` and thumb ``█``, Cline's ``▄`` ``▀``), which changes from page to page."""
    def row(y: int) -> str:
        text = snap.lines[y][:width]
        if text_width(text) >= snap.width and text[-1:] in SCROLL_BAR and text[-2:-1] == " ":
            text = text[:-1]
        return text.rstrip()

    return [(row(y), snap.spans(y)) for y in range(min(end, len(snap.lines)))]


def _joined(rows_: list[Row], like: Snapshot) -> Snapshot:
    return Snapshot(
        tuple(r for r, _ in rows_), like.width, len(rows_), styles=tuple(s for _, s in rows_)
    )


def next_screen(target: Target, shown: str) -> Snapshot | None:
    """The screen once it differs from ``shown`` and has held still for :data:`PAGE_STILL`
    (a page read while it is drawn would be stitched wrong); None if it never moves."""
    last, since = None, 0.0
    for now in Deadline(PAGE_SHOWN).ticks(PAGE_POLL):
        snap, _ = panes.look(target.tmux, target.pane)
        if snap.digest != shown:
            if last is None or snap.digest != last.digest:
                last, since = snap, now
            elif now - since >= PAGE_STILL:
                return snap
    return last


def _stitch(earlier: list[Row], later: list[Row]) -> list[Row] | None:
    """``earlier`` (a page scrolled up) placed above ``later`` by their longest overlap;
    None when they do not overlap (a row may be missing between them).

    A scrolled-up page ends with blank padding rows that are not part of the
    transcript, so its trailing blank rows never take part in the overlap.
    """
    while earlier and not earlier[-1][0].strip():
        earlier = earlier[:-1]
    texts_e = [r for r, _ in earlier]
    texts_l = [r for r, _ in later]
    for k in range(min(len(earlier), len(later)), 0, -1):
        if texts_e[-k:] == texts_l[:k]:
            return earlier[:-k] + later
    return None


def unwrap_answer(answer: str, turn: Snapshot, width: int) -> str:
    """``answer`` with the lines the CLI broke to fit its rows joined again.

    A CLI breaks a long line at a space (or, for a word longer than a row,
    where the row ends) and starts the rest on the next row at the same
    indentation.  A line counts as broken when the next line's first word
    would not have fitted after it on its row of ``width`` columns, less a
    small margin some CLIs keep free.  A line that was written that long by
    itself cannot be told apart on the screen and is joined too.  The rows
    of a block quote each carry its ``> ``: a broken quoted line is joined
    without the marker of its next row.
    """
    lines = answer.split("\n")
    indent = _indent(lines, turn)
    out: list[str] = []
    previous = ""
    for line in lines:
        marker = QUOTE if previous.startswith(QUOTE) and line.startswith(QUOTE) else ""
        body, before = line[len(marker):], previous[len(marker):]
        if out and before.strip() and body.strip() and _broken(previous, body, indent, width):
            word = body.lstrip()
            out[-1] += word if " " not in before.strip() else " " + word
        else:
            out.append(line)
        previous = line
    return "\n".join(out)


def _broken(row: str, nxt: str, indent: int, width: int) -> bool:
    first = nxt.split()[0]
    return indent + text_width(row.rstrip()) + 1 + text_width(first) > width - WRAP_MARGIN


def _indent(lines: Sequence[str], turn: Snapshot) -> int:
    """The column the answer's text starts at in the CLI's rendering (a bullet or margin before
    it)."""
    first = next((line.strip() for line in lines if line.strip()), "")
    for row in turn.lines:
        text = row.rstrip()
        if first and text.endswith(first):
            return max(0, text_width(text) - text_width(first))
    return 0
