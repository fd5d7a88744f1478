"""A pyte screen that behaves like a tmux 3.3a pane.

Raw pane bytes (``pipe-pane``, control-mode ``%output``) only mean something
after a terminal has interpreted them.  We want the same picture tmux shows, so
``capture-pane`` and a replayed stream agree line for line.  pyte supplies the
grid and the cursor-motion, erase, insert/delete and scroll-margin logic; this
subclass replaces the parts where pyte differs from tmux or loses text:

* ``draw`` and SGR: see :mod:`.drawing`;
* the alternate screen (DECSET 47/1047/1049), which pyte ignores: the main
  screen is saved and restored, and nothing drawn there reaches the history;
* ``CSI n S`` / ``CSI n T`` (scroll up/down), REP, CBT, SCP/RCP, NEL with its
  carriage return, a single DECSC slot as tmux has;
* erasing fills with the background colour only, as tmux does;
* rows that leave the top of the main screen (scrolling or a full clear) are
  handed to ``on_history`` so a transcript can keep them, as tmux's history
  does.

DECCOLM never resizes (tmux only homes and clears), and queries (DA, DSR) are
never answered: the parser in :mod:`.stream` does not even dispatch them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from pyte import modes as mo
from pyte.screens import Margins

from .cells import char_width
from .drawing import DrawingScreen
from .grid import BLANK, Line, copy_line, row_spans, row_text, text_end
from .sgr import DEFAULT_STYLE, Style
from .snapshot import Snapshot, Span


class _Saved(NamedTuple):
    """What DECSC (and, for its first three fields, DECSET 1049) remember."""

    x: int
    y: int
    style: Style
    acs: tuple[bool, bool]
    charset: int
    origin: bool


class TmuxScreen(DrawingScreen):
    """A pyte screen with tmux's rules; see the module docstring."""

    def __init__(
        self,
        columns: int,
        lines: int,
        on_history: Callable[[Line], None] | None = None,
    ) -> None:
        self.on_history = on_history
        self.main_buffer: dict[int, Line] | None = None
        self._saved: _Saved | None = None
        self._alt_cursor: _Saved | None = None
        super().__init__(columns, lines)

    @property
    def alternate(self) -> bool:
        """True while a full-screen program holds the alternate screen."""
        return self.main_buffer is not None

    def reset(self) -> None:
        """RIS: the drawing state's reset, and the DECSC slot emptied."""
        super().reset()
        self._saved = None

    def full_reset(self) -> None:
        """RIS (``ESC c``): tmux clears the screen (into history) and resets."""
        self.erase_in_display(2)
        self.reset()

    # -- scrolling and history ----------------------------------------------

    def _region(self) -> tuple[int, int]:
        return self.margins or (0, self.lines - 1)

    def _move_rows(self, top: int, bottom: int, count: int, down: bool) -> None:
        """Shift rows ``top..bottom`` by ``count``; vacated rows are blank."""
        buffer = self.buffer
        if down:
            order = range(bottom, top - 1, -1)
            source = -count
        else:
            order = range(top, bottom + 1)
            source = count
        for y in order:
            line = buffer.pop(y + source, None) if top <= y + source <= bottom else None
            if line:
                buffer[y] = line
            else:
                buffer.pop(y, None)

    def _scroll_region_up(self) -> None:
        top, bottom = self._region()
        if self.on_history is not None and self.main_buffer is None:
            self.on_history(self.buffer[top])
        self._move_rows(top, bottom, 1, down=False)

    def index(self) -> None:
        """LF/IND: down a row; at the bottom margin the region scrolls."""
        if self.cursor.y == self._region()[1]:
            self._scroll_region_up()
        elif self.cursor.y < self.lines - 1:
            self.cursor.y += 1

    def reverse_index(self) -> None:
        """RI: up a row; at the top margin the region scrolls down."""
        top, bottom = self._region()
        if self.cursor.y == top:
            self._move_rows(top, bottom, 1, down=True)
        elif self.cursor.y > 0:
            self.cursor.y -= 1

    def scroll_up(self, count: int = 1) -> None:
        """SU (``CSI n S``): scroll the region up, lines go to history."""
        top, bottom = self._region()
        for _ in range(min(max(count, 1), bottom - top + 1)):
            self._scroll_region_up()

    def scroll_down(self, count: int = 1) -> None:
        """SD (``CSI n T``): scroll the region down, blank rows at the top."""
        top, bottom = self._region()
        self._move_rows(top, bottom, min(max(count, 1), bottom - top + 1), down=True)

    def insert_lines(self, count: int | None = None) -> None:
        """IL: rows at and below the cursor move down; the cursor stays."""
        bottom = self._lines_area()
        count = min(max(count or 1, 1), bottom + 1 - self.cursor.y)
        self._move_rows(self.cursor.y, bottom, count, down=True)

    def delete_lines(self, count: int | None = None) -> None:
        """DL: rows below the cursor move up; the cursor stays."""
        bottom = self._lines_area()
        count = min(max(count or 1, 1), bottom + 1 - self.cursor.y)
        self._move_rows(self.cursor.y, bottom, count, down=False)

    def _lines_area(self) -> int:
        """Last row IL/DL move: the region's, or the screen's outside it."""
        top, bottom = self._region()
        return bottom if top <= self.cursor.y <= bottom else self.lines - 1

    def set_margins(self, top: int | None = None, bottom: int | None = None) -> None:
        """DECSTBM: set the scroll region and home the cursor (tmux rules)."""
        upper = min(max(top or 1, 1) - 1, self.lines - 1)
        lower = min(max(self.lines if bottom is None else bottom, 1) - 1, self.lines - 1)
        if upper >= lower:
            return
        self.cursor.x = self.cursor.y = 0
        self.margins = Margins(upper, lower)

    def cursor_up(self, count: int | None = None) -> None:
        """CUU: stops at the top margin, or the screen top above it."""
        top = self._region()[0]
        floor = 0 if self.cursor.y < top else top
        self.cursor.y = max(self.cursor.y - max(count or 1, 1), floor)
        self.cursor.x = min(self.cursor.x, self.columns - 1)

    def cursor_down(self, count: int | None = None) -> None:
        """CUD: stops at the bottom margin, or the screen bottom below it."""
        bottom = self._region()[1]
        ceiling = self.lines - 1 if self.cursor.y > bottom else bottom
        self.cursor.y = min(self.cursor.y + max(count or 1, 1), ceiling)
        self.cursor.x = min(self.cursor.x, self.columns - 1)

    def cursor_back(self, count: int | None = None) -> None:
        """CUB and BS: left, from a pending wrap too (tmux keeps cx == width)."""
        self.cursor.x = max(self.cursor.x - max(count or 1, 1), 0)

    def cursor_position(self, line: int | None = None, column: int | None = None) -> None:
        """CUP/HVP: absolute move, clamped; origin mode counts from the region."""
        self.cursor.x = min(max(column or 1, 1) - 1, self.columns - 1)
        self.cursor_to_line(line)

    def cursor_to_line(self, line: int | None = None) -> None:
        """VPA: row only; pyte asserts on origin mode without margins."""
        y = max(line or 1, 1) - 1
        if self.margins is not None and mo.DECOM in self.mode:
            top, bottom = self.margins
            y = bottom if y > bottom - top else y + top
        self.cursor.y = min(y, self.lines - 1)

    def insert_characters(self, count: int | None = None) -> None:
        """ICH: cells from the cursor move right; new cells are blank."""
        self._shift_cells(count, right=True)

    def delete_characters(self, count: int | None = None) -> None:
        """DCH: cells after the cursor move left; blanks fill the end."""
        self._shift_cells(count, right=False)

    def _shift_cells(self, count: int | None, right: bool) -> None:
        x = self.cursor.x
        if x >= self.columns:
            return
        count = min(max(count or 1, 1), self.columns - x)
        line = self.buffer[self.cursor.y]
        cells = [line[i] for i in range(x, self.columns)]
        blank = [self._blank()] * count
        cells = blank + cells[:-count] if right else cells[count:] + blank
        for i, cell in enumerate(cells, x):
            line[i] = cell
        # A wide character split by the shift (its stub pushed off the right edge, or its lead
        # deleted from under its stub) is erased, as a terminal does: half of it is no character.
        for i in range(max(x - 1, 0), self.columns):
            data = line[i].data
            if (char_width(data) == 2 and (i + 1 >= self.columns or line[i + 1].data != "")) or (
                    data == "" and (i == 0 or char_width(line[i - 1].data) != 2)):
                line[i] = self._blank()

    def next_line(self) -> None:
        """NEL: carriage return plus line feed (pyte forgets the return)."""
        self.cursor.x = 0
        self.index()

    def tab(self) -> None:
        """HT: next tab stop, never past the last column, never backwards."""
        last = self.columns - 1
        if self.cursor.x >= last:
            return
        stops = [s for s in self.tabstops if s > self.cursor.x]
        self.cursor.x = min(min(stops, default=last), last)

    def back_tab(self, count: int = 1) -> None:
        """CBT: back to the previous tab stop, ``count`` times."""
        x = min(self.cursor.x, self.columns - 1)
        for _ in range(max(count, 1)):
            if x <= 0:
                break
            x -= 1
            while x > 0 and x not in self.tabstops:
                x -= 1
        self.cursor.x = x

    # -- erasing -------------------------------------------------------------

    def erase_in_display(self, how: int = 0, *args: Any, **kwargs: Any) -> None:
        """ED, with tmux's rule that clearing the whole main screen first
        pushes its used rows into the history (``scroll-on-clear``)."""
        cursor = self.cursor
        if how == 2 or (how == 0 and cursor.x == 0 and cursor.y == 0):
            if self.on_history is not None and self.main_buffer is None:
                used = [y for y, line in self.buffer.items() if line]
                for y in range(max(used, default=-1) + 1):
                    self.on_history(self.buffer[y])
            rows = range(self.lines)
        elif how == 0:
            rows = range(cursor.y + 1, self.lines)
            self.erase_in_line(0)
        elif how == 1:
            rows = range(cursor.y)
            self.erase_in_line(1)
        else:
            return
        blank = self._blank()
        for y in rows:
            self.buffer.pop(y, None)
            if blank is not BLANK:
                self.buffer[y].update(dict.fromkeys(range(self.columns), blank))

    def erase_in_line(self, how: int = 0, private: bool = False) -> None:
        """EL, filling with the background colour only."""
        x = min(self.cursor.x, self.columns)
        if how == 0:
            self._fill(x, self.columns)
        elif how == 1:
            self._fill(0, min(x + 1, self.columns))
        elif how == 2:
            self._fill(0, self.columns)

    def erase_characters(self, count: int | None = None) -> None:
        """ECH, filling with the background colour only."""
        x = min(self.cursor.x, self.columns - 1)
        self._fill(x, min(x + max(count or 1, 1), self.columns))

    def _fill(self, start: int, stop: int) -> None:
        if start >= stop:
            return
        # tmux clears cells without repairing wide characters they cut.
        line = self.buffer[self.cursor.y]
        blank = self._blank()
        if blank is BLANK and stop == self.columns:
            # Like tmux, a default-coloured erase to the end frees the cells.
            for x in [x for x in line if x >= start]:
                del line[x]
        else:
            for x in range(start, stop):
                line[x] = blank

    # -- modes ----------------------------------------------------------------

    def set_private_mode(self, mode: int, on: bool) -> None:
        """DECSET/DECRST for the modes tmux 3.3a acts on."""
        if mode == 3:  # DECCOLM: tmux homes and clears, never resizes.
            self.cursor_position()
            self.erase_in_display(2)
        elif mode == 6:
            (self.mode.add if on else self.mode.discard)(mo.DECOM)
            self.cursor_position()
        elif mode == 7:
            (self.mode.add if on else self.mode.discard)(mo.DECAWM)
        elif mode == 25:
            self.cursor.hidden = not on
        elif mode in (47, 1047, 1049):
            if on:
                self._alternate_on(mode == 1049)
            else:
                self._alternate_off(mode == 1049)

    def set_insert_mode(self, on: bool) -> None:
        """SM/RM 4 (IRM); tmux ignores the other ANSI modes (LNM too)."""
        (self.mode.add if on else self.mode.discard)(mo.IRM)

    def _alternate_on(self, with_cursor: bool) -> None:
        if with_cursor:
            self._alt_cursor = self._state()
        if self.main_buffer is not None:
            return
        self.main_buffer = {y: copy_line(line) for y, line in self.buffer.items()}
        self.buffer.clear()

    def _alternate_off(self, with_cursor: bool) -> None:
        if with_cursor and self._alt_cursor is not None:
            self._move_to(self._alt_cursor)
        if self.main_buffer is not None:
            self.buffer.clear()
            self.buffer.update(self.main_buffer)
            self.main_buffer = None
        self.cursor.x = min(self.cursor.x, self.columns - 1)
        self.cursor.y = min(self.cursor.y, self.lines - 1)

    # -- cursor save/restore (one slot, as in tmux) ---------------------------

    def _state(self) -> _Saved:
        return _Saved(
            self.cursor.x, self.cursor.y, self.style, (self._acs[0], self._acs[1]),
            self.charset, mo.DECOM in self.mode,
        )

    def _move_to(self, saved: _Saved) -> None:
        self.cursor.x = min(saved.x, self.columns)
        self.cursor.y = min(saved.y, self.lines - 1)
        self.style = saved.style

    def save_cursor(self) -> None:
        """DECSC / SCP: remember cursor, style and charsets (one slot)."""
        self._saved = self._state()

    def restore_cursor(self) -> None:
        """DECRC / RCP: go back to the saved state, or home if none."""
        if self._saved is None:
            self.cursor.x = self.cursor.y = 0
            self.style = DEFAULT_STYLE
            return
        self._move_to(self._saved)
        self._acs = list(self._saved.acs)
        self.charset = self._saved.charset
        (self.mode.add if self._saved.origin else self.mode.discard)(mo.DECOM)

    # -- output ---------------------------------------------------------------

    def snapshot(self) -> Snapshot:
        """The visible screen as a :class:`Snapshot`."""
        lines: list[str] = []
        styles: list[tuple[Span, ...]] = []
        for y in range(self.lines):
            line = self.buffer.get(y)
            if not line:
                lines.append("")
                styles.append(())
                continue
            lines.append(row_text(line))
            styles.append(row_spans(line, text_end(line)))
        while lines and not lines[-1]:
            lines.pop()
        del styles[len(lines):]
        return Snapshot(
            lines=tuple(lines),
            width=self.columns,
            height=self.lines,
            cursor=(self.cursor.x, self.cursor.y),
            alternate=self.alternate,
            styles=tuple(styles),
        )

    def main_rows(self) -> list[str]:
        """Text of the main screen, even while the alternate one is shown."""
        buffer = self.main_buffer if self.main_buffer is not None else self.buffer
        return [row_text(buffer[y]) if y in buffer else "" for y in range(self.lines)]

