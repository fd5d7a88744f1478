"""Render raw pane output: the final screen, or everything a human saw.

A command's output is more than its last screen: lines scroll off the top.
:class:`Transcript` keeps those lines in order, the way tmux's history keeps
them, and appends the final screen.  Because a real terminal sits underneath,
a ``\\r`` progress bar leaves only its final state, a spinner that redraws
itself leaves one line, and a full-screen program on the alternate screen
(vim, less, top) leaves nothing, exactly as when scrolling back in tmux.

One deliberate difference from tmux's history: ``CSI 3 J`` (clear scrollback)
does not erase the transcript.  A transcript is a record of what was shown.
"""

from __future__ import annotations

from .emulator import TmuxScreen
from .grid import Line, row_text
from .snapshot import Snapshot
from .stream import TerminalStream


def render_stream(data: bytes, *, width: int, height: int) -> Snapshot:
    """The visible screen after ``data`` (raw pane bytes) was written."""
    screen = TmuxScreen(width, height)
    TerminalStream(screen).feed(data)
    return screen.snapshot()


class Transcript:
    """Everything a pane showed, built up chunk by chunk from its raw bytes."""

    def __init__(self, width: int, height: int = 50) -> None:
        self._history: list[str] = []
        self._screen = TmuxScreen(width, height, on_history=self._keep)
        self._stream = TerminalStream(self._screen)

    def _keep(self, line: Line) -> None:
        self._history.append(row_text(line))

    def feed(self, data: bytes) -> None:
        """Add the next chunk of raw output (any split is fine)."""
        self._stream.feed(data)

    def snapshot(self) -> Snapshot:
        """The screen as it is now (the alternate screen if one is shown)."""
        return self._screen.snapshot()

    def text(self) -> str:
        """Scrolled-off lines in order, then the main screen, blank tail cut."""
        rows = self._history + self._screen.main_rows()
        while rows and not rows[-1]:
            rows.pop()
        return "\n".join(rows)


def render_transcript(data: bytes, width: int, height: int = 50) -> str:
    """:meth:`Transcript.text` of one complete recording."""
    transcript = Transcript(width, height)
    transcript.feed(data)
    return transcript.text()
