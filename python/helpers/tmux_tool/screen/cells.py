"""How many terminal cells a character takes, measured the way tmux measures it.

Screens come from tmux, so a column is only right if we agree with tmux on
every character's width.  tmux (built without utf8proc, as on Debian) asks the
C library's ``wcwidth()``; the ``wcwidth`` package on PyPI follows a newer
Unicode table and disagrees on hundreds of characters (Indic spacing marks,
recently assigned CJK, unassigned code points).  So we call the C library when
it answers in a UTF-8 locale and fall back to the package otherwise.

tmux 3.3a rules this module encodes:

* a character whose width is negative (unassigned, or a control) is dropped;
* a width-0 character (combining mark, variation selector) joins the cell to
  its left and takes no cell of its own;
* a zero width joiner (U+200D) makes the *next* non-ASCII character join the
  same cell, so an emoji ZWJ sequence sits in one (2-cell) cell;
* one cell holds at most 21 bytes of UTF-8; tmux drops what would overflow
  it, and drops a joining character at column 0.  The emulator differs here
  on purpose: a visible character that cannot join gets its own cell, so no
  text is ever lost (only a lone ZWJ or variation selector can vanish).
"""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Callable
from functools import lru_cache

from pyte.charsets import VT100_MAP
from wcwidth import wcwidth as _package_wcwidth

ZWJ = "\u200d"
CELL_BYTES = 21
# DEC special graphics (line drawing) for text drawn after ``ESC ( 0`` / SO.
ACS_TABLE = VT100_MAP


def _libc_wcwidth() -> Callable[[str], int] | None:
    """The C library's ``wcwidth`` if it works in this process's locale."""
    name = ctypes.util.find_library("c")
    if not name:
        return None
    try:
        func = ctypes.CDLL(name).wcwidth
    except (OSError, AttributeError):
        return None
    func.argtypes = [ctypes.c_wchar]
    func.restype = ctypes.c_int
    # Only trust it when the locale is UTF-8 aware (CJK wide, accents narrow).
    if func("\u4e2d") != 2 or func("\u00e9") != 1 or func("\u0301") != 0:
        return None
    return func


_measure: Callable[[str], int] = _libc_wcwidth() or _package_wcwidth


@lru_cache(maxsize=65536)
def char_width(ch: str) -> int:
    """Cells taken by one character: 0, 1 or 2; -1 when tmux drops it."""
    if " " <= ch < "\x7f":
        return 1
    if ch < " " or "\x7f" <= ch < "\xa0":
        return -1
    width = _measure(ch)
    return width if width <= 2 else 1


def text_width(text: str) -> int:
    """Cells taken by text as tmux laid it out in a capture.

    A capture prints each cell's characters in order, so a character that tmux
    joined onto the cell before it (width 0, or the character after a ZWJ)
    adds nothing.  Characters tmux would have dropped count as one cell, because if
    they are in a capture at all, something drew them.
    """
    if text.isascii():
        return len(text)
    total = 0
    joined = False
    for ch in text:
        if ch == ZWJ:
            joined = True
            continue
        if joined:
            joined = False
            continue
        joined = False
        width = char_width(ch)
        total += 1 if width < 0 else width
    return total
