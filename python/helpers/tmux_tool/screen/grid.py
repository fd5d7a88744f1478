"""The grid of a screen: immutable styled cells and what is read from a row of them.

A row is a pyte ``StaticDefaultDict`` from column to :class:`Cell`; blank
columns are missing and read as the default cell.  Cells are tuples shared
between rows (one per character and style), which keeps a screen of plain
text cheap to fill and to copy.
"""

from __future__ import annotations

from typing import NamedTuple

from pyte.screens import StaticDefaultDict

from .sgr import DEFAULT_STYLE, Style
from .snapshot import Span


class Cell(NamedTuple):
    """One grid cell: its characters and style (a wide char's stub is "")."""

    data: str
    fg: str = "default"
    bg: str = "default"
    bold: bool = False
    dim: bool = False
    italics: bool = False
    underscore: bool = False
    reverse: bool = False


BLANK = Cell(" ")
new_cell = tuple.__new__
"""Builds a :class:`Cell` from a tuple without the checks of its constructor (hot path)."""
Line = StaticDefaultDict[int, Cell]


class _StyledCells(dict[str, Cell]):
    """The cells of one style, made once per character (cells are immutable)."""

    def __init__(self, style: Style) -> None:
        super().__init__()
        self.style = style

    def __missing__(self, ch: str) -> Cell:
        cell = self[ch] = new_cell(Cell, (ch, *self.style))
        return cell


_STYLED: dict[Style, _StyledCells] = {}


def styled_cells(style: Style) -> dict[str, Cell]:
    """The shared cells of ``style``, one per character, made on first use (at most 1024 styles
    kept)."""
    cells = _STYLED.get(style)
    if cells is None:
        if len(_STYLED) > 1024:
            _STYLED.clear()
        cells = _STYLED[style] = _StyledCells(style)
    return cells


def row_text(line: Line) -> str:
    """A grid row as capture-pane prints it, trailing blanks removed."""
    if not line:
        return ""
    return "".join([line[x].data for x in range(max(line) + 1)]).rstrip(" ")


def text_end(line: Line) -> int:
    """Cells up to and including the last non-blank one (a stub included)."""
    for x in range(max(line, default=-1), -1, -1):
        data = line[x].data
        if data and data != " ":
            stub = line.get(x + 1)
            return x + 2 if stub is not None and stub.data == "" else x + 1
    return 0


def row_spans(line: Line, end: int) -> tuple[Span, ...]:
    """Runs of non-default style in the first ``end`` cells of a row."""
    spans: list[Span] = []
    run_style: Style = DEFAULT_STYLE
    run_start = 0
    for x in range(end):
        style: Style = line[x][1:]
        if style != run_style:
            if run_style != DEFAULT_STYLE:
                spans.append(Span(run_start, x, *run_style))
            run_style, run_start = style, x
    if run_style != DEFAULT_STYLE and end > run_start:
        spans.append(Span(run_start, end, *run_style))
    return tuple(spans)


def copy_line(line: Line) -> Line:
    """A copy of a row that a later change to the row does not touch."""
    copy: Line = StaticDefaultDict(line.default)
    copy.update(line)
    return copy
