"""Text into cells, following tmux 3.3a's cell rules.

pyte stops drawing the rest of a text run at the first width-0 character that
is not a combining mark (ZWJ, VS16), pads wide characters that do not fit,
and leaves half of a wide character behind when it is overwritten.  Here
each character follows tmux's rules (see :mod:`.cells`): combining marks and
ZWJ sequences join the cell before, a wide character overwritten by half
blanks its other half, REP repeats the last ASCII character, and the
line-drawing charset (``ESC ( 0``) is honoured.  SGR goes through
:func:`.sgr.apply_sgr`, so dim, 256-colour and truecolour survive.
"""

from __future__ import annotations

import pyte
from pyte import modes as mo

from .cells import ACS_TABLE, CELL_BYTES, ZWJ, char_width
from .grid import BLANK, Cell, Line, new_cell, styled_cells
from .sgr import DEFAULT_STYLE, Style, apply_sgr


class DrawingScreen(pyte.Screen):
    """A pyte screen that draws text as tmux does; :class:`~.emulator.TmuxScreen` adds the rest.

    Its grid holds :class:`~.grid.Cell` (which has dim, and no blink or
    strike) where pyte's annotations say ``Char``; the pyte methods still
    inherited only move cells or ``_replace`` their data, which both types
    support.  The current style is kept in ``style``, never in pyte's
    ``cursor.attrs``.
    """

    buffer: dict[int, Line]  # type: ignore[assignment]

    def __init__(self, columns: int, lines: int) -> None:
        self.last_ascii: str | None = None
        self._zwj = False
        self._acs = [False, False]
        self.style: Style = DEFAULT_STYLE
        super().__init__(columns, lines)

    @property
    def default_char(self) -> Cell:  # type: ignore[override]
        """A blank cell; tmux has no reverse-screen mode to honour."""
        return BLANK

    def reset(self) -> None:
        """RIS: pyte's reset plus the drawing state (style, charsets, ZWJ)."""
        super().reset()
        self.style = DEFAULT_STYLE
        self._zwj = False
        self._acs = [False, False]
        self.last_ascii = None

    def set_style(self, params: str) -> None:
        """SGR with the raw parameter text (colon forms included)."""
        self.style = apply_sgr(self.style, params)

    def designate(self, slot: str, code: str) -> None:
        """``ESC ( 0`` / ``ESC ) B``: line drawing on or off for G0/G1."""
        if code in "0B":
            self._acs[0 if slot == "(" else 1] = code == "0"

    def _blank(self) -> Cell:
        """The cell an erase leaves: blank, keeping only the background."""
        bg = self.style[1]
        return BLANK if bg == "default" else BLANK._replace(bg=bg)

    def draw(self, data: str) -> None:
        """Print text at the cursor following tmux's cell rules."""
        if not data:
            return
        if self._acs[self.charset]:
            data = data.translate(ACS_TABLE)
        if data.isascii() and mo.DECAWM in self.mode and mo.IRM not in self.mode:
            self._draw_ascii(data)
            return
        for ch in data:
            self._draw_char(ch)
        self.last_ascii = data[-1] if data[-1] < "\x7f" else None

    def _draw_ascii(self, data: str) -> None:
        """The common case: narrow characters, autowrap on, no insert mode."""
        cursor = self.cursor
        columns = self.columns
        style = self.style
        cells = styled_cells(style)
        while data:
            if cursor.x >= columns:
                cursor.x = 0
                self.index()
            x = cursor.x
            chunk = data[: columns - x]
            data = data[len(chunk):]
            end = x + len(chunk)
            line = self.buffer[cursor.y]
            self._unsplit(line, x, end, ascii_run=True)
            line.update(zip(range(x, end), map(cells.__getitem__, chunk)))
            cursor.x = end
        self.last_ascii = chunk[-1]

    def _unsplit(self, line: Line, start: int, end: int, ascii_run: bool = False) -> None:
        """Blank the halves of wide characters cut by writing ``start:end``.

        tmux 3.3a's path for plain ASCII runs misses one case: a run starting
        on the right half of a wide character in column 0 leaves that
        character in place (its capture then shows both); we do the same.
        """
        if start > 1 or (start == 1 and not ascii_run):
            first = line.get(start)
            if first is not None and first.data == "":
                line[start - 1] = BLANK
        stub = line.get(end)
        while stub is not None and stub.data == "":
            line[end] = BLANK
            end += 1
            stub = line.get(end)

    def _draw_char(self, ch: str) -> None:
        width = char_width(ch)
        if width < 0:
            return
        if ch == ZWJ:
            self._zwj = True
            return
        # tmux prints plain ASCII through a fast path that never looks at a
        # pending ZWJ; everything else joins the previous cell when asked to.
        plain = ch < "\x7f" and mo.DECAWM in self.mode and mo.IRM not in self.mode
        if width == 0 or (self._zwj and not plain):
            joined = not self._zwj or self._combine(ZWJ)
            self._zwj = False
            if not (joined and self._combine(ch)) and width > 0:
                # tmux would drop a joined character it has no room for (at
                # column 0, or past 21 bytes in one cell); we never lose a
                # visible character, so it gets a cell of its own.
                self._put(ch, width)
            return
        self._put(ch, width)

    def _combine(self, ch: str) -> bool:
        """Append a zero-width character to the cell left of the cursor."""
        x = self.cursor.x
        if x == 0:
            return False
        line = self.buffer[self.cursor.y]
        x = min(x, self.columns) - 1
        while x > 0 and line[x].data == "":
            x -= 1
        cell = line[x]
        data = cell.data + ch
        if len(data.encode("utf-8", "surrogatepass")) > CELL_BYTES:
            return False
        line[x] = cell._replace(data=data)
        return True

    def _put(self, ch: str, width: int) -> None:
        cursor = self.cursor
        columns = self.columns
        wrap = mo.DECAWM in self.mode
        if not wrap and width > 1 and (
            width > columns or (cursor.x != columns and cursor.x > columns - width)
        ):
            return
        if mo.IRM in self.mode:
            self.insert_characters(width)
        if wrap and cursor.x > columns - width:
            cursor.x = 0
            self.index()
        x = cursor.x
        if x > columns - width:
            return
        line = self.buffer[cursor.y]
        self._unsplit(line, x, x + width)
        style = self.style
        line[x] = new_cell(Cell, (ch,) + style)
        if width == 2:
            line[x + 1] = new_cell(Cell, ("",) + style)
        last = 0 if wrap else 1
        cursor.x = x + width if x <= columns - last - width else columns - last

    def repeat(self, count: int) -> None:
        """REP: print the last ASCII character again, at most to the margin."""
        if self.last_ascii is not None:
            count = min(count, self.columns - min(self.cursor.x, self.columns))
            if count > 0:
                self.draw(self.last_ascii * count)
