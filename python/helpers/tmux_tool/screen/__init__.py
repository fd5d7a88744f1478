"""The screen layer: what the agent reads is what a human saw.

Two sources reach us.  ``capture-pane`` output is already laid out by tmux, so
:func:`snapshot_from_capture` and :func:`clean_scrollback` only read its SGR
codes (fast enough to poll).  Raw bytes (``pipe-pane``) are interpreted by a
pyte screen taught tmux's rules (:func:`render_stream`, :class:`Transcript`),
so cursor motion, spinners, ``\\r`` progress bars, the alternate screen and
terminal queries end as the text a human saw.  :func:`quick_clean` is the
cheap fallback for output too big to emulate.

Whatever these functions return holds no ESC, BEL or other control character
except ``\\n`` (and ``\\t`` from ``quick_clean``).
"""

from __future__ import annotations

from .capture import clean_scrollback, snapshot_from_capture
from .clean import quick_clean
from .snapshot import Snapshot, Span
from .transcript import Transcript, render_stream, render_transcript

__all__ = [
    "Snapshot",
    "Span",
    "Transcript",
    "clean_scrollback",
    "quick_clean",
    "render_stream",
    "render_transcript",
    "snapshot_from_capture",
]
