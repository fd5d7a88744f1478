"""The one picture of a pane that every part of the tool reasons about.

A snapshot is what a human would see in the pane at one moment: rendered text
rows, the cursor, whether a full-screen program holds the alternate screen,
and enough style per cell to tell dim "thinking" text from an answer.  Status
detection, answer extraction, ``read`` and ``wait`` all consume this type, so
they agree on what the screen says.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Span:
    """A run of cells on one row that share the same style.

    ``start`` and ``end`` are cell columns (end exclusive).  Colours are kept
    as tmux/pyte-style names: ``"default"``, a basic name such as ``"red"``,
    a 256-colour index as ``"38;5;244"``-style text or a hex ``"8a8a8a"``.
    """

    start: int
    end: int
    fg: str = "default"
    bg: str = "default"
    bold: bool = False
    dim: bool = False
    italic: bool = False
    underline: bool = False
    reverse: bool = False


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A rendered pane: rows of text plus cursor, mode and style facts.

    ``lines`` are the visible rows with trailing spaces removed and trailing
    blank rows trimmed (tall terminals pad the bottom with empty rows; they say
    nothing).  ``cursor`` is ``(x, y)`` in cells, 0-based from the top-left of
    the visible screen; it may point below the last kept row.
    """

    lines: tuple[str, ...]
    width: int
    height: int
    cursor: tuple[int, int] = (0, 0)
    alternate: bool = False
    program: str | None = None
    styles: tuple[tuple[Span, ...], ...] = field(default=(), compare=False)

    @property
    def text(self) -> str:
        """The screen as one string, rows joined by newlines."""
        return "\n".join(self.lines)

    @property
    def digest(self) -> str:
        """A stable hash of what is visible, for "did the screen change"."""
        h = hashlib.blake2b(digest_size=12)
        h.update(self.text.encode("utf-8", "surrogatepass"))
        h.update(f"|{self.cursor[0]},{self.cursor[1]}|{int(self.alternate)}".encode())
        return h.hexdigest()

    @property
    def cursor_line(self) -> str:
        """The row the cursor is on ("" when it sits below the kept rows)."""
        y = self.cursor[1]
        return self.lines[y] if 0 <= y < len(self.lines) else ""

    def text_rows(self, count: int) -> list[int]:
        """The indices of the lowest ``count`` rows that hold text, top to bottom: where the
        signs at the bottom of a screen (a key bar, a status row, an inline choice) stand."""
        found: list[int] = []
        for y in range(len(self.lines) - 1, -1, -1):
            if len(found) == count:
                break
            if self.lines[y].strip():
                found.append(y)
        return found[::-1]

    def spans(self, y: int) -> tuple[Span, ...]:
        """Style runs of row ``y`` (empty when styles were not captured)."""
        return self.styles[y] if 0 <= y < len(self.styles) else ()
