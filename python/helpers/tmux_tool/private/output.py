"""The output of one run: cleaned as it arrives, capped early, saved whole once.

A command may print gigabytes; the agent reads at most ``output_cap``
characters (head and tail), and the whole text goes to a file.  Both come
from one pass over the raw bytes, chunk by chunk as the run's log grows, so
memory stays bounded (a chunk, the first and last ``RENDER_LIMIT`` raw bytes,
and the cap) and the work left when the run ends is the last chunk.

Per chunk of whole lines:

* output that never moves the cursor (text, colours, titles, links: nearly
  all of it) is stripped by :func:`~..screen.clean.plain_text`, never
  emulated;
* anything else is cleaned line by line by
  :func:`~..screen.clean.quick_clean`, which replays ``\r`` progress bars,
  backspaces and erases within a line exactly and keeps long lines whole;
* output that moves between lines (cursor up, positioning, the alternate
  screen) marks the run for the terminal emulator, which then renders what
  the agent reads - all of it when the output is small, else its first and
  last ``RENDER_LIMIT`` bytes;
* secrets are masked (in one linear pass) before the text is kept or saved.

What the agent reads is what the command wrote: the terminal's ``\r\n`` is
``\n`` again, blanks, tabs and blank lines stay as written (at the ends of
lines too), and one final newline is not part of it (``echo x`` gives ``x``,
``printf 'x\n\n'`` gives ``x`` and a newline).  Lines the terminal rewrote
(``\r``, backspace, erase) are given as drawn, without blanks at their end;
output that moves between lines is given as the emulator's rendered rows.
"""

from __future__ import annotations

import os
from collections import deque
from pathlib import Path
from typing import TextIO

from ..core.capping import HEAD_SHARE, cap_text, join_cut
from ..core.config import private_path
from ..core.masking import PEM_REACH, Masker
from ..core.result import Extra
from ..screen.clean import line_local, plain_text, quick_clean

RENDER_LIMIT = 256 << 10  # raw bytes rendered through the emulator, head and tail each
BATCH = 256 << 10  # raw bytes gathered before they are cleaned (fewer, bigger passes)
LINE_LIMIT = 1 << 20  # a line longer than this is cleaned in pieces
class RunOutput:
    """Raw output bytes in (any split), the agent's text and the saved file out."""

    def __init__(self, *, cap: int, width: int, path: Path, masker: Masker) -> None:
        self.cap = cap
        self.width = width
        self.path = path
        self.mask = masker
        self.needs_emulator = False
        self.raw_size = 0
        # raw bytes not cleaned yet (a batch, and the line it ends in)
        self._waiting: list[bytes] = []
        self._waiting_size = 0
        # all raw bytes while they fit twice RENDER_LIMIT
        self._small: bytearray | None = bytearray()
        self._raw_head = b""
        self._raw_tail = bytearray()
        self._open_pem = ""  # cleaned text from a PEM block's start, until its end arrives
        self._newline = ""  # a final newline, part of the output only if more text follows
        self._kept: list[str] = []  # the text while it fits the cap
        self._kept_chars = 0
        self.chars = 0
        self.newlines = 0
        self._file: TextIO | None = None
        self._head = ""
        self._tail: deque[str] = deque()
        self._tail_chars = 0

    # --- in ---------------------------------------------------------------------
    def feed(self, raw: bytes) -> None:
        """Take the next raw bytes; whole lines are cleaned once a batch is there, the rest
        waits."""
        self._keep_raw(raw)
        self._waiting.append(raw)
        self._waiting_size += len(raw)
        if self._waiting_size >= BATCH:
            self._clean_waiting(final=False)

    def _clean_waiting(self, *, final: bool) -> None:
        data = b"".join(self._waiting)
        self._waiting.clear()
        self._waiting_size = 0
        end = len(data) if final else data.rfind(b"\n") + 1
        if end == 0 and len(data) < LINE_LIMIT:
            self._waiting.append(data)
            self._waiting_size = len(data)
            return
        if end == 0:
            end = len(data)
        if end < len(data):
            self._waiting.append(data[end:])
            self._waiting_size = len(data) - end
        if end:
            self._clean(data[:end])

    def _keep_raw(self, raw: bytes) -> None:
        self.raw_size += len(raw)
        if self._small is not None:
            self._small += raw
            if len(self._small) <= 2 * RENDER_LIMIT:
                return
            self._raw_head = bytes(self._small[:RENDER_LIMIT])
            raw, self._small = bytes(self._small[RENDER_LIMIT:]), None
        self._raw_tail += raw
        if len(self._raw_tail) > 2 * RENDER_LIMIT:
            del self._raw_tail[:-RENDER_LIMIT]

    def _clean(self, raw: bytes) -> None:
        text = plain_text(raw)
        if text is None:
            self.needs_emulator = self.needs_emulator or not line_local(raw)
            text = quick_clean(raw)
        text = self._open_pem + text
        self._open_pem = ""
        begin = text.rfind("-----BEGIN ")
        if begin >= 0 and "-----END " not in text[begin:] and len(text) - begin < PEM_REACH:
            start = text.rfind("\n", 0, begin) + 1
            text, self._open_pem = text[:start], text[start:]
        self._emit(self.mask(text, wrapped=False) or "")

    def _emit(self, text: str) -> None:
        """Keep ``text``, but for one newline at its end: the output's last newline ends its last
        line and is not part of the text (``echo x`` gives ``x``); blank lines before it are."""
        text = self._newline + text
        self._newline = "\n" if text.endswith("\n") else ""
        text = text[:len(text) - len(self._newline)]
        if not text:
            return
        self.chars += len(text)
        self.newlines += text.count("\n")
        if self._file is None:
            self._kept.append(text)
            self._kept_chars += len(text)
            if self._kept_chars > self.cap:
                self._spill()
            return
        self._file.write(text)
        self._keep_tail(text)

    # --- over the cap: head and tail in memory, the rest in the file ------------
    def _spill(self) -> None:
        whole = "".join(self._kept)
        self._kept, self._kept_chars = [], 0
        self._head = whole[: int(self.cap * HEAD_SHARE)]
        self._file = _open_private(self.path)
        self._file.write(whole)
        self._keep_tail(whole)

    def _keep_tail(self, text: str) -> None:
        keep = self.cap - int(self.cap * HEAD_SHARE)
        self._tail.append(text[-keep:])
        self._tail_chars += len(self._tail[-1])
        while self._tail_chars - len(self._tail[0]) >= keep:
            self._tail_chars -= len(self._tail.popleft())

    # --- out --------------------------------------------------------------------
    def finish(self) -> tuple[str, Extra]:
        """The text for the agent, and the extra fields naming the saved file."""
        self._clean_waiting(final=True)
        if self._open_pem:
            pem, self._open_pem = self._open_pem, ""
            self._emit(self.mask(pem, wrapped=False) or "")
        if self.needs_emulator:
            return self._emulated()
        if self._file is None:
            return "".join(self._kept), {}
        self._file.close()
        tail = "".join(self._tail)[-(self.cap - int(self.cap * HEAD_SHARE)):]
        return (join_cut(self._head, tail, self.chars, self.newlines, str(self.path)),
                Extra(output_file=str(self.path), output_chars=self.chars))

    def _emulated(self) -> tuple[str, Extra]:
        """What the agent reads of output that moves the cursor: rendered by the emulator."""
        from ..screen import render_transcript

        if self._small is not None:
            text = self.mask(render_transcript(bytes(self._small), self.width)) or ""
            if self._file is not None:
                self._file.close()
            if len(text) <= self.cap:
                if self._file is not None:
                    self.path.unlink(missing_ok=True)
                return text, {}
            with _open_private(self.path) as fh:
                fh.write(text)
            return cap_text(text, self.cap, str(self.path)), {"output_file": str(self.path),
                                                               "output_chars": len(text)}
        cut = self.raw_size - len(self._raw_head) - min(len(self._raw_tail), RENDER_LIMIT)
        text = (
            (self.mask(render_transcript(self._raw_head, self.width)) or "")
            + f"\n[... {cut} bytes of output not shown ...]\n"
            + (
                self.mask(render_transcript(bytes(self._raw_tail[-RENDER_LIMIT:]), self.width))
                or ""
            )
        )
        if self._file is None:
            self._spill()
        assert self._file is not None
        self._file.close()
        return cap_text(text, self.cap, str(self.path)), {"output_file": str(self.path),
                                                           "output_chars": self.chars}


def _open_private(path: Path) -> TextIO:
    """A new file only this user can read (0600), for writing text (its folder made private too)."""
    private_path(path.parent)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)
    return os.fdopen(fd, "w", encoding="utf-8", errors="replace")
