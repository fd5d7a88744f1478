"""Read ``tmux capture-pane -p -e`` output without a terminal emulator.

tmux has already done the layout: a capture is one line per row, each cell's
characters in order, with only SGR sequences (and SO/SI around line-drawing
cells) added by ``-e``.  Replaying that through pyte would redo work tmux did
and costs tens of milliseconds for a full screen; parsing the SGR runs
directly costs well under a millisecond for a real 200x50 screen (see
``bench/render_bench.py``), which is what lets ``wait`` poll cheaply.

Facts about the format this relies on (tmux 3.3a ``grid_string_cells``):

* styles are written only when they change and carry over from one row to
  the next, so the style state must be kept across rows;
* with ``-e`` a row's trailing spaces are kept when a style code follows them,
  so rows are trimmed here, not trusted to be trimmed;
* cells drawn in the DEC line-drawing set are plain ASCII wrapped in SO/SI; we
  show them as the box characters a human sees.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .cells import ACS_TABLE, text_width
from .clean import ANY_CONTROL_RE, ESCAPE_RE
from .sgr import DEFAULT_STYLE, Style, apply_sgr
from .snapshot import Snapshot, Span

# tmux writes attributes, foreground and background as separate codes, so
# runs of codes are split off (and their effect cached) as one unit.
_SGR_SPLIT = re.compile(r"((?:\x1b\[[0-9;:]*m)+)")
_SGR_PARAMS = re.compile(r"\x1b\[([0-9;:]*)m")
_SHIFT_SPLIT = re.compile(r"([\x0e\x0f])")
_CONTROL_BUT_NEWLINE = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")

Row = tuple[str, tuple[Span, ...], Style, bool]
# Screens are polled: most rows of the next capture equal rows of the last
# one, so parsed rows are remembered (keyed with the style they start in).
_ROWS: dict[tuple[str, Style, bool], Row] = {}
_ROWS_MAX = 8192


@lru_cache(maxsize=8192)
def _apply_codes(style: Style, codes: str) -> Style:
    """The style after a run of SGR sequences."""
    for params in _SGR_PARAMS.findall(codes):
        style = apply_sgr(style, params)
    return style


def _plain(text: str) -> str:
    """Text with any escape or control character a capture should not hold."""
    if "\x1b" in text:
        text = ESCAPE_RE.sub("", text)
    return ANY_CONTROL_RE.sub("", text)


def _line_drawing(seg: str, acs: bool) -> tuple[str, bool]:
    """Apply SO/SI inside a segment: cells between them are box drawing."""
    pieces = []
    for piece in _SHIFT_SPLIT.split(seg):
        if piece == "\x0e":
            acs = True
        elif piece == "\x0f":
            acs = False
        elif piece:
            pieces.append(piece.translate(ACS_TABLE) if acs else piece)
    return "".join(pieces), acs


def _parse_row(row: str, style: Style, acs: bool) -> Row:
    """One captured row: its text, styled spans, and the state after it."""
    key = (row, style, acs)
    cached = _ROWS.get(key)
    if cached is not None:
        return cached
    parts = _SGR_SPLIT.split(row)
    texts: list[str] = []
    spans: list[Span] = []
    x = 0
    run_start = 0
    run_style = style
    for i in range(0, len(parts), 2):
        if i:
            style = _apply_codes(style, parts[i - 1])
        seg = parts[i]
        if not seg:
            continue
        if acs or "\x0e" in seg or "\x0f" in seg:
            seg, acs = _line_drawing(seg, acs)
        if seg.isascii() and seg.isprintable():
            width = len(seg)
        else:
            seg = _plain(seg)
            if not seg:
                continue
            width = text_width(seg)
        if style is not run_style and style != run_style:
            if x > run_start and run_style != DEFAULT_STYLE:
                spans.append(Span(run_start, x, *run_style))
            run_start = x
            run_style = style
        texts.append(seg)
        x += width
    if x > run_start and run_style != DEFAULT_STYLE:
        spans.append(Span(run_start, x, *run_style))
    text = "".join(texts)
    stripped = text.rstrip(" ")
    if spans and len(stripped) < len(text):
        # tmux trims trailing blanks unless a style code follows them; spans
        # stop at the last kept cell so both capture paths agree.
        end = x - (len(text) - len(stripped))
        spans = [
            sp if sp.end <= end else Span(sp.start, end, *_style_of(sp))
            for sp in spans
            if sp.start < end
        ]
    if len(_ROWS) >= _ROWS_MAX:
        _ROWS.clear()
    result = _ROWS[key] = (stripped, tuple(spans), style, acs)
    return result


def _style_of(span: Span) -> Style:
    """The style tuple a span was built from."""
    return (span.fg, span.bg, span.bold, span.dim, span.italic, span.underline,
            span.reverse)


def snapshot_from_capture(
    ansi: str,
    *,
    width: int,
    height: int,
    cursor: tuple[int, int] = (0, 0),
    alternate: bool = False,
    program: str | None = None,
) -> Snapshot:
    """A Snapshot from ``capture-pane -p -e`` output of the visible screen.

    ``styles`` holds, per kept row, the runs of cells whose style is not the
    default, clipped to the row's text (tmux drops trailing blanks too).
    """
    rows = ansi.split("\n")
    if rows and rows[-1] == "":
        rows.pop()
    lines: list[str] = []
    styles: list[tuple[Span, ...]] = []
    style = DEFAULT_STYLE
    acs = False
    for row in rows:
        if style == DEFAULT_STYLE and not acs and row.isascii() and row.isprintable():
            lines.append(row.rstrip(" "))
            styles.append(())
            continue
        text, spans, style, acs = _parse_row(row, style, acs)
        lines.append(text)
        styles.append(spans)
    while lines and not lines[-1]:
        lines.pop()
    del styles[len(lines):]
    return Snapshot(
        lines=tuple(lines),
        width=width,
        height=height,
        cursor=cursor,
        alternate=alternate,
        program=program,
        styles=tuple(styles),
    )


def clean_scrollback(ansi: str, *, trim: bool = True) -> list[str]:
    """Clean lines from ``capture-pane -p -e -J -S -N`` output.

    Styles are dropped, line-drawing cells become box characters, trailing
    spaces (kept by ``-J``) are removed, and the blank rows below the last
    text are trimmed - unless ``trim`` is False: a caller that counts rows
    up to the cursor's (a blank one too) gets one per row captured.
    """
    if "\x0e" in ansi:
        lines = []
        acs = False
        for row in ansi.split("\n"):
            text, _spans, _style, acs = _parse_row(row, DEFAULT_STYLE, acs)
            lines.append(text)
    else:
        text = _SGR_PARAMS.sub("", ansi)
        if not text.isascii() or _CONTROL_BUT_NEWLINE.search(text):
            text = "\n".join(_plain(row) for row in text.split("\n"))
        lines = [row.rstrip(" ") for row in text.split("\n")]
    if not trim:
        return lines[:-1] if ansi.endswith("\n") else lines
    while lines and not lines[-1]:
        lines.pop()
    return lines
